// A PostgreSQL server through node-postgres: the pool and the connections it lends (retry of a
// first read on a dead connection, the client's own wait for an answer under the statement
// limit), the statement limit of a transaction, and the wait for a server that is starting.
import { Kysely, PostgresDialect, sql, type LogConfig, type Transaction } from 'kysely';
import pg from 'pg';
import type { Database } from './schema.js';
import type { DatabaseHandle, Db } from './handle.js';
import { DatabaseNoAnswerError, isDatabaseUnavailable } from '../errors.js';
import { ConnectionWatcher } from './auth-changes.js';
import { authListener } from './notifications.js';
import { KEEPALIVE_IDLE_MS, POSTGRES_SESSION_OPTIONS, describePostgresUrl, errorSummary, type DbLogger } from './postgres-connection.js';
import { preparedStatementName, withoutLeadingComment } from './plan-once.js';

export interface PostgresOptions {
  /** How long to keep trying a server that does not answer yet (a PostgreSQL starting up). 0: one try. */
  waitMs?: number;
  log?: DbLogger;
  /** How long a query waits for a free connection of the pool before it fails (then a 503). */
  connectionTimeoutMillis?: number;
  max?: number;
  /** Kysely's query log (the bench records the statements a request issues). */
  queryLog?: LogConfig;
  /**
   * Longest a statement may run on the server, in ms (PostgreSQL's statement_timeout, lock
   * waits included), after which it is cancelled and rolled back and the request answers 503.
   * A statement that gets no answer at all (a silent network cut) is given up
   * NO_ANSWER_GRACE_MS later. 0 or absent: no limit (tests, tools, the bench's bulk loads).
   */
  statementTimeoutMs?: number;
  /** How much longer than the statement limit an answer is waited for (NO_ANSWER_GRACE_MS; tests shorten it). */
  noAnswerGraceMs?: number;
}

/** The server's default statement limit (DB_STATEMENT_TIMEOUT's default). */
export const DEFAULT_STATEMENT_TIMEOUT_MS = 15_000;
/**
 * How much longer than the statement limit the client waits for an answer before it closes the
 * connection: the server's own cancellation answers well within it, so only a connection that
 * went silent (dead peer, dropped route) reaches it.
 */
export const NO_ANSWER_GRACE_MS = 5_000;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * A PostgreSQL handle whose pool survives lost connections: a connection dropped by the
 * server (restart, failover, pg_terminate_backend, network cut) is logged and thrown away,
 * the query that was using it fails (the error handler answers 503), and the next query
 * gets a fresh connection. Nothing is tried at creation.
 */
export function createPostgres(url: string, opts: PostgresOptions = {}): DatabaseHandle & { pool: pg.Pool } {
  const statementMs = opts.statementTimeoutMs ?? 0;
  const graceMs = opts.noAnswerGraceMs ?? NO_ANSWER_GRACE_MS;
  const pool = new pg.Pool({
    connectionString: url,
    // The app's statements are short: compiling one (JIT, when the planner's cost estimate passes
    // jit_above_cost, as it does for an export batch or a count at a million rows) costs 20 to
    // 170 ms, more than running it.
    options: POSTGRES_SESSION_OPTIONS,
    max: opts.max ?? 10,
    connectionTimeoutMillis: opts.connectionTimeoutMillis ?? 5000,
    idleTimeoutMillis: 30_000,
    keepAlive: true,
    keepAliveInitialDelayMillis: KEEPALIVE_IDLE_MS,
    // Sent at connection start: every statement of the app runs under it, lock waits included.
    ...(statementMs > 0 ? { statement_timeout: statementMs } : {}),
  });
  // An idle connection the server drops is reported here (then removed by the pool);
  // without a listener this 'error' would end the process.
  pool.on('error', (err) => opts.log?.warn({ err: errorSummary(err) }, 'Connexion PostgreSQL inactive perdue'));
  // A connection in use reports its loss to the query that fails with it, and also as an
  // 'error' event that the pool does not listen to while the connection is lent out.
  pool.on('connect', (client) => client.on('error', () => undefined));
  const max = opts.max ?? 10;
  const listener = authListener(url, opts.log);
  const changes = listener.changes;
  async function usableClient(): Promise<pg.PoolClient> {
    // A connection known to be dead (its error arrived while it sat idle) is discarded and
    // another one taken.
    for (let attempt = 0; ; attempt++) {
      const client = await pool.connect();
      const state = client as unknown as { _queryable?: boolean; _ending?: boolean };
      if ((state._queryable !== false && !state._ending) || attempt > max) return client;
      client.release(new Error('connection no longer usable'));
    }
  }
  const lending = {
    async connect() {
      return new LentConnection(await usableClient(), usableClient, max, new ConnectionWatcher(changes), statementMs, graceMs) as unknown as pg.PoolClient;
    },
    end: () => pool.end(),
  };
  const db = new Kysely<Database>({ dialect: new PostgresDialect({ pool: lending }), log: opts.queryLog });
  return {
    db,
    kind: 'postgres',
    pool,
    changes,
    poolStats: () => ({ total: pool.totalCount, idle: pool.idleCount, waiting: pool.waitingCount }),
    close: async () => {
      await listener.stop();
      await db.destroy();
    },
  };
}

/** `SET [SESSION|LOCAL] statement_timeout = …` and `RESET statement_timeout` / `RESET ALL`, as one statement. */
const SET_STATEMENT_TIMEOUT = /^\s*set\s+(?:(session|local)\s+)?statement_timeout\s*(?:=|\bto\b)\s*(?:'([^']*)'|([^\s;']+))\s*;?\s*$/i;
const RESET_STATEMENT_TIMEOUT = /^\s*reset\s+(?:statement_timeout|all)\s*;?\s*$/i;
/** `SELECT set_config('statement_timeout', value, is_local)`, the value inline or a parameter. */
const SET_CONFIG_TIMEOUT = /^\s*select\s+set_config\(\s*'statement_timeout'\s*,\s*(?:\$(\d+)|'([^']*)')(?:::\w+)?\s*,\s*(true|false)\s*\)/i;
const TIMEOUT_UNITS: Record<string, number> = { '': 1, ms: 1, s: 1000, min: 60_000, h: 3_600_000, d: 86_400_000 };

/** A statement_timeout value in ms; null for DEFAULT; undefined when it cannot be read. */
export function parseStatementTimeout(value: string): number | null | undefined {
  if (/^default$/i.test(value.trim())) return null;
  const m = /^\s*(\d+)\s*(ms|s|min|h|d)?\s*$/i.exec(value);
  if (!m) return undefined;
  return Number(m[1]) * TIMEOUT_UNITS[(m[2] ?? '').toLowerCase()]!;
}

/**
 * A pooled connection as Kysely uses it (query, release).
 *
 * Right after a cut the pool may still hold idle connections whose end has not been read yet:
 * when the first statement of a checkout fails because its connection is gone, and that
 * statement is a read or the BEGIN of a transaction (nothing was written, so running it again
 * cannot double anything), it is run again on another connection instead of failing the request.
 *
 * A statement that gets no answer within the statement limit plus the grace (NO_ANSWER_GRACE_MS) fails
 * with DatabaseNoAnswerError and its connection is closed, so the server rolls back whatever it
 * had begun (the transaction never committed). The limit the client waits for follows the
 * statement limit the caller sets on this connection (SET LOCAL in a transaction, until its
 * end; SET, until RESET); a connection whose session limit was changed and not reset is closed
 * at release rather than lent to another request with that limit.
 */
class LentConnection {
  private used = false;
  /** Server limit set by SET LOCAL in the current transaction (ms, 0: none); undefined: not set. */
  private localMs: number | undefined;
  /** Server limit set for the session; undefined: the connection's own. */
  private sessionMs: number | undefined;
  /** Closed at release: it stopped answering, or carries a limit of its own. */
  private discard = false;
  constructor(
    private client: pg.PoolClient | null,
    private readonly another: () => Promise<pg.PoolClient>,
    private readonly maxRetries: number,
    private readonly watcher: ConnectionWatcher,
    private readonly defaultMs: number,
    private readonly graceMs: number,
  ) {}

  async query(text: unknown, values?: unknown[]): Promise<unknown> {
    // Cursors (streamed results) go straight through.
    if (!this.client) throw new Error('Connection terminated: no connection to use');
    if (typeof text !== 'string') return (this.client.query as (q: unknown) => unknown)(text);
    const first = !this.used;
    this.used = true;
    for (let attempt = 0; ; attempt++) {
      try {
        const result = await this.run(this.client!, text, values);
        this.watcher.afterStatement(text);
        this.afterStatement(text, values);
        return result;
      } catch (e) {
        if (e instanceof DatabaseNoAnswerError) throw e;
        if (!first || attempt >= this.maxRetries || !isDatabaseUnavailable(e) || !/^\s*(select|begin)\b/i.test(withoutLeadingComment(text))) throw e;
        const dead = this.client!;
        // Released once: if no other connection comes, release() below has nothing left to give back.
        this.client = null;
        dead.release(e as Error);
        this.client = await this.another();
      }
    }
  }

  /**
   * The statement, given up when no answer comes within the limit the server applies plus the
   * grace; a statement marked by planOnce() as a named prepared statement (plan-once.ts).
   */
  private run(client: pg.PoolClient, text: string, values?: unknown[]): Promise<unknown> {
    const name = preparedStatementName(text);
    const send = () => (name === undefined ? client.query(text, values) : client.query({ name, text, values }));
    const serverMs = this.localMs ?? this.sessionMs ?? this.defaultMs;
    if (!(serverMs > 0)) return send();
    const waitMs = serverMs + this.graceMs;
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.discard = true;
        reject(new DatabaseNoAnswerError(waitMs));
        // The server may still hold the statement's locks, or be unreachable: this connection
        // is not used again, and ending it makes the server roll back (once it hears of it).
        (client as unknown as { connection?: { stream?: { destroy(): void } } }).connection?.stream?.destroy();
      }, waitMs);
      send().then(
        (r) => {
          clearTimeout(timer);
          resolve(r);
        },
        (e: unknown) => {
          clearTimeout(timer);
          reject(e as Error);
        },
      );
    });
  }

  /** Follows the statement limit the caller set (see the class comment). */
  private afterStatement(text: string, values?: unknown[]) {
    const head = /^\s*(\w+)/.exec(text)?.[1]?.toLowerCase();
    if (head === 'commit' || head === 'end' || head === 'abort' || (head === 'rollback' && !/^\s*rollback\s+to\b/i.test(text))) {
      this.localMs = undefined;
      return;
    }
    if (head === 'reset' && RESET_STATEMENT_TIMEOUT.test(text)) {
      this.sessionMs = undefined;
      this.localMs = undefined;
      this.discard = false;
      return;
    }
    let local: boolean;
    let value: string;
    if (head === 'set') {
      const m = SET_STATEMENT_TIMEOUT.exec(text);
      if (!m) return;
      local = m[1]?.toLowerCase() === 'local';
      value = m[2] ?? m[3] ?? '';
    } else if (head === 'select' && text.includes('set_config')) {
      const m = SET_CONFIG_TIMEOUT.exec(text);
      if (!m) return;
      local = m[3]!.toLowerCase() === 'true';
      value = m[1] !== undefined ? String(values?.[Number(m[1]) - 1] ?? '') : (m[2] ?? '');
    } else return;
    const parsed = parseStatementTimeout(value);
    // A value this code cannot read: no client-side limit rather than a wrong one.
    const ms = parsed === undefined ? 0 : parsed === null ? this.defaultMs : parsed;
    if (local) this.localMs = ms;
    else {
      this.sessionMs = ms;
      this.discard = true;
    }
  }

  release(err?: Error | boolean) {
    this.watcher.released();
    this.client?.release(err || (this.discard ? true : undefined));
    this.client = null;
  }
}

/**
 * Runs `work` in a transaction of its own whose statements may each run for up to `ms`
 * (0: no limit) instead of the usual statement limit: for an export that reads more than a
 * request does. The limit is `SET LOCAL statement_timeout`, undone at the transaction's end,
 * so the pooled connection goes back with its usual limit; the client's own wait for an
 * answer follows it. Works the same on PGlite (which has no statement limit of its own).
 *
 * A streamed export that must not hold a transaction can instead take one connection
 * (`db.connection().execute(...)`) and send `SET statement_timeout = …` (or
 * `SELECT set_config('statement_timeout', …, false)`) first: unless it sends
 * `RESET statement_timeout` before giving it back, that connection is closed at release,
 * never lent again with that limit. A query object (a cursor, a COPY stream) is not timed by
 * the client; the server's limit applies to it.
 */
export function withStatementTimeout<T>(db: Db, ms: number, work: (trx: Transaction<Database>) => Promise<T>): Promise<T> {
  const value = Math.max(0, Math.floor(ms));
  return db.transaction().execute(async (trx) => {
    await sql.raw(`SET LOCAL statement_timeout = ${value}`).execute(trx);
    return work(trx);
  });
}

/** Waits until the server accepts a connection, retrying with backoff for up to waitMs. */
export async function waitForPostgres(pool: pg.Pool, opts: { waitMs?: number; log?: DbLogger; url?: string } = {}): Promise<void> {
  const deadline = Date.now() + (opts.waitMs ?? 0);
  let delay = 500;
  for (let attempt = 1; ; attempt++) {
    try {
      const client = await pool.connect();
      client.release();
      return;
    } catch (e) {
      // A wrong password or database name will not fix itself: only unreachable servers are waited for.
      if (!isDatabaseUnavailable(e) || Date.now() + delay > deadline) throw e;
      opts.log?.warn(
        { attempt, retryInMs: delay, err: errorSummary(e) },
        `La base PostgreSQL ${opts.url ? describePostgresUrl(opts.url) : ''} ne répond pas encore : nouvel essai dans ${delay / 1000} s`,
      );
      await sleep(delay);
      delay = Math.min(delay * 2, 5000);
    }
  }
}

/** Opens a pool and checks the server answers (at once, or within opts.waitMs). */
export async function openPostgres(url: string, opts: PostgresOptions = {}): Promise<DatabaseHandle> {
  const handle = createPostgres(url, opts);
  try {
    await waitForPostgres(handle.pool, { waitMs: opts.waitMs, log: opts.log, url });
  } catch (e) {
    await handle.close().catch(() => undefined);
    throw e;
  }
  return { db: handle.db, kind: handle.kind, changes: handle.changes, close: handle.close };
}
