import fs from 'node:fs';
import path from 'node:path';
import { spawn, spawnSync } from 'node:child_process';
import { afterAll, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import { TEST_DRIVERS, openTestDatabase } from '../../../tests/helpers/test-app.js';
import { DatabaseLockedError, openPGlite, openPostgres, parseStatementTimeout } from './client.js';
import { emptyCluster } from '../../../tests/helpers/data-dir.js';

const dirs: string[] = [];
afterAll(() => dirs.forEach((d) => fs.rmSync(d, { recursive: true, force: true })));
/** A directory holding an initialised, empty cluster, as PGlite leaves it on a first opening. */
const tempDir = () => emptyCluster('compost-client-', dirs);

/** The pid of a process that has already exited. */
function deadPid(): number {
  const child = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], { encoding: 'utf8' });
  return Number(child.stdout);
}

describe('embedded database directory', () => {
  it('refuses a second opening of the same directory with a French message, and frees it on close', async () => {
    const dir = await tempDir();
    const first = await openPGlite(dir);
    const lockFile = path.join(dir, 'compost.lock');
    try {
      expect(JSON.parse(fs.readFileSync(lockFile, 'utf8'))).toMatchObject({ pid: process.pid, dir: fs.realpathSync(dir) });
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
    const dir = await tempDir();
    const lockFile = path.join(dir, 'compost.lock');
    fs.writeFileSync(lockFile, String(deadPid()));
    const handle = await openPGlite(dir);
    try {
      expect(JSON.parse(fs.readFileSync(lockFile, 'utf8')).pid).toBe(process.pid);
      await sql`CREATE TABLE t (x integer)`.execute(handle.db);
    } finally {
      await handle.close();
    }
    expect(fs.existsSync(lockFile)).toBe(false);
  });
});

describe('embedded database lock naming a live process', () => {
  /** A live process that is no Compost server, as after a container restart reused the pid. */
  function unrelatedProcess() {
    const child = spawn('sleep', ['60'], { stdio: 'ignore' });
    return child;
  }
  const startOf = (pid: number) => fs.readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ')[19];
  const bootId = () => fs.readFileSync('/proc/sys/kernel/random/boot_id', 'utf8').trim();

  async function opensOver(lock: string) {
    const dir = await tempDir();
    const lockFile = path.join(dir, 'compost.lock');
    fs.writeFileSync(lockFile, lock);
    const handle = await openPGlite(dir);
    try {
      expect(JSON.parse(fs.readFileSync(lockFile, 'utf8')).pid).toBe(process.pid);
    } finally {
      await handle.close();
    }
    expect(fs.existsSync(lockFile)).toBe(false);
  }

  it('takes over an old-style lock naming a live process that is not node', async () => {
    const sleeper = unrelatedProcess();
    try {
      await opensOver(String(sleeper.pid));
    } finally {
      sleeper.kill();
    }
  });

  it('takes over a lock naming a live process that started at another time, or holds another directory', async () => {
    const sleeper = unrelatedProcess();
    try {
      await opensOver(JSON.stringify({ pid: sleeper.pid, start: '1', boot: bootId(), dir: '/ailleurs' }));
      // The very process named by the lock (same start, same boot) but on another directory.
      await opensOver(JSON.stringify({ pid: process.ppid, start: startOf(process.ppid), boot: bootId(), dir: '/var/lib/autre-compost/db' }));
      // A lock written before a reboot.
      await opensOver(JSON.stringify({ pid: process.ppid, start: startOf(process.ppid), boot: 'un-autre-demarrage', dir: '/x' }));
    } finally {
      sleeper.kill();
    }
  }, 120_000);

  it('takes over an old-style lock naming this very process, left by a previous life of the same pid', async () => {
    await opensOver(String(process.pid));
  });

  it('still refuses a lock held by a live Compost server on this directory', async () => {
    const dir = await tempDir();
    fs.writeFileSync(
      path.join(dir, 'compost.lock'),
      JSON.stringify({ pid: process.ppid, start: startOf(process.ppid), boot: bootId(), dir: fs.realpathSync(dir) }),
    );
    await expect(openPGlite(dir)).rejects.toThrow(`est déjà ouverte par un autre processus (pid ${process.ppid})`);
  });
});

describe('statement limits set by a caller', () => {
  it('reads them as PostgreSQL does: milliseconds by default, or with a unit', () => {
    expect(parseStatementTimeout('1500')).toBe(1500);
    expect(parseStatementTimeout('0')).toBe(0);
    expect(parseStatementTimeout('15s')).toBe(15_000);
    expect(parseStatementTimeout('5min')).toBe(300_000);
    expect(parseStatementTimeout('2h')).toBe(7_200_000);
    expect(parseStatementTimeout('250ms')).toBe(250);
    expect(parseStatementTimeout('DEFAULT')).toBeNull();
    expect(parseStatementTimeout('quinze')).toBeUndefined();
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
