// Every process keeps the sessions it has read in memory (plugins/session-cache.ts) and drops
// them when sessions, accounts or roles change. Its own changes it sees on its connection;
// these triggers tell the other processes, through a notification that PostgreSQL delivers
// on commit (and never for a transaction rolled back) to every connection listening on the
// channel (db/notifications.ts). Statement-level, so a bulk change costs one notification, and
// identical notifications of one transaction are folded into one by PostgreSQL.

export const up = `
CREATE OR REPLACE FUNCTION compost_auth_changed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pg_notify('compost_auth', TG_TABLE_NAME);
  RETURN NULL;
END $$;

-- Removing expired sessions (the clean-up at each login) changes nothing a cache may serve.
CREATE OR REPLACE FUNCTION compost_auth_sessions_gone() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF EXISTS (SELECT 1 FROM gone WHERE expires_at > now()) THEN
    PERFORM pg_notify('compost_auth', TG_TABLE_NAME);
  END IF;
  RETURN NULL;
END $$;

DROP TRIGGER IF EXISTS session_auth_gone ON session;
CREATE TRIGGER session_auth_gone AFTER DELETE ON session
  REFERENCING OLD TABLE AS gone FOR EACH STATEMENT EXECUTE FUNCTION compost_auth_sessions_gone();
-- Pushing a session's expiry (hourly while it is used) keeps what a cache holds right; cutting
-- it short or moving it to another account does not.
DROP TRIGGER IF EXISTS session_auth_changed ON session;
CREATE TRIGGER session_auth_changed AFTER UPDATE ON session FOR EACH ROW
  WHEN (NEW.expires_at < OLD.expires_at OR NEW.account_id <> OLD.account_id OR NEW.id_hash <> OLD.id_hash)
  EXECUTE FUNCTION compost_auth_changed();
DROP TRIGGER IF EXISTS session_auth_truncated ON session;
CREATE TRIGGER session_auth_truncated AFTER TRUNCATE ON session FOR EACH STATEMENT EXECUTE FUNCTION compost_auth_changed();

DROP TRIGGER IF EXISTS account_auth_changed ON account;
CREATE TRIGGER account_auth_changed AFTER UPDATE OR DELETE OR TRUNCATE ON account FOR EACH STATEMENT EXECUTE FUNCTION compost_auth_changed();

DROP TRIGGER IF EXISTS account_role_auth_changed ON account_role;
CREATE TRIGGER account_role_auth_changed AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON account_role FOR EACH STATEMENT EXECUTE FUNCTION compost_auth_changed();

DROP TRIGGER IF EXISTS role_auth_changed ON role;
CREATE TRIGGER role_auth_changed AFTER UPDATE OR DELETE OR TRUNCATE ON role FOR EACH STATEMENT EXECUTE FUNCTION compost_auth_changed();
`;
