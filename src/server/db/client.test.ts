import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import { afterAll, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import { TEST_DRIVERS, openTestDatabase } from '../../../tests/helpers/test-app.js';
import { DatabaseLockedError, openPGlite, openPostgres } from './client.js';

const dirs: string[] = [];
afterAll(() => dirs.forEach((d) => fs.rmSync(d, { recursive: true, force: true })));
function tempDir() {
  const d = fs.mkdtempSync(path.join(os.tmpdir(), 'compost-client-'));
  dirs.push(d);
  return d;
}

/** The pid of a process that has already exited. */
function deadPid(): number {
  const child = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], { encoding: 'utf8' });
  return Number(child.stdout);
}

describe('embedded database directory', () => {
  it('refuses a second opening of the same directory with a French message, and frees it on close', async () => {
    const dir = tempDir();
    const first = await openPGlite(dir);
    const lockFile = path.join(dir, 'compost.lock');
    try {
      expect(fs.readFileSync(lockFile, 'utf8')).toBe(String(process.pid));
      const second = openPGlite(dir);
      await expect(second).rejects.toBeInstanceOf(DatabaseLockedError);
      await expect(second).rejects.toThrow(`est déjà ouverte par un autre processus (pid ${process.pid})`);
      await expect(second).rejects.toThrow('utilisez PostgreSQL (DATABASE_URL) pour plusieurs processus');
      // The first handle still works.
      const r = await sql<{ one: number }>`SELECT 1 AS one`.execute(first.db);
      expect(r.rows[0].one).toBe(1);
    } finally {
      await first.close();
    }
    expect(fs.existsSync(lockFile)).toBe(false);
  });

  it('takes over a lock left by a process that died', async () => {
    const dir = tempDir();
    const lockFile = path.join(dir, 'compost.lock');
    fs.writeFileSync(lockFile, String(deadPid()));
    const handle = await openPGlite(dir);
    try {
      expect(fs.readFileSync(lockFile, 'utf8')).toBe(String(process.pid));
      await sql`CREATE TABLE t (x integer)`.execute(handle.db);
    } finally {
      await handle.close();
    }
    expect(fs.existsSync(lockFile)).toBe(false);
  });
});

describe('PostgreSQL server', () => {
  it('fails at once when the server does not answer', async () => {
    await expect(openPostgres('postgres://compost@127.0.0.1:1/compost')).rejects.toThrow();
  });
});

describe.each(TEST_DRIVERS)('values read back (%s)', (driver) => {
  it('gives counts, sums, numerics and integers as numbers, and times as dates', async () => {
    const h = await openTestDatabase(driver);
    try {
      const r = await sql<{ n: unknown; total: unknown; dec: unknown; i: unknown; at: unknown }>`
        SELECT count(*) AS n, sum(x) AS total, 12.5::numeric AS dec, 7::int AS i, now() AS at
        FROM (VALUES (1::bigint), (2::bigint)) AS v(x)`.execute(h.db);
      const row = r.rows[0];
      expect(row).toMatchObject({ n: 2, total: 3, dec: 12.5, i: 7 });
      for (const v of [row.n, row.total, row.dec, row.i]) expect(typeof v).toBe('number');
      expect(row.at).toBeInstanceOf(Date);
    } finally {
      await h.close();
    }
  });
});
