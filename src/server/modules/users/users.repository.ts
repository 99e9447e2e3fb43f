// SQL of the external users domain (accounts of kind 'user'): the admin list, the state
// changes of an account (activate, refuse, delete), its type and its sites.
import { sql, type Expression, type RawBuilder, type SqlBool } from 'kysely';
import type { Db } from '../../db/client.js';
import type { Row } from '../../db/schema.js';
import { containsNormalized, ilikeUnaccent, pageOf, shortWordTerm, wordStartsNormalized, wordStartsUnaccent } from '../../db/list.js';
import { NO_SITE, type UserRow } from '../../../shared/schemas/users.js';
import { TYPE_PRESTATAIRE } from '../../../shared/domain.js';
import type { userListQuerySchema } from '../../../shared/schemas/users.js';
import type { z } from 'zod';
import { takes, type ListPaths } from '../../db/list-paths.js';

type UserListQuery = z.output<typeof userListQuerySchema>;
type SortField = UserListQuery['sort']['name'];

/**
 * Sort keys, matched by the partial indexes on kind = 'user' (migrations 003 and 035): text
 * ignores accents and case, kept accent-free and lower-cased in stored columns for name, first
 * name and organisation; ties are broken by id so that pages never overlap.
 */
const SORT_EXPR: Record<SortField, RawBuilder<unknown>> = {
  date: sql`a.created_at`,
  organisme: sql`a.tri_organisme`,
  nom: sql`a.tri_nom`,
  prenom: sql`a.tri_prenom`,
  email: sql`lower(a.email)`,
  tel: sql`coalesce(a.tel, '')`,
  type: sql`a.type_user_id`,
  actif: sql`a.actif`,
  emailValide: sql`a.email_valide`,
};

/** Signup date as shown in the table (dd/MM/yyyy, Paris time), for the date filter. */
const DATE_TEXT = sql<string>`to_char(a.created_at AT TIME ZONE 'Europe/Paris', 'DD/MM/YYYY')`;

function validDate(y: number, m: number, d: number): boolean {
  const date = new Date(Date.UTC(y, m - 1, d));
  return date.getUTCFullYear() === y && date.getUTCMonth() === m - 1 && date.getUTCDate() === d;
}

/**
 * The date filter as typed in the table: a whole day (12/03/2024), month (03/2024) or year
 * (2024) becomes a range on the indexed column, in Paris time; anything else (a partial
 * date) is matched against the displayed text.
 */
export function dateFilter(term: string): RawBuilder<SqlBool> {
  const range = (from: string, step: string) =>
    sql<SqlBool>`(a.created_at >= (${from}::timestamp AT TIME ZONE 'Europe/Paris') AND a.created_at < ((${from}::timestamp + ${step}::interval) AT TIME ZONE 'Europe/Paris'))`;
  const pad = (n: number) => String(n).padStart(2, '0');
  let m = /^(\d{1,2})\/(\d{1,2})\/(\d{4})$/.exec(term);
  if (m && validDate(+m[3], +m[2], +m[1])) return range(`${m[3]}-${pad(+m[2])}-${pad(+m[1])}`, '1 day');
  m = /^(\d{1,2})\/(\d{4})$/.exec(term);
  if (m && +m[1] >= 1 && +m[1] <= 12) return range(`${m[2]}-${pad(+m[1])}-01`, '1 month');
  m = /^(\d{4})$/.exec(term);
  if (m && +m[1] >= 1900) return range(`${m[1]}-01-01`, '1 year');
  return sql<SqlBool>`${DATE_TEXT} LIKE ${`%${term.replace(/[\\%_]/g, (c) => `\\${c}`)}%`}`;
}

export type ExternalUser = {
  id: number;
  actif: boolean;
  emailValide: boolean;
  typeUserId: number | null;
  email: string;
  nom: string;
  prenom: string | null;
};

const TEXT_FILTERS = ['date', 'organisme', 'nom', 'prenom', 'email', 'tel'] as const;

/**
 * gatherFirst: with a text filter, the matching rows are gathered first (trigram and date
 * indexes), then sorted and counted in the same pass; walking the sort index while testing each
 * row is what the planner would otherwise pick, and it reads most of the table when the matches
 * are rare. The plain query walks the sort index and counts apart.
 */
export const USER_LIST_PATHS: ListPaths<keyof UserListQuery['filter'] | 'search', SortField> = {
  fast: { gatherFirst: { filters: [...TEXT_FILTERS, 'type', 'search'], sorts: Object.keys(SORT_EXPR) as SortField[] } },
  plainOnly: { filters: [], sorts: [] },
};

/**
 * Whether the list gathers its matches first: a term of three characters or more in a text
 * filter or the search. A term of one or two letters may match most of the table ('06' for the
 * phone): the planner then picks between the sort index and the word-start index itself.
 */
function gathersFirst(q: UserListQuery): boolean {
  const f = q.filter;
  const terms = [f.organisme, f.nom, f.prenom, f.email, f.tel?.replace(/[\s.-]/g, ''), q.search];
  if (terms.some((t) => !!t && shortWordTerm(t))) return false;
  return takes(USER_LIST_PATHS.fast.gatherFirst, q) && (TEXT_FILTERS.some((k) => !!f[k]) || !!q.search);
}

export function createUsersRepository(db: Db) {
  function listWhere(q: UserListQuery): Expression<SqlBool>[] {
    const where: Expression<SqlBool>[] = [sql<SqlBool>`a.kind = 'user'`];
    const f = q.filter;
    if (f.date) where.push(dateFilter(f.date));
    // Each text filter: "contains" through the trigram indexes; a term of one or two letters
    // finds the words starting with it, through the word-start index of the search column,
    // which holds names, organisation and e-mail (migration 007).
    const text = (expr: RawBuilder<unknown>, term: string) => {
      if (!shortWordTerm(term)) where.push(ilikeUnaccent(expr, term));
      else where.push(wordStartsNormalized(sql`a.search_text`, term), wordStartsUnaccent(expr, term));
    };
    if (f.organisme) text(sql`coalesce(a.organisme, '')`, f.organisme);
    if (f.nom) text(sql`a.nom`, f.nom);
    if (f.prenom) text(sql`coalesce(a.prenom, '')`, f.prenom);
    if (f.email) text(sql`a.email`, f.email);
    if (f.tel) {
      const digits = f.tel.replace(/[\s.-]/g, '');
      // A number that short is its start ('06': mobiles), from a B-tree prefix scan.
      if (shortWordTerm(digits)) where.push(sql<SqlBool>`coalesce(a.tel, '') LIKE ${`${digits.replace(/[\\%_]/g, (c) => `\\${c}`)}%`}`);
      else where.push(ilikeUnaccent(sql`coalesce(a.tel, '')`, digits));
    }
    if (f.type) where.push(sql<SqlBool>`a.type_user_id IN (SELECT t.id FROM type_user t WHERE ${ilikeUnaccent(sql`t.libelle`, f.type)})`);
    // Names, organisation and e-mail, stored accent-free and lower-cased in one column with its
    // own trigram index (migration 004), and its word-start index for one or two letters (007).
    if (q.search) where.push(shortWordTerm(q.search) ? wordStartsNormalized(sql`a.search_text`, q.search) : containsNormalized(sql`a.search_text`, q.search));
    return where;
  }

  const repo = {
    async list(q: UserListQuery, opts: { plain?: boolean } = {}): Promise<{ count: number; users: UserRow[] }> {
      const where = sql.join(listWhere(q), sql` AND `);
      const { limit, offset } = pageOf(q);
      const dir = q.sort.direction === 'desc' ? sql`DESC` : sql`ASC`;
      const gather = !opts.plain && gathersFirst(q);
      const key = SORT_EXPR[q.sort.name];
      // The page's ids come first, from the sort index alone when nothing else is filtered (the
      // rows a deep page skips are never read); the rows, their type and sites are read for
      // those ids only. Gathering first, the matches are sorted and counted in one pass.
      const page = gather
        ? sql`SELECT g.id, g.sort_key, count(*) OVER () AS total
              FROM (SELECT a.id, ${key} AS sort_key FROM account a WHERE ${where} OFFSET 0) g
              ORDER BY g.sort_key ${dir}, g.id ${dir} LIMIT ${limit} OFFSET ${offset}`
        : sql`SELECT a.id, ${key} AS sort_key, NULL::int AS total FROM account a WHERE ${where}
              ORDER BY ${key} ${dir}, a.id ${dir} LIMIT ${limit} OFFSET ${offset}`;
      const rows = await sql<
        Pick<Row<'account'>, 'id' | 'created_at' | 'organisme' | 'nom' | 'prenom' | 'email' | 'tel' | 'type_user_id' | 'actif' | 'email_valide'> & {
          type_user: string | null;
          sites: string | null;
          total: number | null;
        }
      >`
        SELECT a.id, a.created_at, a.organisme, a.nom, a.prenom, a.email, a.tel, a.type_user_id, a.actif, a.email_valide,
          k.total::int AS total, t.libelle AS type_user,
          (SELECT string_agg(CASE WHEN s.nom IS NULL OR s.nom = '' THEN s.code ELSE s.code || ' - ' || s.nom END, ', ' ORDER BY s.code)
             FROM site_referent r JOIN site s ON s.id = r.site_id WHERE r.account_id = a.id) AS sites
        FROM (${page}) k
        JOIN account a ON a.id = k.id
        LEFT JOIN type_user t ON t.id = a.type_user_id
        ORDER BY k.sort_key ${dir}, k.id ${dir}
      `.execute(db);
      let count = rows.rows[0]?.total ?? null;
      // An empty first page of a gathered list means no match at all: no need to count.
      if (count === null && gather && offset === 0) count = 0;
      if (count === null) count = (await sql<{ count: number }>`SELECT count(*)::int AS count FROM account a WHERE ${where}`.execute(db)).rows[0]?.count ?? 0;
      return {
        count,
        users: rows.rows.map((r) => ({
          id: r.id,
          date: new Date(r.created_at).toISOString(),
          organisme: r.organisme,
          nom: r.nom,
          prenom: r.prenom,
          email: r.email,
          tel: r.tel,
          typeUser: r.type_user,
          idTypeUser: r.type_user_id,
          site: r.sites || NO_SITE,
          actif: r.actif,
          emailValide: r.email_valide,
        })),
      };
    },

    /** An external user (kind 'user'), or undefined; with `lock`, its row is locked for the rest of the transaction (two admins cannot race on one account). */
    async find(id: number, trx: Db = db, lock = false): Promise<ExternalUser | undefined> {
      const q = trx.selectFrom('account').where('id', '=', id).where('kind', '=', 'user').select(['id', 'actif', 'email_valide', 'type_user_id', 'email', 'nom', 'prenom']);
      const row = await (lock ? q.forUpdate() : q).executeTakeFirst();
      return row && { id: row.id, actif: row.actif, emailValide: row.email_valide, typeUserId: row.type_user_id, email: row.email, nom: row.nom, prenom: row.prenom };
    },

    findForUpdate: (trx: Db, id: number) => repo.find(id, trx, true),

    setActif: (trx: Db, id: number, actif: boolean) => trx.updateTable('account').set({ actif }).where('id', '=', id).execute(),
    setType: (trx: Db, id: number, typeUserId: number) => trx.updateTable('account').set({ type_user_id: typeUserId }).where('id', '=', id).execute(),

    /** Gives exactly one of the external roles (or none), whatever the account had before. */
    async setExternalRole(trx: Db, id: number, code: 'ROLE_USER' | 'ROLE_PRESTATAIRE' | null) {
      await trx
        .deleteFrom('account_role')
        .where('account_id', '=', id)
        .where('role_id', 'in', trx.selectFrom('role').select('id').where('code', 'in', ['ROLE_USER', 'ROLE_PRESTATAIRE']))
        .execute();
      if (code) {
        await trx
          .insertInto('account_role')
          .columns(['account_id', 'role_id'])
          .expression(trx.selectFrom('role').select([sql<number>`${id}::int`.as('account_id'), 'id']).where('code', '=', code))
          .execute();
      }
    },

    typeExists: async (typeId: number) => !!(await db.selectFrom('type_user').select('id').where('id', '=', typeId).executeTakeFirst()),

    /** Whether interventions or requests still point at the account (they must outlive it). */
    async hasHistory(trx: Db, id: number): Promise<boolean> {
      const row = await sql<{ linked: boolean }>`
        SELECT EXISTS (SELECT 1 FROM intervention WHERE intervenant_id = ${id} OR modification_agent_id = ${id})
            OR EXISTS (SELECT 1 FROM intervention_submission WHERE account_id = ${id})
            OR EXISTS (SELECT 1 FROM demande_intervention WHERE programme_par_id = ${id} OR annulee_par_id = ${id}) AS linked
      `.execute(trx);
      return !!row.rows[0]?.linked;
    },

    /** Deletes the account; roles, sessions, tokens and site links go with it (ON DELETE CASCADE). */
    delete: (trx: Db, id: number) => trx.deleteFrom('account').where('id', '=', id).where('kind', '=', 'user').execute(),

    existingSiteIds: async (ids: number[]) =>
      ids.length === 0 ? [] : (await db.selectFrom('site').select('id').where('id', 'in', ids).execute()).map((r) => r.id),

    async replaceSites(trx: Db, userId: number, siteIds: number[]) {
      await trx.deleteFrom('site_referent').where('account_id', '=', userId).execute();
      if (siteIds.length > 0) await trx.insertInto('site_referent').values(siteIds.map((site_id) => ({ site_id, account_id: userId }))).execute();
    },

    sitesOf: (userId: number) =>
      db
        .selectFrom('site_referent')
        .innerJoin('site', 'site.id', 'site_referent.site_id')
        .where('site_referent.account_id', '=', userId)
        .select(['site.id', 'site.code', 'site.nom', 'site.ville'])
        .orderBy('site.code')
        .execute(),

    /** Every site, for the multi-select of the user 'Site' dialog. */
    allSites: () => db.selectFrom('site').select(['id', 'code', 'nom', 'ville']).orderBy('code').execute(),

    /** Active external users who may be referents (providers see every site already). */
    activeUsers: () =>
      db
        .selectFrom('account')
        .where('kind', '=', 'user')
        .where('actif', '=', true)
        .where((eb) => eb.or([eb('type_user_id', 'is', null), eb('type_user_id', '!=', TYPE_PRESTATAIRE)]))
        .select(['id', 'nom', 'prenom', 'email'])
        .orderBy('nom')
        .orderBy('prenom')
        .orderBy('id')
        .execute(),
  };
  return repo;
}

export type UsersRepository = ReturnType<typeof createUsersRepository>;
