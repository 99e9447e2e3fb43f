// Interventions administration and the scale of its lists.
// - intervention_audit: who changed or deleted which intervention, when, before and after (JSON).
//   Nothing in the API deletes from it; the intervention id carries no foreign key so that the
//   trail of a deleted intervention stays.
// - Every list order is an index walk that stops after the page: (date, id) for the date sort
//   (both directions, NOT NULL so no NULLS clause), (fk, date, id) for the sorts by a
//   referenced label, walked group by group in label order (interventions-admin.repository.ts).
//   The cell's type and number are copied on the row (type_bac_id, numero_bac) since the list
//   sorts and filters by them; a cheap BEFORE trigger fills them, so the add path is unchanged.
// - intervention_count: exact number of interventions per (site, action) and per site, kept by
//   statement-level triggers (one aggregated statement per insert or delete, whatever its
//   size), so that a list without a date filter never counts the log.
// - Indexes on the request table's links to interventions (locks and deletes look them up).

export const up = `
ALTER TABLE intervention ADD COLUMN type_bac_id integer, ADD COLUMN numero_bac integer;
UPDATE intervention i SET type_bac_id = sc.type_bac_id, numero_bac = sc.numero FROM site_composteur sc WHERE sc.id = i.site_composteur_id;

CREATE FUNCTION intervention_cell_copy() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  SELECT sc.type_bac_id, sc.numero INTO NEW.type_bac_id, NEW.numero_bac FROM site_composteur sc WHERE sc.id = NEW.site_composteur_id;
  RETURN NEW;
END $$;
CREATE TRIGGER intervention_cell_copy BEFORE INSERT OR UPDATE OF site_composteur_id ON intervention
  FOR EACH ROW EXECUTE FUNCTION intervention_cell_copy();

-- A cell's type or number rarely changes (composters dialog); its interventions follow.
CREATE FUNCTION site_composteur_cell_copy() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  UPDATE intervention i SET type_bac_id = n.type_bac_id, numero_bac = n.numero
    FROM new_cells n JOIN old_cells o ON o.id = n.id
    WHERE i.site_composteur_id = n.id AND (o.type_bac_id, o.numero) IS DISTINCT FROM (n.type_bac_id, n.numero);
  RETURN NULL;
END $$;
CREATE TRIGGER site_composteur_cell_copy AFTER UPDATE ON site_composteur
  REFERENCING OLD TABLE AS old_cells NEW TABLE AS new_cells FOR EACH STATEMENT EXECUTE FUNCTION site_composteur_cell_copy();

CREATE INDEX intervention_cell_idx ON intervention (site_composteur_id);
CREATE INDEX intervention_list_date ON intervention (date, id);
-- Within one site every sort reads the site's rows (5,000 at most): the sort keys are in the
-- index so that this is an index-only scan, not thousands of scattered heap reads.
CREATE INDEX intervention_list_site ON intervention (site_id, date, id) INCLUDE (type_action_id, intervenant_id, type_bac_id, numero_bac);
CREATE INDEX intervention_list_action ON intervention (type_action_id, date, id);
CREATE INDEX intervention_list_intervenant ON intervention (intervenant_id, date, id);
CREATE INDEX intervention_list_type_bac ON intervention (type_bac_id, date, id);
CREATE INDEX intervention_list_numero_bac ON intervention (numero_bac, date, id);
-- Superseded by the (…, date, id) indexes above, which serve the same queries.
DROP INDEX IF EXISTS intervention_date_idx;
DROP INDEX IF EXISTS intervention_site_date_idx;
DROP INDEX IF EXISTS intervention_action_date_idx;

-- Sort keys of the site and intervenant orders, stored: the lists walk every site (2,000) or
-- account (5,000) in this order, and computing f_unaccent for each of them cost 40-90 ms.
ALTER TABLE site ADD COLUMN intervention_sort_key text GENERATED ALWAYS AS (f_unaccent(lower(coalesce(nullif(nom, ''), code)))) STORED;
ALTER TABLE account ADD COLUMN intervention_sort_key text GENERATED ALWAYS AS (f_unaccent(lower(nom || ' ' || coalesce(prenom, '')))) STORED;
CREATE INDEX site_intervention_sort ON site (intervention_sort_key, code);
CREATE INDEX account_intervention_sort ON account (intervention_sort_key, id);

CREATE INDEX IF NOT EXISTS demande_declenchante_idx ON demande_intervention (intervention_declenchante_id);
CREATE INDEX IF NOT EXISTS demande_realisee_idx ON demande_intervention (intervention_realisee_id);
CREATE INDEX IF NOT EXISTS intervention_demande_idx ON intervention (demande_intervention_id);

-- type_action_id 0 holds the site's total, so that the unfiltered count sums one row per site.
CREATE TABLE intervention_count (
  site_id integer NOT NULL,
  type_action_id integer NOT NULL,
  n integer NOT NULL,
  PRIMARY KEY (site_id, type_action_id)
);
CREATE INDEX intervention_count_action_idx ON intervention_count (type_action_id);
INSERT INTO intervention_count (site_id, type_action_id, n)
  SELECT site_id, type_action_id, count(*)::int FROM intervention GROUP BY site_id, type_action_id;
INSERT INTO intervention_count (site_id, type_action_id, n)
  SELECT site_id, 0, count(*)::int FROM intervention GROUP BY site_id;

-- Rows are taken in key order so that two concurrent statements lock counters in the same order.
CREATE FUNCTION intervention_count_apply(p_site integer[], p_action integer[], p_delta integer[]) RETURNS void LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO intervention_count AS c (site_id, type_action_id, n)
    SELECT s, a, sum(d)::int FROM (
      SELECT s, a, d FROM unnest(p_site, p_action, p_delta) x(s, a, d)
      UNION ALL SELECT s, 0, d FROM unnest(p_site, p_delta) y(s, d)) z
    GROUP BY s, a HAVING sum(d) <> 0 ORDER BY s, a
    ON CONFLICT (site_id, type_action_id) DO UPDATE SET n = c.n + EXCLUDED.n;
END $$;

CREATE FUNCTION intervention_count_ins() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM intervention_count_apply(array_agg(site_id), array_agg(type_action_id), array_agg(n))
    FROM (SELECT site_id, type_action_id, count(*)::int AS n FROM new_rows GROUP BY 1, 2) g;
  RETURN NULL;
END $$;
CREATE FUNCTION intervention_count_del() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM intervention_count_apply(array_agg(site_id), array_agg(type_action_id), array_agg(n))
    FROM (SELECT site_id, type_action_id, -count(*)::int AS n FROM old_rows GROUP BY 1, 2) g;
  RETURN NULL;
END $$;
CREATE FUNCTION intervention_count_upd() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM intervention_count_apply(array_agg(site_id), array_agg(type_action_id), array_agg(n))
    FROM (SELECT site_id, type_action_id, sum(d)::int AS n
            FROM (SELECT site_id, type_action_id, -1 AS d FROM old_rows UNION ALL SELECT site_id, type_action_id, 1 FROM new_rows) x
            GROUP BY 1, 2 HAVING sum(d) <> 0) g;
  RETURN NULL;
END $$;
CREATE TRIGGER intervention_count_ins AFTER INSERT ON intervention
  REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION intervention_count_ins();
CREATE TRIGGER intervention_count_del AFTER DELETE ON intervention
  REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION intervention_count_del();
CREATE FUNCTION intervention_count_truncate() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  TRUNCATE intervention_count;
  RETURN NULL;
END $$;
CREATE TRIGGER intervention_count_truncate AFTER TRUNCATE ON intervention
  FOR EACH STATEMENT EXECUTE FUNCTION intervention_count_truncate();
CREATE TRIGGER intervention_count_upd AFTER UPDATE ON intervention
  REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION intervention_count_upd();

CREATE TABLE intervention_audit (
  id serial PRIMARY KEY,
  intervention_id integer NOT NULL,
  action text NOT NULL CHECK (action IN ('update', 'delete')),
  agent_id integer REFERENCES account(id) ON DELETE SET NULL,
  -- The name at the time of the change: the trail outlives the account.
  agent_nom text NOT NULL,
  at timestamptz NOT NULL DEFAULT now(),
  before jsonb NOT NULL,
  after jsonb
);
CREATE INDEX intervention_audit_intervention_idx ON intervention_audit (intervention_id, id);
CREATE INDEX intervention_audit_agent_idx ON intervention_audit (agent_id);
`;
