// The walk of the interventions tables (public per-site, administrators' per-site and global),
// shared by their pages and their CSV export. Every list pages at most COUNT_CAP rows in any
// order, as the filtered global list always did ('Précisez les filtres...': the export holds
// them all), so a page costs at most an index walk of that depth.
// The plain query serves every list: the rows of intervention i under the filters, in the sort's
// order (date: (date, id), or (site_id | type_action_id, date, id) under a filter; numeroBac:
// (numero_bac, date, id); a referenced label: a join with its table and a sort), counted up to
// COUNT_CAP + 1. Fast paths are opt-in: each names the filters and sorts it serves (FAST_PATHS)
// and any other list takes the plain query; a test classifies every filter and sort of every
// interventions list schema and compares each fast path with the plain query.
// A page is its walk (ids, planned for the filter at hand), then its rows read by id in one
// statement planned once per connection (intervention-rows.ts).
import { sql, type RawBuilder, type SqlBool } from 'kysely';
import type { Db } from '../../db/client.js';
import { DEEP_PAGE_OFFSET, pageFromNearestEnd, unrolledGroups } from '../../db/list.js';
import { COUNT_CAP, INTERVENTION_SORT_FIELDS, type InterventionSortField } from '../../../shared/schemas/interventions-admin.js';
import { dateTermRanges, multirangeLiteral, type DateTermMatch } from './intervention-date-filter.js';
import { FULL_SEARCH, resolveSearch, searchCandidates, searchCondition, type ResolvedSearch, type SearchScope } from './intervention-search.js';
import { readPage, type InterventionListRecord } from './intervention-rows.js';

export interface ListFilter {
  /** Restricts to one site (per-site tables, or the global list's Site filter). */
  siteId?: number;
  action?: number;
  typeBac?: number;
  numeroBac?: number;
  /** Date filter as typed. */
  date?: string;
  /** Search box, as typed. */
  search?: string;
  /** What the search looks at; every field when absent. */
  scope?: SearchScope;
}
export type ListFilterField = Exclude<keyof ListFilter, 'scope'>;

export interface ListSort {
  name: InterventionSortField;
  direction: 'asc' | 'desc';
}

/** Sort position of a row, for the next export batch: every part as the database wrote it. */
export interface ListKey {
  gkey: string | null;
  gtie: string | null;
  numero: number | null;
  /** The date at full precision, as text (see DATE_KEY). */
  dkey: string;
  id: number;
}

/** The date at full precision (microseconds) as text that reads back the same whatever the session's DateStyle. */
export const DATE_KEY = (d: RawBuilder<unknown>) => sql<string>`to_char(${d} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"')`;
const dateOfKey = (key: string) => sql`CAST(${key} AS timestamptz)`;

const ALL_SORTS = INTERVENTION_SORT_FIELDS;
/** Sorts by a referenced label: the table walked in order, its key, tie-breaker and the column pointing at it. */
const GROUPS: Partial<Record<InterventionSortField, { table: string; key: string; tie: string; tieType: 'integer' | 'text'; fk: string; indexed?: true }>> = {
  action: { table: 'type_action', key: 'f_unaccent(lower(g.libelle))', tie: 'g.id', tieType: 'integer', fk: 'i.type_action_id' },
  typeBac: { table: 'type_bac', key: 'f_unaccent(lower(g.libelle))', tie: 'g.id', tieType: 'integer', fk: 'i.type_bac_id' },
  // Stored f_unaccent(lower(name)) keys (migration 008), with their (key, tie) indexes.
  site: { table: 'site', key: 'g.intervention_sort_key', tie: 'g.code', tieType: 'text', fk: 'i.site_id', indexed: true },
  intervenant: { table: 'account', key: 'g.intervention_sort_key', tie: 'g.id', tieType: 'integer', fk: 'i.intervenant_id', indexed: true },
};

/** A fast path serves a list only when it names each of the list's filters and its sort. */
interface FastPath {
  filters: readonly ListFilterField[];
  sorts: readonly InterventionSortField[];
}

export const FAST_PATHS = {
  /**
   * The count read from intervention_count (kept by triggers: one row per site), and a page past
   * DEEP_PAGE_OFFSET read from the nearer end of the list ('Dernière page' skips a few rows).
   */
  keptCount: { filters: ['siteId', 'action'], sorts: ALL_SORTS },
  /** Over the whole log, a search with few matches gathers them first through their indexes. */
  narrowSearch: { filters: ['search', 'action', 'date'], sorts: ALL_SORTS },
  /**
   * Over the whole log, a sort by a referenced label walks its table in label order and, for
   * each entry, its interventions by (fk, date, id), at most as many as the page needs: a nested
   * loop whose output is already in order, so the final sort stops early.
   */
  groupWalk: { filters: ['action', 'date', 'search'], sorts: ['site', 'intervenant', 'action', 'typeBac'] },
  /** Over the whole log, a date filter of several ranges counted range by range on the date index. */
  rangeCount: { filters: ['date', 'action'], sorts: ALL_SORTS },
} as const satisfies Record<string, FastPath>;
export type FastPathName = keyof typeof FAST_PATHS;

/** Filters and sorts that no fast path serves, on purpose: within a site the plain query reads few rows. */
export const PLAIN_ONLY: FastPath = { filters: ['typeBac', 'numeroBac'], sorts: [] };

/** The filters a list sets. */
export function fieldsOf(f: ListFilter): ListFilterField[] {
  const set = (['siteId', 'action', 'typeBac', 'numeroBac'] as const).filter((k) => f[k] !== undefined);
  return [...set, ...(f.date?.trim() ? (['date'] as const) : []), ...(f.search?.trim() ? (['search'] as const) : [])];
}

/** The fast paths that serve this list (none when `plain`). */
export function fastPathsFor(f: ListFilter, sort: InterventionSortField, plain = false): Set<FastPathName> {
  const fields = fieldsOf(f);
  const serves = (p: FastPath) => p.sorts.includes(sort) && fields.every((x) => p.filters.includes(x));
  return new Set(plain ? [] : (Object.keys(FAST_PATHS) as FastPathName[]).filter((n) => serves(FAST_PATHS[n])));
}

/** A list resolved against the database: its date ranges, its search, the fast paths it may take. */
export interface ListPlan {
  f: ListFilter;
  sort: ListSort;
  date: DateTermMatch | null;
  search: ResolvedSearch | null;
  paths: Set<FastPathName>;
}

/** The WHERE of the list on intervention i (every filter is a column of i since migration 008); a narrow search is the source's. */
function conditions(p: Pick<ListPlan, 'f' | 'date' | 'search'>): RawBuilder<SqlBool> {
  const { f, date, search } = p;
  const parts: RawBuilder<SqlBool>[] = [];
  if (f.siteId !== undefined) parts.push(sql<SqlBool>`i.site_id = ${f.siteId}`);
  if (f.action !== undefined) parts.push(sql<SqlBool>`i.type_action_id = ${f.action}`);
  if (f.typeBac !== undefined) parts.push(sql<SqlBool>`i.type_bac_id = ${f.typeBac}`);
  if (f.numeroBac !== undefined) parts.push(sql<SqlBool>`i.numero_bac = ${f.numeroBac}`);
  if (date) parts.push(dateCondition(date));
  if (search?.mode === 'broad') parts.push(searchCondition(search));
  return parts.length ? sql<SqlBool>`${sql.join(parts, sql` AND `)}` : sql<SqlBool>`true`;
}

function dateCondition(date: DateTermMatch): RawBuilder<SqlBool> {
  if (date.kind === 'none') return sql<SqlBool>`false`;
  if (date.kind === 'text') return sql<SqlBool>`to_char(i.date AT TIME ZONE 'Europe/Paris', 'DD/MM/YYYY HH24:MI') LIKE ${`%${date.term.replace(/[\\%_]/g, (c) => `\\${c}`)}%`}`;
  const { ranges } = date;
  // The outer bounds are index conditions; the exact set is checked on each row walked.
  const bounds = sql<SqlBool>`i.date >= ${ranges[0][0]} AND i.date < ${ranges[ranges.length - 1][1]}`;
  return ranges.length === 1 ? bounds : sql<SqlBool>`${bounds} AND i.date <@ CAST(${multirangeLiteral(ranges)} AS tstzmultirange)`;
}

const columnsOf = (alias: string, names: readonly string[]) => sql.raw(names.map((n) => `${alias}.${n}`).join(', '));

/** The ORDER BY of the list over a walk's output `alias`. */
export function walkOrder(alias: string, sort: ListSort) {
  const dir = sort.direction === 'desc' ? 'DESC' : 'ASC';
  const keys = sort.name === 'date' ? ['date', 'id'] : sort.name === 'numeroBac' ? ['numero', 'date', 'id'] : ['gkey', 'gtie', 'date', 'id'];
  return sql.raw(keys.map((k) => `${alias}.${k} ${dir}`).join(', '));
}

export interface WalkOptions {
  limit: number | null;
  offset: number;
  after: ListKey | null;
  /** Columns of intervention i to carry (besides the sort keys gkey, gtie, numero). */
  columns: readonly string[];
}

/** Rows of one page, of one export batch after `after`, or of the whole export (no limit), in the list's order. */
export function walkQuery(p: ListPlan, w: WalkOptions): RawBuilder<ListKey> {
  const desc = p.sort.direction === 'desc';
  const dir = sql.raw(desc ? 'DESC' : 'ASC');
  const cmp = sql.raw(desc ? '<' : '>');
  const where = conditions(p);
  const { after } = w;
  const limit = w.limit === null ? sql`` : sql`LIMIT ${w.limit} OFFSET ${w.offset}`;
  const cols = columnsOf('i', w.columns);
  const narrow = p.search?.mode === 'narrow';
  // The narrow search's matches are planned on their own (OFFSET 0): given the log and a
  // single condition on free text, the planner would walk the date index checking each row.
  const from = narrow ? sql`(${searchCandidates(p.search!, conditions({ ...p, search: null }), 'rows')} OFFSET 0) i` : sql`intervention i`;
  if (p.sort.name === 'date' || p.sort.name === 'numeroBac') {
    const byNumero = p.sort.name === 'numeroBac';
    const resume = !after
      ? sql`true`
      : byNumero
        ? sql`(i.numero_bac, i.date, i.id) ${cmp} (${after.numero}, ${dateOfKey(after.dkey)}, ${after.id})`
        : sql`(i.date, i.id) ${cmp} (${dateOfKey(after.dkey)}, ${after.id})`;
    return sql`SELECT ${cols}, NULL::text AS gkey, NULL::text AS gtie, ${byNumero ? sql`i.numero_bac` : sql`NULL::int`} AS numero FROM ${from}
      WHERE ${where} AND ${resume} ORDER BY ${byNumero ? sql`i.numero_bac ${dir}, ` : sql``}i.date ${dir}, i.id ${dir} ${limit}`;
  }
  const g = GROUPS[p.sort.name]!;
  const [key, tie, fk, tieCast] = [sql.raw(g.key), sql.raw(g.tie), sql.raw(g.fk), sql.raw(g.tieType)];
  const labels = sql`SELECT g.id AS gid, ${key} AS gkey, ${tie} AS gtie FROM ${sql.raw(g.table)} g`;
  if (!p.paths.has('groupWalk') || narrow) {
    // The plain query: join and sort. The keys are computed once per entry of the referenced
    // table (OFFSET 0 keeps that subquery apart), not once per intervention.
    const resume = after ? sql`(o.gkey, o.gtie, i.date, i.id) ${cmp} (${after.gkey}, CAST(${after.gtie} AS ${tieCast}), ${dateOfKey(after.dkey)}, ${after.id})` : sql`true`;
    return sql`SELECT ${cols}, o.gkey, o.gtie, NULL::int AS numero FROM ${from} JOIN (${labels} OFFSET 0) o ON o.gid = ${fk}
      WHERE ${where} AND ${resume} ORDER BY o.gkey ${dir}, o.gtie ${dir}, i.date ${dir}, i.id ${dir} ${limit}`;
  }
  // Group by group in label order. The inner walk is limited to what the page can need from
  // one group: the final sort then only ever sorts that many rows per group (it cannot know
  // that each group already comes in date order) and stops at the group that fills the page.
  // A table with a (key, tie) index is not ordered in its own subquery: planned alone, it would
  // be read whole and sorted (2,000 sites: 2-4 ms); as part of the query, the planner walks the
  // index and stops at the group that fills the page. The few action and cell types are sorted
  // in their subquery, which keeps the nested loop (without it, the planner joins the whole log).
  const groupOrder = g.indexed ? sql`` : sql`ORDER BY ${key} ${dir}, ${tie} ${dir}`;
  const outerFrom = after ? sql`(${key}, ${tie}) ${sql.raw(desc ? '<=' : '>=')} (${after.gkey}, CAST(${after.gtie} AS ${tieCast}))` : sql`true`;
  const innerFrom = after ? sql`(o.gtie <> CAST(${after.gtie} AS ${tieCast}) OR (i.date, i.id) ${cmp} (${dateOfKey(after.dkey)}, ${after.id}))` : sql`true`;
  const innerLimit = w.limit === null ? sql`` : sql`LIMIT ${w.offset + w.limit}`;
  return sql`SELECT ${columnsOf('x', w.columns)}, o.gkey, o.gtie, NULL::int AS numero
    FROM (${labels} WHERE ${outerFrom} ${groupOrder}) o
    CROSS JOIN LATERAL (SELECT ${cols} FROM intervention i WHERE ${fk} = o.gid AND ${where} AND ${innerFrom}
      ORDER BY i.date ${dir}, i.id ${dir} ${innerLimit}) x
    ORDER BY o.gkey ${dir}, o.gtie ${dir}, x.date ${dir}, x.id ${dir} ${limit}`;
}

/**
 * The ids of a page of the whole log sorted by a label, without a filter, as arrays
 * (unrolledGroups): the statements of a last page by site 7.5 -> 3.6 ms at a million
 * interventions on PostgreSQL, 11.6 -> 7.9 ms at 100,000 on PGlite; by person 17.4 -> 7.8 ms
 * there. Null for a filtered list.
 */
function groupArrays(p: ListPlan, page: { limit: number; offset: number }): RawBuilder<{ id: number }> | null {
  const g = GROUPS[p.sort.name];
  if (!g || !p.paths.has('groupWalk') || fieldsOf(p.f).length > 0) return null;
  const dir = sql.raw(p.sort.direction === 'desc' ? 'DESC' : 'ASC');
  const [key, tie, fk] = [sql.raw(g.key), sql.raw(g.tie), sql.raw(g.fk)];
  return unrolledGroups(
    sql`SELECT i.id FROM intervention i WHERE ${fk} = g.id ORDER BY i.date ${dir}, i.id ${dir} LIMIT ${page.offset + page.limit}`,
    sql`${sql.raw(g.table)} g ORDER BY ${key} ${dir}, ${tie} ${dir}`,
    page,
  );
}

/** The list's statements, apart from the database so that tests and the bench can EXPLAIN them. */
export const listQueries = {
  span: (siteId?: number) =>
    sql<{ from: Date | null; to: Date | null }>`SELECT min(i.date) AS "from", max(i.date) AS "to" FROM intervention i
      WHERE ${siteId === undefined ? sql`true` : sql`i.site_id = ${siteId}`}`,

  /** The ids of a page, in the list's order (its rows: intervention-rows.ts). */
  pageKeys: (p: ListPlan, page: { limit: number; offset: number }): RawBuilder<{ id: number }> =>
    groupArrays(p, page) ?? walkQuery(p, { ...page, after: null, columns: ['id', 'date'] }),

  /** The count of the list (exact up to COUNT_CAP + 1 at least); `kept` when read from intervention_count. */
  count(p: ListPlan): { query: RawBuilder<{ count: number }>; kept?: true } {
    const { f, date, search } = p;
    if (search?.mode === 'narrow') return { query: sql`SELECT count(*)::int AS count FROM (${searchCandidates(search, conditions({ ...p, search: null }))}) c` };
    if (p.paths.has('keptCount')) {
      // type_action_id 0: the site's total.
      const site = f.siteId === undefined ? sql`` : sql` AND c.site_id = ${f.siteId}`;
      return { query: sql`SELECT coalesce(sum(c.n), 0)::int AS count FROM intervention_count c WHERE c.type_action_id = ${f.action ?? 0}${site}`, kept: true };
    }
    if (p.paths.has('rangeCount') && date?.kind === 'ranges' && date.ranges.length > 1) {
      // Range by range on the index: only matching rows are read.
      return {
        query: sql`SELECT count(*)::int AS count FROM (SELECT 1 FROM unnest(CAST(${multirangeLiteral(date.ranges)} AS tstzmultirange)) r
          JOIN intervention i ON i.date >= lower(r) AND i.date < upper(r) WHERE ${conditions({ ...p, date: null })} LIMIT ${COUNT_CAP + 1}) x`,
      };
    }
    // A broad search matches much of the log: walking it in date order finds COUNT_CAP + 1
    // matches soon, where gathering every match through the indexes reads them all.
    const order = search ? sql`ORDER BY i.date DESC, i.id DESC` : sql``;
    return { query: sql`SELECT count(*)::int AS count FROM (SELECT 1 FROM intervention i WHERE ${conditions(p)} ${order} LIMIT ${COUNT_CAP + 1}) x` };
  },
};

/** Options of a list read: `plain` takes no fast path (the tests compare both). */
export interface ListOptions {
  /** The plain query, whatever the fast paths would take. */
  plain?: boolean;
  /** From this offset a page is read from the nearer end of a list whose count is kept. */
  deepFrom?: number;
}

export function createInterventionList(db: Db) {
  /** The Date filter as ranges over the days that hold data (of the site, when restricted). */
  async function resolveDate(f: ListFilter): Promise<DateTermMatch | null> {
    const term = f.date?.trim();
    if (!term) return null;
    const span = (await listQueries.span(f.siteId).execute(db)).rows[0];
    return dateTermRanges(term, span?.from && span.to ? { from: new Date(span.from), to: new Date(span.to) } : null);
  }

  async function plan(f: ListFilter, sort: ListSort, opts: ListOptions = {}): Promise<ListPlan> {
    const paths = fastPathsFor(f, sort.name, opts.plain);
    const [date, search] = await Promise.all([resolveDate(f), resolveSearch(db, f.search, f.scope ?? FULL_SEARCH, !paths.has('narrowSearch'))]);
    return { f, sort, date, search, paths };
  }

  return {
    plan,

    /** One page of the list (within its first COUNT_CAP rows) and its count, capped at COUNT_CAP. */
    async list(f: ListFilter, sort: ListSort, page: { limit: number; offset: number }, opts: ListOptions = {}) {
      const p = await plan(f, sort, opts);
      const answer = (n: number, rows: InterventionListRecord[]) => ({ count: Math.min(n, COUNT_CAP), countCapped: n > COUNT_CAP, rows });
      if (p.date?.kind === 'none') return answer(0, []);
      const within = { offset: page.offset, limit: Math.max(0, Math.min(page.limit, COUNT_CAP - page.offset)) };
      const counted = listQueries.count(p);
      if (counted.kept && within.offset >= (opts.deepFrom ?? DEEP_PAGE_OFFSET)) {
        // The count first, then the page from the nearer end, in the reverse order for a page
        // past the middle (every key of a list's order runs in the same direction, so reversing
        // it is flipping that direction).
        const n = (await counted.query.execute(db)).rows[0]?.count ?? 0;
        const win = pageFromNearestEnd(within, n);
        if (win.limit === 0) return answer(n, []);
        const order: ListSort = win.reversed ? { ...sort, direction: sort.direction === 'asc' ? 'desc' : 'asc' } : sort;
        const rows = await readPage(db, listQueries.pageKeys({ ...p, sort: order }, win));
        return answer(n, win.reversed ? rows.reverse() : rows);
      }
      const pageRows = within.limit === 0 ? Promise.resolve([]) : readPage(db, listQueries.pageKeys(p, within));
      // The search alone, one of its parts already past the cap, or matching free text only,
      // whose matches were counted to choose the way: nothing (more) to count.
      const searchAlone = fieldsOf(f).length === 1 ? p.search : null;
      if (searchAlone?.beyondCap) return answer(COUNT_CAP + 1, await pageRows);
      if (searchAlone?.textOnlyCount !== undefined) return answer(searchAlone.textOnlyCount, await pageRows);
      const [countRes, rows] = await Promise.all([counted.query.execute(db), pageRows]);
      return answer(countRes.rows[0]?.count ?? 0, rows);
    },
  };
}
