// Indexes behind the users admin list (filters and every sortable column) so that it stays
// fast at 100 000 accounts. Sort indexes are partial on kind = 'user', the only kind listed,
// and end with id because the list breaks ties by id.
export const up = `
CREATE INDEX account_email_unaccent_trgm ON account USING gin (f_unaccent(lower(email)) gin_trgm_ops);
CREATE INDEX account_tel_trgm ON account USING gin (f_unaccent(lower(coalesce(tel, ''))) gin_trgm_ops);

CREATE INDEX account_user_nom_sort ON account (f_unaccent(lower(nom)), id) WHERE kind = 'user';
CREATE INDEX account_user_prenom_sort ON account (f_unaccent(lower(coalesce(prenom, ''))), id) WHERE kind = 'user';
CREATE INDEX account_user_organisme_sort ON account (f_unaccent(lower(coalesce(organisme, ''))), id) WHERE kind = 'user';
CREATE INDEX account_user_email_sort ON account (lower(email), id) WHERE kind = 'user';
CREATE INDEX account_user_tel_sort ON account (coalesce(tel, ''), id) WHERE kind = 'user';
CREATE INDEX account_user_date_sort ON account (created_at, id) WHERE kind = 'user';
CREATE INDEX account_user_type_sort ON account (type_user_id, id) WHERE kind = 'user';
`;
