// Indexes that the admin lists (users, roles, catalogues) still lacked at 100 000 rows (measured with
// EXPLAIN ANALYZE on PostgreSQL 15): every remaining sort key, and trigram indexes for the
// accent- and case-insensitive filters and searches. The expressions are exactly the ones the
// repositories use (f_unaccent(lower(...)), the IMMUTABLE wrapper of migration 001), otherwise
// the planner cannot use them. Sort indexes end with id because each list breaks ties by id.
export const up = `
-- Users list (kind = 'user' only, like the indexes of migration 003): 'Actif' and e-mail state.
CREATE INDEX account_user_actif_sort ON account (actif, id) WHERE kind = 'user';
CREATE INDEX account_user_email_valide_sort ON account (email_valide, id) WHERE kind = 'user';
-- The search box looks in names, organisation and e-mail at once. The text is stored already
-- accent-free and lower-cased: a term too short for the trigram index (one or two letters)
-- then scans plain text instead of calling unaccent on every row. The fields are joined with
-- a unit separator, which no search term holds, so a term never matches across two fields.
ALTER TABLE account ADD COLUMN search_text text
  GENERATED ALWAYS AS (f_unaccent(lower(
    nom || E'\\x1f' || coalesce(prenom, '') || E'\\x1f' || coalesce(organisme, '') || E'\\x1f' || email
  ))) STORED;
CREATE INDEX account_user_search_trgm ON account USING gin (search_text gin_trgm_ops) WHERE kind = 'user';

-- Composter types: sort by volume or precisions, search in precisions.
CREATE INDEX type_composteur_volume_sort ON type_composteur (volume, id);
DROP INDEX IF EXISTS type_composteur_volume_idx;
CREATE INDEX type_composteur_precisions_sort ON type_composteur (f_unaccent(lower(precisions)), id);
CREATE INDEX type_composteur_precisions_trgm ON type_composteur USING gin (f_unaccent(lower(precisions)) gin_trgm_ops);

-- Site types: default sort by libelle; the search also looks at the code.
CREATE INDEX type_site_libelle_sort ON type_site (f_unaccent(lower(libelle)), id);
CREATE INDEX type_site_code_trgm ON type_site USING gin (f_unaccent(lower(code)) gin_trgm_ops);
`;
