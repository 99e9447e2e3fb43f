// Helpers for the server side of admin tables: accent- and case-insensitive matching
// (f_unaccent + lower, backed by trigram indexes) and paging.
import { sql, type Expression, type RawBuilder, type SqlBool } from 'kysely';

/**
 * Integer ids as one array parameter ('{1,2,3}' cast to int[]), the same statement text for any
 * number of them: `= ANY(...)` or `unnest(...)` rather than an IN list of n parameters.
 */
export const intArray = (ids: readonly number[]) => sql<number[]>`CAST(${`{${ids.map((id) => Math.trunc(id)).join(',')}}`} AS int[])`;

/** The LIKE pattern of "contains `term`", lower-cased, with LIKE's wildcards escaped. */
function containsPattern(term: string): string {
  return `%${term.toLowerCase().replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
}

/**
 * Whether pg_trgm can take at least one trigram out of the pattern, so that a trigram index
 * can serve it: only when the term holds a run of three letters or digits.
 */
export function trigramIndexable(term: string): boolean {
  return /[\p{L}\p{N}]{3,}/u.test(term);
}

/** `expr` contains `term`, ignoring accents and case. */
export function ilikeUnaccent(expr: Expression<string | null> | RawBuilder<unknown>, term: string): RawBuilder<SqlBool> {
  const pattern = containsPattern(term);
  // The trigram indexes are built on f_unaccent(lower(...)), so a term they can serve must
  // use exactly that expression. A shorter term scans the rows whatever the expression: there
  // unaccent() is called directly, about three times cheaper per row than through the SQL
  // wrapper (which the planner cannot inline), for the same result.
  if (trigramIndexable(term)) return sql<SqlBool>`f_unaccent(lower(${expr})) LIKE f_unaccent(${pattern})`;
  return sql<SqlBool>`public.unaccent('public.unaccent'::regdictionary, lower(${expr})) LIKE public.unaccent('public.unaccent'::regdictionary, ${pattern})`;
}

/** `column`, already stored accent-free and lower-cased (f_unaccent(lower(...))), contains `term`. */
export function containsNormalized(column: Expression<string | null> | RawBuilder<unknown>, term: string): RawBuilder<SqlBool> {
  return sql<SqlBool>`${column} LIKE f_unaccent(${containsPattern(term)})`;
}

export function pageOf(q: { page: number; rowsPerPage: number }) {
  return { limit: q.rowsPerPage, offset: q.page * q.rowsPerPage };
}

/**
 * From this offset on, a list whose exact count is cheap reads its page from the nearer end
 * (pageFromNearestEnd): nearer the top, skipping rows costs less than counting first.
 */
export const DEEP_PAGE_OFFSET = 1000;

/**
 * The same page read from the nearer end of a list of `count` rows: an OFFSET costs the rows it
 * skips, so a page past the middle is read in the reverse order, from the last row (its rows
 * then come back in reverse and must be turned round). A page past the end is empty (limit 0).
 */
export function pageFromNearestEnd(page: { limit: number; offset: number }, count: number): { limit: number; offset: number; reversed: boolean } {
  if (page.offset >= count) return { limit: 0, offset: 0, reversed: false };
  const end = Math.min(page.offset + page.limit, count);
  const afterPage = count - end;
  if (afterPage >= page.offset) return { ...page, reversed: false };
  return { limit: end - page.offset, offset: afterPage, reversed: true };
}

/**
 * A page of a list sorted group by group (by site, by action...): `groups`, a FROM with its ORDER
 * BY in the list's order, each give the ids of their entries in order as one array (`ids`, a
 * subquery on the group's row `g`), and the arrays are unrolled in that order. The page comes out
 * in order without sorting its entries: on a last page, sorting 10,000 of them group by group
 * costs as much as reading them. PostgreSQL keeps the order of a subquery that the outer query
 * only unrolls and limits (no join, no grouping); each list's tests compare its pages with its
 * plain query. With a filter, many small arrays cost more than the sort: the lists keep their
 * walk there.
 */
export function unrolledGroups(ids: RawBuilder<unknown>, groups: RawBuilder<unknown>, page: { limit: number; offset: number }): RawBuilder<{ id: number }> {
  return sql<{ id: number }>`SELECT unnest(o.ids) AS id FROM (SELECT ARRAY(${ids}) AS ids FROM ${groups}) o LIMIT ${page.limit} OFFSET ${page.offset}`;
}

/**
 * Whether a search term is too short for the trigram indexes and is looked up as the start of
 * a word instead: one or two letters or digits.
 */
export function shortWordTerm(term: string): boolean {
  return /^[\p{L}\p{N}]{1,2}$/u.test(term);
}

/**
 * `column`, already accent-free and lower-cased, has a word starting with `term` (one or two
 * letters or digits, see shortWordTerm), ignoring accents and case. A GIN index on
 * f_word_starts(column) (migration 007) serves it, where "contains" would read every row.
 */
export function wordStartsNormalized(column: Expression<string | null> | RawBuilder<unknown>, term: string): RawBuilder<SqlBool> {
  // The same test twice: the array one for the index, and a regular expression, which the
  // planner evaluates first on each row (it is far cheaper) when it rather walks a sort index,
  // so that a common start found late in that order does not cost a function call per row.
  // The expression is kept off the column's trigram index (`|| ''`): a two-letter pattern gives
  // that index no trigram, so it would hand back every row as a lossy match, and each would be
  // tested again with both conditions, the array one calling its function per row (a count of
  // the sites whose address has a word starting with 'ru': 67 ms that way, 2 ms without).
  return sql<SqlBool>`(f_word_starts(${column}) @> ARRAY[f_unaccent(lower(${term}))] AND ${wordStartsIn(sql`(${column} || '')`, term)})`;
}

/** `column`, already accent-free and lower-cased, has a word starting with `term` (see shortWordTerm): the check of rows an index already found. */
export function wordStartsIn(column: Expression<string | null> | RawBuilder<unknown>, term: string): RawBuilder<SqlBool> {
  return sql<SqlBool>`${column} ~ ('(^|[^[:alnum:]])' || f_unaccent(lower(${term})))`;
}

/**
 * `expr` has a word starting with `term` (see shortWordTerm), ignoring accents and case: the
 * check of rows an index already found. A regular expression on the text unaccented directly
 * (not through the SQL wrapper), several times cheaper per row than listing its word starts.
 */
export function wordStartsUnaccent(expr: Expression<string | null> | RawBuilder<unknown>, term: string): RawBuilder<SqlBool> {
  return sql<SqlBool>`public.unaccent('public.unaccent'::regdictionary, lower(${expr})) ~ ('(^|[^[:alnum:]])' || public.unaccent('public.unaccent'::regdictionary, lower(${term})))`;
}
