// Monthly summaries of the intervention log for the statistics dashboard, each a
// count of interventions and the sum of their numeric values (litres for the litre actions)
// per Europe/Paris month and action:
// - intervention_stats_mois: per site and intervenant (a site's charts, site + provider);
// - intervention_stats_mois_intervenant: per intervenant (a provider's whole network);
// - intervention_stats_mois_reseau: the whole network, spread over 16 stripes (site_id % 16)
//   so that concurrent entries on different sites rarely wait on the same summary row; a
//   network year reads at most 19 x 12 x 16 rows.
// A site-level summary alone would not do: at a million interventions it keeps ~250,000 rows
// a year (most site-months see a dozen distinct actions and intervenants).
//
// Kept in the same transaction as every add, edit and delete by STATEMENT-level triggers
// with transition tables: a bulk import of 100 000 rows pays one grouped upsert per summary,
// not one trigger call per row. Deltas are grouped and applied in key order, so two
// concurrent statements lock summary rows in the same order. Rows whose count falls to zero
// are removed, so the years list (which walks the network summary's month index) only shows
// years that have interventions.

import { statementTriggers } from './statement-triggers.js';

const STRIPES = 16;

/** A summary: its table, key columns, and how each key is computed from a transition table's rows. */
export interface StatsLevel {
  table: string;
  keys: string[];
  from: string[];
}

/** Key columns of each summary, as computed from a transition table's rows. */
export const LEVELS: StatsLevel[] = [
  { table: 'intervention_stats_mois', keys: ['type_action_id', 'mois', 'site_id', 'intervenant_id'], from: ['type_action_id', 'stats_mois(date)', 'site_id', 'intervenant_id'] },
  { table: 'intervention_stats_mois_intervenant', keys: ['type_action_id', 'mois', 'intervenant_id'], from: ['type_action_id', 'stats_mois(date)', 'intervenant_id'] },
  { table: 'intervention_stats_mois_reseau', keys: ['type_action_id', 'mois', 'bande'], from: ['type_action_id', 'stats_mois(date)', `site_id % ${STRIPES}`] },
];

/**
 * Adds the signed rows of `deltas` (columns type_action_id, date, site_id, intervenant_id,
 * n, q) to every summary, then drops the rows of `touched` (a transition table) that fell to zero.
 */
export function apply(deltas: string, touched: string | null, levels: StatsLevel[] = LEVELS): string {
  const parts = levels.map((l) => {
    const cols = l.keys.join(', ');
    const groups = l.keys.map((_, i) => i + 1).join(', ');
    return `  INSERT INTO ${l.table} AS s (${cols}, nb, quantite)
  SELECT ${l.from.join(', ')}, sum(n)::int, sum(q) FROM (${deltas}) d
    GROUP BY ${groups} HAVING sum(n) <> 0 OR sum(q) <> 0 ORDER BY ${groups}
  ON CONFLICT (${cols}) DO UPDATE SET nb = s.nb + EXCLUDED.nb, quantite = s.quantite + EXCLUDED.quantite;
${
  touched
    ? `  DELETE FROM ${l.table} s USING (SELECT DISTINCT ${l.from.map((f, i) => `${f} AS ${l.keys[i]}`).join(', ')} FROM ${touched}) o
    WHERE ${l.keys.map((k) => `s.${k} = o.${k}`).join(' AND ')} AND s.nb = 0;
`
    : ''
}`;
  });
  return parts.join('');
}

export const NEW_ROWS = `SELECT type_action_id, date, site_id, intervenant_id, 1 AS n, coalesce(valeur_nombre, 0) AS q FROM new_rows`;
export const OLD_ROWS = `SELECT type_action_id, date, site_id, intervenant_id, -1 AS n, -coalesce(valeur_nombre, 0) AS q FROM old_rows`;

/**
 * The four trigger functions of this migration, replaced to keep these summary levels (a later
 * migration adding a level): insert, update, delete, and truncate of every level's table.
 */
export function replaceTriggerFunctions(levels: StatsLevel[]): string {
  return `CREATE OR REPLACE FUNCTION intervention_stats_insert() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
${apply(NEW_ROWS, null, levels)}  RETURN NULL;
END $$;

CREATE OR REPLACE FUNCTION intervention_stats_update() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
${apply(`${NEW_ROWS} UNION ALL ${OLD_ROWS}`, 'old_rows', levels)}  RETURN NULL;
END $$;

CREATE OR REPLACE FUNCTION intervention_stats_delete() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
${apply(OLD_ROWS, 'old_rows', levels)}  RETURN NULL;
END $$;

CREATE OR REPLACE FUNCTION intervention_stats_truncate() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  TRUNCATE ${levels.map((l) => l.table).join(', ')};
  RETURN NULL;
END $$;`;
}

const table = (name: string, keys: string) => `
CREATE TABLE ${name} (
  ${keys},
  nb integer NOT NULL,
  quantite numeric NOT NULL
);`;

export const up = `
${table('intervention_stats_mois', 'type_action_id integer NOT NULL, mois date NOT NULL, site_id integer NOT NULL, intervenant_id integer NOT NULL, PRIMARY KEY (type_action_id, mois, site_id, intervenant_id)')}
CREATE INDEX intervention_stats_mois_site_idx ON intervention_stats_mois (site_id, mois);
${table('intervention_stats_mois_intervenant', 'type_action_id integer NOT NULL, mois date NOT NULL, intervenant_id integer NOT NULL, PRIMARY KEY (type_action_id, mois, intervenant_id)')}
CREATE INDEX intervention_stats_mois_intervenant_idx ON intervention_stats_mois_intervenant (intervenant_id, mois);
${table('intervention_stats_mois_reseau', 'type_action_id integer NOT NULL, mois date NOT NULL, bande integer NOT NULL, PRIMARY KEY (type_action_id, mois, bande)')}
CREATE INDEX intervention_stats_mois_reseau_mois_idx ON intervention_stats_mois_reseau (mois);

-- The Paris month of an instant: 23:30 UTC on 31 March is April in Paris.
CREATE FUNCTION stats_mois(timestamptz) RETURNS date
  LANGUAGE sql IMMUTABLE PARALLEL SAFE STRICT
  AS $$ SELECT date_trunc('month', $1 AT TIME ZONE 'Europe/Paris')::date $$;

CREATE FUNCTION intervention_stats_insert() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
${apply(NEW_ROWS, null)}  RETURN NULL;
END $$;

-- An edit that moves nothing counted (observations, a constant, a text) nets to zero and
-- writes nothing.
CREATE FUNCTION intervention_stats_update() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
${apply(`${NEW_ROWS} UNION ALL ${OLD_ROWS}`, 'old_rows')}  RETURN NULL;
END $$;

CREATE FUNCTION intervention_stats_delete() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
${apply(OLD_ROWS, 'old_rows')}  RETURN NULL;
END $$;

CREATE FUNCTION intervention_stats_truncate() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  TRUNCATE intervention_stats_mois, intervention_stats_mois_intervenant, intervention_stats_mois_reseau;
  RETURN NULL;
END $$;

${statementTriggers('intervention', {
  INSERT: 'intervention_stats_insert',
  UPDATE: 'intervention_stats_update',
  DELETE: 'intervention_stats_delete',
  TRUNCATE: 'intervention_stats_truncate',
})}

-- Backfill of an existing log: the detail first, the two coarser levels from it.
INSERT INTO intervention_stats_mois (type_action_id, mois, site_id, intervenant_id, nb, quantite)
SELECT type_action_id, stats_mois(date), site_id, intervenant_id, count(*)::int, coalesce(sum(valeur_nombre), 0)
  FROM intervention GROUP BY 1, 2, 3, 4;
INSERT INTO intervention_stats_mois_intervenant (type_action_id, mois, intervenant_id, nb, quantite)
SELECT type_action_id, mois, intervenant_id, sum(nb)::int, sum(quantite) FROM intervention_stats_mois GROUP BY 1, 2, 3;
INSERT INTO intervention_stats_mois_reseau (type_action_id, mois, bande, nb, quantite)
SELECT type_action_id, mois, site_id % ${STRIPES}, sum(nb)::int, sum(quantite) FROM intervention_stats_mois GROUP BY 1, 2, 3;
`;
