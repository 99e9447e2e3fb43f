// The interventions list in date order skips, for a deep page, the Paris months wholly before
// it by the counts of the network's monthly summary, then walked the rest of the month through
// the (date, id) index: up to a month of the log (about 28,000 rows at a million interventions,
// 10-12 ms) for page 10,000. This adds a fifth summary level, the whole network per Paris day,
// so that a deep page also skips the whole days of its month and walks at most one day (about
// a thousand rows). Spread over 16 stripes like the monthly network summary (bande =
// site_id % 16), so that entries on different sites rarely wait on the same row; a month holds
// at most 31 x 16 rows. Kept by the same statement-level triggers, one more grouped upsert per
// statement.
// It replaces the four statistics trigger functions whole: their current text is in ../schema.sql.

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

CREATE OR REPLACE FUNCTION intervention_stats_insert() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO intervention_stats_mois AS s (type_action_id, mois, site_id, intervenant_id, nb, quantite)
  SELECT type_action_id, stats_mois(date), site_id, intervenant_id, sum(n)::int, sum(q) FROM (SELECT type_action_id, date, site_id, intervenant_id, 1 AS n, coalesce(valeur_nombre, 0) AS q FROM new_rows) d
    GROUP BY 1, 2, 3, 4 HAVING sum(n) <> 0 OR sum(q) <> 0 ORDER BY 1, 2, 3, 4
  ON CONFLICT (type_action_id, mois, site_id, intervenant_id) DO UPDATE SET nb = s.nb + EXCLUDED.nb, quantite = s.quantite + EXCLUDED.quantite;
  INSERT INTO intervention_stats_mois_intervenant AS s (type_action_id, mois, intervenant_id, nb, quantite)
  SELECT type_action_id, stats_mois(date), intervenant_id, sum(n)::int, sum(q) FROM (SELECT type_action_id, date, site_id, intervenant_id, 1 AS n, coalesce(valeur_nombre, 0) AS q FROM new_rows) d
    GROUP BY 1, 2, 3 HAVING sum(n) <> 0 OR sum(q) <> 0 ORDER BY 1, 2, 3
  ON CONFLICT (type_action_id, mois, intervenant_id) DO UPDATE SET nb = s.nb + EXCLUDED.nb, quantite = s.quantite + EXCLUDED.quantite;
  INSERT INTO intervention_stats_mois_reseau AS s (type_action_id, mois, bande, nb, quantite)
  SELECT type_action_id, stats_mois(date), site_id % 16, sum(n)::int, sum(q) FROM (SELECT type_action_id, date, site_id, intervenant_id, 1 AS n, coalesce(valeur_nombre, 0) AS q FROM new_rows) d
    GROUP BY 1, 2, 3 HAVING sum(n) <> 0 OR sum(q) <> 0 ORDER BY 1, 2, 3
  ON CONFLICT (type_action_id, mois, bande) DO UPDATE SET nb = s.nb + EXCLUDED.nb, quantite = s.quantite + EXCLUDED.quantite;
  INSERT INTO intervention_stats_site_mois AS s (mois, site_id, nb, quantite)
  SELECT stats_mois(date), site_id, sum(n)::int, sum(q) FROM (SELECT type_action_id, date, site_id, intervenant_id, 1 AS n, coalesce(valeur_nombre, 0) AS q FROM new_rows) d
    GROUP BY 1, 2 HAVING sum(n) <> 0 OR sum(q) <> 0 ORDER BY 1, 2
  ON CONFLICT (mois, site_id) DO UPDATE SET nb = s.nb + EXCLUDED.nb, quantite = s.quantite + EXCLUDED.quantite;
  INSERT INTO intervention_stats_jour_reseau AS s (jour, bande, nb, quantite)
  SELECT stats_jour(date), site_id % 16, sum(n)::int, sum(q) FROM (SELECT type_action_id, date, site_id, intervenant_id, 1 AS n, coalesce(valeur_nombre, 0) AS q FROM new_rows) d
    GROUP BY 1, 2 HAVING sum(n) <> 0 OR sum(q) <> 0 ORDER BY 1, 2
  ON CONFLICT (jour, bande) DO UPDATE SET nb = s.nb + EXCLUDED.nb, quantite = s.quantite + EXCLUDED.quantite;
  RETURN NULL;
END $$;

CREATE OR REPLACE FUNCTION intervention_stats_update() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO intervention_stats_mois AS s (type_action_id, mois, site_id, intervenant_id, nb, quantite)
  SELECT type_action_id, stats_mois(date), site_id, intervenant_id, sum(n)::int, sum(q) FROM (SELECT type_action_id, date, site_id, intervenant_id, 1 AS n, coalesce(valeur_nombre, 0) AS q FROM new_rows UNION ALL SELECT type_action_id, date, site_id, intervenant_id, -1 AS n, -coalesce(valeur_nombre, 0) AS q FROM old_rows) d
    GROUP BY 1, 2, 3, 4 HAVING sum(n) <> 0 OR sum(q) <> 0 ORDER BY 1, 2, 3, 4
  ON CONFLICT (type_action_id, mois, site_id, intervenant_id) DO UPDATE SET nb = s.nb + EXCLUDED.nb, quantite = s.quantite + EXCLUDED.quantite;
  DELETE FROM intervention_stats_mois s USING (SELECT DISTINCT type_action_id AS type_action_id, stats_mois(date) AS mois, site_id AS site_id, intervenant_id AS intervenant_id FROM old_rows) o
    WHERE s.type_action_id = o.type_action_id AND s.mois = o.mois AND s.site_id = o.site_id AND s.intervenant_id = o.intervenant_id AND s.nb = 0;
  INSERT INTO intervention_stats_mois_intervenant AS s (type_action_id, mois, intervenant_id, nb, quantite)
  SELECT type_action_id, stats_mois(date), intervenant_id, sum(n)::int, sum(q) FROM (SELECT type_action_id, date, site_id, intervenant_id, 1 AS n, coalesce(valeur_nombre, 0) AS q FROM new_rows UNION ALL SELECT type_action_id, date, site_id, intervenant_id, -1 AS n, -coalesce(valeur_nombre, 0) AS q FROM old_rows) d
    GROUP BY 1, 2, 3 HAVING sum(n) <> 0 OR sum(q) <> 0 ORDER BY 1, 2, 3
  ON CONFLICT (type_action_id, mois, intervenant_id) DO UPDATE SET nb = s.nb + EXCLUDED.nb, quantite = s.quantite + EXCLUDED.quantite;
  DELETE FROM intervention_stats_mois_intervenant s USING (SELECT DISTINCT type_action_id AS type_action_id, stats_mois(date) AS mois, intervenant_id AS intervenant_id FROM old_rows) o
    WHERE s.type_action_id = o.type_action_id AND s.mois = o.mois AND s.intervenant_id = o.intervenant_id AND s.nb = 0;
  INSERT INTO intervention_stats_mois_reseau AS s (type_action_id, mois, bande, nb, quantite)
  SELECT type_action_id, stats_mois(date), site_id % 16, sum(n)::int, sum(q) FROM (SELECT type_action_id, date, site_id, intervenant_id, 1 AS n, coalesce(valeur_nombre, 0) AS q FROM new_rows UNION ALL SELECT type_action_id, date, site_id, intervenant_id, -1 AS n, -coalesce(valeur_nombre, 0) AS q FROM old_rows) d
    GROUP BY 1, 2, 3 HAVING sum(n) <> 0 OR sum(q) <> 0 ORDER BY 1, 2, 3
  ON CONFLICT (type_action_id, mois, bande) DO UPDATE SET nb = s.nb + EXCLUDED.nb, quantite = s.quantite + EXCLUDED.quantite;
  DELETE FROM intervention_stats_mois_reseau s USING (SELECT DISTINCT type_action_id AS type_action_id, stats_mois(date) AS mois, site_id % 16 AS bande FROM old_rows) o
    WHERE s.type_action_id = o.type_action_id AND s.mois = o.mois AND s.bande = o.bande AND s.nb = 0;
  INSERT INTO intervention_stats_site_mois AS s (mois, site_id, nb, quantite)
  SELECT stats_mois(date), site_id, sum(n)::int, sum(q) FROM (SELECT type_action_id, date, site_id, intervenant_id, 1 AS n, coalesce(valeur_nombre, 0) AS q FROM new_rows UNION ALL SELECT type_action_id, date, site_id, intervenant_id, -1 AS n, -coalesce(valeur_nombre, 0) AS q FROM old_rows) d
    GROUP BY 1, 2 HAVING sum(n) <> 0 OR sum(q) <> 0 ORDER BY 1, 2
  ON CONFLICT (mois, site_id) DO UPDATE SET nb = s.nb + EXCLUDED.nb, quantite = s.quantite + EXCLUDED.quantite;
  DELETE FROM intervention_stats_site_mois s USING (SELECT DISTINCT stats_mois(date) AS mois, site_id AS site_id FROM old_rows) o
    WHERE s.mois = o.mois AND s.site_id = o.site_id AND s.nb = 0;
  INSERT INTO intervention_stats_jour_reseau AS s (jour, bande, nb, quantite)
  SELECT stats_jour(date), site_id % 16, sum(n)::int, sum(q) FROM (SELECT type_action_id, date, site_id, intervenant_id, 1 AS n, coalesce(valeur_nombre, 0) AS q FROM new_rows UNION ALL SELECT type_action_id, date, site_id, intervenant_id, -1 AS n, -coalesce(valeur_nombre, 0) AS q FROM old_rows) d
    GROUP BY 1, 2 HAVING sum(n) <> 0 OR sum(q) <> 0 ORDER BY 1, 2
  ON CONFLICT (jour, bande) DO UPDATE SET nb = s.nb + EXCLUDED.nb, quantite = s.quantite + EXCLUDED.quantite;
  DELETE FROM intervention_stats_jour_reseau s USING (SELECT DISTINCT stats_jour(date) AS jour, site_id % 16 AS bande FROM old_rows) o
    WHERE s.jour = o.jour AND s.bande = o.bande AND s.nb = 0;
  RETURN NULL;
END $$;

CREATE OR REPLACE FUNCTION intervention_stats_delete() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO intervention_stats_mois AS s (type_action_id, mois, site_id, intervenant_id, nb, quantite)
  SELECT type_action_id, stats_mois(date), site_id, intervenant_id, sum(n)::int, sum(q) FROM (SELECT type_action_id, date, site_id, intervenant_id, -1 AS n, -coalesce(valeur_nombre, 0) AS q FROM old_rows) d
    GROUP BY 1, 2, 3, 4 HAVING sum(n) <> 0 OR sum(q) <> 0 ORDER BY 1, 2, 3, 4
  ON CONFLICT (type_action_id, mois, site_id, intervenant_id) DO UPDATE SET nb = s.nb + EXCLUDED.nb, quantite = s.quantite + EXCLUDED.quantite;
  DELETE FROM intervention_stats_mois s USING (SELECT DISTINCT type_action_id AS type_action_id, stats_mois(date) AS mois, site_id AS site_id, intervenant_id AS intervenant_id FROM old_rows) o
    WHERE s.type_action_id = o.type_action_id AND s.mois = o.mois AND s.site_id = o.site_id AND s.intervenant_id = o.intervenant_id AND s.nb = 0;
  INSERT INTO intervention_stats_mois_intervenant AS s (type_action_id, mois, intervenant_id, nb, quantite)
  SELECT type_action_id, stats_mois(date), intervenant_id, sum(n)::int, sum(q) FROM (SELECT type_action_id, date, site_id, intervenant_id, -1 AS n, -coalesce(valeur_nombre, 0) AS q FROM old_rows) d
    GROUP BY 1, 2, 3 HAVING sum(n) <> 0 OR sum(q) <> 0 ORDER BY 1, 2, 3
  ON CONFLICT (type_action_id, mois, intervenant_id) DO UPDATE SET nb = s.nb + EXCLUDED.nb, quantite = s.quantite + EXCLUDED.quantite;
  DELETE FROM intervention_stats_mois_intervenant s USING (SELECT DISTINCT type_action_id AS type_action_id, stats_mois(date) AS mois, intervenant_id AS intervenant_id FROM old_rows) o
    WHERE s.type_action_id = o.type_action_id AND s.mois = o.mois AND s.intervenant_id = o.intervenant_id AND s.nb = 0;
  INSERT INTO intervention_stats_mois_reseau AS s (type_action_id, mois, bande, nb, quantite)
  SELECT type_action_id, stats_mois(date), site_id % 16, sum(n)::int, sum(q) FROM (SELECT type_action_id, date, site_id, intervenant_id, -1 AS n, -coalesce(valeur_nombre, 0) AS q FROM old_rows) d
    GROUP BY 1, 2, 3 HAVING sum(n) <> 0 OR sum(q) <> 0 ORDER BY 1, 2, 3
  ON CONFLICT (type_action_id, mois, bande) DO UPDATE SET nb = s.nb + EXCLUDED.nb, quantite = s.quantite + EXCLUDED.quantite;
  DELETE FROM intervention_stats_mois_reseau s USING (SELECT DISTINCT type_action_id AS type_action_id, stats_mois(date) AS mois, site_id % 16 AS bande FROM old_rows) o
    WHERE s.type_action_id = o.type_action_id AND s.mois = o.mois AND s.bande = o.bande AND s.nb = 0;
  INSERT INTO intervention_stats_site_mois AS s (mois, site_id, nb, quantite)
  SELECT stats_mois(date), site_id, sum(n)::int, sum(q) FROM (SELECT type_action_id, date, site_id, intervenant_id, -1 AS n, -coalesce(valeur_nombre, 0) AS q FROM old_rows) d
    GROUP BY 1, 2 HAVING sum(n) <> 0 OR sum(q) <> 0 ORDER BY 1, 2
  ON CONFLICT (mois, site_id) DO UPDATE SET nb = s.nb + EXCLUDED.nb, quantite = s.quantite + EXCLUDED.quantite;
  DELETE FROM intervention_stats_site_mois s USING (SELECT DISTINCT stats_mois(date) AS mois, site_id AS site_id FROM old_rows) o
    WHERE s.mois = o.mois AND s.site_id = o.site_id AND s.nb = 0;
  INSERT INTO intervention_stats_jour_reseau AS s (jour, bande, nb, quantite)
  SELECT stats_jour(date), site_id % 16, sum(n)::int, sum(q) FROM (SELECT type_action_id, date, site_id, intervenant_id, -1 AS n, -coalesce(valeur_nombre, 0) AS q FROM old_rows) d
    GROUP BY 1, 2 HAVING sum(n) <> 0 OR sum(q) <> 0 ORDER BY 1, 2
  ON CONFLICT (jour, bande) DO UPDATE SET nb = s.nb + EXCLUDED.nb, quantite = s.quantite + EXCLUDED.quantite;
  DELETE FROM intervention_stats_jour_reseau s USING (SELECT DISTINCT stats_jour(date) AS jour, site_id % 16 AS bande FROM old_rows) o
    WHERE s.jour = o.jour AND s.bande = o.bande AND s.nb = 0;
  RETURN NULL;
END $$;

CREATE OR REPLACE FUNCTION intervention_stats_truncate() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  TRUNCATE intervention_stats_mois, intervention_stats_mois_intervenant, intervention_stats_mois_reseau, intervention_stats_site_mois, intervention_stats_jour_reseau;
  RETURN NULL;
END $$;

INSERT INTO intervention_stats_jour_reseau (jour, bande, nb, quantite)
SELECT stats_jour(date), site_id % 16, count(*)::int, coalesce(sum(valeur_nombre), 0) FROM intervention GROUP BY 1, 2;
`;
