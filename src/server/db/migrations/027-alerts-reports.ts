// Alerts about public reports, and the one-click unsubscribe link of the digests.
// - alerte.kind and alerte_preference.kind accept 'public_reports' (a site with several reports
//   from its public page within a week).
// - alerte_cle: the key the unsubscribe links of the digests are signed with (HMAC), drawn once
//   here from the database's strong random generator. A link proves who it was sent to without a
//   login and without a row per e-mail; a new key (UPDATE, then restart nothing: it is read at
//   each use) voids every link already sent.
export const up = `
ALTER TABLE alerte DROP CONSTRAINT alerte_kind_check,
  ADD CONSTRAINT alerte_kind_check CHECK (kind IN ('request_overdue', 'request_due_soon', 'no_reading', 'temperature_high', 'temperature_low', 'site_idle', 'intake_high', 'public_reports'));
ALTER TABLE alerte_preference DROP CONSTRAINT alerte_preference_kind_check,
  ADD CONSTRAINT alerte_preference_kind_check CHECK (kind IN ('request_overdue', 'request_due_soon', 'no_reading', 'temperature_high', 'temperature_low', 'site_idle', 'intake_high', 'public_reports'));

CREATE TABLE alerte_cle (
  id integer PRIMARY KEY CHECK (id = 1),
  secret text NOT NULL CHECK (length(secret) >= 64)
);
INSERT INTO alerte_cle (id, secret) VALUES (1, replace(gen_random_uuid()::text || gen_random_uuid()::text || gen_random_uuid()::text, '-', ''));
`;
