// Keeps the sites list fast at 100 000 sites. The computed columns of the table
// (type and status labels, referents, total volume, number of active cells, latest
// convention) are stored on the site row and kept current by triggers on the tables they
// come from, whichever module writes them; each sortable column then has an index on its
// sort key followed by the unique code, which serves the list's pages and the keyset
// batches of the CSV export. The expressions must stay identical to those of
// modules/sites/sites.repository.ts (its tests check with EXPLAIN that every index is used).
export const up = `
ALTER TABLE site
  ADD COLUMN type_libelle text NOT NULL DEFAULT '',
  ADD COLUMN statut_libelle text NOT NULL DEFAULT '',
  ADD COLUMN referent text,
  ADD COLUMN volume integer NOT NULL DEFAULT 0,
  ADD COLUMN nb_composteurs integer NOT NULL DEFAULT 0,
  ADD COLUMN date_convention timestamptz;

-- Labels of the site's type and status, copied when the site is written or a label changes.
CREATE FUNCTION site_list_labels() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  -- An unknown id keeps '' so that the foreign key, not this trigger, reports it.
  NEW.type_libelle := coalesce((SELECT libelle FROM type_site WHERE id = NEW.type_site_id), '');
  NEW.statut_libelle := coalesce((SELECT libelle FROM statut WHERE id = NEW.statut_id), '');
  RETURN NEW;
END $$;
CREATE TRIGGER site_list_labels BEFORE INSERT OR UPDATE OF type_site_id, statut_id ON site
  FOR EACH ROW EXECUTE FUNCTION site_list_labels();

CREATE FUNCTION type_site_libelle_changed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  UPDATE site SET type_libelle = NEW.libelle WHERE type_site_id = NEW.id AND type_libelle IS DISTINCT FROM NEW.libelle;
  RETURN NULL;
END $$;
CREATE TRIGGER type_site_libelle_changed AFTER UPDATE OF libelle ON type_site
  FOR EACH ROW EXECUTE FUNCTION type_site_libelle_changed();

CREATE FUNCTION statut_libelle_changed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  UPDATE site SET statut_libelle = NEW.libelle WHERE statut_id = NEW.id AND statut_libelle IS DISTINCT FROM NEW.libelle;
  RETURN NULL;
END $$;
CREATE TRIGGER statut_libelle_changed AFTER UPDATE OF libelle ON statut
  FOR EACH ROW EXECUTE FUNCTION statut_libelle_changed();

-- Total volume and number of the active cells.
CREATE FUNCTION site_refresh_cells(p_site integer) RETURNS void LANGUAGE plpgsql AS $$
DECLARE v integer; n integer;
BEGIN
  SELECT coalesce(sum(tc.volume), 0)::int, count(*)::int INTO v, n
    FROM site_composteur sc JOIN type_composteur tc ON tc.id = sc.type_composteur_id
    WHERE sc.site_id = p_site AND sc.actif;
  UPDATE site SET volume = v, nb_composteurs = n WHERE id = p_site AND (volume, nb_composteurs) IS DISTINCT FROM (v, n);
END $$;

CREATE FUNCTION site_composteur_changed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP <> 'INSERT' THEN PERFORM site_refresh_cells(OLD.site_id); END IF;
  IF TG_OP = 'INSERT' OR (TG_OP = 'UPDATE' AND NEW.site_id <> OLD.site_id) THEN PERFORM site_refresh_cells(NEW.site_id); END IF;
  RETURN NULL;
END $$;
CREATE TRIGGER site_composteur_changed AFTER INSERT OR UPDATE OR DELETE ON site_composteur
  FOR EACH ROW EXECUTE FUNCTION site_composteur_changed();

CREATE FUNCTION type_composteur_volume_changed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM site_refresh_cells(x.site_id) FROM (SELECT DISTINCT site_id FROM site_composteur WHERE type_composteur_id = NEW.id) x;
  RETURN NULL;
END $$;
CREATE TRIGGER type_composteur_volume_changed AFTER UPDATE OF volume ON type_composteur
  FOR EACH ROW EXECUTE FUNCTION type_composteur_volume_changed();

-- Referents as 'NOM Prénom, NOM Prénom', sorted by name.
CREATE FUNCTION site_refresh_referent(p_site integer) RETURNS void LANGUAGE plpgsql AS $$
DECLARE txt text;
BEGIN
  SELECT string_agg(trim(a.nom || ' ' || coalesce(a.prenom, '')), ', ' ORDER BY a.nom, a.prenom, a.id) INTO txt
    FROM site_referent sr JOIN account a ON a.id = sr.account_id WHERE sr.site_id = p_site;
  UPDATE site SET referent = txt WHERE id = p_site AND referent IS DISTINCT FROM txt;
END $$;

CREATE FUNCTION site_referent_changed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP <> 'INSERT' THEN PERFORM site_refresh_referent(OLD.site_id); END IF;
  IF TG_OP = 'INSERT' OR (TG_OP = 'UPDATE' AND NEW.site_id <> OLD.site_id) THEN PERFORM site_refresh_referent(NEW.site_id); END IF;
  RETURN NULL;
END $$;
CREATE TRIGGER site_referent_changed AFTER INSERT OR UPDATE OR DELETE ON site_referent
  FOR EACH ROW EXECUTE FUNCTION site_referent_changed();

CREATE FUNCTION account_name_changed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF NEW.nom IS DISTINCT FROM OLD.nom OR NEW.prenom IS DISTINCT FROM OLD.prenom THEN
    PERFORM site_refresh_referent(sr.site_id) FROM site_referent sr WHERE sr.account_id = NEW.id;
  END IF;
  RETURN NULL;
END $$;
CREATE TRIGGER account_name_changed AFTER UPDATE OF nom, prenom ON account
  FOR EACH ROW EXECUTE FUNCTION account_name_changed();

-- The latest convention date.
CREATE FUNCTION site_refresh_convention(p_site integer) RETURNS void LANGUAGE plpgsql AS $$
DECLARE d timestamptz;
BEGIN
  SELECT max(date_convention) INTO d FROM site_convention WHERE site_id = p_site;
  UPDATE site SET date_convention = d WHERE id = p_site AND date_convention IS DISTINCT FROM d;
END $$;

CREATE FUNCTION site_convention_changed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP <> 'INSERT' THEN PERFORM site_refresh_convention(OLD.site_id); END IF;
  IF TG_OP = 'INSERT' OR (TG_OP = 'UPDATE' AND NEW.site_id <> OLD.site_id) THEN PERFORM site_refresh_convention(NEW.site_id); END IF;
  RETURN NULL;
END $$;
CREATE TRIGGER site_convention_changed AFTER INSERT OR UPDATE OR DELETE ON site_convention
  FOR EACH ROW EXECUTE FUNCTION site_convention_changed();

-- Existing rows.
UPDATE site s SET
  type_libelle = t.libelle,
  statut_libelle = st.libelle,
  referent = (SELECT string_agg(trim(a.nom || ' ' || coalesce(a.prenom, '')), ', ' ORDER BY a.nom, a.prenom, a.id)
                FROM site_referent sr JOIN account a ON a.id = sr.account_id WHERE sr.site_id = s.id),
  volume = coalesce((SELECT sum(tc.volume)::int FROM site_composteur sc JOIN type_composteur tc ON tc.id = sc.type_composteur_id
                      WHERE sc.site_id = s.id AND sc.actif), 0),
  nb_composteurs = (SELECT count(*)::int FROM site_composteur sc WHERE sc.site_id = s.id AND sc.actif),
  date_convention = (SELECT max(c.date_convention) FROM site_convention c WHERE c.site_id = s.id)
FROM type_site t, statut st
WHERE t.id = s.type_site_id AND st.id = s.statut_id;

-- Sort keys, each followed by the unique code (the list's tie-break). Long free texts are
-- cut so that an index entry stays within the B-tree limit. A site without the value comes
-- last in both directions, hence one index per direction where the value may be missing:
-- dates fall back to +/- infinity, texts get a '0'/'1' prefix that puts empty ones last.
CREATE INDEX site_list_nom_sort ON site (f_unaccent(lower(coalesce(nullif(nom, ''), code))), code);
CREATE INDEX site_list_ville_sort ON site (f_unaccent(lower(ville)), code);
CREATE INDEX site_list_adresse_sort ON site (f_unaccent(lower(adresse)), code);
CREATE INDEX site_list_type_sort ON site (f_unaccent(lower(type_libelle)), code);
CREATE INDEX site_list_statut_sort ON site (f_unaccent(lower(statut_libelle)), code);
CREATE INDEX site_list_volume_sort ON site (volume, code);
CREATE INDEX site_list_nb_composteurs_sort ON site (nb_composteurs, code);
CREATE INDEX site_list_complement_asc ON site ((CASE WHEN coalesce(complement, '') = '' THEN '1' ELSE '0' || f_unaccent(lower(complement)) END), code);
CREATE INDEX site_list_complement_desc ON site ((CASE WHEN coalesce(complement, '') = '' THEN '0' ELSE '1' || f_unaccent(lower(complement)) END), code);
CREATE INDEX site_list_referent_asc ON site ((CASE WHEN coalesce(referent, '') = '' THEN '1' ELSE '0' || f_unaccent(lower(left(referent, 200))) END), code);
CREATE INDEX site_list_referent_desc ON site ((CASE WHEN coalesce(referent, '') = '' THEN '0' ELSE '1' || f_unaccent(lower(left(referent, 200))) END), code);
CREATE INDEX site_list_cadena_asc ON site ((CASE WHEN coalesce(cadena, '') = '' THEN '1' ELSE '0' || lower(cadena) END), code);
CREATE INDEX site_list_cadena_desc ON site ((CASE WHEN coalesce(cadena, '') = '' THEN '0' ELSE '1' || lower(cadena) END), code);
CREATE INDEX site_list_observations_asc ON site ((CASE WHEN coalesce(observations, '') = '' THEN '1' ELSE '0' || f_unaccent(lower(left(observations, 200))) END), code);
CREATE INDEX site_list_observations_desc ON site ((CASE WHEN coalesce(observations, '') = '' THEN '0' ELSE '1' || f_unaccent(lower(left(observations, 200))) END), code);
CREATE INDEX site_list_convention_asc ON site (coalesce(date_convention, 'infinity'::timestamptz), code);
CREATE INDEX site_list_convention_desc ON site (coalesce(date_convention, '-infinity'::timestamptz), code);
CREATE INDEX site_list_implantation_asc ON site (coalesce(date_implantation, 'infinity'::timestamptz), code);
CREATE INDEX site_list_implantation_desc ON site (coalesce(date_implantation, '-infinity'::timestamptz), code);
CREATE INDEX site_list_inauguration_asc ON site (coalesce(date_inauguration, 'infinity'::timestamptz), code);
CREATE INDEX site_list_inauguration_desc ON site (coalesce(date_inauguration, '-infinity'::timestamptz), code);

-- Filters and search. The texts they look in are stored accent-free and lower-cased, so a
-- term too short for the trigram indexes (one or two letters) scans plain text instead of
-- calling unaccent on every row. The search joins the fields with a unit separator, which
-- no search term holds, so a term never matches across two fields. The indexes of
-- migration 001 on the old filter expressions have no user left.
ALTER TABLE site
  ADD COLUMN nom_code_text text GENERATED ALWAYS AS (f_unaccent(lower(coalesce(nom, '') || ' ' || code))) STORED,
  ADD COLUMN adresse_text text GENERATED ALWAYS AS (f_unaccent(lower(coalesce(numero || ' ', '') || adresse))) STORED,
  ADD COLUMN search_text text GENERATED ALWAYS AS (f_unaccent(lower(
    coalesce(nom, '') || ' ' || code || E'\\x1f' || ville || E'\\x1f' || adresse || E'\\x1f' || coalesce(complement, '')
    || E'\\x1f' || coalesce(cadena, '') || E'\\x1f' || type_libelle
  ))) STORED;
CREATE INDEX site_list_nom_code_trgm ON site USING gin (nom_code_text gin_trgm_ops);
CREATE INDEX site_list_adresse_trgm ON site USING gin (adresse_text gin_trgm_ops);
CREATE INDEX site_list_search_trgm ON site USING gin (search_text gin_trgm_ops);
DROP INDEX IF EXISTS site_nom_trgm;
DROP INDEX IF EXISTS site_adresse_trgm;
DROP INDEX IF EXISTS site_nom_idx;
`;
