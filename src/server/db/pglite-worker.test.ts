import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import { isDatabaseDataError, isDatabaseUnavailable } from '../errors.js';
import type { DatabaseHandle } from './client.js';
import { migrate } from './migrate.js';
import { DatabaseLockedError, openPGlite, pgliteWorkerWanted } from './pglite.js';
import { PGliteWorkerClient, WORKER_GONE_CODE } from './pglite-worker-client.js';
import { emptyCluster } from '../../../tests/helpers/data-dir.js';

describe('PGlite in a worker thread', () => {
  let h: DatabaseHandle;
  beforeAll(async () => {
    h = await openPGlite(null, { worker: true });
    await sql`CREATE TABLE item (id integer PRIMARY KEY, label text NOT NULL UNIQUE, made timestamptz, weight numeric, big int8)`.execute(h.db);
  });
  afterAll(() => h?.close());

  it('answers a query', async () => {
    const r = await sql<{ two: number; word: string }>`SELECT 1 + 1 AS two, 'compost' AS word`.execute(h.db);
    expect(r.rows).toEqual([{ two: 2, word: 'compost' }]);
  });

  it('binds parameters and gives back dates, numeric and int8 as the main-thread PGlite does', async () => {
    const made = new Date('2025-03-04T05:06:07.123Z');
    const inserted = await h.db
      .insertInto('item' as never)
      .values({ id: 1, label: 'bac 1', made, weight: '12.5', big: 9007199254740991 } as never)
      .executeTakeFirst();
    expect(inserted.numInsertedOrUpdatedRows).toBe(1n);
    const r = await sql<{ id: number; label: string; made: Date; weight: number; big: number }>`SELECT id, label, made, weight, big FROM item WHERE label = ${'bac 1'} AND made = ${made}`.execute(h.db);
    expect(r.rows).toEqual([{ id: 1, label: 'bac 1', made, weight: 12.5, big: 9007199254740991 }]);
    expect(r.rows[0].made).toBeInstanceOf(Date);
  });

  it('runs several statements sent without parameters and returns the last one’s rows', async () => {
    const r = await sql<{ n: number }>`CREATE TEMP TABLE scratch (x int); INSERT INTO scratch VALUES (3), (4); SELECT sum(x)::int AS n FROM scratch`.execute(h.db);
    expect(r.rows).toEqual([{ n: 7 }]);
  });

  it('rejects a unique violation with PostgreSQL’s code, constraint and detail', async () => {
    await sql`INSERT INTO item (id, label) VALUES (${10}, ${'bac 10'})`.execute(h.db);
    const error = await sql`INSERT INTO item (id, label) VALUES (${11}, ${'bac 10'})`.execute(h.db).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(Error);
    expect(error).toMatchObject({
      code: '23505',
      constraint: 'item_label_key',
      table: 'item',
      detail: 'Key (label)=(bac 10) already exists.',
      message: 'duplicate key value violates unique constraint "item_label_key"',
    });
  });

  it('rejects a value PostgreSQL refuses with a code the app maps to a 400', async () => {
    const error = await sql`SELECT ${'douze'}::int AS n`.execute(h.db).catch((e: unknown) => e);
    expect(error).toMatchObject({ code: '22P02' });
    expect(isDatabaseDataError(error)).toBe(true);
  });

  it('rolls a failed transaction back, and keeps the connection for it until it ends', async () => {
    let release!: () => void;
    const held = new Promise<void>((r) => (release = r));
    let inserted!: () => void;
    const insertedInside = new Promise<void>((r) => (inserted = r));
    const transaction = h.db.transaction().execute(async (trx) => {
      await sql`INSERT INTO item (id, label) VALUES (${20}, ${'bac 20'})`.execute(trx);
      inserted();
      await held;
      throw new Error('abandon');
    });
    await insertedInside;
    // A statement from outside waits for the transaction instead of running inside it.
    let outsideDone = false;
    const outside = sql<{ n: number }>`SELECT count(*)::int AS n FROM item WHERE id = 20`.execute(h.db).then((r) => {
      outsideDone = true;
      return r.rows[0].n;
    });
    await new Promise((r) => setTimeout(r, 100));
    expect(outsideDone).toBe(false);
    release();
    await expect(transaction).rejects.toThrow('abandon');
    expect(await outside).toBe(0);

    await h.db.transaction().execute((trx) => sql`INSERT INTO item (id, label) VALUES (${21}, ${'bac 21'})`.execute(trx));
    const kept = await sql<{ id: number }>`SELECT id FROM item WHERE id IN (20, 21) ORDER BY id`.execute(h.db);
    expect(kept.rows).toEqual([{ id: 21 }]);
  });

  it('runs a directory in a worker thread and memory on the main thread unless PGLITE_WORKER says otherwise', () => {
    expect(pgliteWorkerWanted('/srv/compost/data/db', {})).toBe(true);
    expect(pgliteWorkerWanted(null, {})).toBe(false);
    expect(pgliteWorkerWanted('/srv/compost/data/db', { PGLITE_WORKER: '0' })).toBe(false);
    expect(pgliteWorkerWanted('/srv/compost/data/db', { PGLITE_WORKER: 'false' })).toBe(false);
    expect(pgliteWorkerWanted(null, { PGLITE_WORKER: '1' })).toBe(true);
    expect(pgliteWorkerWanted(null, { PGLITE_WORKER: 'true' })).toBe(true);
  });
});

describe('PGlite worker thread on a directory', () => {
  let dir: string;
  beforeAll(async () => {
    // An initialised, empty cluster, as PGlite leaves it on a first opening.
    dir = await emptyCluster('compost-pglite-worker-');
  });
  afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('migrates, reports auth changes, locks the directory, and leaves data the main-thread PGlite reads', async () => {
    const h = await openPGlite(dir, { worker: true });
    try {
      await expect(openPGlite(dir, { worker: true })).rejects.toBeInstanceOf(DatabaseLockedError);
      expect((await migrate(h.db)).length).toBeGreaterThan(0);
      const events: string[] = [];
      h.changes.subscribe((e) => events.push(e));
      await sql`DELETE FROM session`.execute(h.db);
      expect(events).toEqual(['change']);
      await sql`CREATE TABLE kept (x int)`.execute(h.db);
      await sql`INSERT INTO kept VALUES (${42})`.execute(h.db);
    } finally {
      await h.close();
    }
    expect(fs.existsSync(path.join(dir, 'compost.lock'))).toBe(false);
    const direct = await openPGlite(dir, { worker: false });
    try {
      expect((await sql<{ x: number }>`SELECT x FROM kept`.execute(direct.db)).rows).toEqual([{ x: 42 }]);
      expect(await migrate(direct.db)).toEqual([]);
    } finally {
      await direct.close();
    }
  }, 90_000);
});

describe('PGlite worker thread once stopped', () => {
  it('fails later statements as a lost connection (a 503), not as a hang', async () => {
    const client = await PGliteWorkerClient.start(null);
    expect((await client.query<{ one: number }>('SELECT $1::int AS one', [1])).rows).toEqual([{ one: 1 }]);
    await client.close();
    const error = await client.query('SELECT 1', []).catch((e: unknown) => e);
    expect(error).toMatchObject({ code: WORKER_GONE_CODE });
    expect(isDatabaseUnavailable(error)).toBe(true);
  }, 60_000);
});
