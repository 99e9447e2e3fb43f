// Statements planned once per connection. Reading the cards of a 20-row page is a handful of
// primary-key lookups that run in about 1 ms, but PostgreSQL spends 2-3 ms planning the
// statement again on every request. A statement marked with planOnce() is sent by the
// PostgreSQL pool as a named prepared statement, so that after its first executions the server
// keeps one generic plan for it on that connection.
//
// Only for statements whose best plan does not depend on their parameters (lookups by id):
// a list filtered by a site or a search needs a plan made for its values, and a generic plan
// can be a thousand times slower there. Each marked statement must keep one text whatever its
// input (ids as one array parameter, never an IN list that grows with the page), so that each
// connection holds one prepared statement per marked query. On PGlite, the dialect prepares it
// with PREPARE and runs it with EXECUTE (pglite-dialect.ts). A connection pooler in front of PostgreSQL must keep prepared statements with their
// connection (session pooling, or PgBouncer's max_prepared_statements): see the README.
import { createHash } from 'node:crypto';
import { sql, type RawBuilder } from 'kysely';

const MARK = '/* plan-once */';
const MARKED = /^\s*(?:select\s+)?\/\* plan-once \*\//i;

/** The statement, marked to be planned once per connection (see the file's comment). */
export function planOnce<T>(statement: RawBuilder<T>): RawBuilder<T> {
  return sql<T>`${sql.raw(MARK)} ${statement}`;
}

/** The name of a marked statement's prepared statement (from its text), or undefined for any other statement. */
export function preparedStatementName(text: string): string | undefined {
  if (!MARKED.test(text)) return undefined;
  return `plan_once_${createHash('sha1').update(text).digest('hex').slice(0, 24)}`;
}

/** The statement without a leading comment, to read its first keyword. */
export function withoutLeadingComment(text: string): string {
  return text.replace(/^\s*\/\*[\s\S]*?\*\/\s*/, '');
}
