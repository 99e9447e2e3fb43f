// Applies the ordered migrations of ./migrations once each, all in one transaction,
// so a failed start leaves the schema as it was. Safe to run twice.
// A released migration never changes, and each is its SQL written out, importing nothing
// (migrations/README.md; migrations-frozen.test.ts pins each one's hash). Later migrations
// replace earlier definitions (the statistics trigger functions of 009, replaced by 012 and 023):
// the current definition of every table, function and trigger is read in schema.sql, which
// `npm run db:schema` regenerates from the migrated database.
import { sql } from 'kysely';
import type { Db } from './client.js';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const dir = path.join(path.dirname(fileURLToPath(import.meta.url)), 'migrations');

/** migrations/NNN-name.ts files, each exporting `up` (SQL), in numeric order. */
export async function loadMigrations(): Promise<Migration[]> {
  const files = fs
    .readdirSync(dir)
    .filter((f) => /^\d{3}-[a-z0-9-]+\.ts$/.test(f))
    .sort();
  const out: Migration[] = [];
  for (const f of files) {
    const mod = (await import(pathToFileURL(path.join(dir, f)).href)) as { up: string };
    out.push({ id: Number(f.slice(0, 3)), name: f.slice(4, -3), up: mod.up });
  }
  return out;
}

/** Advisory lock key of the migration run ("compost" in ASCII digits, any constant would do). */
const MIGRATION_LOCK = 99111109;

export interface Migration {
  id: number;
  name: string;
  up: string;
}

/** Applies the migrations not yet recorded, in id order; returns the ids applied. */
export async function migrate(db: Db, list?: Migration[]): Promise<number[]> {
  const migrations = [...(list ?? (await loadMigrations()))].sort((a, b) => a.id - b.id);
  return db.transaction().execute(async (trx) => {
    // A migration (an index on a million rows), or the wait for another process's, may outlast
    // a request's statement limit.
    await sql`SET LOCAL statement_timeout = 0`.execute(trx);
    // Serialises concurrent starts against one PostgreSQL server, table creation included.
    await sql`SELECT pg_advisory_xact_lock(${sql.lit(MIGRATION_LOCK)})`.execute(trx);
    await sql`CREATE TABLE IF NOT EXISTS schema_migration (
      id integer PRIMARY KEY, name text NOT NULL, applied_at timestamptz NOT NULL DEFAULT now())`.execute(trx);
    const done = new Set((await trx.selectFrom('schema_migration').select('id').execute()).map((r) => r.id));
    const applied: number[] = [];
    for (const m of migrations) {
      if (done.has(m.id)) continue;
      await sql.raw(m.up).execute(trx);
      await trx.insertInto('schema_migration').values({ id: m.id, name: m.name }).execute();
      applied.push(m.id);
    }
    return applied;
  });
}
