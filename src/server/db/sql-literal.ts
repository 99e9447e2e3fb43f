// Parameters written in place as SQL literals, for the statements that take none: COPY (the
// exports, csv.ts) and EXECUTE of a statement PGlite prepared (pglite-dialect.ts).

/** A parameter written as an SQL literal (COPY and EXECUTE take no parameters). */
export function sqlLiteral(value: unknown): string {
  if (value === null || value === undefined) return 'NULL';
  if (typeof value === 'number') {
    if (!Number.isFinite(value)) throw new Error('non-finite number in an SQL literal');
    return String(value);
  }
  if (typeof value === 'boolean') return value ? 'TRUE' : 'FALSE';
  if (value instanceof Date) return `'${value.toISOString()}'`;
  if (Array.isArray(value)) return `ARRAY[${value.map(sqlLiteral).join(', ')}]`;
  if (typeof value === 'string') {
    if (value.includes('\u0000')) throw new Error('NUL in an SQL literal');
    // E'' so that the result does not depend on standard_conforming_strings.
    return `E'${value.replace(/\\/g, '\\\\').replace(/'/g, "''")}'`;
  }
  throw new Error(`unsupported parameter in an SQL literal: ${typeof value}`);
}

/** The compiled statement with its $n parameters written in place as literals. */
export function inlineParameters(compiled: { sql: string; parameters: readonly unknown[] }): string {
  return compiled.sql.replace(/\$(\d+)\b/g, (_, n: string) => {
    const i = Number(n) - 1;
    if (i < 0 || i >= compiled.parameters.length) throw new Error(`no parameter $${n}`);
    return sqlLiteral(compiled.parameters[i]);
  });
}
