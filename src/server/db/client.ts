// Opens the database: embedded PGlite (a directory, or in memory for tests) or a
// PostgreSQL server through node-postgres. Both speak the same SQL and return numbers
// as numbers (int8 and numeric are parsed), so repositories do not care which one runs.
import fs from 'node:fs';
import path from 'node:path';
import { Kysely, PostgresDialect, sql, type LogConfig, type Transaction } from 'kysely';
import pg from 'pg';
import type { Database } from './schema.js';
import { PGliteDialect } from './pglite-dialect.js';
import { DatabaseNoAnswerError, isDatabaseUnavailable } from '../errors.js';
import { AUTH_CHANNEL, AuthChanges, ConnectionWatcher, type AuthChangeFeed } from './auth-changes.js';

export type Db = Kysely<Database>;

export interface DatabaseHandle {
  db: Db;
  kind: 'pglite' | 'postgres';
  /** Changes to sessions, accounts and roles, made by this process or (PostgreSQL) another one. */
  changes: AuthChangeFeed;
  close(): Promise<void>;
}

export class DatabaseLockedError extends Error {}

pg.types.setTypeParser(20, (v) => Number(v));
pg.types.setTypeParser(1700, (v) => Number(v));

/** The part of a pino logger the database layer writes to. */
export interface DbLogger {
  warn(obj: object, msg: string): void;
}

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
/**
 * TCP keepalive of every connection: probes start after this much silence, one a second, ten
 * of them (what Node sets): a peer gone without a word is found out within about 20 s, while
 * the connection is idle in the pool or waiting for an answer the server already acknowledged.
 */
export const KEEPALIVE_IDLE_MS = 10_000;

function errorSummary(e: unknown) {
  const err = e as { code?: string; message?: string };
  return { code: err.code, message: err.message };
}

/** Settings of every connection the app opens (see createPostgres). */
export const POSTGRES_SESSION_OPTIONS = '-c jit=off';

/** host:port/database of a PostgreSQL URL, without its user or password, for messages. */
export function describePostgresUrl(url: string): string {
  try {
    const u = new URL(url);
    return `${u.hostname}:${u.port || '5432'}${u.pathname}`;
  } catch {
    return 'adresse illisible';
  }
}

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
  pool.on('error', (err) => opts.log?.warn({ err: errorSummary(err) }, 'PostgreSQL connection lost while idle'));
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
    close: async () => {
      await listener.stop();
      await db.destroy();
    },
  };
}

/** How long the LISTEN connection waits before trying again after a loss (doubling up to the max). */
export const LISTEN_RETRY_MS = { first: 500, max: 10_000 };
/**
 * A connection cut without a word (a dead peer, a dropped route) would leave the listener waiting
 * forever while notifications go nowhere: it is asked a trivial query this often, and counted lost
 * when the answer does not come in time.
 */
export const LISTEN_HEARTBEAT_MS = { every: 5_000, timeout: 3_000 };

/**
 * The LISTEN connection that brings other processes' changes (AUTH_CHANNEL): opened when
 * the first subscriber arrives, reopened after a loss. The feed is live only between a
 * confirmed LISTEN and the next loss; every transition also counts as a change, since
 * notifications sent while it was down are lost.
 */
function authListener(url: string, log?: DbLogger) {
  let client: pg.Client | null = null;
  let stopped = false;
  let retry: NodeJS.Timeout | null = null;
  let delay = LISTEN_RETRY_MS.first;
  let heartbeat: NodeJS.Timeout | null = null;
  const changes = new AuthChanges(false, () => void connect());

  function beat(c: pg.Client) {
    heartbeat = setTimeout(() => {
      heartbeat = null;
      if (client !== c) return;
      const silent = setTimeout(() => lost(new Error('no answer to the heartbeat')), LISTEN_HEARTBEAT_MS.timeout);
      silent.unref();
      c.query('SELECT 1').then(
        () => {
          clearTimeout(silent);
          if (client === c) beat(c);
        },
        (e) => {
          clearTimeout(silent);
          if (client === c) lost(e);
        },
      );
    }, LISTEN_HEARTBEAT_MS.every);
    heartbeat.unref();
  }

  function lost(err?: unknown) {
    const dead = client;
    client = null;
    if (heartbeat) clearTimeout(heartbeat);
    heartbeat = null;
    if (!dead) return;
    dead.removeAllListeners();
    dead.on('error', () => undefined);
    dead.end().catch(() => undefined);
    changes.setLive(false);
    changes.changed();
    if (stopped) return;
    if (err) log?.warn({ err: errorSummary(err) }, 'PostgreSQL LISTEN connection lost: sessions read from the database until it is back');
    schedule();
  }

  function schedule() {
    if (stopped || retry) return;
    retry = setTimeout(() => {
      retry = null;
      void connect();
    }, delay);
    retry.unref();
    delay = Math.min(delay * 2, LISTEN_RETRY_MS.max);
  }

  async function connect() {
    if (stopped || client) return;
    const c = new pg.Client({ connectionString: url, keepAlive: true, keepAliveInitialDelayMillis: KEEPALIVE_IDLE_MS });
    client = c;
    c.on('error', (err) => lost(err));
    c.on('end', () => lost(new Error('connection ended')));
    c.on('notification', (msg) => {
      if (msg.channel === AUTH_CHANNEL) changes.changed();
    });
    try {
      await c.connect();
      await c.query(`LISTEN ${AUTH_CHANNEL}`);
      if (client !== c) return;
      delay = LISTEN_RETRY_MS.first;
      changes.changed();
      changes.setLive(true);
      beat(c);
    } catch (e) {
      if (client === c) lost(e);
    }
  }

  return {
    changes,
    async stop() {
      stopped = true;
      if (retry) clearTimeout(retry);
      retry = null;
      if (heartbeat) clearTimeout(heartbeat);
      heartbeat = null;
      const c = client;
      client = null;
      changes.setLive(false);
      if (c) {
        c.removeAllListeners();
        c.on('error', () => undefined);
        await c.end().catch(() => undefined);
      }
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
        if (!first || attempt >= this.maxRetries || !isDatabaseUnavailable(e) || !/^\s*(select|begin)\b/i.test(text)) throw e;
        const dead = this.client!;
        // Released once: if no other connection comes, release() below has nothing left to give back.
        this.client = null;
        dead.release(e as Error);
        this.client = await this.another();
      }
    }
  }

  /** The statement, given up when no answer comes within the limit the server applies plus the grace. */
  private run(client: pg.PoolClient, text: string, values?: unknown[]): Promise<unknown> {
    const serverMs = this.localMs ?? this.sessionMs ?? this.defaultMs;
    if (!(serverMs > 0)) return client.query(text, values);
    const waitMs = serverMs + this.graceMs;
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.discard = true;
        reject(new DatabaseNoAnswerError(waitMs));
        // The server may still hold the statement's locks, or be unreachable: this connection
        // is not used again, and ending it makes the server roll back (once it hears of it).
        (client as unknown as { connection?: { stream?: { destroy(): void } } }).connection?.stream?.destroy();
      }, waitMs);
      client.query(text, values).then(
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

function pidAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}

function readProc(file: string): string | null {
  try {
    return fs.readFileSync(file, 'utf8');
  } catch {
    return null;
  }
}

/** When the process started, in clock ticks since boot (field 22 of /proc/<pid>/stat); null without /proc. */
function processStart(pid: number): string | null {
  const stat = readProc(`/proc/${pid}/stat`);
  if (!stat) return null;
  // The command name (field 2) may hold spaces and parentheses: count from the last ')'.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return fields[19] ?? null;
}

const bootId = () => readProc('/proc/sys/kernel/random/boot_id')?.trim() ?? null;

interface LockOwner {
  pid: number;
  start?: string | null;
  boot?: string | null;
  dir?: string;
}

function lockContent(dir: string): string {
  return JSON.stringify({ pid: process.pid, start: processStart(process.pid), boot: bootId(), dir } satisfies LockOwner);
}

function readLockOwner(lockFile: string): LockOwner | null {
  const text = readProc(lockFile)?.trim() ?? '';
  if (/^\d+$/.test(text)) return { pid: Number(text) }; // written by an older version
  try {
    const owner = JSON.parse(text) as LockOwner;
    return Number.isInteger(owner.pid) && owner.pid > 0 ? owner : null;
  } catch {
    return null;
  }
}

/**
 * Whether the process a lock names still holds this directory. A process id is reused after
 * a reboot or a container restart, so with /proc the lock must name the same boot, the same
 * process start time and this directory; a lock of an older version (pid alone) counts only
 * if that pid runs node. Without /proc, a live pid is all there is to go on.
 */
function ownerHoldsLock(owner: LockOwner, dir: string): boolean {
  if (!pidAlive(owner.pid)) return false;
  if (processStart(process.pid) === null) return true;
  if (owner.start === undefined) {
    // This process never wrote such a lock, so one naming it comes from a previous life.
    if (owner.pid === process.pid) return false;
    const argv0 = (readProc(`/proc/${owner.pid}/cmdline`) ?? '').split('\0')[0];
    return path.basename(argv0).startsWith('node');
  }
  return owner.boot === bootId() && owner.start === processStart(owner.pid) && owner.dir === dir;
}

/** PGlite does not guard its directory: two processes would corrupt it. */
function takeLock(dir: string): () => void {
  const realDir = fs.realpathSync(dir);
  const lockFile = path.join(dir, 'compost.lock');
  const mine = lockContent(realDir);
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      fs.writeFileSync(lockFile, mine, { flag: 'wx' });
      return () => {
        try {
          if (fs.readFileSync(lockFile, 'utf8') === mine) fs.unlinkSync(lockFile);
        } catch {
          /* already gone */
        }
      };
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
      const owner = readLockOwner(lockFile);
      if (owner && ownerHoldsLock(owner, realDir)) {
        throw new DatabaseLockedError(
          `La base embarquée ${dir} est déjà ouverte par un autre processus (pid ${owner.pid}). ` +
            'Arrêtez-le, ou utilisez PostgreSQL (DATABASE_URL) pour plusieurs processus.',
        );
      }
      // Stale: left by a crash, or naming a process id now used by something else.
      fs.rmSync(lockFile, { force: true });
    }
  }
  throw new DatabaseLockedError(`Impossible de verrouiller ${dir}`);
}

export async function openPGlite(dir: string | null): Promise<DatabaseHandle> {
  const { PGlite } = await import('@electric-sql/pglite');
  const { unaccent } = await import('@electric-sql/pglite/contrib/unaccent');
  const { pg_trgm } = await import('@electric-sql/pglite/contrib/pg_trgm');
  let unlock = () => {};
  if (dir) {
    fs.mkdirSync(dir, { recursive: true });
    unlock = takeLock(dir);
  }
  try {
    const pglite = await PGlite.create(dir ?? undefined, {
      extensions: { unaccent, pg_trgm },
      parsers: { 1700: (v: string) => Number(v), 20: (v: string) => Number(v) },
    });
    // One process holds the directory: its own writes are every change there is.
    const changes = new AuthChanges(true);
    const db = new Kysely<Database>({ dialect: new PGliteDialect(pglite, new ConnectionWatcher(changes)) });
    return {
      db,
      kind: 'pglite',
      changes,
      async close() {
        await db.destroy();
        await pglite.close();
        unlock();
      },
    };
  } catch (e) {
    unlock();
    throw e;
  }
}

/**
 * The server's database: PostgreSQL when databaseUrl is set (each statement limited to
 * statementTimeoutMs, DB_STATEMENT_TIMEOUT; 15 s by default), else embedded PGlite.
 */
export function openDatabase(opts: { databaseUrl?: string; dataDir?: string; memory?: boolean; waitMs?: number; log?: DbLogger; statementTimeoutMs?: number }) {
  if (opts.databaseUrl) {
    return openPostgres(opts.databaseUrl, { waitMs: opts.waitMs, log: opts.log, statementTimeoutMs: opts.statementTimeoutMs ?? DEFAULT_STATEMENT_TIMEOUT_MS });
  }
  return openPGlite(opts.memory ? null : path.join(opts.dataDir ?? './data', 'db'));
}
