// src/server/db/schema.sql is where a reader finds the current definition of every table,
// function and trigger, so it must be exactly what the migrations build, on both engines.
import fs from 'node:fs';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import { TEST_DRIVERS, openTestDatabase } from '../../../tests/helpers/test-app.js';
import type { DatabaseHandle } from './client.js';
import { schemaSql } from './schema-sql.js';

const FILE = fileURLToPath(new URL('./schema.sql', import.meta.url));

describe.each(TEST_DRIVERS)('schema.sql (%s)', (driver) => {
  let h: DatabaseHandle;
  beforeAll(async () => {
    h = await openTestDatabase(driver);
  }, 120_000);
  afterAll(() => h.close());

  it('is the schema of a freshly migrated database', async () => {
    expect(await schemaSql(h.db), 'src/server/db/schema.sql is not what the migrations build: run `npm run db:schema`').toBe(
      fs.readFileSync(FILE, 'utf8'),
    );
  });

  it('shows a change of any function, table, index or trigger', async () => {
    const before = await schemaSql(h.db);
    // Changed inside a transaction that is then rolled back, so the database stays as migrated.
    const changed = h.db.transaction().execute(async (trx) => {
      await sql`CREATE OR REPLACE FUNCTION stats_jour(timestamptz) RETURNS date LANGUAGE sql IMMUTABLE AS $$ SELECT $1::date $$`.execute(trx);
      await sql`ALTER TABLE site ADD COLUMN probe text DEFAULT 'x' NOT NULL`.execute(trx);
      await sql`CREATE INDEX probe_idx ON site (probe)`.execute(trx);
      await sql`DROP TRIGGER intervention_log_truncated ON intervention`.execute(trx);
      const after = await schemaSql(trx);
      const added = after.split('\n').filter((l) => !before.includes(l)).join('\n');
      const removed = before.split('\n').filter((l) => !after.includes(l)).join('\n');
      expect(added).toContain('SELECT $1::date');
      expect(added).toContain("probe text DEFAULT 'x'::text NOT NULL");
      expect(added).toContain('CREATE INDEX probe_idx ON public.site USING btree (probe);');
      expect(removed).toContain('CREATE TRIGGER intervention_log_truncated AFTER TRUNCATE ON intervention');
      throw new Error('rollback');
    });
    await expect(changed).rejects.toThrow('rollback');
  });
});
