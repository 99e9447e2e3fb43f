// SQL of the login sessions (table `session`, keyed by the hash of the cookie's value): the one
// read that turns a cookie into an account with its roles, the hourly push of an expiry, login,
// logout and the end of every session of an account. The rules around them (lifetimes, the
// in-memory cache, the cookie) are the auth plugin's (auth.ts), which owns the sessions; the
// account and users modules use this file for login, logout and closing an account's sessions.
import { sql } from 'kysely';
import type { Db } from '../db/client.js';
import { AUTH_NEUTRAL } from '../db/auth-changes.js';

/** A usable session with its account and the account's role codes, in the order of their ids. */
export interface SessionRow {
  id: number;
  kind: 'user' | 'agent';
  identifiant: string | null;
  email: string;
  nom: string;
  prenom: string | null;
  last_seen_at: Date;
  /** The earlier of the idle expiry and the end of the absolute lifetime. */
  expires_at: Date;
  roles: string[];
}

/** `maxAgeMs`, where asked: the absolute lifetime of a session from its login, however much it is used. */
const interval = (maxAgeMs: number) => `${maxAgeMs / 1000} seconds`;

export function createSessionsRepository(db: Db) {
  return {
    /**
     * One round trip: the session, its account and the account's role codes; undefined when the
     * session is unknown, expired (idle, or past its lifetime) or its account deactivated.
     */
    async findUsable(idHash: string, maxAgeMs: number): Promise<SessionRow | undefined> {
      const maxAge = interval(maxAgeMs);
      const { rows } = await sql<SessionRow>`SELECT a.id, a.kind, a.identifiant, a.email, a.nom, a.prenom, s.last_seen_at,
        LEAST(s.expires_at, s.created_at + ${maxAge}::interval) AS expires_at,
        ARRAY(SELECT r.code FROM account_role ar JOIN role r ON r.id = ar.role_id WHERE ar.account_id = a.id ORDER BY r.id) AS roles
      FROM session s JOIN account a ON a.id = s.account_id
      WHERE s.id_hash = ${idHash} AND s.expires_at > now() AND s.created_at + ${maxAge}::interval > now() AND a.actif`.execute(db);
      return rows[0];
    },

    /**
     * Removes a session a read has just found unusable. Nothing cached can depend on it, so the
     * statement is marked as changing no cached session (AUTH_NEUTRAL).
     */
    async deleteUnusable(idHash: string) {
      await sql`${sql.raw(AUTH_NEUTRAL)} DELETE FROM session WHERE id_hash = ${idHash}`.execute(db);
    },

    /** Seen at `now`: pushes the expiry to `now + ttlMs`, never past the absolute lifetime; the new expiry. */
    async touch(idHash: string, now: number, ttlMs: number, maxAgeMs: number): Promise<Date | undefined> {
      const row = await db
        .updateTable('session')
        .set({
          last_seen_at: new Date(now),
          expires_at: sql<Date>`LEAST(${new Date(now + ttlMs)}::timestamptz, created_at + ${interval(maxAgeMs)}::interval)`,
        })
        .where('id_hash', '=', idHash)
        .returning('expires_at')
        .executeTakeFirst();
      return row?.expires_at;
    },

    async insert(idHash: string, accountId: number, expiresAt: Date) {
      await db.insertInto('session').values({ id_hash: idHash, account_id: accountId, expires_at: expiresAt }).execute();
    },

    /** Clean-up of the expired sessions (never served from a cache either: AUTH_NEUTRAL). */
    async deleteExpired() {
      await sql`${sql.raw(AUTH_NEUTRAL)} DELETE FROM session WHERE expires_at < now()`.execute(db);
    },

    async delete(idHash: string) {
      await db.deleteFrom('session').where('id_hash', '=', idHash).execute();
    },

    /** Logs the account out everywhere, except, when given, the session `exceptHash`. */
    async deleteForAccount(accountId: number, exceptHash?: string | null) {
      let q = db.deleteFrom('session').where('account_id', '=', accountId);
      if (exceptHash) q = q.where('id_hash', '!=', exceptHash);
      await q.execute();
    },

    /** The role codes of an account, in the order of their ids. */
    async roles(accountId: number): Promise<string[]> {
      const rows = await db
        .selectFrom('account_role')
        .innerJoin('role', 'role.id', 'account_role.role_id')
        .where('account_role.account_id', '=', accountId)
        .select('role.code')
        .orderBy('role.id')
        .execute();
      return rows.map((r) => r.code);
    },
  };
}

export type SessionsRepository = ReturnType<typeof createSessionsRepository>;
