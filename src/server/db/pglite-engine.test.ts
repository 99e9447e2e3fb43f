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
