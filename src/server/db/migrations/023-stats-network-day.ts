// The interventions list in date order skips, for a deep page, the Paris months wholly before
// it by the counts of the network's monthly summary, then walked the rest of the month through
// the (date, id) index: up to a month of the log (about 28,000 rows at a million interventions,
// 10-12 ms) for page 10,000. This adds a fifth summary level, the whole network per Paris day,
// so that a deep page also skips the whole days of its month and walks at most one day (about
// a thousand rows). Spread over 16 stripes like the monthly network summary (bande =
// site_id % 16), so that entries on different sites rarely wait on the same row; a month holds
// at most 31 x 16 rows. Kept by the same statement-level triggers, one more grouped upsert per
// statement.
import { replaceTriggerFunctions, type StatsLevel } from './009-statistics.js';
import { WITH_SITE_MONTH } from './012-stats-site-month.js';

const WITH_NETWORK_DAY: StatsLevel[] = [...WITH_SITE_MONTH, { table: 'intervention_stats_jour_reseau', keys: ['jour', 'bande'], from: ['stats_jour(date)', 'site_id % 16'] }];

export const up = `
-- The Paris day of an instant: 23:30 UTC on 31 March is 1 April in Paris.
CREATE FUNCTION stats_jour(timestamptz) RETURNS date
  LANGUAGE sql IMMUTABLE PARALLEL SAFE STRICT
  AS $$ SELECT ($1 AT TIME ZONE 'Europe/Paris')::date $$;

CREATE TABLE intervention_stats_jour_reseau (
  jour date NOT NULL,
  bande integer NOT NULL,
  nb integer NOT NULL,
  quantite numeric NOT NULL,
  PRIMARY KEY (jour, bande)
);

${replaceTriggerFunctions(WITH_NETWORK_DAY)}

INSERT INTO intervention_stats_jour_reseau (jour, bande, nb, quantite)
SELECT stats_jour(date), site_id % 16, count(*)::int, coalesce(sum(valeur_nombre), 0) FROM intervention GROUP BY 1, 2;
`;
