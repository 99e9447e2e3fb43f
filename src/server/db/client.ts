// Opens the database: embedded PGlite (a directory, or in memory for tests) or a
// PostgreSQL server through node-postgres. Both speak the same SQL and return numbers
// as numbers (int8 and numeric are parsed), so repositories do not care which one runs.
import fs from 'node:fs';
import path from 'node:path';
import { Kysely, PostgresDialect } from 'kysely';
import pg from 'pg';
import type { Database } from './schema.js';
import { PGliteDialect } from './pglite-dialect.js';

export type Db = Kysely<Database>;

export interface DatabaseHandle {
  db: Db;
  kind: 'pglite' | 'postgres';
  close(): Promise<void>;
}

export class DatabaseLockedError extends Error {}

pg.types.setTypeParser(20, (v) => Number(v));
pg.types.setTypeParser(1700, (v) => Number(v));

export async function openPostgres(url: string): Promise<DatabaseHandle> {
  const pool = new pg.Pool({ connectionString: url, max: 10 });
  // Fail fast with a clear error when the server is unreachable.
  const client = await pool.connect();
  client.release();
  const db = new Kysely<Database>({ dialect: new PostgresDialect({ pool }) });
  return { db, kind: 'postgres', close: () => db.destroy() };
}

function pidAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** PGlite does not guard its directory: two processes would corrupt it. */
function takeLock(dir: string): () => void {
  const lockFile = path.join(dir, 'compost.lock');
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      fs.writeFileSync(lockFile, String(process.pid), { flag: 'wx' });
      return () => {
        try {
          if (fs.readFileSync(lockFile, 'utf8') === String(process.pid)) fs.unlinkSync(lockFile);
        } catch {
          /* already gone */
        }
      };
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
      const owner = Number(fs.readFileSync(lockFile, 'utf8'));
      if (owner && pidAlive(owner)) {
        throw new DatabaseLockedError(
          `La base embarquée ${dir} est déjà ouverte par un autre processus (pid ${owner}). ` +
            'Arrêtez-le, ou utilisez PostgreSQL (DATABASE_URL) pour plusieurs processus.',
        );
      }
      fs.unlinkSync(lockFile); // stale lock left by a crash
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
    const db = new Kysely<Database>({ dialect: new PGliteDialect(pglite) });
    return {
      db,
      kind: 'pglite',
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

export function openDatabase(opts: { databaseUrl?: string; dataDir?: string; memory?: boolean }) {
  if (opts.databaseUrl) return openPostgres(opts.databaseUrl);
  return openPGlite(opts.memory ? null : path.join(opts.dataDir ?? './data', 'db'));
}
