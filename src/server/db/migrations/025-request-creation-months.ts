// The requests history in creation order reads a deep page from the nearer end of the history,
// and still walked the creation-date index up to the middle: about 43,000 entries for page
// 2,500 of 93,000 requests. This keeps the number of requests created per Paris month, so that
// such a page skips the whole months before it and walks at most one month.
// Spread over 16 stripes (bande = site_id % 16), like the interventions' network summaries, so
// that requests raised at the same time on different sites rarely wait on the same row; a month
// holds at most 16 rows. Kept by statement-level triggers: one grouped upsert per statement.

export const up = `
CREATE TABLE demande_intervention_mois (
  mois date NOT NULL,
  bande integer NOT NULL,
  n integer NOT NULL,
  PRIMARY KEY (mois, bande)
);
INSERT INTO demande_intervention_mois (mois, bande, n)
  SELECT stats_mois(date_creation), site_id % 16, count(*)::int FROM demande_intervention GROUP BY 1, 2;

-- Rows are taken in key order so that two concurrent statements lock them in the same order.
CREATE FUNCTION demande_intervention_mois_apply(p_mois date[], p_bande integer[], p_delta integer[]) RETURNS void LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO demande_intervention_mois AS m (mois, bande, n)
    SELECT x.mois, x.bande, sum(x.d)::int FROM unnest(p_mois, p_bande, p_delta) x(mois, bande, d)
     GROUP BY x.mois, x.bande HAVING sum(x.d) <> 0 ORDER BY x.mois, x.bande
    ON CONFLICT (mois, bande) DO UPDATE SET n = m.n + EXCLUDED.n;
END $$;

CREATE FUNCTION demande_intervention_mois_ins() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM demande_intervention_mois_apply(array_agg(mois), array_agg(bande), array_agg(n))
    FROM (SELECT stats_mois(date_creation) AS mois, site_id % 16 AS bande, count(*)::int AS n FROM new_rows GROUP BY 1, 2) g;
  RETURN NULL;
END $$;
CREATE FUNCTION demande_intervention_mois_del() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM demande_intervention_mois_apply(array_agg(mois), array_agg(bande), array_agg(n))
    FROM (SELECT stats_mois(date_creation) AS mois, site_id % 16 AS bande, -count(*)::int AS n FROM old_rows GROUP BY 1, 2) g;
  RETURN NULL;
END $$;
-- A request keeps its creation date and site: a status change, a schedule or a done
-- intervention nets to zero and writes nothing.
CREATE FUNCTION demande_intervention_mois_upd() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM demande_intervention_mois_apply(array_agg(mois), array_agg(bande), array_agg(n))
    FROM (SELECT mois, bande, sum(d)::int AS n
            FROM (SELECT stats_mois(date_creation) AS mois, site_id % 16 AS bande, -1 AS d FROM old_rows
                  UNION ALL SELECT stats_mois(date_creation), site_id % 16, 1 FROM new_rows) x
           GROUP BY 1, 2 HAVING sum(d) <> 0) g;
  RETURN NULL;
END $$;
CREATE FUNCTION demande_intervention_mois_truncate() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  TRUNCATE demande_intervention_mois;
  RETURN NULL;
END $$;
CREATE TRIGGER demande_intervention_mois_ins AFTER INSERT ON demande_intervention
  REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION demande_intervention_mois_ins();
CREATE TRIGGER demande_intervention_mois_del AFTER DELETE ON demande_intervention
  REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION demande_intervention_mois_del();
CREATE TRIGGER demande_intervention_mois_upd AFTER UPDATE ON demande_intervention
  REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION demande_intervention_mois_upd();
CREATE TRIGGER demande_intervention_mois_truncate AFTER TRUNCATE ON demande_intervention
  FOR EACH STATEMENT EXECUTE FUNCTION demande_intervention_mois_truncate();
`;
