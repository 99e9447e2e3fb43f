import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import { TEST_DRIVERS, openTestDatabase } from '../../../tests/helpers/test-app.js';
import type { DatabaseHandle } from './client.js';
import { intArray } from './list.js';
import { planOnce, preparedStatementName, withoutLeadingComment } from './plan-once.js';

describe('preparedStatementName', () => {
  it('names marked statements only, by their text', () => {
    expect(preparedStatementName('/* plan-once */ SELECT id FROM site WHERE id = ANY($1)')).toMatch(/^plan_once_[0-9a-f]{24}$/);
    expect(preparedStatementName('select /* plan-once */ id FROM site')).toMatch(/^plan_once_/);
    expect(preparedStatementName('/* plan-once */ SELECT 1')).toBe(preparedStatementName('/* plan-once */ SELECT 1'));
    expect(preparedStatementName('/* plan-once */ SELECT 1')).not.toBe(preparedStatementName('/* plan-once */ SELECT 2'));
    expect(preparedStatementName('SELECT id FROM site /* plan-once */')).toBeUndefined();
    expect(preparedStatementName('SELECT 1')).toBeUndefined();
  });

  it('reads the first keyword past a leading comment', () => {
    expect(withoutLeadingComment('  /* plan-once */ SELECT 1')).toBe('SELECT 1');
    expect(withoutLeadingComment('SELECT /* x */ 1')).toBe('SELECT /* x */ 1');
  });
});

describe.each(TEST_DRIVERS)('statements planned once (%s)', (driver) => {
  let h: DatabaseHandle;
  beforeAll(async () => {
    h = await openTestDatabase(driver);
  }, 60_000);
  afterAll(() => h?.close());

  const byIds = (ids: number[]) => sql<{ id: number; n: string }>`SELECT p.id, p.n FROM unnest(${intArray(ids)}) WITH ORDINALITY AS p(id, n) ORDER BY p.n`;

  it('give the same rows as the unmarked statement, for any number of ids', async () => {
    for (const ids of [[], [7], [3, 1, 2], Array.from({ length: 100 }, (_, i) => 100 - i)]) {
      const plain = (await byIds(ids).execute(h.db)).rows.map((r) => r.id);
      const once = (await planOnce(byIds(ids)).execute(h.db)).rows.map((r) => r.id);
      expect(once).toEqual(ids);
      expect(plain).toEqual(ids);
    }
  });

  it('pass text as it is, quotes and backslashes included, and numbers, booleans and nulls', async () => {
    const echo = (t: string | null, n: number, b: boolean) => planOnce(sql<{ t: string | null; n: number; b: boolean }>`SELECT CAST(${t} AS text) AS t, CAST(${n} AS float8) AS n, CAST(${b} AS boolean) AS b`);
    for (const [t, n, b] of [["l'arrosoir \\ d''été", -2.5, true], [null, 0, false], ['', 1e-7, true]] as const) {
      expect((await echo(t, n, b).execute(h.db)).rows).toEqual([{ t, n, b }]);
    }
  });

  // On PGlite, whose one connection any code may share. (node-postgres remembers what it
  // prepared on each pooled connection, and nothing in the app drops a prepared statement.)
  it.runIf(driver === 'pglite')('prepare a statement again when the database dropped it', async () => {
    const ids = [4, 2];
    expect((await planOnce(byIds(ids)).execute(h.db)).rows.map((r) => r.id)).toEqual(ids);
    await h.db.connection().execute(async (conn) => {
      await sql`DEALLOCATE ALL`.execute(conn);
      expect((await planOnce(byIds(ids)).execute(conn)).rows.map((r) => r.id)).toEqual(ids);
    });
  });

  it('keep one prepared statement per connection whatever the page size, and prepare nothing else', async () => {
    await h.db.connection().execute(async (conn) => {
      const prepared = async () =>
        (await sql<{ statement: string }>`SELECT statement FROM pg_prepared_statements`.execute(conn)).rows.map((r) => r.statement).filter((t) => t.includes('pages_of_ids'));
      const pageOfIds = (ids: number[]) => sql<{ id: number }>`SELECT p.id AS pages_of_ids FROM unnest(${intArray(ids)}) AS p(id)`;
      for (const ids of [[1], [1, 2, 3], Array.from({ length: 20 }, (_, i) => i), [5]]) await planOnce(pageOfIds(ids)).execute(conn);
      await sql`SELECT 1 AS pages_of_ids`.execute(conn);
      const statements = await prepared();
      expect(statements).toHaveLength(1);
      // PGlite's are prepared with PREPARE, whose text is the statement's.
      expect(statements[0]).toMatch(/^(PREPARE plan_once_[0-9a-f]{24} AS )?\/\* plan-once \*\/ SELECT p\.id AS pages_of_ids/);
    });
  });
});
