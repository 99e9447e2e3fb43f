// The monthly summary per action and intervenant is dropped: a provider's statistics and the
// search's reach by intervenant read the summary per action, site and intervenant instead, through
// an index on (intervenant_id, mois).
//
// That summary saved almost nothing: most intervenants record on one or two sites a month, so it
// held nearly as many rows as the summary it rolled up (644,900 against 747,400 for a million
// interventions), and it cost every new intervention one more row written. A provider's year reads
// at most a few thousand rows of the finer summary.

export const up = `
DROP TABLE intervention_stats_mois_intervenant;
CREATE INDEX intervention_stats_mois_by_intervenant ON intervention_stats_mois (intervenant_id, mois);
CREATE OR REPLACE FUNCTION intervention_log_changed() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  v_action integer[];
  v_mois date[];
  v_site integer[];
  v_intervenant integer[];
  v_n integer[];
  v_q numeric[];
  v_gained integer[] := '{}';
  v_lost integer[] := '{}';
  r_action integer;
  r_mois date;
  r_site integer;
  r_intervenant integer;
  r_q numeric;
  r_cell integer;
  r_destination integer;
  v_rows integer;
BEGIN
  IF TG_OP = 'TRUNCATE' THEN
    TRUNCATE intervention_count, intervention_stats_mois, intervention_stats_mois_reseau, intervention_stats_site_mois;
    RETURN NULL;
  ELSIF TG_OP = 'INSERT' THEN
    -- One new row (every field entry): its summaries are written with one row of values each,
    -- in the same statement shape and table order as the delta below, without building it.
    SELECT type_action_id, stats_mois(date), site_id, intervenant_id, coalesce(valeur_nombre, 0), site_composteur_id, bac_destination_id, count(*) OVER ()
      INTO r_action, r_mois, r_site, r_intervenant, r_q, r_cell, r_destination, v_rows FROM new_rows LIMIT 1;
    IF v_rows = 1 THEN
      IF EXISTS (SELECT FROM site_composteur WHERE id IN (r_cell, r_destination) AND NOT a_interventions) THEN
        UPDATE site_composteur SET a_interventions = true WHERE id IN (r_cell, r_destination) AND NOT a_interventions;
      END IF;
      WITH per_site_intervenant AS (
        INSERT INTO intervention_stats_mois AS t (type_action_id, mois, site_id, intervenant_id, nb, quantite) VALUES (r_action, r_mois, r_site, r_intervenant, 1, r_q)
        ON CONFLICT (type_action_id, mois, site_id, intervenant_id) DO UPDATE SET nb = t.nb + 1, quantite = t.quantite + EXCLUDED.quantite),
      per_band AS (
        INSERT INTO intervention_stats_mois_reseau AS t (type_action_id, mois, bande, nb, quantite) VALUES (r_action, r_mois, r_site % 16, 1, r_q)
        ON CONFLICT (type_action_id, mois, bande) DO UPDATE SET nb = t.nb + 1, quantite = t.quantite + EXCLUDED.quantite),
      per_site AS (
        INSERT INTO intervention_stats_site_mois AS t (mois, site_id, nb, quantite) VALUES (r_mois, r_site, 1, r_q)
        ON CONFLICT (mois, site_id) DO UPDATE SET nb = t.nb + 1, quantite = t.quantite + EXCLUDED.quantite)
      INSERT INTO intervention_count AS t (site_id, type_action_id, n) VALUES (r_site, 0, 1), (r_site, r_action, 1)
      ON CONFLICT (site_id, type_action_id) DO UPDATE SET n = t.n + 1;
      RETURN NULL;
    END IF;
    SELECT array_agg(a), array_agg(m), array_agg(s), array_agg(i), array_agg(n), array_agg(q)
      INTO v_action, v_mois, v_site, v_intervenant, v_n, v_q
      FROM (SELECT type_action_id, stats_mois(date), site_id, intervenant_id, count(*)::int, sum(coalesce(valeur_nombre, 0))
              FROM new_rows GROUP BY 1, 2, 3, 4) g(a, m, s, i, n, q);
    v_gained := ARRAY(SELECT site_composteur_id FROM new_rows UNION SELECT bac_destination_id FROM new_rows WHERE bac_destination_id IS NOT NULL);
  ELSIF TG_OP = 'DELETE' THEN
    SELECT array_agg(a), array_agg(m), array_agg(s), array_agg(i), array_agg(n), array_agg(q)
      INTO v_action, v_mois, v_site, v_intervenant, v_n, v_q
      FROM (SELECT type_action_id, stats_mois(date), site_id, intervenant_id, -count(*)::int, -sum(coalesce(valeur_nombre, 0))
              FROM old_rows GROUP BY 1, 2, 3, 4) g(a, m, s, i, n, q);
    v_lost := ARRAY(SELECT site_composteur_id FROM old_rows UNION SELECT bac_destination_id FROM old_rows WHERE bac_destination_id IS NOT NULL);
  ELSE
    SELECT array_agg(a), array_agg(m), array_agg(s), array_agg(i), array_agg(n), array_agg(q)
      INTO v_action, v_mois, v_site, v_intervenant, v_n, v_q
      FROM (SELECT a, m, s, i, sum(n)::int, sum(q)
              FROM (SELECT type_action_id, stats_mois(date), site_id, intervenant_id, 1, coalesce(valeur_nombre, 0) FROM new_rows
                    UNION ALL
                    SELECT type_action_id, stats_mois(date), site_id, intervenant_id, -1, -coalesce(valeur_nombre, 0) FROM old_rows) d(a, m, s, i, n, q)
             GROUP BY 1, 2, 3, 4 HAVING sum(n) <> 0 OR sum(q) <> 0) g(a, m, s, i, n, q);
    v_gained := ARRAY(
      SELECT n.site_composteur_id FROM old_rows o JOIN new_rows n ON n.id = o.id WHERE n.site_composteur_id <> o.site_composteur_id
      UNION
      SELECT n.bac_destination_id FROM old_rows o JOIN new_rows n ON n.id = o.id
       WHERE n.bac_destination_id IS NOT NULL AND n.bac_destination_id IS DISTINCT FROM o.bac_destination_id);
    v_lost := ARRAY(
      SELECT o.site_composteur_id FROM old_rows o JOIN new_rows n ON n.id = o.id WHERE n.site_composteur_id <> o.site_composteur_id
      UNION
      SELECT o.bac_destination_id FROM old_rows o JOIN new_rows n ON n.id = o.id
       WHERE o.bac_destination_id IS NOT NULL AND o.bac_destination_id IS DISTINCT FROM n.bac_destination_id);
  END IF;

  -- A statement that changed nothing (a cell's renumbering touches no intervention) stops here.
  IF v_action IS NULL AND cardinality(v_gained) = 0 AND cardinality(v_lost) = 0 THEN
    RETURN NULL;
  END IF;
  -- Only cells getting their first intervention are written: an UPDATE of no row would still
  -- fire the cells' statement triggers, whose cell copy fires this one again.
  v_gained := ARRAY(SELECT id FROM site_composteur WHERE id = ANY(v_gained) AND NOT a_interventions ORDER BY id);
  IF cardinality(v_gained) > 0 THEN
    UPDATE site_composteur SET a_interventions = true WHERE id = ANY(v_gained) AND NOT a_interventions;
  END IF;

  WITH g AS (SELECT * FROM unnest(v_action, v_mois, v_site, v_intervenant, v_n, v_q) g(a, m, s, i, n, q)),
  per_site_intervenant AS (
    INSERT INTO intervention_stats_mois AS t (type_action_id, mois, site_id, intervenant_id, nb, quantite)
    SELECT a, m, s, i, n, q FROM g ORDER BY 1, 2, 3, 4
    ON CONFLICT (type_action_id, mois, site_id, intervenant_id) DO UPDATE SET nb = t.nb + EXCLUDED.nb, quantite = t.quantite + EXCLUDED.quantite),
  per_band AS (
    INSERT INTO intervention_stats_mois_reseau AS t (type_action_id, mois, bande, nb, quantite)
    SELECT a, m, s % 16, sum(n)::int, sum(q) FROM g GROUP BY 1, 2, 3 HAVING sum(n) <> 0 OR sum(q) <> 0 ORDER BY 1, 2, 3
    ON CONFLICT (type_action_id, mois, bande) DO UPDATE SET nb = t.nb + EXCLUDED.nb, quantite = t.quantite + EXCLUDED.quantite),
  per_site AS (
    INSERT INTO intervention_stats_site_mois AS t (mois, site_id, nb, quantite)
    SELECT m, s, sum(n)::int, sum(q) FROM g GROUP BY 1, 2 HAVING sum(n) <> 0 OR sum(q) <> 0 ORDER BY 1, 2
    ON CONFLICT (mois, site_id) DO UPDATE SET nb = t.nb + EXCLUDED.nb, quantite = t.quantite + EXCLUDED.quantite)
  INSERT INTO intervention_count AS t (site_id, type_action_id, n)
  SELECT s, k, sum(n)::int FROM g CROSS JOIN LATERAL (VALUES (a), (0)) x(k) GROUP BY 1, 2 HAVING sum(n) <> 0 ORDER BY 1, 2
  ON CONFLICT (site_id, type_action_id) DO UPDATE SET n = t.n + EXCLUDED.n;

  IF TG_OP <> 'INSERT' THEN
    WITH k AS (SELECT DISTINCT a, m, s, i FROM unnest(v_action, v_mois, v_site, v_intervenant) k(a, m, s, i)),
    per_site_intervenant AS (
      DELETE FROM intervention_stats_mois t USING k
       WHERE t.type_action_id = k.a AND t.mois = k.m AND t.site_id = k.s AND t.intervenant_id = k.i AND t.nb = 0),
    per_band AS (
      DELETE FROM intervention_stats_mois_reseau t USING (SELECT DISTINCT a, m, s % 16 AS b FROM k) k
       WHERE t.type_action_id = k.a AND t.mois = k.m AND t.bande = k.b AND t.nb = 0)
    DELETE FROM intervention_stats_site_mois t USING (SELECT DISTINCT m, s FROM k) k
     WHERE t.mois = k.m AND t.site_id = k.s AND t.nb = 0;
    PERFORM intervention_cells_recheck(v_lost);
  END IF;
  RETURN NULL;
END $$;
`;
