// The users' list sorts by name, first name and organisation ignoring accents and case. Those
// keys were index expressions, so reading a page computed the key again for every row the page
// skipped (about 5,000 for the last page). Stored as columns, the keys are read from the sort
// indexes alone (an index-only scan), and the page's rows are fetched by id afterwards. The
// e-mail and phone keys are cheap to compute: their sort indexes carry the column itself, from
// which an index-only scan computes the key without reading the table.

export const up = `
ALTER TABLE account
  ADD COLUMN tri_nom text GENERATED ALWAYS AS (f_unaccent(lower(nom))) STORED,
  ADD COLUMN tri_prenom text GENERATED ALWAYS AS (f_unaccent(lower(COALESCE(prenom, '')))) STORED,
  ADD COLUMN tri_organisme text GENERATED ALWAYS AS (f_unaccent(lower(COALESCE(organisme, '')))) STORED;
DROP INDEX account_user_nom_sort;
DROP INDEX account_user_prenom_sort;
DROP INDEX account_user_organisme_sort;
DROP INDEX account_user_email_sort;
DROP INDEX account_user_tel_sort;
CREATE INDEX account_user_nom_sort ON account (tri_nom, id) WHERE kind = 'user';
CREATE INDEX account_user_prenom_sort ON account (tri_prenom, id) WHERE kind = 'user';
CREATE INDEX account_user_organisme_sort ON account (tri_organisme, id) WHERE kind = 'user';
CREATE INDEX account_user_email_sort ON account (lower(email), id) INCLUDE (email) WHERE kind = 'user';
CREATE INDEX account_user_tel_sort ON account (COALESCE(tel, ''), id) INCLUDE (tel) WHERE kind = 'user';
`;
