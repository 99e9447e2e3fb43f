// docs/derived-data.md cannot go stale: its tables of triggers and generated columns must
// equal those of a freshly migrated database (pg_trigger joined to pg_proc, pg_attribute),
// what each trigger keeps must name columns and tables that exist, and its rebuild blocks must
// restore exactly what the triggers keep.
import fs from 'node:fs';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql, type RawBuilder } from 'kysely';
import { TEST_DRIVERS, createAccount, openTestDatabase } from '../../../tests/helpers/test-app.js';
import { createEquippedSite } from '../modules/field-entry/test-factories.js';
import type { DatabaseHandle, Db } from './client.js';

const PAGE = fs.readFileSync(fileURLToPath(new URL('../../../docs/derived-data.md', import.meta.url)), 'utf8');

/** The rows of the markdown table between <!-- derived-data:name --> and <!-- /derived-data:name -->, as cells. */
function tableRows(name: string): string[][] {
  const start = PAGE.indexOf(`<!-- derived-data:${name} -->`);
  const end = PAGE.indexOf(`<!-- /derived-data:${name} -->`);
  if (start < 0 || end < start) throw new Error(`docs/derived-data.md has no ${name} table`);
  return PAGE.slice(start, end)
    .split('\n')
    .filter((line) => line.startsWith('|'))
    .slice(2) // header and separator
    .map((line) =>
      line
        .slice(1, -1)
        .split('|')
        .map((c) => c.trim()),
    );
}

/** The names in backticks of a cell. */
const codeNames = (cell: string) => [...cell.matchAll(/`([^`]+)`/g)].map((m) => m[1]);

/** The ```sql blocks of the page that start with '-- Rebuild'. */
const REBUILDS = [...PAGE.matchAll(/```sql\n(-- Rebuild[^\n]*)\n([\s\S]*?)```/g)].map((m) => ({ title: m[1], sql: m[2] }));

describe.each(TEST_DRIVERS)('derived data page (%s)', (driver) => {
  let h: DatabaseHandle;
  beforeAll(async () => {
    h = await openTestDatabase(driver);
  }, 120_000);
  afterAll(() => h.close());

  it('lists every trigger of the database, with its table and function, and nothing else', async () => {
    const { rows } = await sql<{ tgname: string; relname: string; proname: string }>`
      SELECT t.tgname, c.relname, p.proname
        FROM pg_trigger t
        JOIN pg_class c ON c.oid = t.tgrelid
        JOIN pg_namespace n ON n.oid = c.relnamespace
        JOIN pg_proc p ON p.oid = t.tgfoid
       WHERE NOT t.tgisinternal AND n.nspname = 'public'`.execute(h.db);
    const inDatabase = rows.map((r) => `${r.tgname} on ${r.relname} runs ${r.proname}`).sort();
    const onPage = tableRows('triggers')
      .map(([trigger, table, fn]) => `${codeNames(trigger)[0]} on ${codeNames(table)[0]} runs ${codeNames(fn)[0]}`)
      .sort();
    expect(inDatabase.length).toBeGreaterThan(20);
    expect(
      inDatabase.filter((t) => !onPage.includes(t)),
      'triggers missing from docs/derived-data.md',
    ).toEqual([]);
    expect(
      onPage.filter((t) => !inDatabase.includes(t)),
      'rows of docs/derived-data.md naming no trigger of the database',
    ).toEqual([]);
  });

  it('says what each trigger keeps, naming tables and columns that exist', async () => {
    const { rows } = await sql<{ table_name: string; column_name: string }>`
      SELECT table_name, column_name FROM information_schema.columns WHERE table_schema = 'public'`.execute(h.db);
    const tables = new Set(rows.map((r) => r.table_name));
    const columns = new Set(rows.map((r) => `${r.table_name}.${r.column_name}`));
    const unknown: string[] = [];
    for (const [trigger, , , keeps] of tableRows('triggers')) {
      if (!keeps) unknown.push(`${trigger}: says nothing`);
      for (const name of codeNames(keeps ?? '')) if (!(name.includes('.') ? columns.has(name) : tables.has(name))) unknown.push(`${trigger}: ${name}`);
    }
    expect(unknown).toEqual([]);
  });

  it('lists every generated column of the database', async () => {
    const { rows } = await sql<{ relname: string; attname: string }>`
      SELECT c.relname, a.attname
        FROM pg_attribute a JOIN pg_class c ON c.oid = a.attrelid JOIN pg_namespace n ON n.oid = c.relnamespace
       WHERE a.attgenerated = 's' AND NOT a.attisdropped AND n.nspname = 'public'`.execute(h.db);
    const inDatabase = rows.map((r) => `${r.relname}.${r.attname}`).sort();
    const onPage = tableRows('generated')
      .map(([column]) => codeNames(column)[0])
      .sort();
    expect(inDatabase.length).toBeGreaterThan(0);
    expect(onPage).toEqual(inDatabase);
  });

  describe('rebuild blocks', () => {
    let siteA: Awaited<ReturnType<typeof createEquippedSite>>;
    let siteB: Awaited<ReturnType<typeof createEquippedSite>>;

    beforeAll(async () => {
      const referent = await createAccount(h.db, { roles: ['ROLE_USER'], nom: 'LEGALL', prenom: 'Anne' });
      siteA = await createEquippedSite(h.db, { referents: [referent.id] });
      siteB = await createEquippedSite(h.db);
      await h.db.insertInto('site_convention').values({ site_id: siteA.id, date_convention: new Date('2023-06-01T10:00:00Z') }).execute();
      const row = (site: { id: number }, cell: number, action: number, date: string, valeur: number | null = null, destination: number | null = null) => ({
        date: new Date(date),
        site_id: site.id,
        site_composteur_id: cell,
        type_action_id: action,
        valeur_nombre: valeur,
        bac_destination_id: destination,
        intervenant_id: referent.id,
      });
      // Rows alone in their statement (a one-line field entry) take the function's shorter way:
      // a transfer, which flags its destination cell, and site B's only intervention.
      await h.db.insertInto('intervention').values(row(siteA, siteA.apport, 3, '2024-04-10T08:00:00Z', 100, siteA.maturation)).execute();
      const lone = await h.db.insertInto('intervention').values(row(siteB, siteB.apport, 1, '2024-04-12T08:00:00Z')).returning('id').executeTakeFirstOrThrow();
      // One statement of several rows, as a submission of several cells or an import writes them.
      const ids = await h.db
        .insertInto('intervention')
        .values([
          // 00:30 on 1 April in Paris (summer time began that night): an April intervention.
          row(siteA, siteA.apport, 1, '2024-03-31T22:30:00Z'),
          // 23:30 on 31 March in Paris: March.
          row(siteA, siteA.apport, 15, '2024-03-31T21:30:00Z', 20),
          row(siteA, siteA.broyat, 12, '2024-04-11T08:00:00Z', 50),
        ])
        .returning('id')
        .execute();
      // Requests of both sites, one of them cancelled, one moved to another action, one deleted.
      const requests = await h.db
        .insertInto('demande_intervention')
        .values(
          [siteA, siteA, siteA, siteB, siteB].map((site, k) => ({
            site_id: site.id,
            site_composteur_id: site.apport,
            statut_id: 3,
            type_action_programmee_id: k % 2 ? 14 : 12,
            date_echeance: new Date('2024-05-01T08:00:00Z'),
          })),
        )
        .returning('id')
        .execute();
      await h.db.updateTable('demande_intervention').set({ statut_id: 6 }).where('id', '=', requests[0].id).execute();
      await h.db.updateTable('demande_intervention').set({ type_action_programmee_id: 17 }).where('id', '=', requests[3].id).execute();
      await h.db.deleteFrom('demande_intervention').where('id', '=', requests[4].id).execute();
      // A correction of the watering (20 L -> 30 L) and the deletion of site B's only intervention.
      await h.db.updateTable('intervention').set({ valeur_nombre: 30 }).where('id', '=', ids[1].id).execute();
      await h.db.deleteFrom('intervention').where('id', '=', lone.id).execute();
    }, 120_000);

    /** Everything the triggers keep, in a comparable form (numerics as float8: pg returns them as text). */
    async function snapshot(db: Db) {
      const q = async (query: RawBuilder<unknown>) => (await query.execute(db)).rows;
      return {
        sites: await q(sql`SELECT id, type_libelle, statut_libelle, referent, volume, nb_composteurs, date_convention FROM site ORDER BY id`),
        cells: await q(sql`SELECT id, a_interventions FROM site_composteur ORDER BY id`),
        copies: await q(sql`SELECT id, type_bac_id, numero_bac FROM intervention ORDER BY id`),
        counts: await q(sql`SELECT site_id, type_action_id, n FROM intervention_count WHERE n <> 0 ORDER BY 1, 2`),
        requestCounts: await q(sql`SELECT statut_id, type_action_programmee_id, site_id, n FROM demande_intervention_count WHERE n <> 0 ORDER BY 1, 2, 3`),
        mois: await q(sql`SELECT type_action_id, mois::text, site_id, intervenant_id, nb, quantite::float8 AS q FROM intervention_stats_mois ORDER BY 1, 2, 3, 4`),
        reseau: await q(sql`SELECT type_action_id, mois::text, bande, nb, quantite::float8 AS q FROM intervention_stats_mois_reseau ORDER BY 1, 2, 3`),
        siteMois: await q(sql`SELECT mois::text, site_id, nb, quantite::float8 AS q FROM intervention_stats_site_mois ORDER BY 1, 2`),
      };
    }

    it('the triggers keep the figures a hand count gives, by Paris month', async () => {
      const siteMonths = await sql<{ mois: string; nb: number; q: number }>`
        SELECT mois::text, nb, quantite::float8 AS q FROM intervention_stats_site_mois WHERE site_id = ${siteA.id} ORDER BY mois`.execute(h.db);
      // March: the watering (30 L after its correction); April: turning, transfer 100 L, shredded wood 50 L.
      expect(siteMonths.rows).toEqual([
        { mois: '2024-03-01', nb: 1, q: 30 },
        { mois: '2024-04-01', nb: 3, q: 150 },
      ]);
      const siteB_ = await sql<{ n: number }>`SELECT count(*)::int AS n FROM intervention_stats_site_mois WHERE site_id = ${siteB.id}`.execute(h.db);
      expect(siteB_.rows[0].n).toBe(0);
      const cells = await sql<{ id: number; a: boolean }>`SELECT id, a_interventions AS a FROM site_composteur WHERE site_id IN (${siteA.id}, ${siteB.id})`.execute(h.db);
      const flag = new Map(cells.rows.map((r) => [r.id, r.a]));
      // Site A: apport and broyat used, maturation as a transfer's destination; site B's apport lost its only one.
      expect([siteA.apport, siteA.broyat, siteA.maturation, siteA.inactive, siteB.apport].map((id) => flag.get(id))).toEqual([true, true, true, false, false]);
      const site = await sql<{ referent: string; nb: number; convention: Date }>`
        SELECT referent, nb_composteurs AS nb, date_convention AS convention FROM site WHERE id = ${siteA.id}`.execute(h.db);
      expect(site.rows[0]).toMatchObject({ referent: 'LEGALL Anne', nb: 3 });
      expect(new Date(site.rows[0].convention).getTime()).toBe(new Date('2023-06-01T10:00:00Z').getTime());
    });

    it('restore exactly what the triggers keep after it was lost', async () => {
      expect(REBUILDS.map((r) => r.title)).toEqual([
        '-- Rebuild the sites list columns',
        '-- Rebuild the cells\' flag',
        '-- Rebuild the cell copies',
        '-- Rebuild the intervention counts',
        '-- Rebuild the request counts',
        '-- Rebuild the monthly summaries',
      ]);
      const kept = await snapshot(h.db);
      // Lost: wrong labels and figures, flags flipped, copies cleared, summaries emptied. None of
      // these statements changes a source row, so no trigger puts anything back.
      await sql`UPDATE site SET type_libelle = 'x', statut_libelle = 'x', referent = 'x', volume = -1, nb_composteurs = -1, date_convention = NULL`.execute(h.db);
      await sql`UPDATE site_composteur SET a_interventions = NOT a_interventions`.execute(h.db);
      await sql`UPDATE intervention SET type_bac_id = NULL, numero_bac = numero_bac + 100`.execute(h.db);
      await sql`DELETE FROM intervention_count`.execute(h.db);
      await sql`DELETE FROM demande_intervention_count`.execute(h.db);
      for (const t of ['intervention_stats_mois', 'intervention_stats_mois_reseau', 'intervention_stats_site_mois']) {
        await sql.raw(`DELETE FROM ${t}`).execute(h.db);
      }
      const lost = await snapshot(h.db);
      for (const key of Object.keys(kept) as (keyof typeof kept)[]) expect(lost[key], `${key} was not lost`).not.toEqual(kept[key]);

      for (const block of REBUILDS) await h.db.transaction().execute((trx) => sql.raw(block.sql).execute(trx));
      expect(await snapshot(h.db)).toEqual(kept);
    });

    it('change nothing when run again on data the triggers kept', async () => {
      const kept = await snapshot(h.db);
      for (const block of [...REBUILDS].reverse()) await h.db.transaction().execute((trx) => sql.raw(block.sql).execute(trx));
      expect(await snapshot(h.db)).toEqual(kept);
    });
  });
});
