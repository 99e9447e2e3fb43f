// Every interventions list now pages at most its first 10,000 rows (COUNT_CAP), so no page
// skips whole days of the log any more: the network's daily summary of migration 023
// (intervention_stats_jour_reseau and stats_jour), one more upsert on every intervention write,
// served nothing else. The statistics triggers get back the four monthly levels they kept before
// it (the SQL of migration 012), and the table and its function go.

export const up = `
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
  RETURN NULL;
END $$;

CREATE OR REPLACE FUNCTION intervention_stats_truncate() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  TRUNCATE intervention_stats_mois, intervention_stats_mois_intervenant, intervention_stats_mois_reseau, intervention_stats_site_mois;
  RETURN NULL;
END $$;

DROP TABLE intervention_stats_jour_reseau;
DROP FUNCTION stats_jour(timestamptz);
`;
