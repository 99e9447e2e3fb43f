// Scale of the writes and of the cells dialog at a million interventions.
// - Indexes on the foreign keys that point at accounts, interventions and requests: without
//   them, deleting one intervention (ON DELETE SET NULL of the requests) or one user (the
//   history check and the foreign key checks) scans the log and the submissions. The index on
//   intervention(site_composteur_id) and intervention(intervenant_id, ...) come from migration
//   008 (intervention_cell_idx, intervention_list_intervenant); the request links are created
//   here with the names and definitions 008 uses with IF NOT EXISTS, so they exist once.
// - site_composteur.a_interventions: whether a cell is used by an intervention (as its cell or
//   as the destination of a transfer), read by the cells dialog. It is kept by statement-level
//   triggers on intervention: one statement per insert, whatever its size, that only writes a
//   cell the first time it gets an intervention; a delete or update rechecks only the cells it
//   touched, through the indexes.
// - The list columns of the sites (migration 005) were kept by row triggers: a bulk import of
//   cells, referents or conventions refreshed its site once per row. They are now kept by
//   statement-level triggers with transition tables: one aggregated refresh per statement, for
//   the sites it touched. The labels copied on the site row stay a BEFORE ROW trigger: it
//   writes nothing more than the row being written (a statement-level one would write every
//   new site a second time) and costs two primary key lookups.
// - Searches of one or two letters, which no trigram index serves, look for a word starting
//   with them: f_word_starts() lists the one- and two-letter starts of the words of a text
//   already accent-free and lower-cased, and a GIN index on it finds them (users search and
//   name filters, sites search, name and address filters). A phone filter that short is a
//   prefix of the number (B-tree, text_pattern_ops so LIKE 'x%' can use it in any collation).

export const up = `
-- Its cost tells the planner what testing it on a row costs (tens of microseconds), so that it
-- never walks a whole sort index calling it on each row to find a rare start.
CREATE FUNCTION f_word_starts(text) RETURNS text[] LANGUAGE sql IMMUTABLE PARALLEL SAFE STRICT COST 5000 AS $$
  SELECT coalesce(array_agg(DISTINCT p), '{}')
    FROM regexp_split_to_table($1, '[^[:alnum:]]+') w, LATERAL (VALUES (left(w, 1)), (left(w, 2))) v(p)
    WHERE w <> ''
$$;
CREATE INDEX account_user_search_starts ON account USING gin (f_word_starts(search_text)) WHERE kind = 'user';
CREATE INDEX account_user_tel_prefix ON account (coalesce(tel, '') text_pattern_ops) WHERE kind = 'user';
CREATE INDEX site_list_search_starts ON site USING gin (f_word_starts(search_text));
CREATE INDEX site_list_adresse_starts ON site USING gin (f_word_starts(adresse_text));
-- Statistics of the word starts themselves (most common ones and their frequency): without
-- them the planner takes every start for rare, and walks a sort index testing each row for a
-- start that no row has. With them, a rare start is read from the GIN index, a common one
-- ('l', '06') by walking the sort index until the page is full.
CREATE STATISTICS account_word_starts_stats ON (f_word_starts(search_text)) FROM account;
CREATE STATISTICS site_word_starts_stats ON (f_word_starts(search_text)) FROM site;
CREATE STATISTICS site_adresse_starts_stats ON (f_word_starts(adresse_text)) FROM site;

CREATE INDEX IF NOT EXISTS demande_declenchante_idx ON demande_intervention (intervention_declenchante_id);
CREATE INDEX IF NOT EXISTS demande_realisee_idx ON demande_intervention (intervention_realisee_id);
CREATE INDEX IF NOT EXISTS intervention_demande_idx ON intervention (demande_intervention_id);
CREATE INDEX intervention_bac_destination_idx ON intervention (bac_destination_id) WHERE bac_destination_id IS NOT NULL;
CREATE INDEX intervention_modification_agent_idx ON intervention (modification_agent_id) WHERE modification_agent_id IS NOT NULL;
CREATE INDEX demande_programme_par_idx ON demande_intervention (programme_par_id) WHERE programme_par_id IS NOT NULL;
CREATE INDEX demande_annulee_par_idx ON demande_intervention (annulee_par_id) WHERE annulee_par_id IS NOT NULL;
CREATE INDEX intervention_submission_account_idx ON intervention_submission (account_id);

-- Whether the cell has interventions.
ALTER TABLE site_composteur ADD COLUMN a_interventions boolean NOT NULL DEFAULT false;

-- Cells newly used by interventions get their flag. Nothing is written (and no trigger of
-- site_composteur fires) unless a cell flips: the usual insert, on a cell already in use, only
-- reads. The statements of these functions run only when their transition table has rows:
-- a trigger of site_composteur that updates no intervention must not start a round of
-- empty statements between the two tables.
CREATE FUNCTION intervention_cells_flag(p_cells integer[]) RETURNS void LANGUAGE plpgsql AS $$
BEGIN
  IF EXISTS (SELECT 1 FROM site_composteur WHERE id = ANY(p_cells) AND NOT a_interventions) THEN
    UPDATE site_composteur SET a_interventions = true WHERE id = ANY(p_cells) AND NOT a_interventions;
  END IF;
END $$;

CREATE FUNCTION intervention_cells_inserted() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM intervention_cells_flag(ARRAY(
    SELECT site_composteur_id FROM new_rows UNION SELECT bac_destination_id FROM new_rows WHERE bac_destination_id IS NOT NULL));
  RETURN NULL;
END $$;

-- Cells that may have lost their last intervention get their flag recomputed. They are
-- locked FOR UPDATE first: that waits for any transaction still inserting an intervention on
-- them (its foreign key check holds a KEY SHARE lock on the cell), and the next statement,
-- with a new snapshot, then sees that intervention.
CREATE FUNCTION intervention_cells_recheck(p_cells integer[]) RETURNS void LANGUAGE plpgsql AS $$
BEGIN
  IF cardinality(p_cells) = 0 THEN RETURN; END IF;
  PERFORM 1 FROM site_composteur WHERE id = ANY(p_cells) AND a_interventions ORDER BY id FOR UPDATE;
  UPDATE site_composteur sc SET a_interventions = false
    WHERE sc.id = ANY(p_cells) AND sc.a_interventions
      AND NOT EXISTS (SELECT 1 FROM intervention i WHERE i.site_composteur_id = sc.id)
      AND NOT EXISTS (SELECT 1 FROM intervention i WHERE i.bac_destination_id = sc.id);
END $$;

CREATE FUNCTION intervention_cells_deleted() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM intervention_cells_recheck(ARRAY(
    SELECT site_composteur_id FROM old_rows UNION SELECT bac_destination_id FROM old_rows WHERE bac_destination_id IS NOT NULL));
  RETURN NULL;
END $$;

CREATE FUNCTION intervention_cells_updated() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM intervention_cells_flag(ARRAY(
    SELECT n.site_composteur_id FROM old_rows o JOIN new_rows n ON n.id = o.id WHERE n.site_composteur_id <> o.site_composteur_id
    UNION
    SELECT n.bac_destination_id FROM old_rows o JOIN new_rows n ON n.id = o.id
      WHERE n.bac_destination_id IS NOT NULL AND n.bac_destination_id IS DISTINCT FROM o.bac_destination_id));
  PERFORM intervention_cells_recheck(ARRAY(
    SELECT o.site_composteur_id FROM old_rows o JOIN new_rows n ON n.id = o.id WHERE n.site_composteur_id <> o.site_composteur_id
    UNION
    SELECT o.bac_destination_id FROM old_rows o JOIN new_rows n ON n.id = o.id
      WHERE o.bac_destination_id IS NOT NULL AND o.bac_destination_id IS DISTINCT FROM n.bac_destination_id));
  RETURN NULL;
END $$;

CREATE TRIGGER intervention_cells_inserted AFTER INSERT ON intervention
  REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION intervention_cells_inserted();
CREATE TRIGGER intervention_cells_deleted AFTER DELETE ON intervention
  REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION intervention_cells_deleted();
CREATE TRIGGER intervention_cells_updated AFTER UPDATE ON intervention
  REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION intervention_cells_updated();

-- Existing rows: one pass over the log.
UPDATE site_composteur SET a_interventions = true
  WHERE id IN (SELECT site_composteur_id FROM intervention UNION SELECT bac_destination_id FROM intervention);

-- The list columns of the sites, refreshed once per statement for the sites it touched. The
-- computations are those of migration 005, for a set of sites instead of one. A statement
-- that touched no site (a user deleted without referent links) returns at once.
DROP TRIGGER site_composteur_changed ON site_composteur;
DROP TRIGGER type_composteur_volume_changed ON type_composteur;
DROP TRIGGER site_referent_changed ON site_referent;
DROP TRIGGER account_name_changed ON account;
DROP TRIGGER site_convention_changed ON site_convention;
DROP TRIGGER type_site_libelle_changed ON type_site;
DROP TRIGGER statut_libelle_changed ON statut;
DROP FUNCTION site_composteur_changed();
DROP FUNCTION type_composteur_volume_changed();
DROP FUNCTION site_referent_changed();
DROP FUNCTION account_name_changed();
DROP FUNCTION site_convention_changed();
DROP FUNCTION type_site_libelle_changed();
DROP FUNCTION statut_libelle_changed();
DROP FUNCTION site_refresh_cells(integer);
DROP FUNCTION site_refresh_referent(integer);
DROP FUNCTION site_refresh_convention(integer);

CREATE FUNCTION sites_refresh_cells(p_sites integer[]) RETURNS void LANGUAGE plpgsql AS $$
BEGIN
  IF cardinality(p_sites) = 0 THEN RETURN; END IF;
  UPDATE site s SET volume = c.v, nb_composteurs = c.n
    FROM (SELECT x.id, coalesce(sum(tc.volume) FILTER (WHERE sc.actif), 0)::int AS v, (count(sc.id) FILTER (WHERE sc.actif))::int AS n
            FROM unnest(p_sites) x(id)
            LEFT JOIN site_composteur sc ON sc.site_id = x.id
            LEFT JOIN type_composteur tc ON tc.id = sc.type_composteur_id
            GROUP BY x.id) c
    WHERE s.id = c.id AND (s.volume, s.nb_composteurs) IS DISTINCT FROM (c.v, c.n);
END
$$;

CREATE FUNCTION sites_refresh_referent(p_sites integer[]) RETURNS void LANGUAGE plpgsql AS $$
BEGIN
  IF cardinality(p_sites) = 0 THEN RETURN; END IF;
  UPDATE site s SET referent = r.txt
    FROM (SELECT x.id, string_agg(trim(a.nom || ' ' || coalesce(a.prenom, '')), ', ' ORDER BY a.nom, a.prenom, a.id) AS txt
            FROM unnest(p_sites) x(id)
            LEFT JOIN (site_referent sr JOIN account a ON a.id = sr.account_id) ON sr.site_id = x.id
            GROUP BY x.id) r
    WHERE s.id = r.id AND s.referent IS DISTINCT FROM r.txt;
END
$$;

CREATE FUNCTION sites_refresh_convention(p_sites integer[]) RETURNS void LANGUAGE plpgsql AS $$
BEGIN
  IF cardinality(p_sites) = 0 THEN RETURN; END IF;
  UPDATE site s SET date_convention = c.d
    FROM (SELECT x.id, max(sc.date_convention) AS d
            FROM unnest(p_sites) x(id) LEFT JOIN site_convention sc ON sc.site_id = x.id
            GROUP BY x.id) c
    WHERE s.id = c.id AND s.date_convention IS DISTINCT FROM c.d;
END
$$;

-- Cells: added, removed, or changed in what the list shows (site, composter type, active).
CREATE FUNCTION site_cells_inserted() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM sites_refresh_cells(ARRAY(SELECT DISTINCT site_id FROM new_rows));
  RETURN NULL;
END $$;
CREATE FUNCTION site_cells_deleted() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM sites_refresh_cells(ARRAY(SELECT DISTINCT site_id FROM old_rows));
  RETURN NULL;
END $$;
CREATE FUNCTION site_cells_updated() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM sites_refresh_cells(ARRAY(
    SELECT o.site_id FROM old_rows o JOIN new_rows n ON n.id = o.id
      WHERE (o.site_id, o.type_composteur_id, o.actif) IS DISTINCT FROM (n.site_id, n.type_composteur_id, n.actif)
    UNION
    SELECT n.site_id FROM old_rows o JOIN new_rows n ON n.id = o.id
      WHERE (o.site_id, o.type_composteur_id, o.actif) IS DISTINCT FROM (n.site_id, n.type_composteur_id, n.actif)));
  RETURN NULL;
END $$;
CREATE TRIGGER site_cells_inserted AFTER INSERT ON site_composteur
  REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION site_cells_inserted();
CREATE TRIGGER site_cells_deleted AFTER DELETE ON site_composteur
  REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION site_cells_deleted();
CREATE TRIGGER site_cells_updated AFTER UPDATE ON site_composteur
  REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION site_cells_updated();

CREATE FUNCTION type_composteur_volumes_changed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM sites_refresh_cells(ARRAY(
    SELECT DISTINCT sc.site_id FROM old_rows o JOIN new_rows n ON n.id = o.id JOIN site_composteur sc ON sc.type_composteur_id = n.id
      WHERE n.volume IS DISTINCT FROM o.volume));
  RETURN NULL;
END $$;
CREATE TRIGGER type_composteur_volumes_changed AFTER UPDATE ON type_composteur
  REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION type_composteur_volumes_changed();

-- Referents: links added or removed, accounts renamed (a deleted account removes its links).
CREATE FUNCTION site_referents_inserted() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM sites_refresh_referent(ARRAY(SELECT DISTINCT site_id FROM new_rows));
  RETURN NULL;
END $$;
CREATE FUNCTION site_referents_deleted() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM sites_refresh_referent(ARRAY(SELECT DISTINCT site_id FROM old_rows));
  RETURN NULL;
END $$;
CREATE FUNCTION site_referents_updated() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM sites_refresh_referent(ARRAY(SELECT site_id FROM old_rows UNION SELECT site_id FROM new_rows));
  RETURN NULL;
END $$;
CREATE TRIGGER site_referents_inserted AFTER INSERT ON site_referent
  REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION site_referents_inserted();
CREATE TRIGGER site_referents_deleted AFTER DELETE ON site_referent
  REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION site_referents_deleted();
CREATE TRIGGER site_referents_updated AFTER UPDATE ON site_referent
  REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION site_referents_updated();

CREATE FUNCTION account_names_changed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM sites_refresh_referent(ARRAY(
    SELECT DISTINCT sr.site_id FROM old_rows o JOIN new_rows n ON n.id = o.id JOIN site_referent sr ON sr.account_id = n.id
      WHERE (n.nom, n.prenom) IS DISTINCT FROM (o.nom, o.prenom)));
  RETURN NULL;
END $$;
CREATE TRIGGER account_names_changed AFTER UPDATE ON account
  REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION account_names_changed();

-- Latest convention date.
CREATE FUNCTION site_conventions_inserted() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM sites_refresh_convention(ARRAY(SELECT DISTINCT site_id FROM new_rows));
  RETURN NULL;
END $$;
CREATE FUNCTION site_conventions_deleted() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM sites_refresh_convention(ARRAY(SELECT DISTINCT site_id FROM old_rows));
  RETURN NULL;
END $$;
CREATE FUNCTION site_conventions_updated() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM sites_refresh_convention(ARRAY(SELECT site_id FROM old_rows UNION SELECT site_id FROM new_rows));
  RETURN NULL;
END $$;
CREATE TRIGGER site_conventions_inserted AFTER INSERT ON site_convention
  REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION site_conventions_inserted();
CREATE TRIGGER site_conventions_deleted AFTER DELETE ON site_convention
  REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION site_conventions_deleted();
CREATE TRIGGER site_conventions_updated AFTER UPDATE ON site_convention
  REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION site_conventions_updated();

-- Labels of the types and statuses, copied on the sites when renamed.
CREATE FUNCTION type_site_libelles_changed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  UPDATE site s SET type_libelle = n.libelle
    FROM new_rows n JOIN old_rows o ON o.id = n.id
    WHERE n.libelle IS DISTINCT FROM o.libelle AND s.type_site_id = n.id AND s.type_libelle IS DISTINCT FROM n.libelle;
  RETURN NULL;
END $$;
CREATE TRIGGER type_site_libelles_changed AFTER UPDATE ON type_site
  REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION type_site_libelles_changed();

CREATE FUNCTION statut_libelles_changed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  UPDATE site s SET statut_libelle = n.libelle
    FROM new_rows n JOIN old_rows o ON o.id = n.id
    WHERE n.libelle IS DISTINCT FROM o.libelle AND s.statut_id = n.id AND s.statut_libelle IS DISTINCT FROM n.libelle;
  RETURN NULL;
END $$;
CREATE TRIGGER statut_libelles_changed AFTER UPDATE ON statut
  REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION statut_libelles_changed();
`;
