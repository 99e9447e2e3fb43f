// Helpers for the server side of admin tables: accent- and case-insensitive matching
// (f_unaccent + lower, backed by trigram indexes) and paging.
import { sql, type Expression, type RawBuilder, type SqlBool } from 'kysely';

/** `expr` contains `term`, ignoring accents and case. */
export function ilikeUnaccent(expr: Expression<string | null> | RawBuilder<unknown>, term: string): RawBuilder<SqlBool> {
  const pattern = `%${term.toLowerCase().replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
  return sql<SqlBool>`f_unaccent(lower(${expr})) LIKE f_unaccent(${pattern})`;
}

export function pageOf(q: { page: number; rowsPerPage: number }) {
  return { limit: q.rowsPerPage, offset: q.page * q.rowsPerPage };
}
