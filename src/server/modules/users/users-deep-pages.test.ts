// Every page of the whole users list, deep ones included, in every order and direction, must
// hold the rows a walk from the top gives at that place, ties (same date, same organisation, no
// phone, no type) included, and a page past the end is empty.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import { TEST_DRIVERS, createTestApp, getJson, loggedAs } from '../../../../tests/helpers/test-app.js';

const LIST = '/api/admin/user/get/list/by/filters';
const SORTS = ['date', 'organisme', 'nom', 'prenom', 'email', 'tel', 'type', 'actif', 'emailValide'];

/** A depth well inside the list: the list reads every page with a plain OFFSET, whatever its depth. */
const DEEP = 200;

describe.each(TEST_DRIVERS)('users list, deep pages (%s)', (driver) => {
  let ctx: Awaited<ReturnType<typeof createTestApp>>;
  let cookie: string;

  beforeAll(async () => {
    ctx = await createTestApp(driver);
    cookie = (await loggedAs(ctx, ['ROLE_ADMIN'])).cookie;
    // 520 accounts: dates shared by a hundred at a time, a few organisations and first
    // names, no phone or no type on some (NULL keys), both states of each flag.
    await sql`INSERT INTO account (kind, email, nom, prenom, organisme, tel, type_user_id, actif, email_valide, created_at)
      SELECT 'user', 'u' || g || '@exemple.fr', 'Nom ' || (g % 37), CASE WHEN g % 5 = 0 THEN NULL ELSE 'Prénom ' || (g % 11) END,
        CASE WHEN g % 4 = 0 THEN NULL ELSE 'Association ' || (g % 7) END, CASE WHEN g % 3 = 0 THEN NULL ELSE '06' || lpad((g % 50)::text, 8, '0') END,
        CASE WHEN g % 6 = 0 THEN NULL ELSE 1 + g % 2 END, g % 2 = 0, g % 3 <> 0, timestamptz '2024-01-01 08:00:00+00' + (g / 100) * interval '1 day'
      FROM generate_series(1, 520) g`.execute(ctx.db);
  }, 120_000);
  afterAll(() => ctx?.close());

  async function page(query: string) {
    const body = await getJson<{ count: number; users: { id: number }[] }>(ctx.app, `${LIST}?${query}`, cookie);
    return { count: body.count, ids: body.users.map((u) => u.id) };
  }

  it('gives every deep page the rows of a walk from the top, in every order and direction', async () => {
    for (const name of SORTS) {
      for (const direction of ['asc', 'desc'] as const) {
        // The whole list, page by page from the top .
        const all: number[] = [];
        for (let p = 0; p * 100 < DEEP; p++) all.push(...(await page(`sort[name]=${name}&sort[direction]=${direction}&rowsPerPage=100&page=${p}`)).ids);
        const top = all.length;
        const count = (await page(`sort[name]=${name}&sort[direction]=${direction}&rowsPerPage=20`)).count;
        expect(count).toBeGreaterThan(DEEP * 2);
        // The rest from the database, in the same order, as a reference.
        const keys: Record<string, string> = {
          date: 'created_at', organisme: `f_unaccent(lower(coalesce(organisme, '')))`, nom: 'f_unaccent(lower(nom))',
          prenom: `f_unaccent(lower(coalesce(prenom, '')))`, email: 'lower(email)', tel: `coalesce(tel, '')`, type: 'type_user_id', actif: 'actif', emailValide: 'email_valide',
        };
        const dir = direction === 'asc' ? 'ASC' : 'DESC';
        const ref = await sql<{ id: number }>`SELECT id FROM account WHERE kind = 'user' ORDER BY ${sql.raw(keys[name])} ${sql.raw(dir)}, id ${sql.raw(dir)}`.execute(ctx.db);
        const reference = ref.rows.map((r) => r.id);
        expect(reference.slice(0, top), `${name} ${direction}: the walk from the top`).toEqual(all);
        const last = Math.floor((count - 1) / 20);
        for (const p of [DEEP / 20, DEEP / 20 + 3, Math.floor(last / 2), Math.floor(last / 2) + 1, last - 1, last, last + 1]) {
          const got = await page(`sort[name]=${name}&sort[direction]=${direction}&rowsPerPage=20&page=${p}`);
          expect(got.count).toBe(count);
          expect(got.ids, `${name} ${direction} page ${p}`).toEqual(reference.slice(p * 20, p * 20 + 20));
        }
      }
    }
  });
});
