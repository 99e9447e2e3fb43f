import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import { TEST_DRIVERS, openTestDatabase } from '../../../tests/helpers/test-app.js';
import type { DatabaseHandle } from './client.js';
import { loadMigrations, migrate } from './migrate.js';
import { ACTIONS, ROLES, STATUTS, TYPE_BACS, TYPE_USERS } from '../../shared/domain.js';

describe('migration files', () => {
  it('are numbered without duplicate, start at 1 and each holds SQL', async () => {
    const list = await loadMigrations();
    const ids = list.map((m) => m.id);
    expect(ids[0]).toBe(1);
    expect(new Set(ids).size).toBe(ids.length);
    expect(ids).toEqual([...ids].sort((a, b) => a - b));
    for (const m of list) {
      expect(m.name).toMatch(/^[a-z0-9-]+$/);
      expect(m.up.trim().length).toBeGreaterThan(0);
    }
  });
});

describe.each(TEST_DRIVERS)('migrations (%s)', (driver) => {
  // One database for the file (opening one costs seconds): the tests leave it as migrated.
  let h: DatabaseHandle;
  beforeAll(async () => {
    h = await openTestDatabase(driver); // already migrated once
  });
  afterAll(() => h.close());

  const tables = async (db: DatabaseHandle['db']) =>
    (await sql<{ t: string }>`SELECT table_name AS t FROM information_schema.tables WHERE table_schema = 'public' ORDER BY 1`.execute(db)).rows.map((r) => r.t);

  it('apply once: a second run changes nothing and applies nothing', async () => {
    const all = (await loadMigrations()).map((m) => m.id);
    const recorded = await h.db.selectFrom('schema_migration').select(['id', 'applied_at']).orderBy('id').execute();
    expect(recorded.map((r) => r.id)).toEqual(all);
    const before = await tables(h.db);
    expect(await migrate(h.db)).toEqual([]);
    expect(await migrate(h.db)).toEqual([]);
    expect(await tables(h.db)).toEqual(before);
    const counts = await sql<{ n: number }>`SELECT count(*)::int AS n FROM type_action`.execute(h.db);
    expect(counts.rows[0].n).toBe(19);
  });

  // The migrations hold the reference data as literals, frozen when each was released; the code
  // reads it from shared/domain.ts. A change to one without the other (a new migration) fails here.
  it('seed the reference data of shared/domain.ts', async () => {
    const q = async (query: string) => (await sql.raw<Record<string, unknown>>(query).execute(h.db)).rows;
    expect(await q('SELECT id, libelle FROM statut ORDER BY id')).toEqual(STATUTS.map(({ id, libelle }) => ({ id, libelle })));
    expect(await q('SELECT id, libelle FROM type_bac ORDER BY id')).toEqual(TYPE_BACS.map(({ id, libelle }) => ({ id, libelle })));
    expect(await q('SELECT id, libelle FROM type_user ORDER BY id')).toEqual(TYPE_USERS.map(({ id, libelle }) => ({ id, libelle })));
    expect(await q('SELECT id, code FROM role ORDER BY id')).toEqual(ROLES.map((code, i) => ({ id: i + 1, code })));
    const actions = await q(`SELECT a.id, a.libelle, a.value_kind, a.stats_series, array_agg(t.type_bac_id ORDER BY t.type_bac_id) AS bacs
      FROM type_action a LEFT JOIN type_action_type_bac t ON t.type_action_id = a.id GROUP BY a.id ORDER BY a.id`);
    expect(actions).toEqual(ACTIONS.map((a) => ({ id: a.id, libelle: a.libelle, value_kind: a.valueKind, stats_series: a.statsSeries, bacs: [...a.typeBacs].sort((x, y) => x - y) })));
  });

  it('run in one transaction: a failing migration leaves no trace of the ones before it in that run', async () => {
    const applied = await migrate(h.db, [
      { id: 901, name: 'first-ok', up: 'CREATE TABLE migration_probe (x integer);' },
      { id: 902, name: 'second-fails', up: 'INSERT INTO migration_probe VALUES (1); SELECT no_such_column FROM migration_probe;' },
    ]).catch((e: Error) => e);
    expect(applied).toBeInstanceOf(Error);
    expect(await tables(h.db)).not.toContain('migration_probe');
    const recorded = await h.db.selectFrom('schema_migration').select('id').where('id', '>', 900).execute();
    expect(recorded).toEqual([]);

    // Fixed, the same run goes through, in id order, and is recorded.
    const fixed = await migrate(h.db, [
      { id: 902, name: 'second', up: 'INSERT INTO migration_probe VALUES (1);' },
      { id: 901, name: 'first-ok', up: 'CREATE TABLE migration_probe (x integer);' },
    ]);
    expect(fixed).toEqual([901, 902]);
    expect((await sql<{ n: number }>`SELECT count(*)::int AS n FROM migration_probe`.execute(h.db)).rows[0].n).toBe(1);
  });

  it('store every time as timestamptz, so the database keeps UTC instants', async () => {
    const columns = await sql<{ table_name: string; column_name: string; data_type: string }>`
      SELECT table_name, column_name, data_type FROM information_schema.columns
      WHERE table_schema = 'public' AND data_type IN ('timestamp without time zone', 'date', 'time without time zone', 'time with time zone')`.execute(h.db);
    // The exceptions key rows by a Europe/Paris calendar day or month (a date, not an instant):
    // the summaries, by what the monthly charts group by; a provider's hand-made route, by its day;
    // the last day of a series of permanences; the day a site's news was sent (one a day).
    const DAY_COLUMNS = ['tournee_ordre.jour', 'permanence_serie.jusqua', 'foyer_nouvelle.jour'];
    const calendarKey = (c: { table_name: string; column_name: string }) =>
      (c.table_name.startsWith('intervention_stats_') && ['mois', 'jour'].includes(c.column_name)) || DAY_COLUMNS.includes(`${c.table_name}.${c.column_name}`);
    expect(columns.rows.filter((c) => !(calendarKey(c) && c.data_type === 'date'))).toEqual([]);
    const tz = await sql<{ n: number }>`SELECT count(*)::int AS n FROM information_schema.columns WHERE table_schema = 'public' AND data_type = 'timestamp with time zone'`.execute(h.db);
    expect(tz.rows[0].n).toBeGreaterThan(10);
  });

  it('read an instant back unchanged whatever the session time zone', async () => {
    const instant = new Date('2024-03-31T00:30:00.000Z'); // the night Paris goes to summer time
    await h.db.transaction().execute(async (trx) => {
      await sql`SET LOCAL TIME ZONE 'Europe/Paris'`.execute(trx);
      await sql`CREATE TABLE tz_probe (at timestamptz NOT NULL)`.execute(trx);
      await sql`INSERT INTO tz_probe VALUES (${instant})`.execute(trx);
    });
    const row = await sql<{ at: Date; utc: string }>`SELECT at, to_char(at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI') AS utc FROM tz_probe`.execute(h.db);
    expect(row.rows[0].at).toBeInstanceOf(Date);
    expect(row.rows[0].at.toISOString()).toBe(instant.toISOString());
    expect(row.rows[0].utc).toBe('2024-03-31T00:30');
  });

  it('let two starts racing on one empty database apply everything exactly once', async () => {
    const fresh = await openTestDatabase(driver, { migrated: false });
    try {
      const [a, b] = await Promise.all([migrate(fresh.db), migrate(fresh.db)]);
      const all = (await loadMigrations()).map((m) => m.id);
      expect([a, b].sort((x, y) => y.length - x.length)).toEqual([all, []]);
      const recorded = await fresh.db.selectFrom('schema_migration').select('id').orderBy('id').execute();
      expect(recorded.map((r) => r.id)).toEqual(all);
    } finally {
      await fresh.close();
    }
  });
});
