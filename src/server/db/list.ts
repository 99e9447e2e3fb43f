// Helpers for the server side of admin tables: accent- and case-insensitive matching
// (f_unaccent + lower, backed by trigram indexes) and paging.
import { sql, type Expression, type RawBuilder, type SqlBool } from 'kysely';

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
