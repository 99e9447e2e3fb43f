// SQL of the account domain: login lookup, external signups, the single-use e-mailed tokens
// (stored hashed) and the password change. inTransaction() hands a repository bound to one
// transaction to the service's multi-step writes.
import { sql, type Kysely } from 'kysely';
import type { Db } from '../../db/client.js';
import type { Database, Row } from '../../db/schema.js';
import { createSessionsRepository } from '../../plugins/sessions.repository.js';

export type TokenPurpose = 'confirm' | 'reset';

/** Who may log in: never an 'intervenant', a name imported history gives. */
export type LoginAccount = Pick<Row<'account'>, 'id' | 'identifiant' | 'email' | 'nom' | 'prenom' | 'password_hash' | 'email_valide' | 'actif'> & { kind: 'user' | 'agent' };

export type NewExternalAccount = Pick<Row<'account'>, 'organisme' | 'nom' | 'prenom' | 'email'> & { type_user_id: number; tel: string; password_hash: string };

/** The unique index on lower(email) refused the row (two signups raced on one address). */
export function isEmailTaken(error: unknown): boolean {
  const e = error as { code?: string; constraint?: string };
  return e?.code === '23505' && e.constraint === 'account_email_uq';
}

function repository(db: Kysely<Database>) {
  return {
    /** By e-mail or identifiant, case-insensitive; an identifiant match wins over an e-mail match. */
    findForLogin(login: string): Promise<LoginAccount | undefined> {
      const key = login.toLowerCase();
      return db
        .selectFrom('account')
        .where((eb) => eb.or([eb(sql`lower(email)`, '=', key), eb(sql`lower(identifiant)`, '=', key)]))
        // An intervenant's name kept from imported history is nobody's account.
        .where('kind', '!=', 'intervenant')
        .select(['id', 'kind', 'identifiant', 'email', 'nom', 'prenom', 'password_hash', 'email_valide', 'actif'])
        .$narrowType<{ kind: 'user' | 'agent' }>()
        .orderBy(sql`lower(identifiant) = ${key} IS TRUE`, 'desc')
        .orderBy('id')
        .executeTakeFirst();
    },

    findByEmail(email: string) {
      return db
        .selectFrom('account')
        .where(sql`lower(email)`, '=', email.toLowerCase())
        .where('kind', '!=', 'intervenant')
        .select(['id', 'email', 'nom', 'prenom'])
        .executeTakeFirst();
    },

    async emailExists(email: string): Promise<boolean> {
      const row = await db.selectFrom('account').where(sql`lower(email)`, '=', email.toLowerCase()).select('id').executeTakeFirst();
      return row !== undefined;
    },

    async insertExternalAccount(values: NewExternalAccount): Promise<number> {
      const row = await db
        .insertInto('account')
        .values({ ...values, kind: 'user', email_valide: false, actif: false })
        .returning('id')
        .executeTakeFirstOrThrow();
      return row.id;
    },

    async deleteAccount(id: number) {
      await db.deleteFrom('account').where('id', '=', id).execute();
    },

    async insertToken(values: { tokenHash: string; accountId: number; purpose: TokenPurpose; expiresAt: Date }) {
      await db
        .insertInto('account_token')
        .values({ token_hash: values.tokenHash, account_id: values.accountId, purpose: values.purpose, expires_at: values.expiresAt })
        .execute();
    },

    /** The account of a token that is unused and unexpired, without consuming it. */
    async usableTokenAccount(tokenHash: string, purpose: TokenPurpose): Promise<number | undefined> {
      const row = await db
        .selectFrom('account_token')
        .where('token_hash', '=', tokenHash)
        .where('purpose', '=', purpose)
        .where('used_at', 'is', null)
        .where('expires_at', '>', sql<Date>`now()`)
        .select('account_id')
        .executeTakeFirst();
      return row?.account_id;
    },

    /**
     * Marks the token used and gives its account, in one statement: of two concurrent
     * uses of one link, only one gets an account back.
     */
    async consumeToken(tokenHash: string, purpose: TokenPurpose): Promise<number | undefined> {
      const row = await db
        .updateTable('account_token')
        .set({ used_at: sql<Date>`now()` })
        .where('token_hash', '=', tokenHash)
        .where('purpose', '=', purpose)
        .where('used_at', 'is', null)
        .where('expires_at', '>', sql<Date>`now()`)
        .returning('account_id')
        .executeTakeFirst();
      return row?.account_id;
    },

    /** Every other outstanding link of that purpose stops working too. */
    async retireTokens(accountId: number, purpose: TokenPurpose) {
      await db
        .updateTable('account_token')
        .set({ used_at: sql<Date>`now()` })
        .where('account_id', '=', accountId)
        .where('purpose', '=', purpose)
        .where('used_at', 'is', null)
        .execute();
    },

    async markEmailValidated(accountId: number) {
      await db.updateTable('account').set({ email_valide: true }).where('id', '=', accountId).execute();
    },

    async setPasswordHash(accountId: number, hash: string) {
      await db.updateTable('account').set({ password_hash: hash }).where('id', '=', accountId).execute();
    },

    /** Any account holding this identifiant, case-insensitive (agents are the only ones with one). */
    findByIdentifiant(identifiant: string) {
      return db
        .selectFrom('account')
        .where(sql`lower(identifiant)`, '=', identifiant.toLowerCase())
        .select(['id', 'kind', 'identifiant', 'email', 'nom', 'prenom', 'actif', 'email_valide'])
        .executeTakeFirst();
    },

    async insertAgent(values: { identifiant: string; email: string; nom: string; prenom: string | null }): Promise<number> {
      const row = await db
        .insertInto('account')
        // No password: the agent chooses one through 'Mot de passe oublié'.
        .values({ ...values, kind: 'agent', password_hash: null, email_valide: true, actif: true })
        .returning('id')
        .executeTakeFirstOrThrow();
      return row.id;
    },

    async updateAgent(id: number, values: { identifiant: string; email: string; nom: string; prenom: string | null }) {
      await db
        .updateTable('account')
        .set({ ...values, email_valide: true, actif: true })
        .where('id', '=', id)
        .execute();
    },

    deleteSession: (idHash: string) => createSessionsRepository(db).delete(idHash),

    deleteSessions: (accountId: number) => createSessionsRepository(db).deleteForAccount(accountId),
  };
}

export type AccountRepository = ReturnType<typeof repository> & {
  inTransaction<T>(work: (repo: AccountRepository) => Promise<T>): Promise<T>;
};

export function createAccountRepository(db: Db): AccountRepository {
  const bind = (executor: Kysely<Database>): AccountRepository => ({
    ...repository(executor),
    inTransaction: (work) => executor.transaction().execute((trx) => work(bind(trx))),
  });
  return bind(db);
}
