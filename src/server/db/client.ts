// Opens the database: embedded PGlite (a directory, or in memory for tests) or a
// PostgreSQL server through node-postgres. Both speak the same SQL and return numbers
// as numbers (int8 and numeric are parsed), so repositories do not care which one runs.
// This file is the entry point: the handle type every caller uses and openDatabase; the
// PostgreSQL pool (postgres-pool.ts), its LISTEN connection (notifications.ts) and PGlite
// (pglite.ts) live in files of their own.
import path from 'node:path';
import type { DbLogger } from './postgres-connection.js';
import { DEFAULT_STATEMENT_TIMEOUT_MS, openPostgres } from './postgres-pool.js';
import { openPGlite } from './pglite.js';

export { POSTGRES_SESSION_OPTIONS, KEEPALIVE_IDLE_MS, describePostgresUrl, type DbLogger } from './postgres-connection.js';
export {
  DEFAULT_STATEMENT_TIMEOUT_MS,
  NO_ANSWER_GRACE_MS,
  createPostgres,
  openPostgres,
  parseStatementTimeout,
  waitForPostgres,
  withStatementTimeout,
  type PostgresOptions,
} from './postgres-pool.js';
export { LISTEN_HEARTBEAT_MS, LISTEN_RETRY_MS } from './notifications.js';
export { DatabaseLockedError, openPGlite } from './pglite.js';

export type { Db, DatabaseHandle } from './handle.js';

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
