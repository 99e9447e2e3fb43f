// The requests history scales with the page, not with the history: on PostgreSQL with 100,000
// requests, each allowed sort in both directions (and the board, and a search) is called
// through the API, every statement it sends is captured and run under EXPLAIN ANALYZE, and no
// statement but the count may read more than a few pages' worth of requests. A sort the
// indexes cannot serve reads and sorts them all (an external merge at 87,000 requests).
// PostgreSQL only, like the other 100k tests: PGlite has no planner statistics worth asserting on.
import { CompiledQuery, sql, type KyselyPlugin, type QueryId, type RootOperationNode } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FastifyInstance } from 'fastify';
import { createAccount, login, openTestDatabase, TEST_CONFIG } from '../../../../tests/helpers/test-app.js';
import { createApp } from '../../app.js';
import { createMemoryMailer } from '../../mailer.js';
import type { DatabaseHandle } from '../../db/client.js';
import { LIST_DEPTH } from '../../../shared/schemas/list-depth.js';

interface PlanNode {
  'Node Type': string;
  'Relation Name'?: string;
  'Actual Rows'?: number;
  'Actual Loops'?: number;
  Plans?: PlanNode[];
}

/** Rows the plan read from demande_intervention (index or table), over every loop. */
function requestRowsRead(node: PlanNode): number {
  const own = node['Relation Name'] === 'demande_intervention' ? (node['Actual Rows'] ?? 0) * (node['Actual Loops'] ?? 1) : 0;
  return own + (node.Plans ?? []).reduce((n, child) => n + requestRowsRead(child), 0);
}

const HISTORY = '/api/admin/demande/intervention/get/all/by/filters';
const SORTS = ['dateCreation', 'actionProgrammee', 'dateEcheance', 'statut', 'dateAnnulation', 'site'];

describe.skipIf(!process.env.TEST_DATABASE_URL)('requests history plans at 100 000 requests (postgres)', () => {
  let handle: DatabaseHandle;
  let app: FastifyInstance;
  let cookie: string;
  let captured: { node: RootOperationNode; queryId: QueryId }[] = [];
  const capture: KyselyPlugin = {
    transformQuery(args) {
      captured.push(args);
      return args.node;
    },
    transformResult: async (args) => args.result,
  };

  beforeAll(async () => {
    handle = await openTestDatabase('postgres');
    const db = handle.db;
    // 2,000 sites of 5 cells, 100,000 requests over three years: a third cancelled (with the
    // date and who), half processed, the rest pending, four scheduled actions.
    const agent = await createAccount(db, { roles: ['ROLE_ADMIN'] });
    await sql`INSERT INTO site (code, nom, ville, cp, adresse, numero, type_site_id, statut_id)
      SELECT 'QUA' || lpad(g::text, 5, '0'), (ARRAY['Jardin','Résidence','École','Square'])[1 + g % 4] || ' ' || substr(md5(g::text), 1, 6),
        'Brest', '29200', 'rue ' || substr(md5(g::text || 'r'), 1, 8), (g % 90)::text, 1 + g % 4, 1
      FROM generate_series(1, 2000) g`.execute(db);
    await sql`INSERT INTO site_composteur (site_id, type_composteur_id, type_bac_id, numero)
      SELECT s.id, 1, CASE WHEN n = 1 THEN 2 WHEN n = 5 THEN 3 ELSE 1 END, n FROM site s, generate_series(1, 5) n`.execute(db);
    await sql`INSERT INTO demande_intervention (site_id, site_composteur_id, statut_id, type_action_programmee_id, date_creation, date_echeance,
        date_annulation, annulee_par_id)
      SELECT sc.site_id, sc.id, x.statut, (ARRAY[14, 3, 12, 17])[1 + x.g % 4], x.created, x.created + ((7 + x.g % 24) || ' days')::interval,
        CASE WHEN x.statut = 6 THEN x.created + interval '3 days' END, CASE WHEN x.statut = 6 THEN ${agent.id}::int END
      FROM (SELECT g, CASE WHEN g % 3 = 0 THEN 6 WHEN g % 2 = 0 THEN 5 WHEN g % 7 = 0 THEN 4 ELSE 3 END AS statut,
              now() - ((g % 1095) || ' days')::interval - ((g % 1440) || ' minutes')::interval AS created
            FROM generate_series(1, 100000) g) x
      JOIN site_composteur sc ON sc.site_id = 1 + (x.g * 7) % 2000 AND sc.numero = 1 + x.g % 5`.execute(db);
    await sql`ANALYZE`.execute(db);
    app = await createApp({ db: db.withPlugin(capture), mailer: createMemoryMailer(), config: TEST_CONFIG });
    await app.ready();
    cookie = await login(app, agent.login);
  }, 180_000);
  afterAll(async () => {
    await app?.close();
    await handle?.close();
  });

  /** Requests read by each statement of one call (the count aside), with its SQL. */
  async function readsOf(url: string) {
    captured = [];
    const res = await app.inject({ method: 'GET', url, headers: { cookie } });
    expect(res.statusCode, `${url}: ${res.body}`).toBe(200);
    const out: { sql: string; rows: number }[] = [];
    for (const { node, queryId } of captured) {
      const q = handle.db.getExecutor().compileQuery(node, queryId);
      if (!/^\s*select\b/i.test(q.sql) || /^\s*select count\(\*\)/i.test(q.sql)) continue;
      const plan = await handle.db.executeQuery<{ 'QUERY PLAN': [{ Plan: PlanNode }] }>(CompiledQuery.raw(`EXPLAIN (ANALYZE, FORMAT JSON) ${q.sql}`, [...q.parameters]));
      out.push({ sql: q.sql, rows: requestRowsRead(plan.rows[0]['QUERY PLAN'][0].Plan) });
    }
    expect(out.length, `${url}: no statement captured`).toBeGreaterThan(0);
    return { out, body: res.json() as { count: number; demandesInterventions: unknown[] } };
  }

  it('pages the history in every allowed order reading a page of requests, not the history', async () => {
    for (const name of SORTS) {
      for (const direction of ['asc', 'desc']) {
        const { out, body } = await readsOf(`${HISTORY}?sort[name]=${name}&sort[direction]=${direction}`);
        expect(body.count).toBe(100_000);
        expect(body.demandesInterventions).toHaveLength(20);
        // A page is 20; a walk by site or action reads up to a page from each group it opens.
        for (const s of out) expect(s.rows, `${name} ${direction}\n${s.sql}`).toBeLessThanOrEqual(200);
      }
    }
  });

  it('pages the board reading a page of requests on its first page, and at most the depth of the list on its deepest', async () => {
    const board = '/api/admin/demande/intervention/get/list';
    const { body } = await readsOf(board);
    expect(body.count).toBeGreaterThan(LIST_DEPTH);
    const deepest = LIST_DEPTH / 20 - 1;
    for (const name of ['site', 'dateEcheance']) {
      for (const direction of ['asc', 'desc']) {
        for (const page of [0, deepest]) {
          const { out, body: answer } = await readsOf(`${board}?sort[name]=${name}&sort[direction]=${direction}&page=${page}`);
          expect(answer.demandesInterventions).toHaveLength(20);
          // A deep page is a plain walk of the index up to its depth (plus the sites it joins, a
          // few hundred here), never the whole board.
          for (const s of out) expect(s.rows, `${name} ${direction} page ${page}\n${s.sql}`).toBeLessThanOrEqual(page === 0 ? 200 : LIST_DEPTH * 1.05);
        }
      }
    }
  });

  it('keeps the status filter on the sorts that lead with the status or the cancellation date', async () => {
    for (const q of ['sort[name]=dateAnnulation&sort[direction]=desc&filter[statut]=6', 'sort[name]=statut&sort[direction]=asc&filter[statut]=5']) {
      const { out } = await readsOf(`${HISTORY}?${q}`);
      for (const s of out) expect(s.rows, `${q}\n${s.sql}`).toBeLessThanOrEqual(200);
    }
  });
});
