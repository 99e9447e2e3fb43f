// A small Kysely dialect over PGlite's query(). PGlite has a single connection, so
// connections are handed out one at a time: a transaction holds it until it ends.
import {
  CompiledQuery,
  PostgresAdapter,
  PostgresIntrospector,
  PostgresQueryCompiler,
  type DatabaseConnection,
  type Dialect,
  type Driver,
  type Kysely,
  type QueryResult,
  type TransactionSettings,
} from 'kysely';
import type { ConnectionWatcher } from './auth-changes.js';
import { preparedStatementName } from './plan-once.js';
import { sqlLiteral } from './sql-literal.js';

/**
 * What the dialect uses of PGlite: PGlite itself on this thread, or its worker thread
 * (pglite-worker-client.ts), which answers the same two calls.
 */
export interface PGliteQueries {
  query<R>(sql: string, params: unknown[]): Promise<{ rows: R[]; affectedRows?: number }>;
  exec(sql: string): Promise<{ rows: unknown[]; affectedRows?: number }[]>;
}

class Mutex {
  private tail: Promise<void> = Promise.resolve();
  lock(): Promise<() => void> {
    let release!: () => void;
    const next = new Promise<void>((r) => (release = r));
    const acquired = this.tail.then(() => release);
    this.tail = this.tail.then(() => next);
    return acquired;
  }
}

/**
 * The parameters written as literals of EXECUTE (which the prepared statement's parameter types
 * convert as they would the same values sent apart), or undefined when one is of a kind the
 * literals do not take (an array, a buffer...): the statement then takes the usual way.
 */
function executeLiterals(parameters: readonly unknown[]): string[] | undefined {
  if (parameters.some(Array.isArray)) return undefined;
  try {
    return parameters.map(sqlLiteral);
  } catch {
    return undefined;
  }
}

const errorCode = (e: unknown) => (e as { code?: string } | null)?.code;

class PGliteConnection implements DatabaseConnection {
  /** The statements marked by planOnce() that this database holds prepared. */
  private readonly prepared = new Set<string>();
  constructor(
    private readonly pg: PGliteQueries,
    private readonly watcher?: ConnectionWatcher,
  ) {}

  /**
   * A statement marked by planOnce() (plan-once.ts), prepared once with PREPARE and run with
   * EXECUTE: PostgreSQL then keeps its generic plan instead of planning it on every page (the
   * rows of a 20-row interventions page: 5.4 ms with its planning, 1.8 ms without, at 100,000
   * interventions). PGlite's query() sends unnamed statements only; EXECUTE takes no bound
   * parameters, hence the literals (sql-literal.ts).
   */
  private async executePrepared(name: string, compiled: CompiledQuery) {
    const literals = executeLiterals(compiled.parameters);
    if (literals === undefined) return undefined;
    const execute = `EXECUTE ${name}${literals.length ? `(${literals.join(', ')})` : ''}`;
    for (let attempt = 0; ; attempt++) {
      if (!this.prepared.has(name)) {
        // Another connection object over the same database may have prepared it already.
        await this.pg.exec(`PREPARE ${name} AS ${compiled.sql}`).catch((e: unknown) => {
          if (errorCode(e) !== '42P05') throw e;
        });
        this.prepared.add(name);
      }
      try {
        return (await this.pg.exec(execute)).at(-1) ?? { rows: [], affectedRows: 0 };
      } catch (e) {
        // Dropped meanwhile (DEALLOCATE, DISCARD): prepared again, once.
        if (errorCode(e) !== '26000' || attempt > 0) throw e;
        this.prepared.delete(name);
      }
    }
  }

  async executeQuery<R>(compiled: CompiledQuery): Promise<QueryResult<R>> {
    const name = preparedStatementName(compiled.sql);
    // Without parameters, use the simple protocol: it accepts several statements
    // (migrations), as node-postgres does.
    const result =
      (name !== undefined ? await this.executePrepared(name, compiled) : undefined) ??
      (compiled.parameters.length === 0
        ? ((await this.pg.exec(compiled.sql)).at(-1) ?? { rows: [], affectedRows: 0 })
        : await this.pg.query<R>(compiled.sql, compiled.parameters as unknown[]));
    this.watcher?.afterStatement(compiled.sql);
    const affected = result.affectedRows;
    return {
      rows: result.rows as R[],
      numAffectedRows: affected !== undefined ? BigInt(affected) : undefined,
    };
  }
  // eslint-disable-next-line require-yield
  async *streamQuery<R>(): AsyncIterableIterator<QueryResult<R>> {
    throw new Error('streamQuery is not supported on PGlite');
  }
}

class PGliteDriver implements Driver {
  private readonly mutex = new Mutex();
  private readonly releases = new WeakMap<DatabaseConnection, () => void>();
  private readonly connection: PGliteConnection;
  constructor(pg: PGliteQueries, watcher?: ConnectionWatcher) {
    this.connection = new PGliteConnection(pg, watcher);
  }
  async init() {}
  async acquireConnection(): Promise<DatabaseConnection> {
    const release = await this.mutex.lock();
    this.releases.set(this.connection, release);
    return this.connection;
  }
  async beginTransaction(conn: DatabaseConnection, settings: TransactionSettings) {
    const level = settings.isolationLevel ? ` ISOLATION LEVEL ${settings.isolationLevel.toUpperCase()}` : '';
    await conn.executeQuery(CompiledQuery.raw(`BEGIN${level}`));
  }
  async commitTransaction(conn: DatabaseConnection) {
    await conn.executeQuery(CompiledQuery.raw('COMMIT'));
  }
  async rollbackTransaction(conn: DatabaseConnection) {
    await conn.executeQuery(CompiledQuery.raw('ROLLBACK'));
  }
  async releaseConnection(conn: DatabaseConnection) {
    const release = this.releases.get(conn);
    this.releases.delete(conn);
    release?.();
  }
  async destroy() {}
}

export class PGliteDialect implements Dialect {
  constructor(
    private readonly pg: PGliteQueries,
    private readonly watcher?: ConnectionWatcher,
  ) {}
  createAdapter() {
    return new PostgresAdapter();
  }
  createDriver() {
    return new PGliteDriver(this.pg, this.watcher);
  }
  createQueryCompiler() {
    return new PostgresQueryCompiler();
  }
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  createIntrospector(db: Kysely<any>) {
    return new PostgresIntrospector(db);
  }
}
