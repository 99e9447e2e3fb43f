// The bench dataset: a metropolitan programme at 1M (or 100k) interventions,
// generated in SQL (generate_series, INSERT ... SELECT) with the app's own schema and rules, on
// PostgreSQL or on an embedded PGlite directory (the same SQL runs on both).
//
// How a dataset is built, and why in this order:
//  1. the app's migrations up to BASE_MIGRATION (the schema this generator was written for)
//     and the app's start-time seeds (cities, sample streets);
//  2. accounts, sites, cells, referents, conventions; then the intervention log, its requests
//     and its submissions with foreign-key checks off (session_replication_role = replica, the
//     rows are consistent by construction) and the log's secondary indexes built after the load;
//  3. the remaining migrations, so that a migration added later (an index, a summary table and
//     its backfill, a trigger) meets the data exactly as it meets a real database in production;
//  4. a marker row (bench_dataset: name, generator version, shape) so the next run reuses it.
// A dataset whose marker has another GENERATOR_VERSION is dropped and rebuilt.
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { sql } from 'kysely';
import pg from 'pg';
import type { Db } from '../src/server/db/client.js';
import { loadMigrations, migrate } from '../src/server/db/migrate.js';
import { seedCities } from '../src/server/db/seed.js';
import { seedStreetsSample } from '../src/server/modules/reference/public.js';
import { hashPassword } from '../src/server/passwords.js';
import { INTERVENTION_MESSAGES } from '../src/shared/schemas/intervention-rules.js';

/** Bump when the generated data changes: existing datasets are then rebuilt. */
export const GENERATOR_VERSION = 2;
/** The migrations the generator writes for; later ones run on the generated data. */
export const BASE_MIGRATION = 4;
/** Password of every generated account (the bench logs in with it). */
export const BENCH_PASSWORD = 'bench-motdepasse';
export const BENCH_ADMIN_LOGIN = 'bench-admin';
export const BENCH_PROVIDER_EMAIL = 'bench-presta@compost.test';
/** The default territory of config.ts (Brest métropole): the app seeds its cities. */
const TERRITORY = '242900314';

export type DatasetName = '1m' | '100k';

export interface DatasetShape {
  sites: number;
  requestedSites: number;
  agents: number;
  providers: number;
  users: number;
  interventions: number;
  busySites: number;
}

export const DATASETS: Record<DatasetName, DatasetShape> = {
  '1m': { sites: 2000, requestedSites: 60, agents: 100, providers: 40, users: 4858, interventions: 1_000_000, busySites: 10 },
  '100k': { sites: 200, requestedSites: 6, agents: 10, providers: 4, users: 484, interventions: 100_000, busySites: 3 },
};

export interface DatasetInfo {
  name: DatasetName;
  version: number;
  builtAt: string;
  buildSeconds: number;
  counts: Record<string, number>;
  busiestYear: number;
  busiestSiteId: number;
  busiestSiteRows: number;
  /** A site with a median number of rows, for the 'typical site' variants. */
  typicalSiteId: number;
  providerId: number;
  adminId: number;
  /** Referents (login e-mail) of the busiest sites: submissions are posted as them. */
  referents: { email: string; siteIds: number[] }[];
}

// ---------------------------------------------------------------------------------------------
// Database URLs: one PostgreSQL database per dataset size.

export function benchBaseUrl(): string | undefined {
  return process.env.BENCH_DATABASE_URL ?? process.env.TEST_DATABASE_URL;
}

/** postgres://host/whatever -> postgres://host/compost_bench_1m (the database named for the dataset). */
export function datasetUrl(base: string, name: DatasetName): string {
  const u = new URL(base);
  u.pathname = `/compost_bench_${name}`;
  return u.toString();
}

async function adminQuery(base: string, text: string) {
  const u = new URL(base);
  u.pathname = '/postgres';
  const client = new pg.Client({ connectionString: u.toString() });
  await client.connect();
  try {
    return await client.query(text);
  } finally {
    await client.end();
  }
}

export async function ensurePgDatabase(base: string, name: DatasetName, drop: boolean): Promise<string> {
  const url = datasetUrl(base, name);
  const dbName = `compost_bench_${name}`;
  if (drop) await adminQuery(base, `DROP DATABASE IF EXISTS ${dbName} WITH (FORCE)`);
  const exists = await adminQuery(base, `SELECT 1 FROM pg_database WHERE datname = '${dbName}'`);
  if (exists.rowCount === 0) await adminQuery(base, `CREATE DATABASE ${dbName}`);
  return url;
}

// ---------------------------------------------------------------------------------------------
// Marker.

export async function readMarker(db: Db, name: DatasetName): Promise<DatasetInfo | null> {
  const has = await sql<{ t: string | null }>`SELECT to_regclass('public.bench_dataset')::text AS t`.execute(db);
  if (!has.rows[0]?.t) return null;
  const row = await sql<{ info: DatasetInfo | string }>`SELECT info FROM bench_dataset WHERE name = ${name}`.execute(db);
  const info = row.rows[0]?.info;
  if (!info) return null;
  return typeof info === 'string' ? (JSON.parse(info) as DatasetInfo) : info;
}

// Migrations change while they are being written: a dataset that got an earlier text of a
// migration would be measured with a schema no fresh database has. The text of every applied
// migration is recorded; a dataset whose applied migration changed (or vanished) is rebuilt.
const hashOf = (up: string) => crypto.createHash('sha256').update(up).digest('hex');

async function recordMigrationHashes(db: Db) {
  await sql.raw(`CREATE TABLE IF NOT EXISTS bench_migration_hash (id integer PRIMARY KEY, hash text NOT NULL)`).execute(db);
  const applied = new Set((await sql<{ id: number }>`SELECT id FROM schema_migration`.execute(db)).rows.map((r) => r.id));
  for (const m of await loadMigrations()) {
    if (!applied.has(m.id)) continue;
    await sql`INSERT INTO bench_migration_hash (id, hash) VALUES (${m.id}, ${hashOf(m.up)})
              ON CONFLICT (id) DO UPDATE SET hash = excluded.hash`.execute(db);
  }
}

/** Ids of applied migrations whose text changed since (or whose file is gone). */
export async function changedMigrations(db: Db): Promise<number[]> {
  const has = await sql<{ t: string | null }>`SELECT to_regclass('public.bench_migration_hash')::text AS t`.execute(db);
  if (!has.rows[0]?.t) return [];
  const recorded = (await sql<{ id: number; hash: string }>`SELECT id, hash FROM bench_migration_hash`.execute(db)).rows;
  const current = new Map((await loadMigrations()).map((m) => [m.id, hashOf(m.up)]));
  return recorded.filter((r) => current.get(r.id) !== r.hash).map((r) => r.id);
}

/** Has the database anything but an empty schema? (a half-built dataset must be rebuilt) */
export async function hasTables(db: Db): Promise<boolean> {
  const r = await sql<{ n: number }>`SELECT count(*)::int AS n FROM pg_tables WHERE schemaname = 'public'`.execute(db);
  return r.rows[0].n > 0;
}

// ---------------------------------------------------------------------------------------------
// Generator.

const SURNAMES = [
  'Le Gall', 'Le Bras', 'Kerbrat', 'Le Goff', 'Tanguy', 'Morvan', 'Le Roux', 'Guillou', 'Cloarec', 'Quéré', 'Jaouen', 'Abgrall',
  'Le Bihan', 'Caroff', 'Martin', 'Bernard', 'Thomas', 'Petit', 'Robert', 'Richard', 'Durand', 'Dubois', 'Moreau', 'Laurent',
  'Simon', 'Michel', 'Lefèvre', 'Leroy', 'Roux', 'David', 'Bertrand', 'Morel', 'Fournier', 'Girard', 'Bonnet', 'Dupont',
  'Lambert', 'Fontaine', 'Rousseau', 'Vincent', 'Müller', 'Lefebvre', 'Faure', 'André', 'Mercier', 'Blanc', 'Guérin', 'Boyer',
  'Garnier', 'Chevalier', 'François', 'Legrand', 'Gauthier', 'Garcia', 'Perrin', 'Robin', 'Clément', 'Morin', 'Nicolas', 'Henry',
];
const FIRSTNAMES = [
  'Anne', 'Yann', 'Gwenaëlle', 'Erwan', 'Maëlys', 'Loïc', 'Nolwenn', 'Ronan', 'Soizic', 'Tanguy', 'Morgane', 'Gaël', 'Élise',
  'Hervé', 'Françoise', 'Jérôme', 'Céline', 'Stéphane', 'Hélène', 'Benoît', 'Chloé', 'Léa', 'Hugo', 'Lucas', 'Emma', 'Louis',
  'Jade', 'Gabriel', 'Léo', 'Manon', 'Arthur', 'Zoé', 'Noël', 'Anaïs', 'Mathéo', 'Inès', 'Raphaël', 'Camille', 'Théo', 'Agnès',
];
const STREETS = [
  'Rue de Siam', 'Rue Jean Jaurès', 'Rue de la République', 'Boulevard Gambetta', 'Rue de Lyon', 'Rue Louis Pasteur',
  'Avenue Foch', 'Rue Victor Hugo', 'Rue de Kerbriant', 'Rue du Château', 'Place de la Liberté', 'Rue Émile Zola',
  'Rue de Verdun', 'Rue Anatole France', 'Rue de Quimper', 'Rue de Brest', 'Chemin de Kerlinou', 'Rue des Écoles',
  'Rue de l’Église', 'Impasse des Mouettes', 'Allée des Chênes', 'Rue du Port', 'Quai de la Douane', 'Rue Saint-Marc',
  'Rue de Paris', 'Rue Branda', 'Rue Paul Doumer', 'Rue Jules Ferry', 'Rue Danton', 'Rue Massillon', 'Rue de Glasgow',
  'Rue Auguste Kervern', 'Route de Gouesnou', 'Rue Yves Collet', 'Rue de Kerigonan', 'Rue de Maissin', 'Rue Duguay-Trouin',
];
const SITE_NAMES = [
  'Résidence Les Hortensias', 'Résidence du Parc', 'Jardin des Capucins', 'Quartier Saint-Martin', 'École Jean Moulin',
  'Résidence Kerangoff', 'Jardin partagé de Recouvrance', 'Les Terrasses', 'Résidence Bellevue', 'Collège Anna Marly',
  'Quartier de Lambézellec', 'Résidence Les Glycines', 'Jardin de l’Harteloire', 'Le Clos Fleuri', 'Îlot Vert',
  'Résidence Océane', 'Square Wilson', 'Cité Éole', 'École Paul Langevin', 'Résidence des Quatre Moulins',
];
const REPAIRS = [
  'Charnière du couvercle cassée', 'Planche fendue côté gauche', 'Couvercle à remplacer', 'Trappe bloquée',
  'Vis manquantes sur la façade', 'Serrure du cadenas grippée', 'Panneau d’information arraché', 'Grille anti-rongeurs percée',
];
const OBSERVATIONS = [
  'RAS', 'Beaucoup de mouches', 'Odeur forte', 'Présence de plastique retiré', 'Apport important ce week-end', 'Compost sec, arrosé',
  'Fourmis', 'Bon équilibre', 'Trop de déchets de cuisine', 'Broyat livré par le prestataire', 'Réunion avec les habitants',
];

const lit = (s: string) => `'${s.replace(/'/g, "''")}'`;
const arr = (list: string[]) => `ARRAY[${list.map(lit).join(',')}]::text[]`;

/** Weighted action lists per cell type (100 entries each): ids repeated by frequency. */
function weighted(pairs: [number, number][]): string {
  const out: number[] = [];
  for (const [id, w] of pairs) for (let i = 0; i < w; i++) out.push(id);
  if (out.length !== 100) throw new Error(`weights sum to ${out.length}`);
  return `ARRAY[${out.join(',')}]::int[]`;
}
// Allowed actions per cell type (reference-data.md), with realistic frequencies.
const ACTIONS_APPORT = weighted([[16, 20], [6, 20], [1, 15], [2, 12], [3, 8], [15, 6], [9, 5], [5, 5], [4, 2], [13, 3], [14, 2], [18, 2]]);
const ACTIONS_BROYAT = weighted([[7, 30], [12, 30], [8, 14], [9, 8], [5, 5], [4, 4], [13, 4], [14, 3], [18, 2]]);
const ACTIONS_MATURATION = weighted([[6, 25], [19, 15], [1, 12], [11, 10], [15, 8], [17, 6], [10, 5], [9, 5], [4, 4], [5, 3], [13, 3], [14, 2], [18, 2]]);

export interface GenerateLog {
  (step: string, ms: number): void;
}

/** Statements of the generator after the base schema and the seeds; `$…` placeholders are inlined. */
function generatorSql(shape: DatasetShape, passwordHash: string): { step: string; sql: string }[] {
  const S = shape.sites;
  const N = shape.interventions;
  const steps: { step: string; sql: string }[] = [];
  const add = (step: string, text: string) => steps.push({ step, sql: text });

  add(
    'accounts',
    `
-- The bench administrator (every admin sub-role) and the bench provider.
INSERT INTO account (kind, identifiant, email, password_hash, nom, prenom, email_valide, actif, created_at)
VALUES ('agent', ${lit(BENCH_ADMIN_LOGIN)}, 'bench-admin@compost.test', ${lit(passwordHash)}, 'Banc', 'Administrateur', true, true, now() - interval '3 years');
INSERT INTO account (kind, email, password_hash, type_user_id, organisme, nom, prenom, tel, email_valide, actif, created_at)
VALUES ('user', ${lit(BENCH_PROVIDER_EMAIL)}, ${lit(passwordHash)}, 3, 'Compost Services', 'Prestataire', 'Banc', '0298000000', true, true, now() - interval '3 years');
-- Agents, providers and users.
INSERT INTO account (kind, identifiant, email, password_hash, type_user_id, organisme, nom, prenom, tel, email_valide, actif, created_at)
SELECT kind, CASE WHEN kind = 'agent' THEN 'agent' || g END,
       f_unaccent(lower(replace(prenom || '.' || nom, ' ', ''))) || '.' || g || CASE WHEN kind = 'agent' THEN '@metropole.test' ELSE '@exemple.fr' END,
       ${lit(passwordHash)},
       CASE WHEN kind = 'agent' THEN NULL WHEN g <= ${shape.agents + shape.providers} THEN 3 WHEN g % 7 = 0 THEN 2 ELSE 1 END,
       CASE WHEN kind = 'agent' THEN NULL WHEN g <= ${shape.agents + shape.providers} THEN 'Prestataire ' || nom WHEN g % 7 = 0 THEN 'Association ' || nom END,
       nom, CASE WHEN g % 7 = 0 AND g % 2 = 0 THEN NULL ELSE prenom END,
       CASE WHEN kind = 'agent' OR random() < 0.8 THEN '06' || lpad((floor(random() * 1e8))::int::text, 8, '0') END,
       g % 50 <> 0, g % 20 <> 0 OR kind = 'agent' OR g <= ${shape.agents + shape.providers},
       now() - random() * interval '3 years'
FROM (
  SELECT g, CASE WHEN g <= ${shape.agents} THEN 'agent' ELSE 'user' END AS kind,
         (${arr(SURNAMES)})[1 + floor(random() * ${SURNAMES.length})::int] AS nom,
         (${arr(FIRSTNAMES)})[1 + floor(random() * ${FIRSTNAMES.length})::int] AS prenom
  FROM generate_series(1, ${shape.agents + shape.providers + shape.users}) g
  OFFSET 0 -- keeps each random name computed once per row (no pull-up into the outer references)
) x;
-- Roles: the bench admin has every admin role; agents a mix; active users ROLE_USER, providers ROLE_PRESTATAIRE.
INSERT INTO account_role (account_id, role_id)
SELECT a.id, r FROM account a, generate_series(1, 7) r WHERE a.identifiant = ${lit(BENCH_ADMIN_LOGIN)};
INSERT INTO account_role (account_id, role_id)
SELECT a.id, r.r FROM account a CROSS JOIN LATERAL (
  SELECT 1 AS r UNION ALL SELECT 2 WHERE a.id % 2 = 0 UNION ALL SELECT 3 WHERE a.id % 3 = 0 UNION ALL SELECT 4 WHERE a.id % 10 = 0
  UNION ALL SELECT 5 WHERE a.id % 4 = 0 UNION ALL SELECT 6 WHERE a.id % 5 = 0 UNION ALL SELECT 7 WHERE a.id % 6 = 0
) r WHERE a.kind = 'agent' AND a.identifiant <> ${lit(BENCH_ADMIN_LOGIN)};
INSERT INTO account_role (account_id, role_id)
SELECT id, CASE WHEN type_user_id = 3 THEN 9 ELSE 8 END FROM account WHERE kind = 'user' AND actif;
`,
  );

  add(
    'sites',
    `
CREATE TEMP TABLE bench_ville AS SELECT row_number() OVER (ORDER BY nom, cp) AS n, nom, cp, code_insee FROM ville;
CREATE TEMP TABLE bench_site_src AS
SELECT g,
       1 + (g * 7 + g / 3) % 4 AS type_n,
       CASE WHEN g > ${S - shape.requestedSites} THEN 2 ELSE 1 END AS statut_id,
       -- Brest holds most of the sites.
       CASE WHEN random() < 0.6 THEN coalesce((SELECT n FROM bench_ville WHERE nom = 'Brest' LIMIT 1), 1)
            ELSE 1 + floor(random() * (SELECT count(*) FROM bench_ville))::int END AS ville_n
FROM generate_series(1, ${S}) g;
INSERT INTO demandeur (date, civilite, nom, prenom, fonction, telephone, email, periode_implantation, annee_implantation)
SELECT now() - random() * interval '200 days', CASE WHEN g % 2 = 0 THEN 'Mme' ELSE 'M.' END,
       (${arr(SURNAMES)})[1 + g % ${SURNAMES.length}], (${arr(FIRSTNAMES)})[1 + g % ${FIRSTNAMES.length}], 'Syndic de copropriété',
       '0298' || lpad(g::text, 6, '0'), 'demandeur' || g || '@exemple.fr', 'Printemps', extract(year FROM now())::int + 1
FROM bench_site_src WHERE statut_id = 2;
INSERT INTO site (code, nom, ville, cp, code_insee, adresse, numero, complement, type_site_id, observations, cadena,
                  date_implantation, date_inauguration, statut_id, demandeur_id, created_at)
SELECT ts.code || lpad((row_number() OVER (PARTITION BY ts.id ORDER BY s.g))::text, 3, '0'),
       CASE WHEN s.g % 10 = 0 THEN NULL ELSE (${arr(SITE_NAMES)})[1 + s.g % ${SITE_NAMES.length}] || ' ' || (s.g / ${SITE_NAMES.length} + 1) END,
       v.nom, v.cp, v.code_insee,
       (${arr(STREETS)})[1 + (s.g * 13) % ${STREETS.length}], (1 + (s.g * 31) % 180)::text,
       CASE WHEN s.g % 5 = 0 THEN 'Bâtiment ' || chr(65 + s.g % 6) END,
       ts.id,
       CASE WHEN s.g % 7 = 0 THEN (${arr(OBSERVATIONS)})[1 + s.g % ${OBSERVATIONS.length}] END,
       CASE WHEN s.g % 3 = 0 THEN lpad(((s.g * 7919) % 10000)::text, 4, '0') END,
       CASE WHEN s.statut_id = 1 THEN now() - interval '3 years' - random() * interval '3 years' END,
       CASE WHEN s.statut_id = 1 AND s.g % 2 = 0 THEN now() - interval '3 years' - random() * interval '1 year' END,
       s.statut_id,
       CASE WHEN s.statut_id = 2 THEN (SELECT min(id) FROM demandeur) + s.g - ${S - shape.requestedSites + 1} END,
       now() - interval '3 years' - random() * interval '3 years'
FROM bench_site_src s
JOIN (SELECT id, code, row_number() OVER (ORDER BY id) AS n FROM type_site) ts ON ts.n = s.type_n
JOIN bench_ville v ON v.n = s.ville_n
ORDER BY s.g;
UPDATE type_site t SET next_sequence = 1 + (SELECT count(*) FROM site WHERE type_site_id = t.id);
INSERT INTO site_convention (site_id, date_convention, created_at)
SELECT s.id, d, d FROM site s CROSS JOIN LATERAL (
  SELECT s.date_implantation + interval '10 days' AS d UNION ALL SELECT s.date_implantation + interval '2 years' WHERE s.id % 3 = 0
) c WHERE s.statut_id = 1 AND s.id % 10 <> 0;
`,
  );

  add(
    'cells and referents',
    `
-- Busy sites: the first ones by id; they have more cells. Cell 1 is the broyat store, then
-- apport and maturation cells alternate; a quarter of the sites number their cells from 0.
CREATE TEMP TABLE bench_site AS
SELECT s.id, row_number() OVER (ORDER BY s.id) AS n,
       (row_number() OVER (ORDER BY s.id)) <= ${shape.busySites} AS busy
FROM site s WHERE s.statut_id = 1;
INSERT INTO site_composteur (site_id, type_composteur_id, type_bac_id, numero, actif)
SELECT b.id, 1 + (b.id + k) % 4,
       CASE WHEN k = 1 THEN 2 WHEN k % 2 = 0 THEN 1 ELSE 3 END,
       CASE WHEN b.id % 4 = 0 THEN k - 1 ELSE k END, true
FROM bench_site b CROSS JOIN LATERAL generate_series(1, CASE WHEN b.busy THEN 12 + b.id % 9 ELSE 3 + (b.id * 7) % 5 END) k;
-- A few retired cells (inactive, same number as an active one).
INSERT INTO site_composteur (site_id, type_composteur_id, type_bac_id, numero, actif)
SELECT b.id, 1, 1, 2, false FROM bench_site b WHERE b.n % 20 = 0;
-- 1 to 3 referents per active site among the active users (ROLE_USER); some users refer several sites.
CREATE TEMP TABLE bench_user AS
SELECT a.id, row_number() OVER (ORDER BY a.id) AS n FROM account a JOIN account_role r ON r.account_id = a.id AND r.role_id = 8;
INSERT INTO site_referent (site_id, account_id)
SELECT DISTINCT b.id, u.id FROM bench_site b CROSS JOIN LATERAL generate_series(1, 1 + b.id % 3) k
JOIN bench_user u ON u.n = 1 + ((b.n * 3 + k * 997) % (SELECT count(*) FROM bench_user));
`,
  );

  add(
    'interventions',
    `
-- Rows per site: the busy sites thousands (the first one 5,000, as at 1M), the
-- others a random share of the rest; the last site takes the rounding so the total is exact.
CREATE TEMP TABLE bench_share AS
SELECT b.id, b.n, b.busy,
       CASE WHEN b.busy THEN 5000 - (b.n - 1) * 311 ELSE 0 END AS fixed,
       CASE WHEN b.busy THEN 0 ELSE 0.2 + random() * 1.6 END AS w
FROM bench_site b;
CREATE TEMP TABLE bench_rows AS
SELECT id, n, CASE WHEN busy THEN fixed ELSE floor((${N} - (SELECT sum(fixed) FROM bench_share)) * w / (SELECT sum(w) FROM bench_share))::int END AS nrows
FROM bench_share;
UPDATE bench_rows SET nrows = nrows + (${N} - (SELECT sum(nrows) FROM bench_rows)) WHERE n = (SELECT max(n) FROM bench_rows);
-- Per site: its cells by type, its referents, and a rotating choice of providers and agents.
CREATE TEMP TABLE bench_cells AS
SELECT r.id AS site_id, r.nrows,
       (SELECT array_agg(id ORDER BY numero) FROM site_composteur c WHERE c.site_id = r.id AND c.actif AND c.type_bac_id = 1) AS a1,
       (SELECT array_agg(id ORDER BY numero) FROM site_composteur c WHERE c.site_id = r.id AND c.actif AND c.type_bac_id = 2) AS a2,
       (SELECT array_agg(id ORDER BY numero) FROM site_composteur c WHERE c.site_id = r.id AND c.actif AND c.type_bac_id = 3) AS a3,
       (SELECT array_agg(account_id ORDER BY account_id) FROM site_referent sr WHERE sr.site_id = r.id) AS refs
FROM bench_rows r;
CREATE TEMP TABLE bench_people AS
SELECT (SELECT array_agg(id ORDER BY id) FROM account WHERE type_user_id = 3 AND actif) AS providers,
       (SELECT array_agg(id ORDER BY id) FROM account WHERE kind = 'agent') AS agents;
-- Visits: each is one submission (one clientId, one date, one person) of 2 or 3 blocks.
-- Dates: a day of the last three years, 8:00-19:00 Paris time, never in the future.
CREATE TEMP TABLE bench_visit AS
SELECT c.site_id, v AS visit_no, gen_random_uuid() AS client_id,
       least(now() - interval '1 minute',
             (date_trunc('day', now() AT TIME ZONE 'Europe/Paris') - floor(random() * 1095) * interval '1 day'
              + interval '8 hours' + random() * interval '11 hours') AT TIME ZONE 'Europe/Paris') AS date,
       CASE WHEN random() < 0.85 THEN c.refs[1 + floor(random() * cardinality(c.refs))::int]
            WHEN random() < 0.67 THEN p.providers[1 + floor(random() * cardinality(p.providers))::int]
            ELSE p.agents[1 + floor(random() * cardinality(p.agents))::int] END AS intervenant_id
FROM bench_cells c CROSS JOIN bench_people p
CROSS JOIN LATERAL generate_series(0, ((c.nrows - 1) * 2) / 5) v;
ALTER TABLE bench_visit ADD PRIMARY KEY (site_id, visit_no);
-- The log: cell type 50% apport, 35% maturation, 15% broyat (when the site has one), then an
-- action allowed on that type and a value in its range.
INSERT INTO intervention (client_id, date, site_id, site_composteur_id, type_action_id, valeur_nombre, valeur_constante,
                          valeur_texte, bac_destination_id, observations, intervenant_id, created_at)
SELECT v.client_id, v.date, x.site_id, x.cell, x.action,
       CASE WHEN x.action IN (4, 10, 11, 12, 15, 17, 3) THEN (10 + floor(random() * 390))::int
            WHEN x.action = 6 THEN round((8 + random() * 62)::numeric, 1) END,
       CASE x.action WHEN 7 THEN 1 + floor(random() * 5)::int WHEN 16 THEN 1 + floor(random() * 5)::int
                     WHEN 19 THEN 1 + floor(random() * 5)::int WHEN 8 THEN 6 + floor(random() * 4)::int
                     WHEN 9 THEN CASE WHEN random() < 0.7 THEN 10 WHEN random() < 0.7 THEN 11 ELSE 12 END END,
       CASE WHEN x.action IN (14, 18) THEN (${arr(REPAIRS)})[1 + floor(random() * ${REPAIRS.length})::int] END,
       CASE WHEN x.action = 3 THEN x.a3[1 + floor(random() * cardinality(x.a3))::int] END,
       CASE WHEN x.action = 13 OR random() < 0.05 THEN (${arr(OBSERVATIONS)})[1 + floor(random() * ${OBSERVATIONS.length})::int] END,
       v.intervenant_id, v.date + random() * interval '3 minutes'
FROM (
  -- Each level is computed once per row (OFFSET 0: no pull-up that would re-draw a random
  -- value at every reference).
  SELECT t.site_id, t.g, t.a3, t.type,
         CASE t.type WHEN 1 THEN t.a1[1 + floor(t.r2 * cardinality(t.a1))::int]
                     WHEN 2 THEN t.a2[1 + floor(t.r2 * cardinality(t.a2))::int]
                     ELSE t.a3[1 + floor(t.r2 * cardinality(t.a3))::int] END AS cell,
         CASE t.type WHEN 1 THEN (${ACTIONS_APPORT})[1 + floor(t.r3 * 100)::int]
                     WHEN 2 THEN (${ACTIONS_BROYAT})[1 + floor(t.r3 * 100)::int]
                     ELSE (${ACTIONS_MATURATION})[1 + floor(t.r3 * 100)::int] END AS action
  FROM (
    SELECT u.*, CASE WHEN u.r1 < 0.15 AND u.a2 IS NOT NULL THEN 2 WHEN u.r1 < 0.5 THEN 3 ELSE 1 END AS type
    FROM (
      SELECT c.site_id, g, c.a1, c.a2, c.a3, random() AS r1, random() AS r2, random() AS r3
      FROM bench_cells c CROSS JOIN LATERAL generate_series(1, c.nrows) g
      OFFSET 0
    ) u
    OFFSET 0
  ) t
  OFFSET 0
) x
JOIN bench_visit v ON v.site_id = x.site_id AND v.visit_no = ((x.g - 1) * 2) / 5
ORDER BY v.date, x.g;
`,
  );

  add(
    'intervention indexes',
    `-- (recreated by the caller from the definitions saved before the load)`,
  );

  add(
    'requests',
    `
-- Requests raised exactly as demande_rule says, on the trigger's site and cell, due at the
-- trigger's date plus the delay. Old ones (due more than 30 days ago) are mostly processed or
-- cancelled; recent ones mostly pending or scheduled.
INSERT INTO demande_intervention (site_id, site_composteur_id, statut_id, type_action_programmee_id, intervention_declenchante_id,
                                  date_creation, date_echeance, date_programmee, programme_par_id, date_annulation, annulee_par_id)
SELECT i.site_id, i.site_composteur_id, i.statut, i.type_action_programmee_id, i.id,
       i.created_at, i.due,
       CASE WHEN i.statut = 4 THEN i.date + (i.delai_jours - 2) * interval '1 day' END,
       CASE WHEN i.statut = 4 THEN p.agents[1 + i.id % cardinality(p.agents)] END,
       CASE WHEN i.statut = 6 THEN least(now(), i.due + interval '3 days') END,
       CASE WHEN i.statut = 6 THEN p.agents[1 + i.id % cardinality(p.agents)] END
FROM (
  SELECT q.*, CASE WHEN q.due < now() - interval '30 days'
                   THEN CASE WHEN q.x < 0.77 THEN 5 WHEN q.x < 0.97 THEN 6 WHEN q.x < 0.99 THEN 3 ELSE 4 END
                   ELSE CASE WHEN q.x < 0.55 THEN 3 WHEN q.x < 0.85 THEN 4 WHEN q.x < 0.93 THEN 5 ELSE 6 END END AS statut
  FROM (
    SELECT i.id, i.site_id, i.site_composteur_id, i.created_at, i.date, r.type_action_programmee_id, r.delai_jours,
           i.date + r.delai_jours * interval '1 day' AS due, random() AS x
    FROM intervention i
    JOIN demande_rule r ON r.type_action_declenchante_id = i.type_action_id AND (r.id_constante IS NULL OR r.id_constante = i.valeur_constante)
    OFFSET 0
  ) q
  OFFSET 0
) i
CROSS JOIN bench_people p
ORDER BY i.id;
-- Processed requests: the result is the site's first later entry (more than a day after the
-- trigger, not an entry that raised a request itself), rewritten as the scheduled action on
-- the request's cell and linked both ways. A later entry claimed by two requests goes to the
-- first; the other request is cancelled instead.
CREATE TEMP TABLE bench_done AS
SELECT d.id AS demande_id, d.site_composteur_id, d.type_action_programmee_id AS action, j.id AS intervention_id,
       row_number() OVER (PARTITION BY j.id ORDER BY d.id) AS k
FROM demande_intervention d
JOIN intervention t ON t.id = d.intervention_declenchante_id
LEFT JOIN LATERAL (
  SELECT j.id FROM intervention j
  WHERE j.site_id = d.site_id AND j.date > t.date + interval '1 day' AND j.type_action_id NOT IN (7, 9, 16, 18, 19)
  ORDER BY j.date LIMIT 1
) j ON true
WHERE d.statut_id = 5;
UPDATE demande_intervention d SET statut_id = 6, date_annulation = least(now(), d.date_echeance), annulee_par_id = (SELECT agents[1] FROM bench_people)
FROM bench_done b WHERE b.demande_id = d.id AND (b.intervention_id IS NULL OR b.k > 1);
DELETE FROM bench_done WHERE intervention_id IS NULL OR k > 1;
UPDATE intervention i SET
  site_composteur_id = b.site_composteur_id, type_action_id = b.action, demande_intervention_id = b.demande_id,
  valeur_nombre = CASE WHEN b.action IN (3, 12, 17) THEN (20 + floor(random() * 300))::int END,
  valeur_constante = NULL,
  valeur_texte = CASE WHEN b.action = 14 THEN 'Réparation faite' END,
  bac_destination_id = CASE WHEN b.action = 3 THEN c.a3[1] END
FROM bench_done b, bench_cells c
WHERE i.id = b.intervention_id AND c.site_id = i.site_id;
UPDATE demande_intervention d SET intervention_realisee_id = b.intervention_id FROM bench_done b WHERE b.demande_id = d.id;
`,
  );

  add(
    'submissions',
    `
-- One stored submission per clientId, answered as the add route answers it.
INSERT INTO intervention_submission (client_id, account_id, payload_hash, result, created_at)
SELECT i.client_id, min(i.intervenant_id), encode(sha256(convert_to(i.client_id::text, 'UTF8')), 'hex'),
       jsonb_build_object('status', 'success', 'message', ${lit(INTERVENTION_MESSAGES.added)},
                          'interventions', jsonb_agg(i.id ORDER BY i.id), 'demandes', coalesce(min(dm.ids::text)::jsonb, '[]'::jsonb)),
       min(i.created_at)
FROM intervention i
LEFT JOIN (
  SELECT t.client_id, jsonb_agg(d.id ORDER BY d.id) AS ids
  FROM demande_intervention d JOIN intervention t ON t.id = d.intervention_declenchante_id GROUP BY t.client_id
) dm ON dm.client_id = i.client_id
GROUP BY i.client_id;
`,
  );
  return steps;
}

const LOG_TABLES = ['intervention', 'demande_intervention', 'intervention_submission'];

/**
 * Builds the dataset into an empty database `db` (PostgreSQL or PGlite). `log` gets each step's
 * duration. Returns the marker written.
 */
export async function generateDataset(db: Db, name: DatasetName, log: GenerateLog = () => {}): Promise<DatasetInfo> {
  const shape = DATASETS[name];
  const t0 = performance.now();
  let t = t0;
  const lap = (step: string) => {
    const now = performance.now();
    log(step, now - t);
    t = now;
  };

  const all = await loadMigrations();
  await migrate(
    db,
    all.filter((m) => m.id <= BASE_MIGRATION),
  );
  await seedCities(db, TERRITORY);
  lap('base schema and seeds');
  const passwordHash = await hashPassword(BENCH_PASSWORD);

  await db.connection().execute(async (conn) => {
    const run = (text: string) => sql.raw(text).execute(conn);
    await run(`SELECT setseed(0.42)`);
    await run(`SET session_replication_role = replica`);
    // Bigger sort memory for the index builds and the grouped inserts.
    await run(`SET maintenance_work_mem = '256MB'`).catch(() => undefined);
    await run(`SET work_mem = '64MB'`).catch(() => undefined);
    // The log's secondary indexes are built once after the load, from their own definitions.
    const idx = await sql<{ indexname: string; indexdef: string }>`
      SELECT i.indexname, i.indexdef FROM pg_indexes i
      WHERE i.schemaname = 'public' AND i.tablename IN (${sql.join(LOG_TABLES)})
        AND NOT EXISTS (SELECT 1 FROM pg_constraint c WHERE c.conname = i.indexname)`.execute(conn);
    for (const r of idx.rows) await run(`DROP INDEX ${r.indexname}`);
    for (const s of generatorSql(shape, passwordHash)) {
      if (s.step === 'intervention indexes') {
        for (const r of idx.rows) await run(r.indexdef);
        await run(`ANALYZE intervention`);
      } else {
        await run(s.sql);
      }
      lap(s.step);
    }
    await run(`SET session_replication_role = DEFAULT`);
    for (const tmp of ['bench_ville', 'bench_site_src', 'bench_site', 'bench_user', 'bench_share', 'bench_rows', 'bench_cells', 'bench_people', 'bench_visit', 'bench_done'])
      await run(`DROP TABLE IF EXISTS ${tmp}`);
  });

  // The migrations written after this generator, on the data as it stands. The streets sample
  // is written by the import of today's schema, so it comes after them.
  await migrate(db, all);
  await seedStreetsSample(db);
  await recordMigrationHashes(db);
  lap('later migrations');
  await sql.raw('VACUUM ANALYZE').execute(db);
  lap('vacuum analyze');

  const info = await describe(db, name, (performance.now() - t0) / 1000);
  await sql.raw(`CREATE TABLE IF NOT EXISTS bench_dataset (name text PRIMARY KEY, version integer NOT NULL, info jsonb NOT NULL)`).execute(db);
  await sql`INSERT INTO bench_dataset (name, version, info) VALUES (${name}, ${GENERATOR_VERSION}, ${JSON.stringify(info)}::jsonb)
            ON CONFLICT (name) DO UPDATE SET version = excluded.version, info = excluded.info`.execute(db);
  return info;
}

async function describe(db: Db, name: DatasetName, buildSeconds: number): Promise<DatasetInfo> {
  const one = async <T>(q: string) => (await sql.raw<T>(q).execute(db)).rows[0];
  const counts = await one<Record<string, number>>(`SELECT
    (SELECT count(*)::int FROM site) AS sites, (SELECT count(*)::int FROM site WHERE statut_id = 2) AS "requestedSites",
    (SELECT count(*)::int FROM site_composteur) AS cells, (SELECT count(*)::int FROM account) AS accounts,
    (SELECT count(*)::int FROM account WHERE kind = 'agent') AS agents, (SELECT count(*)::int FROM account WHERE type_user_id = 3) AS providers,
    (SELECT count(*)::int FROM intervention) AS interventions, (SELECT count(*)::int FROM intervention_submission) AS submissions,
    (SELECT count(*)::int FROM demande_intervention) AS requests,
    (SELECT count(*)::int FROM demande_intervention WHERE statut_id IN (3, 4)) AS "pendingRequests",
    (SELECT count(*)::int FROM demande_intervention WHERE statut_id = 5) AS "processedRequests"`);
  const year = await one<{ y: number }>(`SELECT extract(year FROM date AT TIME ZONE 'Europe/Paris')::int AS y FROM intervention GROUP BY 1 ORDER BY count(*) DESC LIMIT 1`);
  const busiest = await one<{ id: number; n: number }>(`SELECT site_id AS id, count(*)::int AS n FROM intervention GROUP BY 1 ORDER BY 2 DESC LIMIT 1`);
  const typical = await one<{ id: number }>(`SELECT site_id AS id FROM (SELECT site_id, count(*) n FROM intervention GROUP BY 1) x
    ORDER BY n OFFSET (SELECT count(DISTINCT site_id) / 2 FROM intervention) LIMIT 1`);
  const provider = await one<{ id: number }>(`SELECT id FROM account WHERE lower(email) = ${lit(BENCH_PROVIDER_EMAIL)}`);
  const admin = await one<{ id: number }>(`SELECT id FROM account WHERE identifiant = ${lit(BENCH_ADMIN_LOGIN)}`);
  const refs = (
    await sql.raw<{ email: string; sites: number[] }>(`SELECT a.email, array_agg(sr.site_id ORDER BY sr.site_id) AS sites
      FROM site_referent sr JOIN account a ON a.id = sr.account_id
      WHERE sr.site_id IN (SELECT site_id FROM intervention GROUP BY 1 ORDER BY count(*) DESC LIMIT 8)
      GROUP BY a.email ORDER BY a.email LIMIT 8`).execute(db)
  ).rows;
  return {
    name,
    version: GENERATOR_VERSION,
    builtAt: new Date().toISOString(),
    buildSeconds: Math.round(buildSeconds * 10) / 10,
    counts,
    busiestYear: year.y,
    busiestSiteId: busiest.id,
    busiestSiteRows: busiest.n,
    typicalSiteId: typical.id,
    providerId: provider.id,
    adminId: admin.id,
    referents: refs.map((r) => ({ email: r.email, siteIds: r.sites })),
  };
}

// ---------------------------------------------------------------------------------------------
// Entry points used by the bench.

/**
 * Migrations written after the dataset was built, applied to it. A failing migration (another
 * helper's work in progress) leaves the schema as it was (one transaction): the bench says so
 * and measures the schema as it stands rather than measuring nothing.
 */
async function migrateExisting(db: Db, label: string, say: (line: string) => void) {
  try {
    const applied = await migrate(db);
    if (applied.length) {
      say(`      ${label}: migrations ${applied.join(', ')} applied to the existing data`);
      // As autovacuum would soon after, on a live database: statistics for the new indexes, and
      // the visibility map that index-only scans rely on.
      await sql.raw('VACUUM ANALYZE').execute(db);
    }
    await recordMigrationHashes(db);
  } catch (e) {
    say(`      ${label}: MIGRATIONS FAILED, benching the schema as it stands: ${(e as Error).message}`);
  }
}

/** Opens (and builds or reuses) the PostgreSQL dataset; migrations are applied at every call. */
export async function preparePgDataset(
  name: DatasetName,
  opts: { rebuild?: boolean; log?: (line: string) => void } = {},
): Promise<{ url: string; info: DatasetInfo; built: boolean }> {
  const base = benchBaseUrl();
  if (!base) throw new Error('BENCH_DATABASE_URL (or TEST_DATABASE_URL) is not set');
  const say = opts.log ?? ((l: string) => console.log(l));
  const { openPostgres } = await import('../src/server/db/client.js');
  let url = await ensurePgDatabase(base, name, !!opts.rebuild);
  let handle = await openPostgres(url);
  try {
    const marker = await readMarker(handle.db, name);
    const changed = marker ? await changedMigrations(handle.db) : [];
    if (marker && marker.version === GENERATOR_VERSION && !opts.rebuild && changed.length === 0) {
      await migrateExisting(handle.db, `dataset ${name}`, say);
      return { url, info: marker, built: false };
    }
    if (marker || (await hasTables(handle.db))) {
      const why = !marker
        ? 'incomplete'
        : changed.length > 0
          ? `migration(s) ${changed.join(', ')} changed since they were applied to it`
          : marker.version !== GENERATOR_VERSION
            ? `generator version ${marker.version} != ${GENERATOR_VERSION}`
            : '--rebuild';
      say(`      dataset ${name}: ${why}, rebuilding`);
      await handle.close();
      url = await ensurePgDatabase(base, name, true);
      handle = await openPostgres(url);
    }
    say(`      building dataset ${name} in ${url}`);
    const info = await generateDataset(handle.db, name, (step, ms) => say(`        ${step.padEnd(24)} ${(ms / 1000).toFixed(1)} s`));
    say(`      dataset ${name} built in ${info.buildSeconds} s: ${JSON.stringify(info.counts)}`);
    return { url, info, built: true };
  } finally {
    await handle.close();
  }
}

/** The same dataset in an embedded PGlite directory (DATA_DIR/db, as the server opens it). */
export async function preparePgliteDataset(
  name: DatasetName,
  dataDir: string,
  opts: { rebuild?: boolean; log?: (line: string) => void } = {},
): Promise<{ info: DatasetInfo; built: boolean }> {
  const say = opts.log ?? ((l: string) => console.log(l));
  const { openPGlite } = await import('../src/server/db/client.js');
  const dbDir = path.join(dataDir, 'db');
  if (opts.rebuild) fs.rmSync(dataDir, { recursive: true, force: true });
  let handle = await openPGlite(dbDir);
  try {
    const marker = await readMarker(handle.db, name);
    const changed = marker ? await changedMigrations(handle.db) : [];
    if (marker && marker.version === GENERATOR_VERSION && changed.length === 0) {
      await migrateExisting(handle.db, `PGlite ${name}`, say);
      return { info: marker, built: false };
    }
    if (marker || (await hasTables(handle.db))) {
      say(`      PGlite ${name}: ${changed.length ? `migration(s) ${changed.join(', ')} changed` : 'stale or incomplete'}, rebuilding`);
      await handle.close();
      fs.rmSync(dataDir, { recursive: true, force: true });
      handle = await openPGlite(dbDir);
    }
    say(`      building dataset ${name} in PGlite ${dbDir}`);
    const info = await generateDataset(handle.db, name, (step, ms) => say(`        ${step.padEnd(24)} ${(ms / 1000).toFixed(1)} s`));
    say(`      PGlite dataset ${name} built in ${info.buildSeconds} s`);
    return { info, built: true };
  } finally {
    await handle.close();
  }
}
