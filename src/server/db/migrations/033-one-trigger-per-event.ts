// One function keeps everything derived from the intervention log, one the request counts.
//
// Until now an intervention written fired three statement triggers (its cells' flag, its counts
// per site and action, its monthly statistics), each with a function of its own per event:
// eleven statement triggers and fourteen functions on the log, four triggers and five functions
// on the requests. Each event now fires one trigger. Its function reads what the statement
// changed once (+1 and the quantity for a new row, -1 and minus the quantity for an old one,
// grouped by action, month, site and intervenant) and applies that delta to every summary in
// one statement. Summary rows are still written in key order within each table, in the same
// table order whatever the event, so concurrent writers do not deadlock on them. A monthly
// summary row that falls to zero is deleted, as before; cells that lost an intervention are
// rechecked by intervention_cells_recheck, unchanged.

export const up = `
CREATE FUNCTION intervention_log_changed() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  v_action integer[];
  v_mois date[];
  v_site integer[];
  v_intervenant integer[];
  v_n integer[];
  v_q numeric[];
  v_gained integer[] := '{}';
  v_lost integer[] := '{}';
BEGIN
  IF TG_OP = 'TRUNCATE' THEN
    TRUNCATE intervention_count, intervention_stats_mois, intervention_stats_mois_intervenant, intervention_stats_mois_reseau, intervention_stats_site_mois;
    RETURN NULL;
  ELSIF TG_OP = 'INSERT' THEN
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
  per_intervenant AS (
    INSERT INTO intervention_stats_mois_intervenant AS t (type_action_id, mois, intervenant_id, nb, quantite)
    SELECT a, m, i, sum(n)::int, sum(q) FROM g GROUP BY 1, 2, 3 HAVING sum(n) <> 0 OR sum(q) <> 0 ORDER BY 1, 2, 3
    ON CONFLICT (type_action_id, mois, intervenant_id) DO UPDATE SET nb = t.nb + EXCLUDED.nb, quantite = t.quantite + EXCLUDED.quantite),
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
    per_intervenant AS (
      DELETE FROM intervention_stats_mois_intervenant t USING (SELECT DISTINCT a, m, i FROM k) k
       WHERE t.type_action_id = k.a AND t.mois = k.m AND t.intervenant_id = k.i AND t.nb = 0),
    per_band AS (
      DELETE FROM intervention_stats_mois_reseau t USING (SELECT DISTINCT a, m, s % 16 AS b FROM k) k
       WHERE t.type_action_id = k.a AND t.mois = k.m AND t.bande = k.b AND t.nb = 0)
    DELETE FROM intervention_stats_site_mois t USING (SELECT DISTINCT m, s FROM k) k
     WHERE t.mois = k.m AND t.site_id = k.s AND t.nb = 0;
    PERFORM intervention_cells_recheck(v_lost);
  END IF;
  RETURN NULL;
END $$;

DROP TRIGGER intervention_cells_inserted ON intervention;
DROP TRIGGER intervention_cells_updated ON intervention;
DROP TRIGGER intervention_cells_deleted ON intervention;
DROP TRIGGER intervention_count_ins ON intervention;
DROP TRIGGER intervention_count_upd ON intervention;
DROP TRIGGER intervention_count_del ON intervention;
DROP TRIGGER intervention_count_truncate ON intervention;
DROP TRIGGER intervention_stats_insert ON intervention;
DROP TRIGGER intervention_stats_update ON intervention;
DROP TRIGGER intervention_stats_delete ON intervention;
DROP TRIGGER intervention_stats_truncate ON intervention;
DROP FUNCTION intervention_cells_inserted();
DROP FUNCTION intervention_cells_updated();
DROP FUNCTION intervention_cells_deleted();
DROP FUNCTION intervention_cells_flag(integer[]);
DROP FUNCTION intervention_count_ins();
DROP FUNCTION intervention_count_upd();
DROP FUNCTION intervention_count_del();
DROP FUNCTION intervention_count_truncate();
DROP FUNCTION intervention_count_apply(integer[], integer[], integer[]);
DROP FUNCTION intervention_stats_insert();
DROP FUNCTION intervention_stats_update();
DROP FUNCTION intervention_stats_delete();
DROP FUNCTION intervention_stats_truncate();

CREATE TRIGGER intervention_log_inserted AFTER INSERT ON intervention
  REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION intervention_log_changed();
CREATE TRIGGER intervention_log_updated AFTER UPDATE ON intervention
  REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION intervention_log_changed();
CREATE TRIGGER intervention_log_deleted AFTER DELETE ON intervention
  REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION intervention_log_changed();
CREATE TRIGGER intervention_log_truncated AFTER TRUNCATE ON intervention
  FOR EACH STATEMENT EXECUTE FUNCTION intervention_log_changed();

CREATE FUNCTION demande_intervention_counts_changed() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  v_statut integer[];
  v_action integer[];
  v_site integer[];
  v_n integer[];
BEGIN
  IF TG_OP = 'TRUNCATE' THEN
    TRUNCATE demande_intervention_count;
    RETURN NULL;
  ELSIF TG_OP = 'INSERT' THEN
    SELECT array_agg(st), array_agg(a), array_agg(s), array_agg(n) INTO v_statut, v_action, v_site, v_n
      FROM (SELECT statut_id, type_action_programmee_id, site_id, count(*)::int FROM new_rows GROUP BY 1, 2, 3) g(st, a, s, n);
  ELSIF TG_OP = 'DELETE' THEN
    SELECT array_agg(st), array_agg(a), array_agg(s), array_agg(n) INTO v_statut, v_action, v_site, v_n
      FROM (SELECT statut_id, type_action_programmee_id, site_id, -count(*)::int FROM old_rows GROUP BY 1, 2, 3) g(st, a, s, n);
  ELSE
    SELECT array_agg(st), array_agg(a), array_agg(s), array_agg(n) INTO v_statut, v_action, v_site, v_n
      FROM (SELECT st, a, s, sum(n)::int
              FROM (SELECT statut_id, type_action_programmee_id, site_id, 1 FROM new_rows
                    UNION ALL
                    SELECT statut_id, type_action_programmee_id, site_id, -1 FROM old_rows) d(st, a, s, n)
             GROUP BY 1, 2, 3 HAVING sum(n) <> 0) g(st, a, s, n);
  END IF;
  -- Each request counts in four rows of its site: its status and action, its status with action
  -- 0, its action with status 0, and 0/0.
  INSERT INTO demande_intervention_count AS c (statut_id, type_action_programmee_id, site_id, n)
  SELECT k.st, k.a, x.s, sum(x.n)::int
    FROM unnest(v_statut, v_action, v_site, v_n) x(st, a, s, n)
    CROSS JOIN LATERAL (VALUES (x.st, x.a), (x.st, 0), (0, x.a), (0, 0)) k(st, a)
   GROUP BY k.st, k.a, x.s HAVING sum(x.n) <> 0 ORDER BY k.st, k.a, x.s
  ON CONFLICT (statut_id, type_action_programmee_id, site_id) DO UPDATE SET n = c.n + EXCLUDED.n;
  RETURN NULL;
END $$;

DROP TRIGGER demande_intervention_count_ins ON demande_intervention;
DROP TRIGGER demande_intervention_count_upd ON demande_intervention;
DROP TRIGGER demande_intervention_count_del ON demande_intervention;
DROP TRIGGER demande_intervention_count_truncate ON demande_intervention;
DROP FUNCTION demande_intervention_count_ins();
DROP FUNCTION demande_intervention_count_upd();
DROP FUNCTION demande_intervention_count_del();
DROP FUNCTION demande_intervention_count_truncate();
DROP FUNCTION demande_intervention_count_apply(integer[], integer[], integer[], integer[]);

CREATE TRIGGER demande_intervention_counts_inserted AFTER INSERT ON demande_intervention
  REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION demande_intervention_counts_changed();
CREATE TRIGGER demande_intervention_counts_updated AFTER UPDATE ON demande_intervention
  REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION demande_intervention_counts_changed();
CREATE TRIGGER demande_intervention_counts_deleted AFTER DELETE ON demande_intervention
  REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION demande_intervention_counts_changed();
CREATE TRIGGER demande_intervention_counts_truncated AFTER TRUNCATE ON demande_intervention
  FOR EACH STATEMENT EXECUTE FUNCTION demande_intervention_counts_changed();
`;
