// The board and the history read their counts from a table kept by triggers, and read a deep
// page from the nearer end of the list: every page, in every order, with and without a site
// filter, must be the full sort of the requests, and every count must be what count(*) gives,
// after requests were added several at a time, changed status, action or creation date and were
// deleted.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import qs from 'qs';
import { TEST_DRIVERS, createTestApp, loggedAs } from '../../../../tests/helpers/test-app.js';
import { createEquippedSite } from '../field-entry/test-factories.js';
import { createRequestsRepository } from './requests.repository.js';
import { historyQuerySchema, pendingListQuerySchema } from '../../../shared/schemas/requests.js';

/**
 * The lists read a page from the nearer end from DEEP_PAGE_OFFSET (list.ts) on; the pages here
 * are read through the repository from DEEP on (its deepFrom), so that a few hundred requests
 * exercise the reads that thousands would. The counts are read through the API.
 */
const DEEP = 100;

type Ctx = Awaited<ReturnType<typeof createTestApp>>;
const BOARD = '/api/admin/demande/intervention/get/list';
const HISTORY = '/api/admin/demande/intervention/get/all/by/filters';

describe.each(TEST_DRIVERS)('request counts and the board by site (%s)', (driver) => {
  let ctx: Ctx;
  let cookie: string;
  const sites: Awaited<ReturnType<typeof createEquippedSite>>[] = [];

  const get = async (url: string) => {
    const res = await ctx.app.inject({ method: 'GET', url, headers: { cookie } });
    expect(res.statusCode, `${url}: ${res.body}`).toBe(200);
    return res.json() as { count: number; demandesInterventions: { id: number }[] };
  };

  /** A page of the board or the history, for the query of its URL, read from the nearer end from DEEP on. */
  const read = async (list: 'board' | 'history', query: string) => {
    // The query as the server reads it (app.ts).
    const q = qs.parse(query);
    const repo = createRequestsRepository(ctx.db);
    const { count, rows } =
      list === 'board' ? await repo.pendingList(pendingListQuerySchema.parse(q), { deepFrom: DEEP }) : await repo.history(historyQuerySchema.parse(q), { deepFrom: DEEP });
    return { count, demandesInterventions: rows.map((r) => ({ id: r.id })) };
  };

  beforeAll(async () => {
    ctx = await createTestApp(driver);
    cookie = (await loggedAs(ctx, ['ROLE_ADMIN'])).cookie;
    // Natural order: 'Abri' < 'École 2' < 'École 13' < 'zz'; created in another order so that ids do not follow names.
    for (const nom of ['École 13', 'zz fond', 'Abri', 'École 2']) sites.push(await createEquippedSite(ctx.db, { nom }));
    const [e13, zz, abri, e2] = sites;
    // Pending (3, 4), processed (5) and cancelled (6) requests, several sharing a due date, added
    // one statement per site as a submission would.
    // zz alone holds enough pending requests for the board to read its last pages backwards.
    const plan: [typeof e13, number][] = [
      [e13, 9],
      [zz, 2 * DEEP + 126],
      [abri, 4],
      [e2, 0],
    ];
    for (const [site, pending] of plan) {
      const rows = Array.from({ length: pending + 5 }, (_, k) => ({
        site_id: site.id,
        site_composteur_id: k % 2 ? site.apport : site.broyat,
        statut_id: k < pending ? (k % 3 === 0 ? 4 : 3) : k % 2 ? 5 : 6,
        type_action_programmee_id: k % 3 === 0 ? 14 : 12,
        date_echeance: new Date(Date.UTC(2026, 0, 1 + (k % 4))),
      }));
      await ctx.db.insertInto('demande_intervention').values(rows).execute();
    }
    // A second 'Abri' and an action whose label differs from 12's by case only: ties in the
    // history's orders by site and by action, whose requests then follow each other by id.
    const twin = await createEquippedSite(ctx.db, { nom: 'Abri' });
    await sql`INSERT INTO type_action (id, libelle, valeur, value_kind) VALUES (99, 'APPORT DE BROYAT', false, 'none')`.execute(ctx.db);
    await ctx.db
      .insertInto('demande_intervention')
      .values(
        Array.from({ length: 40 }, (_, k) => ({
          site_id: k % 2 ? twin.id : abri.id,
          site_composteur_id: k % 2 ? twin.apport : abri.apport,
          statut_id: k % 2 ? 5 : 6,
          type_action_programmee_id: k % 3 === 0 ? 99 : 12,
          date_echeance: new Date(Date.UTC(2026, 1, 1 + (k % 4))),
        })),
      )
      .execute();
    // Creation dates over nine Paris months (in 2025, one of them across the change to summer
    // time): a quarter at the first instant of a month, a quarter one microsecond before it
    // (the month before), the rest tied inside the month, some a microsecond apart.
    await sql`UPDATE demande_intervention SET date_creation = (timestamp '2025-01-01' + (id % 9) * interval '1 month') AT TIME ZONE 'Europe/Paris'
        + CASE id % 4 WHEN 0 THEN interval '0' WHEN 1 THEN interval '-1 microsecond' WHEN 2 THEN interval '3 days 5 hours' ELSE (id % 7) * interval '1 microsecond' END`.execute(
      ctx.db,
    );
  }, 120_000);
  afterAll(() => ctx?.close());

  /** The board's order, computed from the whole table. */
  async function expectedBoard(order: 'site asc' | 'site desc' | 'dateEcheance asc' | 'dateEcheance desc', site?: number) {
    const dir = order.endsWith('desc') ? sql`DESC` : sql`ASC`;
    const by = order.startsWith('site') ? sql`s.nom_tri ${dir}, d.site_id ${dir}, d.date_echeance, d.id` : sql`d.date_echeance ${dir}, d.id ${dir}`;
    const { rows } = await sql<{ id: number }>`SELECT d.id FROM demande_intervention d JOIN site s ON s.id = d.site_id
        WHERE d.statut_id IN (3, 4) AND (${site ?? null}::int IS NULL OR d.site_id = ${site ?? null}::int) ORDER BY ${by}`.execute(ctx.db);
    return rows.map((r) => r.id);
  }

  /** Every page of the board, in pages of `size`. */
  async function boardPages(order: string, site?: number, size = 100) {
    const [name, direction] = order.split(' ');
    const ids: number[] = [];
    let count = -1;
    for (let page = 0; page < 100; page++) {
      const body = await read('board', `sort[name]=${name}&sort[direction]=${direction}&rowsPerPage=${size}&page=${page}${site ? `&filter[site]=${site}` : ''}`);
      count = body.count;
      ids.push(...body.demandesInterventions.map((d) => d.id));
      if (body.demandesInterventions.length < size) break;
    }
    return { ids, count };
  }

  it('pages the board in the order of a full sort, every page, both directions, with and without a site filter', async () => {
    for (const order of ['site asc', 'site desc', 'dateEcheance asc', 'dateEcheance desc'] as const) {
      for (const site of [undefined, sites[1].id, sites[3].id]) {
        const expected = await expectedBoard(order, site);
        const got = await boardPages(order, site);
        expect(got.ids, `${order} site ${site}`).toEqual(expected);
        expect(got.count, `${order} site ${site}`).toBe(expected.length);
      }
    }
    // Small pages across the sites' boundaries: 'Abri', 'École 2' (nothing pending), 'École 13', 'zz fond'.
    for (const order of ['site asc', 'site desc'] as const) {
      const expected = await expectedBoard(order);
      const top: number[] = [];
      for (let page = 0; page < 6; page++) {
        top.push(...(await read('board', `sort[name]=site&sort[direction]=${order.split(' ')[1]}&rowsPerPage=5&page=${page}`)).demandesInterventions.map((d) => d.id));
      }
      expect(top).toEqual(expected.slice(0, 30));
      const deep = await read('board', `sort[name]=site&sort[direction]=${order.split(' ')[1]}&rowsPerPage=5&page=${DEEP / 5 + 3}`);
      expect(deep.demandesInterventions.map((d) => d.id)).toEqual(expected.slice(DEEP + 15, DEEP + 20));
    }
    expect((await get(BOARD)).count).toBe(13 + 2 * DEEP + 126);
  }, 120_000);

  it('pages the history in the order of a full sort, deep pages and the last one read from the end', async () => {
    const orders: Record<string, string> = {
      dateCreation: 'd.date_creation DIR, d.id DIR',
      dateEcheance: 'd.date_echeance DIR, d.id DIR',
      statut: 'd.statut_id DIR, d.id DIR',
      dateAnnulation: 'd.date_annulation DIR NULLS LAST, d.id DIR',
      site: 's.nom_tri DIR, s.code DIR, d.id DIR',
      actionProgrammee: 'lower(t.libelle) DIR, t.id DIR, d.id DIR',
    };
    for (const [name, order] of Object.entries(orders)) {
      for (const direction of ['asc', 'desc']) {
        const { rows } = await sql<{ id: number }>`SELECT d.id FROM demande_intervention d JOIN site s ON s.id = d.site_id
            JOIN type_action t ON t.id = d.type_action_programmee_id ORDER BY ${sql.raw(order.replaceAll('DIR', direction))}`.execute(ctx.db);
        const all = rows.map((r) => r.id);
        expect(all.length).toBeGreaterThan(2 * DEEP);
        const lastPage = Math.floor((all.length - 1) / 20);
        const middle = Math.floor(lastPage / 2);
        for (const page of [0, DEEP / 20 - 1, DEEP / 20 + 2, middle - 2, middle - 1, middle, middle + 1, middle + 2, lastPage - 1, lastPage, lastPage + 1]) {
          const body = await read('history', `sort[name]=${name}&sort[direction]=${direction}&rowsPerPage=20&page=${page}`);
          expect(body.count).toBe(all.length);
          expect(body.demandesInterventions.map((d) => d.id), `${name} ${direction} page ${page}`).toEqual(all.slice(page * 20, page * 20 + 20));
        }
      }
    }
    // Deep pages of a filtered history, by site and by action: the labels' counts come from the
    // counts table for that filter.
    const zz = sites[1];
    const filters: Record<string, number>[] = [{ site: zz.id }, { statut: 3 }, { actionProgrammee: 12 }, { site: zz.id, statut: 3, actionProgrammee: 12 }];
    for (const f of filters) {
      const query = Object.entries(f)
        .map(([k, v]) => `&filter[${k}]=${v}`)
        .join('');
      for (const name of ['site', 'actionProgrammee']) {
        for (const direction of ['asc', 'desc']) {
          const { rows } = await sql<{ id: number }>`SELECT d.id FROM demande_intervention d JOIN site s ON s.id = d.site_id
              JOIN type_action t ON t.id = d.type_action_programmee_id
              WHERE (${f.site ?? null}::int IS NULL OR d.site_id = ${f.site ?? null}::int)
                AND (${f.statut ?? null}::int IS NULL OR d.statut_id = ${f.statut ?? null}::int)
                AND (${f.actionProgrammee ?? null}::int IS NULL OR d.type_action_programmee_id = ${f.actionProgrammee ?? null}::int)
              ORDER BY ${sql.raw(orders[name].replaceAll('DIR', direction))}`.execute(ctx.db);
          const all = rows.map((r) => r.id);
          expect(all.length, JSON.stringify(f)).toBeGreaterThan(DEEP + 40);
          const lastPage = Math.floor((all.length - 1) / 20);
          for (const page of [DEEP / 20, DEEP / 20 + 1, lastPage, lastPage + 1]) {
            const body = await read('history', `sort[name]=${name}&sort[direction]=${direction}&rowsPerPage=20&page=${page}${query}`);
            expect(body.count).toBe(all.length);
            expect(body.demandesInterventions.map((d) => d.id), `${name} ${direction} ${query} page ${page}`).toEqual(all.slice(page * 20, page * 20 + 20));
          }
        }
      }
    }
  }, 120_000);

  async function expectCountsMatch() {
    const [e13, zz] = sites;
    const filters: Record<string, string | number>[] = [
      {},
      { site: zz.id },
      { statut: 3 },
      { statut: 6 },
      { actionProgrammee: 14 },
      { site: e13.id, statut: 5 },
      { statut: 3, actionProgrammee: 12 },
      { site: zz.id, statut: 4, actionProgrammee: 14 },
    ];
    for (const f of filters) {
      const query = Object.entries(f)
        .map(([k, v]) => `&filter[${k}]=${v}`)
        .join('');
      const body = await get(`${HISTORY}?rowsPerPage=5${query}`);
      const { rows } = await sql<{ n: number }>`SELECT count(*)::int AS n FROM demande_intervention
          WHERE (${f.site ?? null}::int IS NULL OR site_id = ${f.site ?? null}::int)
            AND (${f.statut ?? null}::int IS NULL OR statut_id = ${f.statut ?? null}::int)
            AND (${f.actionProgrammee ?? null}::int IS NULL OR type_action_programmee_id = ${f.actionProgrammee ?? null}::int)`.execute(ctx.db);
      expect(body.count, JSON.stringify(f)).toBe(rows[0].n);
    }
    const board = await get(BOARD);
    const pending = await sql<{ n: number }>`SELECT count(*)::int AS n FROM demande_intervention WHERE statut_id IN (3, 4)`.execute(ctx.db);
    expect(board.count).toBe(pending.rows[0].n);
  }

  it('counts what count(*) counts, after status changes, a change of action, edits, a rollback and deletions', async () => {
    await expectCountsMatch();
    const [e13, zz, abri] = sites;
    // Cancel three of zz's pending requests in one statement, process one of e13's.
    await sql`UPDATE demande_intervention SET statut_id = 6, date_annulation = now()
      WHERE id IN (SELECT id FROM demande_intervention WHERE site_id = ${zz.id} AND statut_id = 3 ORDER BY id LIMIT 3)`.execute(ctx.db);
    await sql`UPDATE demande_intervention SET statut_id = 5 WHERE id = (SELECT min(id) FROM demande_intervention WHERE site_id = ${e13.id} AND statut_id = 3)`.execute(ctx.db);
    // A change of programmed action, and an edit that changes no counted column.
    await sql`UPDATE demande_intervention SET type_action_programmee_id = 17 WHERE id = (SELECT max(id) FROM demande_intervention WHERE site_id = ${abri.id})`.execute(ctx.db);
    await sql`UPDATE demande_intervention SET date_programmee = now() WHERE site_id = ${abri.id}`.execute(ctx.db);
    await expectCountsMatch();
    // Creation dates moved across months (a data fix), one of them to the previous month by a microsecond.
    await sql`UPDATE demande_intervention SET date_creation = date_creation + interval '40 days' WHERE site_id = ${e13.id}`.execute(ctx.db);
    await sql`UPDATE demande_intervention SET date_creation = timestamptz '2025-03-31 23:59:59.999999+02' WHERE id = (SELECT max(id) FROM demande_intervention WHERE site_id = ${zz.id})`.execute(ctx.db);
    await expectCountsMatch();
    // A rolled-back change leaves the counts as they were.
    await ctx.db
      .transaction()
      .execute(async (trx) => {
        await sql`DELETE FROM demande_intervention WHERE site_id = ${zz.id}`.execute(trx);
        throw new Error('rollback');
      })
      .catch(() => undefined);
    await expectCountsMatch();
    await sql`DELETE FROM demande_intervention WHERE site_id = ${e13.id} AND statut_id IN (5, 6)`.execute(ctx.db);
    await expectCountsMatch();
    for (const order of ['site asc', 'site desc'] as const) expect((await boardPages(order)).ids).toEqual(await expectedBoard(order));
  }, 120_000);
});
