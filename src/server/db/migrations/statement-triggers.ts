// The statement-level triggers that keep derived data (docs/derived-data.md): one AFTER trigger
// per event, fired once per statement with the rows it touched as transition tables, so that a
// bulk write costs one pass instead of one call per row. Not a migration itself (the runner only
// loads NNN-name.ts files); the migrations build their CREATE TRIGGER statements with it.

export type StatementEvent = 'INSERT' | 'UPDATE' | 'DELETE' | 'TRUNCATE';

export interface StatementTriggerOptions {
  /** The function the trigger runs, without parentheses; the trigger's own name by default. */
  fn?: string;
  /** Name of the transition table of the rows before the statement (UPDATE, DELETE); old_rows by default. */
  oldTable?: string;
  /** Name of the transition table of the rows after the statement (INSERT, UPDATE); new_rows by default. */
  newTable?: string;
}

/**
 * `CREATE TRIGGER name AFTER event ON table REFERENCING ... FOR EACH STATEMENT EXECUTE FUNCTION fn()`:
 * an INSERT trigger sees the new rows, a DELETE trigger the old ones, an UPDATE trigger both
 * (paired by the table's key in the function), a TRUNCATE trigger none.
 */
export function statementTrigger(name: string, event: StatementEvent, table: string, opts: StatementTriggerOptions = {}): string {
  const transition = [
    event === 'UPDATE' || event === 'DELETE' ? `OLD TABLE AS ${opts.oldTable ?? 'old_rows'}` : null,
    event === 'INSERT' || event === 'UPDATE' ? `NEW TABLE AS ${opts.newTable ?? 'new_rows'}` : null,
  ].filter((t) => t !== null);
  const referencing = transition.length > 0 ? `REFERENCING ${transition.join(' ')} ` : '';
  return `CREATE TRIGGER ${name} AFTER ${event} ON ${table}\n  ${referencing}FOR EACH STATEMENT EXECUTE FUNCTION ${opts.fn ?? name}();`;
}

/**
 * One statement trigger per event of `triggers` (event → trigger name, each running the function
 * of its own name), in the order given, one statement per line.
 */
export function statementTriggers(table: string, triggers: Partial<Record<StatementEvent, string>>): string {
  return (Object.entries(triggers) as [StatementEvent, string][]).map(([event, name]) => statementTrigger(name, event, table)).join('\n');
}
