// The search box of the interventions tables looks in the free text of the log (observations
// and the free-text value of repairs) as well as in the labels of sites, people, actions, cell
// types and constants. Labels live in small tables; the free text needs indexes on the log:
// trigrams for a term of three letters or more, and word starts (f_word_starts, migration 007)
// for one or two letters. Both hold only the rows that have free text (about one in eight).
// The expression is the one interventions-admin.repository.ts searches (FREE_TEXT).
// A constant's label ('Plein') matches one value of a few actions: an index on (action,
// constant) finds those rows, where the action's own index reads every row of the action.
export const up = `
CREATE INDEX intervention_constante_idx ON intervention (type_action_id, valeur_constante) WHERE valeur_constante IS NOT NULL;
CREATE INDEX intervention_free_text_trgm ON intervention
  USING gin (f_unaccent(lower(coalesce(observations, '') || ' ' || coalesce(valeur_texte, ''))) gin_trgm_ops)
  WHERE observations IS NOT NULL OR valeur_texte IS NOT NULL;
CREATE INDEX intervention_free_text_starts ON intervention
  USING gin (f_word_starts(f_unaccent(lower(coalesce(observations, '') || ' ' || coalesce(valeur_texte, '')))))
  WHERE observations IS NOT NULL OR valeur_texte IS NOT NULL;
-- Frequencies of the word starts, so that a common start ('l') walks the list's order and a
-- rare one reads the index (see migration 007).
CREATE STATISTICS intervention_free_text_starts_stats
  ON (f_word_starts(f_unaccent(lower(coalesce(observations, '') || ' ' || coalesce(valeur_texte, ''))))) FROM intervention;
`;
