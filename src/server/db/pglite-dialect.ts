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

class PGliteConnection implements DatabaseConnection {
  constructor(
    private readonly pg: PGliteQueries,
    private readonly watcher?: ConnectionWatcher,
  ) {}
  async executeQuery<R>(compiled: CompiledQuery): Promise<QueryResult<R>> {
    // Without parameters, use the simple protocol: it accepts several statements
    // (migrations), as node-postgres does.
    const result =
      compiled.parameters.length === 0
        ? ((await this.pg.exec(compiled.sql)).at(-1) ?? { rows: [], affectedRows: 0 })
        : await this.pg.query<R>(compiled.sql, compiled.parameters as unknown[]);
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
