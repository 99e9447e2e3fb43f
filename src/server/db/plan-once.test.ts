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

  it.runIf(driver === 'postgres')('keep one prepared statement per connection whatever the page size, and prepare nothing else', async () => {
    await h.db.connection().execute(async (conn) => {
      const prepared = async () =>
        (await sql<{ statement: string }>`SELECT statement FROM pg_prepared_statements`.execute(conn)).rows.map((r) => r.statement).filter((t) => t.includes('pages_of_ids'));
      const pageOfIds = (ids: number[]) => sql<{ id: number }>`SELECT p.id AS pages_of_ids FROM unnest(${intArray(ids)}) AS p(id)`;
      for (const ids of [[1], [1, 2, 3], Array.from({ length: 20 }, (_, i) => i), [5]]) await planOnce(pageOfIds(ids)).execute(conn);
      await sql`SELECT 1 AS pages_of_ids`.execute(conn);
      const statements = await prepared();
      expect(statements).toHaveLength(1);
      expect(statements[0]).toMatch(/^\/\* plan-once \*\/ SELECT p\.id AS pages_of_ids/);
    });
  });
});
