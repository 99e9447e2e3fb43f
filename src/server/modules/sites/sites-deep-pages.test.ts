// Every page of the sites list, deep ones included, in every order and direction, with or
// without a filter, must hold the rows the list read from the top in one statement gives at that
// place (ties on every key, empty and NULL keys included), and a page past the end is empty.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import { TEST_DRIVERS, createTestApp, getJson, loggedAs } from '../../../../tests/helpers/test-app.js';
import { SITE_SORT_FIELDS, siteListQuerySchema } from '../../../shared/schemas/sites.js';
import { siteListQueries } from './sites-list.repository.js';

const LIST = '/api/admin/site/get/list/by/filters';

/** A depth well inside the list: the list reads every page with a plain OFFSET, whatever its depth. */
const DEEP = 200;

describe.each(TEST_DRIVERS)('sites list, deep pages (%s)', (driver) => {
  let ctx: Awaited<ReturnType<typeof createTestApp>>;
  let cookie: string;

  beforeAll(async () => {
    ctx = await createTestApp(driver);
    cookie = (await loggedAs(ctx, ['ROLE_ADMIN'])).cookie;
    // 520 sites: names that repeat (natural order ties broken by code), three cities, empty
    // and missing details, cadenas and observations, dates shared by many or missing, two
    // statuses, and cells on some (volume and cell count computed from them).
    await sql`INSERT INTO site (code, nom, ville, cp, adresse, complement, type_site_id, statut_id, cadena, observations, date_convention, date_implantation)
      SELECT 'DPS' || lpad(g::text, 5, '0'), 'Jardin ' || (g % 40), (ARRAY['Brest', 'Guipavas', 'Plougastel'])[1 + g % 3], '29200', 'Rue ' || (g % 90),
        CASE g % 3 WHEN 0 THEN NULL WHEN 1 THEN '' ELSE 'Bât. ' || (g % 4) END, (SELECT min(id) FROM type_site), 1 + g % 2,
        CASE WHEN g % 2 = 0 THEN NULL ELSE (g % 6)::text END, CASE WHEN g % 5 = 0 THEN 'Note ' || (g % 3) END,
        CASE WHEN g % 4 = 0 THEN NULL ELSE timestamptz '2024-03-01 10:00Z' + (g % 13) * interval '1 day' END,
        CASE WHEN g % 7 = 0 THEN NULL ELSE timestamptz '2023-05-01 10:00Z' + (g % 5) * interval '1 day' END
      FROM generate_series(1, 520) g`.execute(ctx.db);
    await sql`INSERT INTO site_composteur (site_id, type_composteur_id, type_bac_id, numero)
      SELECT s.id, (SELECT min(id) FROM type_composteur), 1, n FROM site s, generate_series(1, 3) n WHERE s.id % 4 = 0 AND n <= 1 + s.id % 3`.execute(ctx.db);
  }, 120_000);
  afterAll(() => ctx?.close());

  async function page(query: string) {
    const body = await getJson<{ count: number; sites: { code: string }[] }>(ctx.app, `${LIST}?${query}`, cookie);
    return { count: body.count, codes: body.sites.map((s) => s.code) };
  }

  /** Every site of the list, read from the top in one statement: the order a deep page must follow. */
  async function wholeList(query: Record<string, unknown>) {
    const q = siteListQuerySchema.parse(query);
    const { rows } = await siteListQueries.page({ ...q, page: 0, rowsPerPage: 100_000 }).execute(ctx.db);
    return rows.map((r) => r.code);
  }

  it('gives every deep page the rows of the list read from the top, in every order and direction', async () => {
    for (const name of SITE_SORT_FIELDS) {
      for (const direction of ['asc', 'desc'] as const) {
        const reference = await wholeList({ sort: { name, direction } });
        const count = (await page(`sort[name]=${name}&sort[direction]=${direction}`)).count;
        expect(count).toBe(reference.length);
        expect(count).toBeGreaterThan(DEEP * 2);
        const last = Math.floor((count - 1) / 20);
        for (const p of [DEEP / 20 - 1, DEEP / 20, Math.floor(last / 2), Math.floor(last / 2) + 1, last - 1, last, last + 1]) {
          const got = await page(`sort[name]=${name}&sort[direction]=${direction}&rowsPerPage=20&page=${p}`);
          expect(got.count).toBe(count);
          expect(got.codes, `${name} ${direction} page ${p}`).toEqual(reference.slice(p * 20, p * 20 + 20));
        }
      }
    }
  });

  it('pages a filtered list to its end too', async () => {
    const reference = await wholeList({ sort: { name: 'ville', direction: 'desc' }, filter: { statut: [2] } });
    expect(reference.length).toBeGreaterThan(DEEP);
    const last = Math.floor((reference.length - 1) / 50);
    for (const p of [DEEP / 50, last - 1, last]) {
      const got = await page(`sort[name]=ville&sort[direction]=desc&filter[statut]=2&rowsPerPage=50&page=${p}`);
      expect(got.count).toBe(reference.length);
      expect(got.codes, `page ${p}`).toEqual(reference.slice(p * 50, p * 50 + 50));
    }
  });
});
