// DEMO_DATA=1: a realistic demo programme so every screen has something to show —
// sites across the territory's cities with their cells, referents, a provider, two internal
// agents without a role, and a
// year of interventions (with the requests they raise). Runs once: skipped when any
// site exists. Deterministic (seeded random) so screenshots and tests are repeatable. In Brest
// Métropole (the default territory) every site stands near its commune's centre.
import { sql } from 'kysely';
import type { Db } from './client.js';
import { hashPassword } from '../passwords.js';
import { ACTION, SITE_STATUT, STATUT_EN_ATTENTE, TYPE_BAC, TYPE_USER, roleId } from '../../shared/domain.js';

export const DEMO_PASSWORD = 'demo-compost';

function rng(seed: number) {
  let s = seed >>> 0;
  return () => {
    s = (s * 1664525 + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

const STREETS = [
  'Rue de Siam', 'Rue Jean Jaurès', 'Boulevard Gambetta', 'Rue de Lyon', 'Place de la Liberté', 'Rue de Saint-Marc',
  'Rue de Kerfautras', 'Avenue Clemenceau', 'Rue de la République', 'Rue Jules Lesven', 'Rue du Château', 'Rue de Paris',
];
const REFERENTS: [string, string][] = [
  ['LE GALL', 'Anne'], ['KERBRAT', 'Yann'], ['MORVAN', 'Sophie'], ['LE BRIS', 'Pierre'], ['GUÉGUEN', 'Maëlle'],
  ['TANGUY', 'Erwan'], ['QUÉRÉ', 'Nolwenn'], ['CARIOU', 'Loïc'],
];

/**
 * The centres of Brest Métropole's eight communes (town hall or church square, by INSEE code),
 * in WGS 84 degrees: approximate (about a hundred metres), enough for a demo map. A site is put a
 * few hundred metres north of it (never south: Brest, Le Relecq-Kerhuon and Plougastel-Daoulas
 * have the roadstead or the Elorn to the south), so every point is on land in its commune.
 */
const COMMUNE_CENTRES: Record<string, { latitude: number; longitude: number }> = {
  '29011': { latitude: 48.4297, longitude: -4.5125 }, // Bohars
  '29019': { latitude: 48.3906, longitude: -4.4858 }, // Brest
  '29061': { latitude: 48.4514, longitude: -4.465 }, // Gouesnou
  '29069': { latitude: 48.4256, longitude: -4.5583 }, // Guilers
  '29075': { latitude: 48.4353, longitude: -4.3994 }, // Guipavas
  '29189': { latitude: 48.3731, longitude: -4.37 }, // Plougastel-Daoulas
  '29212': { latitude: 48.3814, longitude: -4.6189 }, // Plouzané
  '29235': { latitude: 48.4083, longitude: -4.3964 }, // Le Relecq-Kerhuon
};
/** Offsets (degrees north, east) of a commune's first, second... site: at most about 330 m. */
const OFFSETS: [number, number][] = [
  [0.0005, 0],
  [0.0022, -0.0031],
  [0.0011, 0.0027],
  [0.003, 0.0009],
  [0.0016, -0.0014],
];

/** Where the `n`-th demo site of a commune stands; none outside Brest Métropole. */
function demoPosition(codeInsee: string, n: number) {
  const centre = COMMUNE_CENTRES[codeInsee];
  if (!centre) return { latitude: null, longitude: null, coordonnees_source: null };
  const [north, east] = OFFSETS[n % OFFSETS.length];
  const round = (v: number) => Math.round(v * 1e6) / 1e6;
  return { latitude: round(centre.latitude + north), longitude: round(centre.longitude + east), coordonnees_source: 'saisie' as const };
}

export const DEMO_AGENTS = [
  { identifiant: 'rpenven', nom: 'PENVEN', prenom: 'Rozenn' },
  { identifiant: 'tlhostis', nom: "L'HOSTIS", prenom: 'Tanguy' },
] as const;

export async function seedDemoData(db: Db): Promise<{ created: boolean; sites?: number; interventions?: number }> {
  const any = await db.selectFrom('site').select('id').limit(1).executeTakeFirst();
  if (any) return { created: false };
  const rand = rng(2026);
  const pick = <T,>(list: readonly T[]) => list[Math.floor(rand() * list.length)];
  const hash = await hashPassword(DEMO_PASSWORD);

  return db.transaction().execute(async (trx) => {
    const villes = await trx.selectFrom('ville').select(['nom', 'cp', 'code_insee']).orderBy('nom').execute();
    if (villes.length === 0) return { created: false };
    const types = await trx.selectFrom('type_site').select(['id', 'code']).orderBy('id').execute();
    const composteurs = await trx.selectFrom('type_composteur').select(['id', 'volume']).orderBy('id').execute();

    // Accounts: referents (ROLE_USER) and one provider (ROLE_PRESTATAIRE).
    const referentIds: number[] = [];
    for (const [i, [nom, prenom]] of REFERENTS.entries()) {
      const row = await trx
        .insertInto('account')
        .values({ kind: 'user', email: `referent${i + 1}@demo.compost.fr`, password_hash: hash, type_user_id: TYPE_USER.particulier, nom, prenom, tel: `06000000${String(i).padStart(2, '0')}`, email_valide: true, actif: true })
        .returning('id')
        .executeTakeFirstOrThrow();
      await trx.insertInto('account_role').values({ account_id: row.id, role_id: roleId('ROLE_USER') }).execute();
      referentIds.push(row.id);
    }
    const provider = await trx
      .insertInto('account')
      .values({ kind: 'user', email: 'prestataire@demo.compost.fr', password_hash: hash, type_user_id: TYPE_USER.prestataire, organisme: 'Compost Services', nom: 'SERVICES', prenom: 'Compost', tel: '0298000000', email_valide: true, actif: true })
      .returning('id')
      .executeTakeFirstOrThrow();
    await trx.insertInto('account_role').values({ account_id: provider.id, role_id: roleId('ROLE_PRESTATAIRE') }).execute();

    // Internal agents without a role yet: the roles screen has someone to give roles to.
    for (const agent of DEMO_AGENTS) {
      await trx
        .insertInto('account')
        .values({ kind: 'agent', identifiant: agent.identifiant, email: `${agent.identifiant}@demo.compost.fr`, password_hash: hash, nom: agent.nom, prenom: agent.prenom, email_valide: true, actif: true })
        .execute();
    }

    // Sites: 30 active ones with 3 to 5 cells, and 4 requests (status 2).
    const now = new Date();
    const yearAgo = new Date(now.getTime() - 365 * 24 * 3600 * 1000);
    const sites: { id: number; cells: { id: number; typeBac: number; numero: number }[] }[] = [];
    for (let i = 0; i < 34; i++) {
      const type = types[i % types.length];
      const seq = await trx
        .updateTable('type_site')
        .set({ next_sequence: sql`next_sequence + 1` })
        .where('id', '=', type.id)
        .returning(sql<number>`next_sequence - 1`.as('n'))
        .executeTakeFirstOrThrow();
      const ville = villes[i % villes.length];
      const active = i < 30;
      let demandeurId: number | null = null;
      if (!active) {
        const d = await trx
          .insertInto('demandeur')
          .values({ date: now, civilite: i % 2 ? 'Madame' : 'Monsieur', nom: 'DEMANDEUR', prenom: `Camille${i}`, fonction: pick(['Mairie', 'Ecole', 'Bailleur Social', 'Syndic copro']), telephone: '02 98 00 00 00', email: `demande${i}@demo.compost.fr`, periode_implantation: 'Printemps', annee_implantation: now.getFullYear() + 1 })
          .returning('id')
          .executeTakeFirstOrThrow();
        demandeurId = d.id;
      }
      const site = await trx
        .insertInto('site')
        .values({
          code: `${type.code}${String(seq.n).padStart(3, '0')}`,
          nom: `Compost ${pick(['des Capucins', 'du Square', 'de la Résidence', 'des Jardins', 'du Quartier', 'de l’École'])} ${i + 1}`,
          ville: ville.nom,
          cp: ville.cp,
          code_insee: ville.code_insee,
          adresse: pick(STREETS),
          numero: String(1 + Math.floor(rand() * 80)),
          type_site_id: type.id,
          cadena: active ? String(1000 + Math.floor(rand() * 9000)) : null,
          statut_id: active ? SITE_STATUT.actif : SITE_STATUT.demande,
          demandeur_id: demandeurId,
          date_implantation: active ? new Date(yearAgo.getTime() - rand() * 3 * 365 * 24 * 3600 * 1000) : null,
          ...demoPosition(ville.code_insee, Math.floor(i / villes.length)),
        })
        .returning('id')
        .executeTakeFirstOrThrow();
      if (!active) continue;
      await trx.insertInto('site_convention').values({ site_id: site.id, date_convention: new Date(yearAgo.getTime() - 30 * 24 * 3600 * 1000) }).execute();
      await trx.insertInto('site_referent').values({ site_id: site.id, account_id: referentIds[i % referentIds.length] }).execute();
      const { apport, broyat, maturation } = TYPE_BAC;
      const cellTypes = [apport, apport, broyat, maturation, ...(i % 2 ? [maturation] : [])];
      const cells = [];
      for (const [n, typeBac] of cellTypes.entries()) {
        const c = await trx
          .insertInto('site_composteur')
          .values({ site_id: site.id, type_composteur_id: pick(composteurs).id, type_bac_id: typeBac, numero: n + 1 })
          .returning(['id', 'type_bac_id', 'numero'])
          .executeTakeFirstOrThrow();
        cells.push({ id: c.id, typeBac: c.type_bac_id, numero: c.numero });
      }
      sites.push({ id: site.id, cells });
    }

    // A year of interventions: about two visits a month per site.
    const rows: {
      date: Date; site_id: number; site_composteur_id: number; type_action_id: number; valeur_nombre: number | null;
      valeur_constante: number | null; valeur_texte: string | null; bac_destination_id: number | null; observations: string | null; intervenant_id: number;
    }[] = [];
    for (const [si, site] of sites.entries()) {
      const intervenant = si % 4 === 0 ? provider.id : referentIds[si % referentIds.length];
      for (let visit = 0; visit < 24; visit++) {
        const date = new Date(yearAgo.getTime() + ((visit + rand()) / 24) * 365 * 24 * 3600 * 1000);
        date.setUTCHours(8 + Math.floor(rand() * 9), Math.floor(rand() * 60), 0, 0);
        if (date > now) continue;
        const apport = site.cells.find((c) => c.typeBac === TYPE_BAC.apport)!;
        const broyat = site.cells.find((c) => c.typeBac === TYPE_BAC.broyat)!;
        const maturation = site.cells.find((c) => c.typeBac === TYPE_BAC.maturation)!;
        const base = { date, site_id: site.id, valeur_nombre: null, valeur_constante: null, valeur_texte: null, bac_destination_id: null, observations: null, intervenant_id: intervenant };
        rows.push({ ...base, site_composteur_id: apport.id, type_action_id: ACTION.temperature, valeur_nombre: Math.round((25 + rand() * 35) * 10) / 10 });
        rows.push({ ...base, site_composteur_id: broyat.id, type_action_id: ACTION.apportBroyat, valeur_nombre: 50 + Math.floor(rand() * 10) * 25 });
        rows.push({ ...base, site_composteur_id: apport.id, type_action_id: ACTION.retournement });
        if (visit % 3 === 0) rows.push({ ...base, site_composteur_id: apport.id, type_action_id: ACTION.transfert, valeur_nombre: 100 + Math.floor(rand() * 4) * 50, bac_destination_id: maturation.id });
        if (visit % 4 === 1) rows.push({ ...base, site_composteur_id: maturation.id, type_action_id: ACTION.arrosage, valeur_nombre: 10 + Math.floor(rand() * 4) * 10 });
        if (visit % 6 === 2) rows.push({ ...base, site_composteur_id: maturation.id, type_action_id: ACTION.tamisage, valeur_nombre: 100 + Math.floor(rand() * 3) * 50 });
        if (visit % 6 === 5) rows.push({ ...base, site_composteur_id: maturation.id, type_action_id: ACTION.distributionCompost, valeur_nombre: 50 + Math.floor(rand() * 4) * 25 });
        if (visit % 8 === 3) rows.push({ ...base, site_composteur_id: apport.id, type_action_id: ACTION.etatComposteur, valeur_constante: pick([10, 10, 11]) });
        if (visit % 12 === 7) rows.push({ ...base, site_composteur_id: broyat.id, type_action_id: ACTION.autreIntervention, observations: 'Nettoyage des abords après la fête de quartier' });
      }
    }
    for (let i = 0; i < rows.length; i += 500) await trx.insertInto('intervention').values(rows.slice(i, i + 500)).execute();

    // Two pending requests raised the way the rules raise them, so the board is not empty.
    const recent = sites.slice(0, 2);
    for (const site of recent) {
      const cell = site.cells[0];
      const trigger = await trx
        .insertInto('intervention')
        .values({ date: now, site_id: site.id, site_composteur_id: cell.id, type_action_id: ACTION.reparationAEffectuer, valeur_texte: 'Charnière du couvercle cassée', intervenant_id: referentIds[0] })
        .returning('id')
        .executeTakeFirstOrThrow();
      await trx
        .insertInto('demande_intervention')
        .values({ site_id: site.id, site_composteur_id: cell.id, statut_id: STATUT_EN_ATTENTE, type_action_programmee_id: ACTION.reparationEffectuee, intervention_declenchante_id: trigger.id, date_echeance: new Date(now.getTime() + 14 * 24 * 3600 * 1000) })
        .execute();
    }
    return { created: true, sites: 34, interventions: rows.length + recent.length };
  });
}
