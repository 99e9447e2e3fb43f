// The lists of requests (board, history), sites and users: every filter and sort of their schemas
// is classified (taken by a fast path, or left to the plain query); every list pages at most
// LIST_DEPTH rows, with its own message past them; and on random filter combinations, the fast
// paths give exactly the count and the rows of the plain query.
import { sql } from 'kysely';
import type { z } from 'zod';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TEST_DRIVERS, createTestApp, loggedAs } from '../../../../tests/helpers/test-app.js';
import { createEquippedSite } from '../field-entry/test-factories.js';
import { LIST_DEPTH } from '../../../shared/schemas/list-depth.js';
import { REQUEST_MESSAGES, historyQuerySchema, pendingListQuerySchema } from '../../../shared/schemas/requests.js';
import { SITE_LIST_TOO_DEEP, siteListPageQuerySchema } from '../../../shared/schemas/sites.js';
import { USER_MESSAGES, userListQuerySchema } from '../../../shared/schemas/users.js';
import type { ListPaths } from '../../db/list-paths.js';
import { BOARD_PATHS, HISTORY_PATHS } from './requests-pagers.js';
import { createRequestsRepository } from './requests.repository.js';
import { SITE_LIST_PATHS } from '../sites/sites-list.repository.js';
import { USER_LIST_PATHS, createUsersRepository } from '../users/users.repository.js';
import { seededRandom } from '../../../../tests/helpers/seeded-random.js';

type Def = { type: string; out?: z.ZodType; innerType?: z.ZodType; shape?: Record<string, z.ZodType>; entries?: Record<string, string> };
const defOf = (s: z.ZodType) => (s as unknown as { _zod: { def: Def } })._zod.def;

/** The object under defaults, optionals and pipes (a preprocessed schema is a pipe). */
function objectShape(schema: z.ZodType): Record<string, z.ZodType> {
  for (let s = schema; ; ) {
    const def = defOf(s);
    if (def.type === 'object') return def.shape!;
    s = (def.type === 'pipe' ? def.out : def.innerType)!;
  }
}

function fieldsOf(schema: z.ZodType) {
  const shape = objectShape(schema);
  let name = objectShape(shape.sort).name;
  while (defOf(name).type !== 'enum') name = defOf(name).innerType!;
  return { filters: [...Object.keys(objectShape(shape.filter)), ...('search' in shape ? ['search'] : [])], sorts: Object.keys(defOf(name).entries!) };
}

const LISTS: { name: string; url: string; schema: z.ZodType; paths: ListPaths; message: string }[] = [
  { name: 'requests board', url: '/api/admin/demande/intervention/get/list', schema: pendingListQuerySchema, paths: BOARD_PATHS, message: REQUEST_MESSAGES.boardTooDeep },
  { name: 'requests history', url: '/api/admin/demande/intervention/get/all/by/filters', schema: historyQuerySchema, paths: HISTORY_PATHS, message: REQUEST_MESSAGES.historyTooDeep },
  { name: 'sites', url: '/api/admin/site/get/list/by/filters', schema: siteListPageQuerySchema, paths: SITE_LIST_PATHS, message: SITE_LIST_TOO_DEEP },
  { name: 'users', url: '/api/admin/user/get/list/by/filters', schema: userListQuerySchema, paths: USER_LIST_PATHS, message: USER_MESSAGES.listTooDeep },
];

describe('fast paths of the lists', () => {
  it.each(LISTS)('classifies every filter and sort of the $name list, and names nothing else', ({ schema, paths }) => {
    const { filters, sorts } = fieldsOf(schema);
    expect(filters.length).toBeGreaterThan(0);
    const fast = Object.values(paths.fast);
    for (const [kind, all] of [
      ['filters', filters],
      ['sorts', sorts],
    ] as const) {
      const inFast = new Set(fast.flatMap((p) => p[kind]));
      const plain = new Set(paths.plainOnly[kind]);
      expect(all.filter((x) => !inFast.has(x) && !plain.has(x)), `${kind} neither fast nor plain`).toEqual([]);
      expect(all.filter((x) => inFast.has(x) && plain.has(x)), `${kind} both fast and plain`).toEqual([]);
      expect([...inFast, ...plain].filter((x) => !all.includes(x)), `${kind} not in the schema`).toEqual([]);
    }
  });

  it.each(LISTS)('refuses a page of the $name list past the depth with its own message', ({ schema, message }) => {
    const ok = schema.safeParse({ page: String(LIST_DEPTH / 20 - 1), rowsPerPage: '20' });
    expect(ok.success).toBe(true);
    const refused = schema.safeParse({ page: String(LIST_DEPTH / 20), rowsPerPage: '20', filter: { bad: '1' } });
    expect(refused.error?.issues.map((i) => [i.path.join('.'), i.message])).toContainEqual(['page', message]);
    // Every error at once: the unknown filter is refused beside the page.
    expect(refused.error?.issues.map((i) => i.path.join('.'))).toContain('filter');
  });
});

const SEED = 20261127;

describe.each(TEST_DRIVERS)('lists: fast paths against the plain query (%s)', (driver) => {
  let ctx: Awaited<ReturnType<typeof createTestApp>>;
  let cookie: string;
  let siteIds: number[];
  const r = seededRandom(SEED);

  beforeAll(async () => {
    ctx = await createTestApp(driver);
    cookie = (await loggedAs(ctx, ['ROLE_ADMIN'])).cookie;
    // Sites whose names tie ('Abri' twice) or sort naturally ('École 2' before 'École 13').
    const sites: Awaited<ReturnType<typeof createEquippedSite>>[] = [];
    for (const nom of ['École 13', 'zz fond', 'Abri', 'École 2', 'Abri', 'Jardin']) sites.push(await createEquippedSite(ctx.db, { nom }));
    siteIds = sites.map((s) => s.id);
    // 400 requests: every status, four actions, due and creation dates sharing days and instants.
    const rows = Array.from({ length: 400 }, () => {
      const site = r.pick(sites);
      const statut = r.pick([3, 3, 4, 5, 6]);
      const created = new Date(Date.UTC(2025, r.int(12), 1 + r.int(28), r.pick([0, 12]), 0, 0, r.pick([0, 0, 1, 2])));
      return {
        site_id: site.id,
        site_composteur_id: r.chance(0.5) ? site.apport : site.broyat,
        statut_id: statut,
        type_action_programmee_id: r.pick([12, 14, 17, 3]),
        date_creation: created,
        date_echeance: new Date(Date.UTC(2026, r.int(3), 1 + r.int(5))),
        date_annulation: statut === 6 && r.chance(0.7) ? new Date(created.getTime() + r.int(3) * 86400_000) : null,
      };
    });
    await ctx.db.insertInto('demande_intervention').values(rows).execute();
    // 300 external users: names, organisations, phones and types that tie or are missing.
    await sql`INSERT INTO account (kind, email, nom, prenom, organisme, tel, type_user_id, actif, email_valide, created_at)
      SELECT 'user', 'u' || g || '@exemple.fr', 'Nom ' || (g % 13), CASE WHEN g % 5 = 0 THEN NULL ELSE 'Prénom ' || (g % 7) END,
        CASE WHEN g % 4 = 0 THEN NULL ELSE 'Association ' || (g % 6) END, CASE WHEN g % 3 = 0 THEN NULL ELSE '06' || lpad((g % 40)::text, 8, '0') END,
        CASE WHEN g % 6 = 0 THEN NULL ELSE 1 + g % 3 END, g % 2 = 0, g % 3 <> 0, timestamptz '2024-01-01 08:00:00+00' + (g / 20) * interval '9 days'
      FROM generate_series(1, 300) g`.execute(ctx.db);
  }, 120_000);
  afterAll(() => ctx?.close());

  /** A page somewhere in the list, its end and just past it included. */
  const pageOf = (rowsPerPage: number, rows: number) => ({ rowsPerPage: String(rowsPerPage), page: String(r.int(Math.ceil(rows / rowsPerPage) + 2)) });
  const direction = () => r.pick(['asc', 'desc']);

  it('gives the board the count and rows of the plain query, whatever the site, sort and page', async () => {
    const repo = createRequestsRepository(ctx.db);
    for (let i = 0; i < 60; i++) {
      const raw = { ...pageOf(r.pick([5, 10, 20]), 260), sort: { name: r.pick(['site', 'dateEcheance']), direction: direction() }, filter: r.chance(0.4) ? { site: String(r.pick(siteIds)) } : {}, search: r.chance(0.2) ? 'abri' : '' };
      const q = pendingListQuerySchema.parse(raw);
      const [fast, plain] = await Promise.all([repo.pendingList(q, { deepFrom: 0 }), repo.pendingList(q, { plain: true })]);
      expect({ count: fast.count, ids: fast.rows.map((x) => x.id) }, JSON.stringify(raw)).toEqual({ count: plain.count, ids: plain.rows.map((x) => x.id) });
    }
  });

  it('gives the history the count and rows of the plain query on random filters, searches, sorts and pages', async () => {
    const repo = createRequestsRepository(ctx.db);
    let nonEmpty = 0;
    for (let i = 0; i < 120; i++) {
      const filter: Record<string, string> = {};
      if (r.chance(0.3)) filter.site = String(r.pick(siteIds));
      if (r.chance(0.3)) filter.statut = String(r.pick([3, 4, 5, 6]));
      if (r.chance(0.3)) filter.actionProgrammee = String(r.pick([12, 14, 17, 3]));
      const raw = {
        ...pageOf(r.pick([5, 10, 20]), 400),
        sort: { name: r.pick(['dateCreation', 'actionProgrammee', 'dateEcheance', 'statut', 'dateAnnulation', 'site']), direction: direction() },
        filter,
        search: r.chance(0.3) ? r.pick(['abri', 'ab', 'école', 'attente', 'broyat', 'zzqx']) : '',
      };
      const q = historyQuerySchema.parse(raw);
      const [fast, plain] = await Promise.all([repo.history(q, { deepFrom: 0 }), repo.history(q, { plain: true })]);
      expect({ count: fast.count, ids: fast.rows.map((x) => x.id) }, JSON.stringify(raw)).toEqual({ count: plain.count, ids: plain.rows.map((x) => x.id) });
      if (plain.rows.length > 0) nonEmpty++;
    }
    expect(nonEmpty).toBeGreaterThan(40);
  });

  it('gives the users list the count and rows of the plain query on random filters, sorts and pages', async () => {
    const repo = createUsersRepository(ctx.db);
    const terms: Record<string, string[]> = {
      date: ['2024', '02/2024', '10/01/2024', '/03/'],
      organisme: ['association', 'as', 'ciation 3'],
      nom: ['nom 1', 'no', 'om 12'],
      prenom: ['prénom', 'pr', 'nom 4'],
      email: ['exemple', 'u1', '@exemple.fr'],
      tel: ['06', '06 00 00 00', '0000001'],
      type: ['particulier', 'organisme', 'presta'],
    };
    let nonEmpty = 0;
    for (let i = 0; i < 80; i++) {
      const filter: Record<string, string> = {};
      for (const [k, values] of Object.entries(terms)) if (r.chance(0.2)) filter[k] = r.pick(values);
      const raw = {
        ...pageOf(r.pick([5, 10, 20]), 300),
        sort: { name: r.pick(['date', 'organisme', 'nom', 'prenom', 'email', 'tel', 'type', 'actif', 'emailValide']), direction: direction() },
        filter,
        search: r.chance(0.3) ? r.pick(['asso', 'nom 3', 'u2', 'zzqx']) : '',
      };
      const q = userListQuerySchema.parse(raw);
      const [fast, plain] = await Promise.all([repo.list(q), repo.list(q, { plain: true })]);
      expect(fast, JSON.stringify(raw)).toEqual(plain);
      if (plain.users.length > 0) nonEmpty++;
    }
    expect(nonEmpty).toBeGreaterThan(20);
  });

  it.each(LISTS)('answers the deepest page of the $name list, and 400 with its message one page further', async ({ url, message }) => {
    const get = (page: number) => ctx.app.inject({ method: 'GET', url: `${url}?rowsPerPage=100&page=${page}`, headers: { cookie } });
    expect((await get(LIST_DEPTH / 100 - 1)).statusCode).toBe(200);
    const refused = await get(LIST_DEPTH / 100);
    expect(refused.statusCode).toBe(400);
    expect(refused.json()).toMatchObject({ status: 'error', errors: [{ key: 'page', error: message }] });
  });

  it('exports every site whatever page the table is on', async () => {
    const res = await ctx.app.inject({ method: 'GET', url: `/api/admin/site/export?rowsPerPage=100&page=${LIST_DEPTH / 100}`, headers: { cookie } });
    expect(res.statusCode).toBe(200);
  });
});
