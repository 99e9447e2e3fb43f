// The embedded database's memory settings, sized for a 1 GB server (docs/deploy.md, "A
// small server"): PostgreSQL's defaults inside PGlite took a third of the server's memory.
import { afterAll, describe, expect, it } from 'vitest';
import { createPGlite } from './pglite-engine.js';

describe('embedded database memory settings', () => {
  const pg = createPGlite(null);
  afterAll(async () => (await pg).close());

  it('starts PostgreSQL with small buffers and work memory, and keeps PGlite’s own start parameters', async () => {
    const show = async (name: string) => ((await (await pg).query<Record<string, string>>(`SHOW ${name}`)).rows[0] ?? {})[name];
    expect({
      shared_buffers: await show('shared_buffers'),
      work_mem: await show('work_mem'),
      maintenance_work_mem: await show('maintenance_work_mem'),
      temp_buffers: await show('temp_buffers'),
      search_path: await show('search_path'),
      max_parallel_workers_per_gather: await show('max_parallel_workers_per_gather'),
    }).toEqual({ shared_buffers: '8MB', work_mem: '2MB', maintenance_work_mem: '16MB', temp_buffers: '1MB', search_path: 'public', max_parallel_workers_per_gather: '0' });
  });
});

describe('embedded database in memory, copied from an image', () => {
  it('logs in 1 MB segments, and starts copies from bytes that stay as they were, each copy on its own', async () => {
    const first = await createPGlite(null);
    let image: Uint8Array;
    try {
      expect((await first.query<{ wal_segment_size: string }>('SHOW wal_segment_size')).rows[0].wal_segment_size).toBe('1MB');
      await first.exec("CREATE TABLE t (v text); INSERT INTO t VALUES ('image')");
      image = new Uint8Array(await (await first.dumpDataDir('none')).arrayBuffer());
    } finally {
      await first.close();
    }
    const before = Buffer.from(image).toString('base64');
    const a = await createPGlite(null, { image });
    // The same bytes at an offset in a larger buffer, as a file read among others may come.
    const padded = new Uint8Array(image.length + 8);
    padded.set(image, 8);
    const b = await createPGlite(null, { image: padded.subarray(8) });
    try {
      await a.exec("INSERT INTO t VALUES ('a')");
      expect((await a.query<{ v: string }>('SELECT v FROM t ORDER BY v')).rows.map((r) => r.v)).toEqual(['a', 'image']);
      expect((await b.query<{ v: string }>('SELECT v FROM t ORDER BY v')).rows.map((r) => r.v)).toEqual(['image']);
    } finally {
      await a.close();
      await b.close();
    }
    expect(Buffer.from(image).toString('base64')).toBe(before);
  });
});
