// The 'Nombre d'interventions' export needs, for every site, its number of interventions in
// each month of a year. The per-site summary of migration 009 holds that split by action and
// intervenant (about 250,000 rows a year at a million interventions): adding them up took
// 120-150 ms. This adds a fourth summary level, per site and Paris month (24,000 rows a year
// for 2,000 sites), kept by the same statement-level triggers on the log: one more grouped
// upsert per statement, in the same function (a trigger of its own, on the summary, cost
// submissions 12% of their rate).
import { LEVELS, replaceTriggerFunctions, type StatsLevel } from './009-statistics.js';

export const WITH_SITE_MONTH: StatsLevel[] = [...LEVELS, { table: 'intervention_stats_site_mois', keys: ['mois', 'site_id'], from: ['stats_mois(date)', 'site_id'] }];

export const up = `
CREATE TABLE intervention_stats_site_mois (
  mois date NOT NULL,
  site_id integer NOT NULL,
  nb integer NOT NULL,
  quantite numeric NOT NULL,
  PRIMARY KEY (mois, site_id)
);

${replaceTriggerFunctions(WITH_SITE_MONTH)}

INSERT INTO intervention_stats_site_mois (mois, site_id, nb, quantite)
SELECT mois, site_id, sum(nb)::int, sum(quantite) FROM intervention_stats_mois GROUP BY 1, 2;
`;
