// Applies the ordered migrations of ./migrations once each, all in one transaction,
// so a failed start leaves the schema as it was. Safe to run twice.
import { sql } from 'kysely';
import type { Db } from './client.js';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const dir = path.join(path.dirname(fileURLToPath(import.meta.url)), 'migrations');

/** migrations/NNN-name.ts files, each exporting `up` (SQL), in numeric order. */
export async function loadMigrations(): Promise<{ id: number; name: string; up: string }[]> {
  const files = fs
    .readdirSync(dir)
    .filter((f) => /^\d{3}-[a-z0-9-]+\.ts$/.test(f))
    .sort();
  const out = [];
  for (const f of files) {
    const mod = (await import(pathToFileURL(path.join(dir, f)).href)) as { up: string };
    out.push({ id: Number(f.slice(0, 3)), name: f.slice(4, -3), up: mod.up });
  }
  return out;
}

export async function migrate(db: Db): Promise<number[]> {
  const migrations = await loadMigrations();
  await sql`CREATE TABLE IF NOT EXISTS schema_migration (
    id integer PRIMARY KEY, name text NOT NULL, applied_at timestamptz NOT NULL DEFAULT now())`.execute(db);
  return db.transaction().execute(async (trx) => {
    // Serialises concurrent starts against one PostgreSQL server.
    await sql`LOCK TABLE schema_migration IN EXCLUSIVE MODE`.execute(trx);
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
