// Counts of the intervention requests, kept by statement triggers, so that the requests history
// and the board tell their number of rows without counting 100,000 requests on each page.
// - demande_intervention_count: per site, the number of requests by status and programmed
//   action, with 0 standing for "every status" and "every action": each request counts in four
//   rows of its site, (statut, action), (statut, 0), (0, action) and (0, 0). The count of any
//   combination of the history's filters (site, status, action) sums one row per site, or reads
//   one row when the site is given. There is no row for the whole network: every new request
//   would wait on it while another entry's transaction holds it.
// - demande_pending_site_idx, demande_pending_echeance_idx: the pending requests (of a site) by
//   due date, for the board: sorted by site it walks them site by site, sorted by due date it
//   walks the pending requests only (requests.repository.ts).

export const up = `
CREATE TABLE demande_intervention_count (
  statut_id integer NOT NULL,
  type_action_programmee_id integer NOT NULL,
  site_id integer NOT NULL,
  n integer NOT NULL,
  PRIMARY KEY (statut_id, type_action_programmee_id, site_id)
);
INSERT INTO demande_intervention_count (statut_id, type_action_programmee_id, site_id, n)
  SELECT s, a, site_id, count(*)::int
    FROM demande_intervention d
    CROSS JOIN LATERAL (VALUES (d.statut_id, d.type_action_programmee_id), (d.statut_id, 0), (0, d.type_action_programmee_id), (0, 0)) k(s, a)
   GROUP BY s, a, site_id;

-- Rows are taken in key order so that two concurrent statements lock counters in the same order.
CREATE FUNCTION demande_intervention_count_apply(p_statut integer[], p_action integer[], p_site integer[], p_delta integer[]) RETURNS void LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO demande_intervention_count AS c (statut_id, type_action_programmee_id, site_id, n)
    SELECT k.s, k.a, x.site, sum(x.d)::int
      FROM unnest(p_statut, p_action, p_site, p_delta) x(statut, action, site, d)
      CROSS JOIN LATERAL (VALUES (x.statut, x.action), (x.statut, 0), (0, x.action), (0, 0)) k(s, a)
     GROUP BY k.s, k.a, x.site HAVING sum(x.d) <> 0 ORDER BY k.s, k.a, x.site
    ON CONFLICT (statut_id, type_action_programmee_id, site_id) DO UPDATE SET n = c.n + EXCLUDED.n;
END $$;

CREATE FUNCTION demande_intervention_count_ins() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM demande_intervention_count_apply(array_agg(statut_id), array_agg(type_action_programmee_id), array_agg(site_id), array_agg(n))
    FROM (SELECT statut_id, type_action_programmee_id, site_id, count(*)::int AS n FROM new_rows GROUP BY 1, 2, 3) g;
  RETURN NULL;
END $$;
CREATE FUNCTION demande_intervention_count_del() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM demande_intervention_count_apply(array_agg(statut_id), array_agg(type_action_programmee_id), array_agg(site_id), array_agg(n))
    FROM (SELECT statut_id, type_action_programmee_id, site_id, -count(*)::int AS n FROM old_rows GROUP BY 1, 2, 3) g;
  RETURN NULL;
END $$;
-- A change of status moves the request from one count to another; an edit of anything else
-- (a scheduled date, the done intervention) nets to zero and writes nothing.
CREATE FUNCTION demande_intervention_count_upd() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM demande_intervention_count_apply(array_agg(statut_id), array_agg(type_action_programmee_id), array_agg(site_id), array_agg(n))
    FROM (SELECT statut_id, type_action_programmee_id, site_id, sum(d)::int AS n
            FROM (SELECT statut_id, type_action_programmee_id, site_id, -1 AS d FROM old_rows
                  UNION ALL SELECT statut_id, type_action_programmee_id, site_id, 1 FROM new_rows) x
           GROUP BY 1, 2, 3 HAVING sum(d) <> 0) g;
  RETURN NULL;
END $$;
CREATE FUNCTION demande_intervention_count_truncate() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  TRUNCATE demande_intervention_count;
  RETURN NULL;
END $$;
CREATE TRIGGER demande_intervention_count_ins AFTER INSERT ON demande_intervention
  REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION demande_intervention_count_ins();
CREATE TRIGGER demande_intervention_count_del AFTER DELETE ON demande_intervention
  REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION demande_intervention_count_del();
CREATE TRIGGER demande_intervention_count_upd AFTER UPDATE ON demande_intervention
  REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION demande_intervention_count_upd();
CREATE TRIGGER demande_intervention_count_truncate AFTER TRUNCATE ON demande_intervention
  FOR EACH STATEMENT EXECUTE FUNCTION demande_intervention_count_truncate();

CREATE INDEX demande_pending_site_idx ON demande_intervention (site_id, date_echeance, id) WHERE statut_id IN (3, 4);
CREATE INDEX demande_pending_echeance_idx ON demande_intervention (date_echeance, id) WHERE statut_id IN (3, 4);
`;
