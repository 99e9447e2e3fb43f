// Role -> what it may do (the product's table of roles, docs/domain.md "Accounts"). The
// server enforces these, the UI hides what the current user may not use. One map, both sides.
import { ROLES, type Role } from './domain.js';

export { ROLES, type Role };

/** What each role code means, in French, shown beside the code wherever roles are listed. */
export const ROLE_LABELS: Record<Role, string> = {
  ROLE_ADMIN: 'Administrateur',
  ROLE_ADMIN_SITE: 'Gestion des sites',
  ROLE_ADMIN_USER: 'Gestion des utilisateurs externes',
  ROLE_ADMIN_ROLE: 'Gestion des rôles des agents',
  ROLE_ADMIN_COMPOSTEUR: 'Gestion des composteurs',
  ROLE_ADMIN_UPDATE: 'Modification des interventions',
  ROLE_ADMIN_DELETE: 'Suppression des interventions',
  ROLE_USER: 'Référent de site',
  ROLE_PRESTATAIRE: 'Prestataire',
};

/** 'Administrateur' for ROLE_ADMIN; an unknown code has no label. */
export function roleLabel(code: string): string | undefined {
  return (ROLE_LABELS as Record<string, string>)[code];
}

/** Roles that belong to external users only and are never given to agents. */
export const EXTERNAL_ROLES: readonly Role[] = ['ROLE_USER', 'ROLE_PRESTATAIRE'];

export const PERMISSIONS = {
  /** Record interventions on a site (referents on their own sites only). */
  'intervention.add': ['ROLE_ADMIN', 'ROLE_ADMIN_SITE', 'ROLE_USER', 'ROLE_PRESTATAIRE'],
  /** See every active site when choosing where to intervene. */
  'site.chooseAll': ['ROLE_ADMIN', 'ROLE_ADMIN_SITE', 'ROLE_PRESTATAIRE'],
  'site.manage': ['ROLE_ADMIN', 'ROLE_ADMIN_SITE'],
  'siteType.manage': ['ROLE_ADMIN', 'ROLE_ADMIN_SITE'],
  'intervention.list': ['ROLE_ADMIN', 'ROLE_ADMIN_SITE'],
  'intervention.update': ['ROLE_ADMIN_UPDATE'],
  'intervention.delete': ['ROLE_ADMIN_DELETE'],
  'request.manage': ['ROLE_ADMIN', 'ROLE_PRESTATAIRE'],
  /** The request rules table (an addition to the original contract): which entries raise which request. */
  'request.rules': ['ROLE_ADMIN'],
  'user.manage': ['ROLE_ADMIN', 'ROLE_ADMIN_USER'],
  'role.manage': ['ROLE_ADMIN', 'ROLE_ADMIN_ROLE'],
  'composter.manage': ['ROLE_ADMIN', 'ROLE_ADMIN_COMPOSTEUR'],
  'stats.view': ['ROLE_ADMIN', 'ROLE_ADMIN_USER', 'ROLE_ADMIN_ROLE', 'ROLE_ADMIN_SITE', 'ROLE_ADMIN_COMPOSTEUR', 'ROLE_ADMIN_UPDATE', 'ROLE_ADMIN_DELETE'],
  /** Alert thresholds and the run of the daily alerts job. */
  'alert.settings': ['ROLE_ADMIN'],
  /** Moving in: importing sites, users and interventions from files, and taking them away. */
  'data.import': ['ROLE_ADMIN'],
  /** Backups: their status and making one now. */
  'backup.manage': ['ROLE_ADMIN'],
  /** The open alerts of what the user follows: all for ROLE_ADMIN, requests for providers, their sites for referents. */
  'alert.view': ['ROLE_ADMIN', 'ROLE_PRESTATAIRE', 'ROLE_USER'],
  /** The yearly report of the programme and of each site. */
  'report.yearly': ['ROLE_ADMIN', 'ROLE_ADMIN_SITE'],
  /** Anonymous reports of a site: ROLE_ADMIN, and referents on their own sites. */
  'signalement.handle': ['ROLE_ADMIN', 'ROLE_USER'],
  /** The map of the sites (/admin/carte): the roles that see every site, and providers. */
  'map.view': ['ROLE_ADMIN', 'ROLE_ADMIN_SITE', 'ROLE_PRESTATAIRE'],
  /** The day's route through the planned requests (/admin/tournee): whoever runs the board. */
  'route.view': ['ROLE_ADMIN', 'ROLE_PRESTATAIRE'],
  /** Permanences of a site (schedule, cancel) and its households (confirm, news): ROLE_ADMIN and ROLE_ADMIN_SITE on every site, referents on their own sites. */
  'permanence.manage': ['ROLE_ADMIN', 'ROLE_ADMIN_SITE', 'ROLE_USER'],
  'foyer.manage': ['ROLE_ADMIN', 'ROLE_ADMIN_SITE', 'ROLE_USER'],
  /** Reference lists under /api/admin used by every logged-in screen (years, statuses, active sites). */
  'reference.read': ROLES as unknown as Role[],
} as const satisfies Record<string, readonly Role[]>;
export type Permission = keyof typeof PERMISSIONS;

export function can(roles: readonly string[] | undefined, permission: Permission): boolean {
  if (!roles) return false;
  const allowed: readonly string[] = PERMISSIONS[permission];
  return roles.some((r) => allowed.includes(r));
}

/** Where /admin sends a user (each role's home screen); null: log out. */
export function homePathFor(roles: readonly string[]): string | null {
  if (roles.includes('ROLE_ADMIN')) return '/admin/site';
  if (roles.includes('ROLE_USER') || roles.includes('ROLE_PRESTATAIRE')) return '/admin/choix/site';
  if (roles.includes('ROLE_ADMIN_SITE')) return '/admin/site';
  if (roles.includes('ROLE_ADMIN_USER')) return '/admin/user';
  if (roles.includes('ROLE_ADMIN_ROLE')) return '/admin/role';
  if (roles.includes('ROLE_ADMIN_COMPOSTEUR')) return '/admin/composteur';
  return null;
}

/** A user whose only role is ROLE_USER does not load all active sites (the product's role table). */
export function loadsAllActiveSites(roles: readonly string[]): boolean {
  return roles.some((r) => r !== 'ROLE_USER');
}

export interface NavEntry {
  label: string;
  path: string;
  roles: readonly Role[];
}

/** Drawer entries, in the order of the contract's screen layout. */
export const NAV_ENTRIES: readonly NavEntry[] = [
  { label: 'Saisir une intervention', path: '/admin/choix/site', roles: ['ROLE_ADMIN', 'ROLE_ADMIN_SITE'] },
  { label: 'Choix du site', path: '/admin/choix/site', roles: ['ROLE_USER', 'ROLE_PRESTATAIRE'] },
  { label: 'Signalements', path: '/admin/signalements', roles: ['ROLE_USER'] },
  { label: 'Demandes interventions', path: '/admin/demande/intervention/list', roles: ['ROLE_ADMIN', 'ROLE_PRESTATAIRE'] },
  { label: 'Utilisateurs', path: '/admin/user', roles: ['ROLE_ADMIN', 'ROLE_ADMIN_USER'] },
  { label: 'Sites', path: '/admin/site', roles: ['ROLE_ADMIN', 'ROLE_ADMIN_SITE'] },
  { label: 'Composteurs', path: '/admin/composteur', roles: ['ROLE_ADMIN', 'ROLE_ADMIN_COMPOSTEUR'] },
  { label: 'Types de Site', path: '/admin/typeSite', roles: ['ROLE_ADMIN', 'ROLE_ADMIN_SITE'] },
  { label: 'Interventions', path: '/admin/interventions', roles: ['ROLE_ADMIN', 'ROLE_ADMIN_SITE'] },
  { label: 'Règles des demandes', path: '/admin/demande/regles', roles: ['ROLE_ADMIN'] },
  { label: 'Roles', path: '/admin/role', roles: ['ROLE_ADMIN', 'ROLE_ADMIN_ROLE'] },
  { label: 'Alertes', path: '/admin/alertes', roles: ['ROLE_ADMIN', 'ROLE_PRESTATAIRE', 'ROLE_USER'] },
  { label: "Seuils d'alerte", path: '/admin/alertes/seuils', roles: ['ROLE_ADMIN'] },
  { label: 'Rapport annuel', path: '/admin/rapport', roles: ['ROLE_ADMIN', 'ROLE_ADMIN_SITE'] },
  { label: 'Import', path: '/admin/import', roles: ['ROLE_ADMIN'] },
  { label: 'Statistiques', path: '/admin/stats', roles: ['ROLE_ADMIN', 'ROLE_ADMIN_USER', 'ROLE_ADMIN_ROLE', 'ROLE_ADMIN_SITE', 'ROLE_ADMIN_COMPOSTEUR'] },
];

/** Entries shown to these roles; the first matching entry for a path wins. */
export function navFor(roles: readonly string[]): NavEntry[] {
  const seen = new Set<string>();
  return NAV_ENTRIES.filter((e) => {
    if (seen.has(e.path) || !e.roles.some((r) => roles.includes(r))) return false;
    seen.add(e.path);
    return true;
  });
}
