// A database upgraded from any earlier release must equal a fresh install: the same schema (the
// text schema-sql.ts reads from the catalog) and the same rows, reference data and derived data
// alike, for the same writes. Writes are made along the way with the triggers of their time, so
// each migration's backfill is checked against what today's triggers keep for the same rows.
import crypto from 'node:crypto';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TEST_DRIVERS, openTestDatabase } from '../../../tests/helpers/test-app.js';
import type { DatabaseHandle, Db } from './client.js';
import { loadMigrations, migrate, type Migration } from './migrate.js';
import { schemaSql } from './schema-sql.js';
import { RELEASED_TEXTS, releasedText } from './upgrade-fixtures/released-texts.js';

/**
 * Writes valid from migration 002 on, stage k of an upgrade: an agent, a site with an intake and
 * a maturation cell, interventions on both sides of a Paris month's edge, a transfer, a pending
 * request; from the second stage on, a correction and a deletion of rows the previous stage
 * wrote. Ids are explicit so that the replay on the fresh install, rolled back, gives the same.
 */
function writes(k: number): string {
  const [a, s, c, i] = [1000 + k, 1000 + k, 2000 + 2 * k, 3000 + 4 * k];
  const t = `'2024-04-0${(k % 9) + 1}T10:00:00Z'`;
  return `
INSERT INTO account (id, kind, email, nom, prenom, actif, created_at) VALUES (${a}, 'agent', 'agent${k}@upgrade.test', 'AGENT', 'Étape ${k}', true, ${t});
INSERT INTO site (id, code, nom, ville, cp, adresse, type_site_id, statut_id, created_at)
  VALUES (${s}, 'UPG${k}', 'Site ${k}', 'Brest', '29200', '${k} rue de Siam', 1, 1, ${t});
INSERT INTO site_composteur (id, site_id, type_composteur_id, type_bac_id, numero) VALUES (${c}, ${s}, 1, 1, 1), (${c + 1}, ${s}, 2, 3, 2);
INSERT INTO intervention (id, date, site_id, site_composteur_id, type_action_id, valeur_nombre, bac_destination_id, intervenant_id, created_at) VALUES
  (${i}, '2024-03-31T22:30:00Z', ${s}, ${c}, 1, NULL, NULL, ${a}, ${t}),
  (${i + 1}, '2024-03-31T21:30:00Z', ${s}, ${c}, 15, 20, NULL, ${a}, ${t}),
  (${i + 2}, '2024-04-10T08:00:00Z', ${s}, ${c}, 3, 100, ${c + 1}, ${a}, ${t});
INSERT INTO demande_intervention (id, site_id, site_composteur_id, statut_id, type_action_programmee_id, date_creation, date_echeance)
  VALUES (${4000 + k}, ${s}, ${c}, 3, 14, ${t}, '2024-05-01T08:00:00Z');
${k === 0 ? '' : `UPDATE intervention SET valeur_nombre = 30 WHERE id = ${i - 3};\nDELETE FROM intervention WHERE id = ${i - 4};`}`;
}

/** Values an install draws for itself, which no two installs share. */
const DRAWN: Record<string, string[]> = { alerte_cle: ['secret'] };
/** Counts whose triggers leave a row at zero where a backfill writes none: both mean none. */
const ZERO_IS_NONE: Record<string, string> = { intervention_count: 'n <> 0', demande_intervention_count: 'n <> 0' };

/** Every row of every table as JSON text, in order, without the times of writing (columns defaulting to now()), DRAWN values and zero counts. */
async function allRows(db: Db): Promise<Record<string, string[]>> {
  const { rows: tables } = await sql<{ t: string; masked: string }>`
    SELECT c.relname AS t, string_agg(a.attname, ',') FILTER (WHERE pg_get_expr(d.adbin, d.adrelid) = 'now()') AS masked
      FROM pg_class c
      JOIN pg_attribute a ON a.attrelid = c.oid AND a.attnum > 0 AND NOT a.attisdropped
      LEFT JOIN pg_attrdef d ON d.adrelid = c.oid AND d.adnum = a.attnum
     WHERE c.relnamespace = 'public'::regnamespace AND c.relkind IN ('r', 'p') AND c.relname <> 'schema_migration'
     GROUP BY c.relname ORDER BY c.relname`.execute(db);
  const out: Record<string, string[]> = {};
  for (const { t, masked } of tables) {
    const drop = [...(masked ? masked.split(',') : []), ...(DRAWN[t] ?? [])].map((col) => `'${col}'`).join(', ');
    const { rows } = await sql.raw<{ j: string }>(`SELECT (to_jsonb(x) - ARRAY[${drop}]::text[])::text AS j FROM ${t} x WHERE ${ZERO_IS_NONE[t] ?? 'true'} ORDER BY 1`).execute(db);
    out[t] = rows.map((r) => r.j);
  }
  return out;
}

const sha256 = (text: string) => crypto.createHash('sha256').update(text).digest('hex');

describe.each(TEST_DRIVERS)('an upgraded database equals a fresh install (%s)', (driver) => {
  let all: Migration[];
  let fresh: DatabaseHandle;
  let freshSchema: string;
  const opened: DatabaseHandle[] = [];

  beforeAll(async () => {
    all = await loadMigrations();
    fresh = await openTestDatabase(driver);
    freshSchema = await schemaSql(fresh.db);
  }, 120_000);
  afterAll(async () => {
    for (const h of [fresh, ...opened]) await h?.close();
  });

  /** A database on which no migration ran yet. */
  async function empty() {
    const h = await openTestDatabase(driver, { migrated: false });
    opened.push(h);
    return h.db;
  }

  /** The fresh install's rows after the writes of stages 0..stages-1, rolled back after reading. */
  async function freshRows(stages: number) {
    let rows: Record<string, string[]> = {};
    await fresh.db
      .transaction()
      .execute(async (trx) => {
        for (let k = 0; k < stages; k++) await sql.raw(writes(k)).execute(trx);
        rows = await allRows(trx);
        throw new Error('rollback');
      })
      .catch((e: Error) => {
        if (e.message !== 'rollback') throw e;
      });
    return rows;
  }

  /** Upgrades to the latest migration, then compares with the fresh install given the same writes. */
  async function expectUpgradeEqualsFresh(db: Db, stages: number) {
    await migrate(db, all);
    expect(await schemaSql(db)).toBe(freshSchema);
    expect(await allRows(db)).toEqual(await freshRows(stages));
  }

  it('each migration applied to the database the previous release left, with writes at every release', async () => {
    const db = await empty();
    let stages = 0;
    for (let n = 1; n <= all.length; n++) {
      expect(await migrate(db, all.slice(0, n))).toEqual([all[n - 1].id]);
      if (all[n - 1].id >= 2) await sql.raw(writes(stages++)).execute(db);
    }
    await expectUpgradeEqualsFresh(db, stages);
  }, 120_000);

  // Jumps over several releases in one start (one transaction): from the first release with
  // reference data (every backfill at once) and from before the statistics' backfills (012, then
  // 023 and 028 on data the triggers of 009 wrote). Each costs a database, so only these two: the
  // step from each release to the next is above, the releases as they shipped below.
  const JUMP_BEFORE = [3, 12];
  it('a database left by an older release, with its writes, upgraded in one start', async () => {
    for (const n of JUMP_BEFORE) {
      const db = await empty();
      await migrate(db, all.filter((m) => m.id < n));
      await sql.raw(writes(0)).execute(db);
      await expectUpgradeEqualsFresh(db, 1);
      await opened.pop()!.close();
    }
  }, 300_000);

  it('turns the names an earlier import kept as inactive users into intervenant rows (032), and only those', async () => {
    const db = await empty();
    await migrate(db, all.filter((m) => m.id < 32));
    await sql
      .raw(
        `INSERT INTO account (id, kind, email, nom, type_user_id, actif) VALUES
           (900, 'user', 'jean.ancien.1x2y@intervenants.invalid', 'Jean Ancien', 1, false),
           (901, 'user', 'vrai@exemple.fr', 'VRAI', 1, true)`,
      )
      .execute(db);
    await migrate(db, all);
    const { rows } = await sql<{ id: number; kind: string; type_user_id: number | null }>`SELECT id, kind, type_user_id FROM account WHERE id IN (900, 901) ORDER BY id`.execute(db);
    expect(rows).toEqual([
      { id: 900, kind: 'intervenant', type_user_id: null },
      { id: 901, kind: 'user', type_user_id: 1 },
    ]);
    await opened.pop()!.close();
  }, 120_000);

  it('the released texts of the reflowed migrations are reproduced exactly', () => {
    for (const f of RELEASED_TEXTS) expect(sha256(releasedText(all.find((m) => m.id === f.id)!.up, f)), `migration ${f.id}`).toBe(f.sha256);
  });

  // Installs went through releases whose texts of 002, 008 and 023 differ from today's (only by line
  // breaks), and through 0a9b957, released before 015 and 017 existed: those two ran after 019.
  it('a database that went through the releases as they shipped, upgraded', async () => {
    const released = (ids: (m: Migration) => boolean) =>
      all.filter(ids).map((m) => {
        const f = RELEASED_TEXTS.find((r) => r.id === m.id);
        return f ? { ...m, up: releasedText(m.up, f) } : m;
      });
    const db = await empty();
    // 0a9b957: 001 to 019 without 015 and 017, the old 002 and 008.
    expect(await migrate(db, released((m) => m.id <= 19 && m.id !== 15 && m.id !== 17))).toHaveLength(17);
    await sql.raw(writes(0)).execute(db);
    // c5887e0: 015 and 017 added.
    expect(await migrate(db, released((m) => m.id <= 19))).toEqual([15, 17]);
    await sql.raw(writes(1)).execute(db);
    // 01b4e2d: up to 024, the old 023.
    expect(await migrate(db, released((m) => m.id <= 24))).toEqual([20, 21, 22, 23, 24]);
    await sql.raw(writes(2)).execute(db);
    await expectUpgradeEqualsFresh(db, 3);
  }, 120_000);
});
