// The pages of the requests board and history: the count and the ids of a page, in its order, as
// promises that run side by side (the repository then reads the page's cards). A page lies at
// most LIST_DEPTH rows deep (the list schemas refuse deeper ones). Each list has a plain query,
// right for every filter and sort, and fast paths that take only the filters and sorts they name
// (list-paths.ts); `plain` forces the plain query, which tests compare the fast paths with.
import { sql, type RawBuilder, type SqlBool } from 'kysely';
import type { Db } from '../../db/client.js';
import { DEEP_PAGE_OFFSET, containsNormalized, pageFromNearestEnd, pageOf, shortWordTerm, unrolledGroups, wordStartsNormalized } from '../../db/list.js';
import { BOARD_SORT_FIELDS, HISTORY_SORT_FIELDS, PENDING_STATUTS, STATUT_ANNULEE, STATUT_EN_ATTENTE, type HistoryQuery, type PendingListQuery } from '../../../shared/schemas/requests.js';
import { takes, type ListPaths } from '../../db/list-paths.js';

export interface PagerOptions {
  /** The plain query, whatever the fast paths would take. */
  plain?: boolean;
  /** From this offset a page is read from the nearer end of a list whose count is kept. */
  deepFrom?: number;
}

export interface RequestPage {
  count: Promise<number>;
  ids: Promise<number[]>;
}

/**
 * keptCount: the count read from the request counts kept by triggers (migration 021), one row
 * per site at most; knowing it first, a page past the middle of the list ('Dernière page') is
 * read backwards from the last row, skipping a few rows instead of the whole list. The board has
 * no search box: a term is ignored by every path.
 */
export const BOARD_PATHS: ListPaths<keyof PendingListQuery['filter'] | 'search', PendingListQuery['sort']['name']> = {
  fast: { keptCount: { filters: ['site', 'search'], sorts: BOARD_SORT_FIELDS } },
  plainOnly: { filters: [], sorts: [] },
};

/**
 * keptCount: as on the board, without a search (a search counts the requests it matches).
 * groupWalk: by site or by action, group by group in label order (sites from their natural-order
 * (name, code) index, or the few dozen actions), each group's requests by id from its (fk, id)
 * index (migration 014), at most a page's depth from each: the walk stops at the group that fills
 * the page instead of sorting every request of the history.
 */
export const HISTORY_PATHS: ListPaths<keyof HistoryQuery['filter'] | 'search', HistoryQuery['sort']['name']> = {
  fast: {
    keptCount: { filters: ['site', 'statut', 'actionProgrammee'], sorts: HISTORY_SORT_FIELDS },
    groupWalk: { filters: ['site', 'statut', 'actionProgrammee', 'search'], sorts: ['site', 'actionProgrammee'] },
  },
  plainOnly: { filters: [], sorts: [] },
};

/**
 * The number of requests of these statuses (all when none), of a site and a programmed action
 * when given, from the counts kept by triggers (migration 021): 0 in a key stands for "all".
 */
function requestCount(f: { statuts: readonly number[]; site?: number; action?: number }) {
  const statuts = f.statuts.length > 0 ? f.statuts : [0];
  const onSite = f.site === undefined ? sql`true` : sql`c.site_id = ${f.site}`;
  return sql<{ count: number }>`SELECT coalesce(sum(c.n), 0)::int AS count FROM demande_intervention_count c
    WHERE c.statut_id IN (${sql.join(statuts.map((s) => sql`${s}`))}) AND c.type_action_programmee_id = ${f.action ?? 0} AND ${onSite}`;
}

/** The history's search: the site (name, code, city, address...), the scheduled action or the status. */
function searchCondition(term: string): RawBuilder<SqlBool> {
  const inText = (column: RawBuilder<unknown>) => (shortWordTerm(term) ? wordStartsNormalized(column, term) : containsNormalized(column, term));
  const sites = sql`SELECT g.id FROM site g WHERE ${inText(sql`g.search_text`)}`;
  const actions = sql`SELECT g.id FROM type_action g WHERE ${inText(sql`f_unaccent(lower(g.libelle))`)}`;
  const statuts = sql`SELECT g.id FROM statut g WHERE g.id BETWEEN ${STATUT_EN_ATTENTE} AND ${STATUT_ANNULEE} AND ${inText(sql`f_unaccent(lower(g.libelle))`)}`;
  // IN (subquery) under OR: each list is hashed once, then probed per request (an ANY over an
  // array of hundreds of sites would be searched linearly for each of them).
  return sql<SqlBool>`(d.site_id IN (${sites}) OR d.type_action_programmee_id IN (${actions}) OR d.statut_id IN (${statuts}))`;
}

/**
 * The page's ids: `read` gets the window (from the nearer end once the kept count is known, for
 * a deep page) and whether it reads backwards; rows read backwards are turned round.
 */
async function pageIds(db: Db, q: { page: number; rowsPerPage: number }, count: Promise<number> | null, opts: PagerOptions, read: (limit: number, offset: number, reversed: boolean) => RawBuilder<{ id: number }>) {
  const page = pageOf(q);
  const win = count && page.offset >= (opts.deepFrom ?? DEEP_PAGE_OFFSET) ? pageFromNearestEnd(page, await count) : { ...page, reversed: false };
  if (win.limit === 0) return [];
  const ids = (await read(win.limit, win.offset, win.reversed).execute(db)).rows.map((r) => r.id);
  return win.reversed ? ids.reverse() : ids;
}

const countOf = (query: RawBuilder<{ count: number }>, db: Db) => query.execute(db).then((r) => r.rows[0].count);

/**
 * The board: by due date the pending requests' own index; by site the sites in name order (their
 * index), each one's pending requests by due date (their partial index), until the page is full.
 */
export function boardPage(db: Db, q: PendingListQuery, opts: PagerOptions = {}): RequestPage {
  const site = q.filter.site;
  const where = sql<SqlBool>`d.statut_id IN (${sql.join(PENDING_STATUTS.map((s) => sql.lit(s)))}) AND ${site === undefined ? sql`true` : sql`d.site_id = ${site}`}`;
  const kept = !opts.plain && takes(BOARD_PATHS.fast.keptCount, q);
  const count = countOf(kept ? requestCount({ statuts: PENDING_STATUTS, site }) : sql`SELECT count(*)::int AS count FROM demande_intervention d WHERE ${where}`, db);
  const ids = pageIds(db, q, kept ? count : null, opts, (limit, offset, reversed) => {
    const dir = (q.sort.direction === 'asc') !== reversed ? sql`ASC` : sql`DESC`;
    const dueDir = reversed ? sql`DESC` : sql`ASC`;
    return q.sort.name === 'dateEcheance'
      ? sql`SELECT d.id FROM demande_intervention d WHERE ${where} ORDER BY d.date_echeance ${dir}, d.id ${dir} LIMIT ${limit} OFFSET ${offset}`
      : sql`SELECT d.id FROM demande_intervention d JOIN site s ON s.id = d.site_id WHERE ${where}
          ORDER BY s.nom_tri ${dir}, d.site_id ${dir}, d.date_echeance ${dueDir}, d.id ${dueDir} LIMIT ${limit} OFFSET ${offset}`;
  });
  return { count, ids };
}

/**
 * The history. Filters and the search are columns of the request itself (the search through the
 * few sites, actions and statuses it names): count and page without the joins, which then run
 * for the page's rows only. Each column order is an index in that exact order (migrations 010
 * and 019), walked until the page is full, forwards or backwards: the NOT NULL columns in both
 * directions by one index; the cancellation date, empty on most requests, keeps them last either
 * way with one index per direction.
 */
export function historyPage(db: Db, q: HistoryQuery, opts: PagerOptions = {}): RequestPage {
  const f = q.filter;
  const term = q.search.trim();
  const where: RawBuilder<SqlBool>[] = [];
  if (f.site !== undefined) where.push(sql<SqlBool>`d.site_id = ${f.site}`);
  if (f.statut !== undefined) where.push(sql<SqlBool>`d.statut_id = ${f.statut}`);
  if (f.actionProgrammee !== undefined) where.push(sql<SqlBool>`d.type_action_programmee_id = ${f.actionProgrammee}`);
  if (term) where.push(searchCondition(term));
  const cond = where.length ? sql<SqlBool>`${sql.join(where, sql` AND `)}` : sql<SqlBool>`true`;
  const kept = !opts.plain && takes(HISTORY_PATHS.fast.keptCount, q);
  const count = countOf(
    kept
      ? requestCount({ statuts: f.statut === undefined ? [] : [f.statut], site: f.site, action: f.actionProgrammee })
      : sql`SELECT count(*)::int AS count FROM demande_intervention d WHERE ${cond}`,
    db,
  );
  const groupWalk = !opts.plain && takes(HISTORY_PATHS.fast.groupWalk, q);
  const ids = pageIds(db, q, kept ? count : null, opts, (limit, offset, reversed) => {
    const dir = (q.sort.direction === 'asc') !== reversed ? sql`ASC` : sql`DESC`;
    // NULLS LAST in the page's order is NULLS FIRST when it is read backwards.
    const nulls = reversed ? sql`NULLS FIRST` : sql`NULLS LAST`;
    const bySite = q.sort.name === 'site';
    if (groupWalk) {
      // The groups in the list's order, the sites straight from their (name, code) index
      // (nom_tri is never null: a NULLS clause would keep the index from serving DESC), each
      // group's requests by id, at most a page's depth from each; the walk stops at the group
      // that fills the page.
      const fk = bySite ? sql`d.site_id` : sql`d.type_action_programmee_id`;
      const requests = (group: RawBuilder<unknown>) => sql`SELECT d.id FROM demande_intervention d WHERE ${fk} = ${group} AND ${cond} ORDER BY d.id ${dir} LIMIT ${offset + limit}`;
      if (!bySite || where.length === 0) {
        // As arrays (unrolledGroups): the last page by action at 1M requests 7.6 -> 1.7 ms, by
        // site 2.4 -> 1.5 ms. The few actions whatever the filter; not the sites of a filtered
        // history, hundreds of small arrays (a status filter: 9 -> 16 ms).
        const groups = bySite ? sql`site g ORDER BY g.nom_tri ${dir}, g.code ${dir}` : sql`type_action g ORDER BY lower(g.libelle) ${dir} ${nulls}, g.id ${dir}`;
        return unrolledGroups(requests(sql`g.id`), groups, { limit, offset });
      }
      return sql`SELECT x.id FROM site o CROSS JOIN LATERAL (${requests(sql`o.id`)}) x
          ORDER BY o.nom_tri ${dir}, o.code ${dir}, x.id ${dir} LIMIT ${limit} OFFSET ${offset}`;
    }
    const order: Record<HistoryQuery['sort']['name'], RawBuilder<unknown>> = {
      dateCreation: sql`d.date_creation ${dir}`,
      dateEcheance: sql`d.date_echeance ${dir}`,
      statut: sql`d.statut_id ${dir}`,
      dateAnnulation: sql`d.date_annulation ${dir} ${nulls}`,
      // The requests of one site (one action) together, even beside another of the same name.
      site: sql`s.nom_tri ${dir}, s.code ${dir}`,
      actionProgrammee: sql`lower(t.libelle) ${dir} ${nulls}, t.id ${dir}`,
    };
    const joins = bySite ? sql`JOIN site s ON s.id = d.site_id` : q.sort.name === 'actionProgrammee' ? sql`JOIN type_action t ON t.id = d.type_action_programmee_id` : sql``;
    return sql`SELECT d.id FROM demande_intervention d ${joins} WHERE ${cond} ORDER BY ${order[q.sort.name]}, d.id ${dir} LIMIT ${limit} OFFSET ${offset}`;
  });
  return { count, ids };
}
