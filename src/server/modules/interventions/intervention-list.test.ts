// The fast paths of the interventions lists are opt-in: every filter and sort of every
// interventions list schema must be named by a fast path or marked plain, and on random lists
// (seeded, so a failure replays) each fast path must answer exactly what the plain query answers.
import { sql } from 'kysely';
import type { z } from 'zod';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TEST_DRIVERS, createAccount, createTestApp } from '../../../../tests/helpers/test-app.js';
import { DEEP_PAGE_OFFSET } from '../../db/list.js';
import { interventionAdminListQuerySchema, INTERVENTION_SORT_FIELDS } from '../../../shared/schemas/interventions-admin.js';
import { siteInterventionListQuerySchema } from '../../../shared/schemas/interventions.js';
import { createEquippedSite } from '../field-entry/test-factories.js';
import { FAST_PATHS, PLAIN_ONLY, createInterventionList, fieldsOf, type FastPathName, type ListFilter, type ListSort } from './intervention-list.js';
import { FULL_SEARCH } from './intervention-search.js';
import { adminFilterOf, publicFilterOf } from './interventions-tables.service.js';
import { seededRandom } from '../../../../tests/helpers/seeded-random.js';

/** A valid value of each list parameter that filters (a new one without a value here fails the test: classify it). */
const SAMPLES: Record<string, unknown> = { search: 'abc', id: '7', date: '2024', action: '6', site: '7', typeBac: '1', numeroBac: '2' };
const NOT_FILTERS = ['page', 'rowsPerPage', 'sort', 'filter'];

type ListSchema = z.ZodType & { out: z.ZodObject<{ filter: z.ZodDefault<z.ZodObject>; sort: z.ZodDefault<z.ZodObject<{ name: z.ZodDefault<z.ZodEnum> }>> }> };
const SCHEMAS: [string, ListSchema, (q: never) => ListFilter][] = [
  ['administrators', interventionAdminListQuerySchema as unknown as ListSchema, (q) => adminFilterOf(q)],
  ['public per-site', siteInterventionListQuerySchema as unknown as ListSchema, (q) => publicFilterOf(7, q, false)],
];

describe('interventions lists: every filter and sort is classified', () => {
  const classified = {
    filters: new Set([...Object.values(FAST_PATHS).flatMap((p) => p.filters), ...PLAIN_ONLY.filters]),
    sorts: new Set([...Object.values(FAST_PATHS).flatMap((p) => p.sorts), ...PLAIN_ONLY.sorts]),
  };

  it.each(SCHEMAS)('%s list', (_, schema, filterOf) => {
    const shape = schema.out.shape;
    const params = [...Object.keys(shape).filter((k) => !NOT_FILTERS.includes(k)), ...Object.keys(shape.filter.unwrap().shape).map((k) => `filter.${k}`)];
    expect(params.length).toBeGreaterThan(2);
    const always = fieldsOf(filterOf(schema.parse({}) as never));
    for (const param of params) {
      const name = param.replace('filter.', '');
      expect(SAMPLES, `no sample value for ${param}`).toHaveProperty(name);
      const query = schema.parse(param.startsWith('filter.') ? { filter: { [name]: SAMPLES[name] } } : { [name]: SAMPLES[name] });
      const fields = fieldsOf(filterOf(query as never)).filter((x) => !always.includes(x));
      expect(fields.length, param).toBe(1);
      expect(classified.filters.has(fields[0]), `${param} (${fields[0]}) is neither served by a fast path nor marked plain`).toBe(true);
    }
    // What the list always sets (the public list's site) is classified too.
    for (const x of always) expect(classified.filters.has(x), x).toBe(true);
    for (const sort of shape.sort.unwrap().shape.name.unwrap().options as string[]) {
      expect(classified.sorts.has(sort as never), `sort ${sort} is neither served by a fast path nor marked plain`).toBe(true);
    }
  });
});

describe.each(TEST_DRIVERS)('interventions lists: fast paths answer what the plain query answers (%s)', (driver) => {
  let ctx: Awaited<ReturnType<typeof createTestApp>>;
  let siteIds: number[] = [];
  const ROWS = 1300;

  beforeAll(async () => {
    ctx = await createTestApp(driver);
    const rnd = seededRandom(20260101);
    const people: number[] = [];
    for (const [nom, prenom] of [['DURAND', 'Alice'], ['ZOLA', 'Émile'], ['ABBE', 'Léa']]) people.push((await createAccount(ctx.db, { nom, prenom })).id);
    const sites = [await createEquippedSite(ctx.db, { nom: 'Sorbier' }), await createEquippedSite(ctx.db, { nom: 'If 2' }), await createEquippedSite(ctx.db, { nom: 'Érable' })];
    siteIds = sites.map((s) => s.id);
    const observations = [null, null, null, 'Couvercle abîmé', 'Odeur forte', 'Cadenas 4821', 'Bonne montée', 'Trappe bloquée'];
    const rows = Array.from({ length: ROWS }, () => {
      const site = rnd.pick(sites);
      // Whole hours over two years: many rows share their date (ties broken by id).
      const date = new Date(Date.UTC(2024, 0, 1) + Math.floor(rnd.next() * 700 * 24) * 3_600_000);
      const kind = rnd.pick([
        { cell: site.apport, action: 1 },
        { cell: site.maturation, action: 6, valeur_nombre: Math.round(rnd.next() * 70) },
        { cell: site.broyat, action: 7, valeur_constante: 5 },
        { cell: site.broyat, action: 14, valeur_texte: rnd.pick(['Charnière changée', 'Trappe débloquée']) },
        { cell: site.apport, action: 3, valeur_nombre: 80, bac_destination_id: site.maturation },
      ]);
      const { cell, action, ...values } = kind;
      return { date, site_id: site.id, site_composteur_id: cell, type_action_id: action, intervenant_id: rnd.pick(people), observations: rnd.pick(observations), ...values };
    });
    await ctx.db.insertInto('intervention').values(rows).execute();
  }, 120_000);
  afterAll(() => ctx?.close());

  it('answers the same page and count on random lists, through every fast path', async () => {
    const rnd = seededRandom(42);
    const lists = createInterventionList(ctx.db);
    const taken = new Set<FastPathName | 'nearerEnd' | 'searchCounted'>();
    for (let n = 0; n < 150; n++) {
      const f: ListFilter = {};
      if (rnd.chance(0.3)) f.siteId = rnd.pick(siteIds);
      if (rnd.chance(0.3)) f.action = rnd.pick([1, 3, 6, 7, 14]);
      if (f.siteId !== undefined && rnd.chance(0.3)) f.typeBac = rnd.pick([1, 2, 3]);
      if (f.siteId !== undefined && rnd.chance(0.3)) f.numeroBac = rnd.pick([1, 2, 3]);
      if (rnd.chance(0.3)) f.date = rnd.pick(['2024', '12/0', '/03/2025', '15/', '01/06/2024', '10:', 'x1']);
      if (rnd.chance(0.35)) f.search = rnd.pick(['couvercle', 'od', '4821', 'trappe', 'e', 'ab', 'plein', 'tempé', 'sorbier', 'if', 'durand', 'zola', 'zzq', 'a.']);
      f.scope = rnd.chance(0.7) ? FULL_SEARCH : { site: false, intervenant: false, freeText: rnd.chance(0.5) };
      const sort: ListSort = { name: rnd.pick(INTERVENTION_SORT_FIELDS), direction: rnd.pick(['asc', 'desc'] as const) };
      const limit = rnd.pick([5, 20, 100]);
      const offset = rnd.pick([0, 0, limit, Math.floor(rnd.next() * 400), DEEP_PAGE_OFFSET + Math.floor(rnd.next() * 300)]);
      const label = JSON.stringify({ n, f, sort, limit, offset });
      const fast = await lists.list(f, sort, { limit, offset });
      const plain = await lists.list(f, sort, { limit, offset }, { plain: true });
      expect({ ...fast, rows: fast.rows.map((r) => r.id) }, label).toEqual({ ...plain, rows: plain.rows.map((r) => r.id) });
      const p = await lists.plan(f, sort);
      if (p.search?.mode === 'narrow') taken.add('narrowSearch');
      // The search alone, on free text only: its count is the one taken to resolve it.
      if (p.search?.textOnlyCount !== undefined && fieldsOf(f).length === 1) taken.add('searchCounted');
      else if (p.paths.has('groupWalk') && (sort.name !== 'date' && sort.name !== 'numeroBac')) taken.add('groupWalk');
      if (p.paths.has('keptCount')) taken.add(offset >= DEEP_PAGE_OFFSET && fast.count > DEEP_PAGE_OFFSET ? 'nearerEnd' : 'keptCount');
      if (p.paths.has('rangeCount') && p.date?.kind === 'ranges' && p.date.ranges.length > 1) taken.add('rangeCount');
    }
    expect([...taken].sort()).toEqual(['groupWalk', 'keptCount', 'narrowSearch', 'nearerEnd', 'rangeCount', 'searchCounted']);
  }, 300_000);

  it('keeps no daily summary of the log (no page skips whole days any more)', async () => {
    const gone = await sql<{ t: string | null; f: number }>`SELECT to_regclass('intervention_stats_jour_reseau')::text AS t,
      (SELECT count(*)::int FROM pg_proc WHERE proname = 'stats_jour') AS f`.execute(ctx.db);
    expect(gone.rows[0]).toEqual({ t: null, f: 0 });
  });
});
