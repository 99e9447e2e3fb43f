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

export const up = `

CREATE TABLE intervention_stats_mois (
  type_action_id integer NOT NULL, mois date NOT NULL, site_id integer NOT NULL, intervenant_id integer NOT NULL, PRIMARY KEY (type_action_id, mois, site_id, intervenant_id),
  nb integer NOT NULL,
  quantite numeric NOT NULL
);
CREATE INDEX intervention_stats_mois_site_idx ON intervention_stats_mois (site_id, mois);

CREATE TABLE intervention_stats_mois_intervenant (
  type_action_id integer NOT NULL, mois date NOT NULL, intervenant_id integer NOT NULL, PRIMARY KEY (type_action_id, mois, intervenant_id),
  nb integer NOT NULL,
  quantite numeric NOT NULL
);
CREATE INDEX intervention_stats_mois_intervenant_idx ON intervention_stats_mois_intervenant (intervenant_id, mois);

CREATE TABLE intervention_stats_mois_reseau (
  type_action_id integer NOT NULL, mois date NOT NULL, bande integer NOT NULL, PRIMARY KEY (type_action_id, mois, bande),
  nb integer NOT NULL,
  quantite numeric NOT NULL
);
CREATE INDEX intervention_stats_mois_reseau_mois_idx ON intervention_stats_mois_reseau (mois);

-- The Paris month of an instant: 23:30 UTC on 31 March is April in Paris.
CREATE FUNCTION stats_mois(timestamptz) RETURNS date
  LANGUAGE sql IMMUTABLE PARALLEL SAFE STRICT
  AS $$ SELECT date_trunc('month', $1 AT TIME ZONE 'Europe/Paris')::date $$;

CREATE FUNCTION intervention_stats_insert() RETURNS trigger LANGUAGE plpgsql AS $$
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
  RETURN NULL;
END $$;

-- An edit that moves nothing counted (observations, a constant, a text) nets to zero and
-- writes nothing.
CREATE FUNCTION intervention_stats_update() RETURNS trigger LANGUAGE plpgsql AS $$
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
  RETURN NULL;
END $$;

CREATE FUNCTION intervention_stats_delete() RETURNS trigger LANGUAGE plpgsql AS $$
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
  RETURN NULL;
END $$;

CREATE FUNCTION intervention_stats_truncate() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  TRUNCATE intervention_stats_mois, intervention_stats_mois_intervenant, intervention_stats_mois_reseau;
  RETURN NULL;
END $$;

CREATE TRIGGER intervention_stats_insert AFTER INSERT ON intervention
  REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION intervention_stats_insert();
CREATE TRIGGER intervention_stats_update AFTER UPDATE ON intervention
  REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION intervention_stats_update();
CREATE TRIGGER intervention_stats_delete AFTER DELETE ON intervention
  REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION intervention_stats_delete();
CREATE TRIGGER intervention_stats_truncate AFTER TRUNCATE ON intervention
  FOR EACH STATEMENT EXECUTE FUNCTION intervention_stats_truncate();

-- Backfill of an existing log: the detail first, the two coarser levels from it.
INSERT INTO intervention_stats_mois (type_action_id, mois, site_id, intervenant_id, nb, quantite)
SELECT type_action_id, stats_mois(date), site_id, intervenant_id, count(*)::int, coalesce(sum(valeur_nombre), 0)
  FROM intervention GROUP BY 1, 2, 3, 4;
INSERT INTO intervention_stats_mois_intervenant (type_action_id, mois, intervenant_id, nb, quantite)
SELECT type_action_id, mois, intervenant_id, sum(nb)::int, sum(quantite) FROM intervention_stats_mois GROUP BY 1, 2, 3;
INSERT INTO intervention_stats_mois_reseau (type_action_id, mois, bande, nb, quantite)
SELECT type_action_id, mois, site_id % 16, sum(nb)::int, sum(quantite) FROM intervention_stats_mois GROUP BY 1, 2, 3;
`;
