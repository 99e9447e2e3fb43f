// The database handle every caller holds, in a file of its own so that the engines
// (pglite.ts, postgres-pool.ts) and the entry point (client.ts) do not import each other.
import type { Kysely } from 'kysely';
import type { Database } from './schema.js';
import type { AuthChangeFeed } from './auth-changes.js';

export type Db = Kysely<Database>;

export interface DatabaseHandle {
  db: Db;
  kind: 'pglite' | 'postgres';
  /** Changes to sessions, accounts and roles, made by this process or (PostgreSQL) another one. */
  changes: AuthChangeFeed;
  close(): Promise<void>;
  /** The PostgreSQL pool's connections (for the metrics); absent on PGlite. */
  poolStats?(): { total: number; idle: number; waiting: number };
}
