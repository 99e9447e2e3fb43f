// An intervenant that imported history names and who has no account here is kept as that name,
// in an account row of its own kind: 'intervenant' (no password, no type, never active). Rows of
// that kind are not users: the users' lists, exports and pickers, which read kind 'user', leave
// them out, while interventions and statistics keep pointing at them by id. The rows earlier
// imports made as inactive users, under their internal address '…@intervenants.invalid', become
// that kind.

export const up = `
ALTER TABLE account DROP CONSTRAINT account_kind_check;
ALTER TABLE account ADD CONSTRAINT account_kind_check CHECK (kind = ANY (ARRAY['user'::text, 'agent'::text, 'intervenant'::text]));
DELETE FROM account_role WHERE account_id IN (SELECT id FROM account WHERE lower(email) LIKE '%@intervenants.invalid' AND kind = 'user' AND password_hash IS NULL);
UPDATE account SET kind = 'intervenant', type_user_id = NULL, actif = false, email_valide = false
 WHERE lower(email) LIKE '%@intervenants.invalid' AND kind = 'user' AND password_hash IS NULL;
`;
