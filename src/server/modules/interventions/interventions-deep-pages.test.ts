// Deep pages of the interventions lists are read from the nearer end of the list when its count
// is kept by triggers (the keptCount fast path): every such page, in every order and direction,
// must hold the rows a walk from the top gives at that place, and a page past the end must be empty.
// The lists read their pages from the nearer end from DEEP_PAGE_OFFSET (list.ts) on; here from
// DEEP on (the repository's deepFrom), so that a few hundred interventions exercise the reads
// that thousands would, and the route's last page of each list is checked against the same walk.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import { TEST_DRIVERS, createAccount, createTestApp, getJson, loggedAs } from '../../../../tests/helpers/test-app.js';
import { createEquippedSite } from '../field-entry/test-factories.js';
import { createInterventionList } from './intervention-list.js';
import type { InterventionSortField } from '../../../shared/schemas/interventions-admin.js';

const SORTS: InterventionSortField[] = ['date', 'site', 'intervenant', 'action', 'typeBac', 'numeroBac'];
const LIST = '/api/admin/intervention/get/list/by/filters';
const DEEP = 100;

describe.each(TEST_DRIVERS)('interventions lists, deep pages (%s)', (driver) => {
  let ctx: Awaited<ReturnType<typeof createTestApp>>;
  let cookie: string;
  let busy: Awaited<ReturnType<typeof createEquippedSite>>;

  beforeAll(async () => {
    ctx = await createTestApp(driver);
    cookie = (await loggedAs(ctx, ['ROLE_ADMIN'])).cookie;
    const people = [await createAccount(ctx.db, { nom: 'ABBE', prenom: 'Léa' }), await createAccount(ctx.db, { nom: 'ZOLA', prenom: 'Émile' })];
    busy = await createEquippedSite(ctx.db, { nom: 'Jardin 13' });
    const other = await createEquippedSite(ctx.db, { nom: 'Jardin 2' });
    // 400 interventions over 11 months, many sharing a date (ties broken by id), others a
    // microsecond apart, over both sites' cells, two intervenants and two actions (two thirds for
    // one). Each list holds more than twice the depth from which pages are read from the end, so
    // that its middle is still read from the top.
    for (const [site, n] of [
      [busy, 330],
      [other, 70],
    ] as const) {
      await sql`INSERT INTO intervention (date, site_id, site_composteur_id, type_action_id, intervenant_id)
        SELECT CASE WHEN g % 97 = 0 THEN timestamptz '2024-02-29 23:00:00+00' WHEN g % 89 = 0 THEN timestamptz '2024-06-14 22:00:00+00'
            WHEN g % 83 = 0 THEN timestamptz '2024-03-30 23:00:00+00' WHEN g % 79 = 0 THEN timestamptz '2024-03-31 22:00:00+00'
            WHEN g % 73 = 0 THEN timestamptz '2024-10-26 22:00:00+00' WHEN g % 71 = 0 THEN timestamptz '2024-10-27 23:00:00+00' ELSE timestamptz '2024-01-01 08:00:00+00' + (g % 500) * interval '1 day' + (g % 3) * interval '1 microsecond' END, ${site.id}::int,
          (ARRAY[${site.apport}::int, ${site.broyat}::int, ${site.maturation}::int])[1 + g % 3], (ARRAY[1, 6, 6])[1 + (g / 3) % 3],
          (ARRAY[${people[0].id}::int, ${people[1].id}::int])[1 + (g / 7) % 2]
        FROM generate_series(1, ${n}::int) g`.execute(ctx.db);
    }
  }, 120_000);
  afterAll(() => ctx?.close());

  /** The ids of a page through the API. */
  async function page(query: string) {
    const body = await getJson<{ count: number; interventions: { id: number }[] }>(ctx.app, `${LIST}?${query}`, cookie);
    return { count: body.count, ids: body.interventions.map((r) => r.id) };
  }

  it('gives every deep page the rows of a walk from the top, in every order and direction', async () => {
    const repo = createInterventionList(ctx.db);
    for (const [filter, filterQuery] of [
      [{}, ''],
      [{ siteId: busy.id }, `&filter[site]=${busy.id}`],
      [{ action: 6 }, '&filter[action]=6'],
    ] as const) {
      for (const name of SORTS) {
        for (const direction of ['asc', 'desc'] as const) {
          // The whole list in one walk from the top (offset 0): the reference order.
          const all = (await repo.list(filter, { name, direction }, { limit: 5000, offset: 0 })).rows.map((r) => r.id);
          expect(all.length).toBeGreaterThan(DEEP * 2);
          const last = Math.floor((all.length - 1) / 20);
          const pages = new Set([DEEP / 20 - 1, DEEP / 20, DEEP / 20 + 2, Math.floor(last / 2), last - 1, last, last + 1]);
          for (const p of pages) {
            const got = await repo.list(filter, { name, direction }, { limit: 20, offset: p * 20 }, { deepFrom: DEEP });
            expect(got.count).toBe(all.length);
            expect(
              got.rows.map((r) => r.id),
              `${name} ${direction} page ${p} ${filterQuery}`,
            ).toEqual(all.slice(p * 20, p * 20 + 20));
          }
          // The route, at its own depth: the last page holds the end of the same walk.
          const got = await page(`sort[name]=${name}&sort[direction]=${direction}&rowsPerPage=20&page=${last}${filterQuery}`);
          expect(got.count).toBe(all.length);
          expect(got.ids, `${name} ${direction} last page through the API ${filterQuery}`).toEqual(all.slice(last * 20, last * 20 + 20));
        }
      }
    }
  }, 600_000);
});
