// Backup and restore at a dataset's size on PostgreSQL (`npm run bench -- --dataset 1m --only
// backup`, or `npx tsx bench/backup.ts [1m|100k]`): the time of a backup of the dataset's
// database while nothing else runs, its size, the process's peak memory, then the time of a
// restore of that file into a new empty database, whose row counts must equal the source's.
// The new database is dropped at the end; the file is removed.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { sql } from 'kysely';
import { openPostgres } from '../src/server/db/client.js';
import { writeBackup, userTables } from '../src/server/modules/backup/backup.dump.js';
import { restoreBackup } from '../src/server/modules/backup/backup.restore.js';
import { benchBaseUrl, preparePgDataset, type DatasetName } from './dataset.js';

/** The goal for each of the backup and the restore at 1m on PostgreSQL. */
export const BACKUP_GOAL_S = 120;

export interface BackupBenchResult {
  backupSeconds: number;
  restoreSeconds: number;
  bytes: number;
  rows: number;
  peakRssMb: number;
  countsEqual: boolean;
}

function peakSampler() {
  let peak = process.memoryUsage().rss;
  const timer = setInterval(() => {
    peak = Math.max(peak, process.memoryUsage().rss);
  }, 50);
  return {
    stop: () => {
      clearInterval(timer);
      return Math.round(Math.max(peak, process.memoryUsage().rss) / 1024 / 1024);
    },
  };
}

async function tableCounts(db: Awaited<ReturnType<typeof openPostgres>>['db']): Promise<Map<string, number>> {
  const counts = new Map<string, number>();
  for (const t of await userTables(db)) {
    const r = await sql<{ n: string }>`SELECT count(*) AS n FROM ${sql.table(t.name)}`.execute(db);
    counts.set(t.name, Number(r.rows[0].n));
  }
  return counts;
}

export async function benchBackup(name: DatasetName, log: (line: string) => void = console.log): Promise<BackupBenchResult> {
  const base = benchBaseUrl();
  if (!base) throw new Error('BENCH_DATABASE_URL (or TEST_DATABASE_URL) is not set');
  const { url } = await preparePgDataset(name, { log });
  const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'compost-bench-backup-')), 'sauvegarde.sql.gz');
  const target = `compost_bench_restore_${process.pid}`;
  const admin = await openPostgres(base);
  const source = await openPostgres(url);
  let restored: Awaited<ReturnType<typeof openPostgres>> | null = null;
  // The dataset's own tables (its marker, its migration hashes) are not Compost's: kept out of
  // the backup while it runs.
  const own = (await sql<{ name: string }>`SELECT tablename AS name FROM pg_tables WHERE schemaname = 'public' AND tablename LIKE 'bench\_%'`.execute(source.db)).rows.map((r) => r.name);
  await sql.raw('CREATE SCHEMA IF NOT EXISTS bench_aside').execute(source.db);
  for (const t of own) await sql.raw(`ALTER TABLE public.${t} SET SCHEMA bench_aside`).execute(source.db);
  try {
    const sourceCounts = await tableCounts(source.db);
    const rows = [...sourceCounts.values()].reduce((a, b) => a + b, 0);

    let mem = peakSampler();
    let t0 = performance.now();
    const result = await writeBackup(source.db, file);
    const backupSeconds = (performance.now() - t0) / 1000;
    const backupRss = mem.stop();
    if (!result) throw new Error('backup skipped: another backup holds the lock');
    const bytes = fs.statSync(file).size;
    log(`backup: ${backupSeconds.toFixed(1)} s, ${(bytes / 1024 / 1024).toFixed(1)} MB, ${rows} rows, RSS peak ${backupRss} MB`);

    await sql.raw(`DROP DATABASE IF EXISTS ${target}`).execute(admin.db);
    await sql.raw(`CREATE DATABASE ${target}`).execute(admin.db);
    const targetUrl = new URL(base);
    targetUrl.pathname = `/${target}`;
    restored = await openPostgres(targetUrl.toString());
    mem = peakSampler();
    t0 = performance.now();
    await restoreBackup(restored.db, file);
    const restoreSeconds = (performance.now() - t0) / 1000;
    const restoreRss = mem.stop();
    const restoredCounts = await tableCounts(restored.db);
    const countsEqual = [...sourceCounts].every(([t, n]) => restoredCounts.get(t) === n);
    log(`restore: ${restoreSeconds.toFixed(1)} s, RSS peak ${restoreRss} MB, row counts ${countsEqual ? 'equal' : 'DIFFERENT'}`);
    return { backupSeconds, restoreSeconds, bytes, rows, peakRssMb: Math.max(backupRss, restoreRss), countsEqual };
  } finally {
    for (const t of own) await sql.raw(`ALTER TABLE bench_aside.${t} SET SCHEMA public`).execute(source.db);
    await source.close();
    if (restored) await restored.close();
    await sql.raw(`DROP DATABASE IF EXISTS ${target} WITH (FORCE)`).execute(admin.db).catch(() => undefined);
    await admin.close();
    fs.rmSync(path.dirname(file), { recursive: true, force: true });
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const name = (process.argv[2] ?? '1m') as DatasetName;
  const r = await benchBackup(name);
  const goal = BACKUP_GOAL_S;
  console.log(
    `${r.backupSeconds <= goal && r.restoreSeconds <= goal && r.countsEqual ? 'PASS' : 'FAIL'}  backup/restore ${name}: backup ${r.backupSeconds.toFixed(1)} s, restore ${r.restoreSeconds.toFixed(1)} s (goal ${goal} s each), ${(r.bytes / 1024 / 1024).toFixed(1)} MB for ${r.rows} rows, RSS peak ${r.peakRssMb} MB`,
  );
}
