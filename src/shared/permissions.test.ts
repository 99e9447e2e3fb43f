import { describe, expect, it } from 'vitest';
import { NAV_ENTRIES, PERMISSIONS, ROLES, can, homePathFor, loadsAllActiveSites, navFor, type Role } from './permissions.js';

const labels = (roles: Role[]) => navFor(roles).map((e) => e.label);

describe('permissions map', () => {
  it('names only known roles', () => {
    for (const roles of Object.values(PERMISSIONS)) for (const r of roles) expect(ROLES).toContain(r);
  });

  it('gives statistics to every ROLE_ADMIN* role and never to external users (the role table of the product)', () => {
    for (const r of ROLES.filter((x) => x.startsWith('ROLE_ADMIN'))) expect(can([r], 'stats.view'), r).toBe(true);
    expect(can(['ROLE_USER'], 'stats.view')).toBe(false);
    expect(can(['ROLE_PRESTATAIRE'], 'stats.view')).toBe(false);
  });

  it('keeps intervention edit and delete to their own roles, even away from ROLE_ADMIN', () => {
    expect(can(['ROLE_ADMIN'], 'intervention.update')).toBe(false);
    expect(can(['ROLE_ADMIN'], 'intervention.delete')).toBe(false);
    expect(can(['ROLE_ADMIN_UPDATE'], 'intervention.update')).toBe(true);
    expect(can(['ROLE_ADMIN_DELETE'], 'intervention.delete')).toBe(true);
  });

  it('grants a permission when any of the roles holds it, and nothing without roles', () => {
    expect(can(['ROLE_USER', 'ROLE_ADMIN_USER'], 'user.manage')).toBe(true);
    expect(can([], 'reference.read')).toBe(false);
    expect(can(undefined, 'reference.read')).toBe(false);
    expect(can(['ROLE_INCONNU'], 'reference.read')).toBe(false);
  });
});

describe('drawer entries (the screen layout)', () => {
  it('lists the entries in the order of the contract', () => {
    expect(NAV_ENTRIES.map((e) => [e.label, e.path])).toEqual([
      ['Saisir une intervention', '/admin/choix/site'],
      ['Choix du site', '/admin/choix/site'],
      ['Signalements', '/admin/signalements'],
      ['Demandes interventions', '/admin/demande/intervention/list'],
      ['Utilisateurs', '/admin/user'],
      ['Sites', '/admin/site'],
      ['Composteurs', '/admin/composteur'],
      ['Types de Site', '/admin/typeSite'],
      ['Interventions', '/admin/interventions'],
      ['Règles des demandes', '/admin/demande/regles'],
      ['Roles', '/admin/role'],
      ['Alertes', '/admin/alertes'],
      ["Seuils d'alerte", '/admin/alertes/seuils'],
      ['Rapport annuel', '/admin/rapport'],
      ['Import', '/admin/import'],
      ['Statistiques', '/admin/stats'],
    ]);
  });

  it.each<[Role[], string[]]>([
    [['ROLE_ADMIN'], ['Saisir une intervention', 'Demandes interventions', 'Utilisateurs', 'Sites', 'Composteurs', 'Types de Site', 'Interventions', 'Règles des demandes', 'Roles', 'Alertes', "Seuils d'alerte", 'Rapport annuel', 'Import', 'Statistiques']],
    [['ROLE_ADMIN_SITE'], ['Saisir une intervention', 'Sites', 'Types de Site', 'Interventions', 'Rapport annuel', 'Statistiques']],
    [['ROLE_ADMIN_USER'], ['Utilisateurs', 'Statistiques']],
    [['ROLE_ADMIN_ROLE'], ['Roles', 'Statistiques']],
    [['ROLE_ADMIN_COMPOSTEUR'], ['Composteurs', 'Statistiques']],
    [['ROLE_ADMIN_UPDATE'], []],
    [['ROLE_USER'], ['Choix du site', 'Signalements', 'Alertes']],
    [['ROLE_PRESTATAIRE'], ['Choix du site', 'Demandes interventions', 'Alertes']],
    [[], []],
  ])('gives %j the entries %j', (roles, expected) => {
    expect(labels(roles)).toEqual(expected);
  });

  it('shows one entry per screen when two roles name it differently', () => {
    expect(labels(['ROLE_ADMIN', 'ROLE_USER'])).toContain('Saisir une intervention');
    expect(labels(['ROLE_ADMIN', 'ROLE_USER'])).not.toContain('Choix du site');
  });
});

describe('admin home redirect (the home screen of each role)', () => {
  it.each<[Role[], string | null]>([
    [['ROLE_ADMIN'], '/admin/site'],
    [['ROLE_USER'], '/admin/choix/site'],
    [['ROLE_PRESTATAIRE'], '/admin/choix/site'],
    [['ROLE_ADMIN_SITE'], '/admin/site'],
    [['ROLE_ADMIN_USER'], '/admin/user'],
    [['ROLE_ADMIN_ROLE'], '/admin/role'],
    [['ROLE_ADMIN_COMPOSTEUR'], '/admin/composteur'],
    [['ROLE_ADMIN_UPDATE'], null],
    [['ROLE_ADMIN_DELETE'], null],
    [[], null],
  ])('sends %j to %s', (roles, path) => {
    expect(homePathFor(roles)).toBe(path);
  });
});

describe('active sites at start (the role table of the product)', () => {
  it('are loaded for everyone but a user whose only role is ROLE_USER', () => {
    expect(loadsAllActiveSites(['ROLE_USER'])).toBe(false);
    expect(loadsAllActiveSites(['ROLE_PRESTATAIRE'])).toBe(true);
    expect(loadsAllActiveSites(['ROLE_USER', 'ROLE_ADMIN_SITE'])).toBe(true);
    expect(loadsAllActiveSites(['ROLE_ADMIN'])).toBe(true);
  });
});
