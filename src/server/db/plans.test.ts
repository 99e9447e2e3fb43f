// Keeps the query plans honest: on PostgreSQL with 100 000 interventions, every
// list of the app is called through the API, each SQL statement it sends is captured with its
// parameters and EXPLAINed, and no plan may read the whole intervention log. The site and
// account tables are checked the way the sites and users tests do: with sequential scans
// priced out, a Seq Scan that remains means no index can serve the query. PostgreSQL only
// (PGlite has no planner statistics worth asserting on), like the other 100k tests.
import { CompiledQuery, sql, type KyselyPlugin, type QueryId, type RootOperationNode } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FastifyInstance } from 'fastify';
import { createAccount, login, openTestDatabase, TEST_CONFIG } from '../../../tests/helpers/test-app.js';
import { createApp } from '../app.js';
import { createMemoryMailer } from '../mailer.js';
import type { DatabaseHandle } from './client.js';
import { SITE_SORT_FIELDS } from '../../shared/schemas/sites.js';
import { INTERVENTION_SORT_FIELDS } from '../../shared/schemas/interventions-admin.js';

interface PlanNode {
  'Node Type': string;
  'Relation Name'?: string;
  'Index Name'?: string;
  Plans?: PlanNode[];
}

/** The indexes a plan reads. */
function indexesOf(node: PlanNode, out: string[] = []): string[] {
  if (node['Index Name']) out.push(node['Index Name']);
  for (const child of node.Plans ?? []) indexesOf(child, out);
  return out;
}

function seqScans(node: PlanNode, out: string[] = []): string[] {
  if (node['Node Type'] === 'Seq Scan' && node['Relation Name']) out.push(node['Relation Name']);
  for (const child of node.Plans ?? []) seqScans(child, out);
  return out;
}

describe.skipIf(!process.env.TEST_DATABASE_URL)('query plans at 100 000 interventions (postgres)', () => {
  let handle: DatabaseHandle;
  let app: FastifyInstance;
  let cookie: string;
  let busySite: number;
  let inactiveUser: number;
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
    // 2,000 sites of 5 cells, 5,000 accounts, 100,000 interventions over 3 years (a tenth on
    // twenty busy sites), a request for one intervention in eleven, 20,000 submissions.
    await sql`INSERT INTO account (kind, identifiant, email, type_user_id, organisme, nom, prenom, tel, email_valide, actif, created_at)
      SELECT CASE WHEN g % 10 = 0 THEN 'agent' ELSE 'user' END, CASE WHEN g % 10 = 0 THEN 'agent' || g END,
        'u' || g || '@exemple' || (g % 97) || '.fr', CASE WHEN g % 10 = 0 THEN NULL ELSE 1 + g % 3 END,
        CASE WHEN g % 3 = 1 THEN 'Mairie de ' || (ARRAY['Brest','Plougastel','Guipavas','Landerneau','Quimper'])[1 + g % 5] END,
        (ARRAY['LE GOFF','KERGUELEN','ÉLORN','MARTIN','LEBRETON','ZÉPHYR','GUÉGUEN','TANGUY'])[1 + g % 8] || ' ' || upper(substr(md5(g::text), 1, 5)),
        (ARRAY['Hélène','Yann','Gaëlle','Loïc','Anne','Paul','Zoé','Marc'])[1 + (g / 8) % 8],
        (ARRAY['06','07','02'])[1 + g % 3] || lpad((g * 7919 % 100000000)::text, 8, '0'), true, g % 7 <> 0, now() - (g || ' hours')::interval
      FROM generate_series(1, 5000) g`.execute(db);
    await sql`INSERT INTO account_role (account_id, role_id) SELECT id, CASE WHEN kind = 'agent' THEN 1 ELSE 8 END FROM account`.execute(db);
    await sql`INSERT INTO site (code, nom, ville, cp, adresse, numero, type_site_id, statut_id, date_implantation)
      SELECT 'QUA' || lpad(g::text, 5, '0'), (ARRAY['Jardin','Résidence','École','Square'])[1 + g % 4] || ' ' || substr(md5(g::text), 1, 6),
        (ARRAY['Brest','Guipavas','Plougastel'])[1 + g % 3], '29200', 'rue ' || substr(md5(g::text || 'r'), 1, 8), (g % 90)::text,
        1 + g % 4, CASE WHEN g % 50 = 0 THEN 2 ELSE 1 END, CASE WHEN g % 2 = 0 THEN now() - (g || ' days')::interval END
      FROM generate_series(1, 2000) g`.execute(db);
    await sql`INSERT INTO site_composteur (site_id, type_composteur_id, type_bac_id, numero)
      SELECT s.id, 1 + n % 4, CASE WHEN n = 1 THEN 2 WHEN n = 5 THEN 3 ELSE 1 END, n FROM site s, generate_series(1, 5) n`.execute(db);
    await sql`INSERT INTO intervention (date, site_id, site_composteur_id, type_action_id, valeur_nombre, bac_destination_id, intervenant_id)
      SELECT x.d, sc.site_id, sc.id, 1 + x.g % 19, CASE WHEN x.g % 3 = 0 THEN 50 END, CASE WHEN x.g % 19 = 2 THEN sc.id + 1 END, 1 + (x.g * 31) % 4999
      FROM (SELECT g, now() - ((g % 1095) || ' days')::interval - ((g % 1440) || ' minutes')::interval AS d,
              CASE WHEN g % 10 = 0 THEN (g / 10 % 20) * 100 + 1 ELSE 1 + (g * 7) % 2000 END AS sid, 1 + g % 4 AS n
            FROM generate_series(1, 100000) g) x
      JOIN site_composteur sc ON sc.site_id = x.sid AND sc.numero = x.n`.execute(db);
    await sql`INSERT INTO demande_intervention (site_id, site_composteur_id, statut_id, type_action_programmee_id, intervention_declenchante_id, date_echeance, programme_par_id)
      SELECT i.site_id, i.site_composteur_id, 3 + i.id % 4, 14, i.id, i.date + interval '14 days', CASE WHEN i.id % 4 = 0 THEN 10 END
      FROM intervention i WHERE i.id % 11 = 0`.execute(db);
    await sql`INSERT INTO intervention_submission (client_id, account_id, payload_hash, result)
      SELECT md5(g::text)::uuid, 1 + (g * 13) % 4999, 'h', '{}'::jsonb FROM generate_series(1, 20000) g`.execute(db);
    await sql`ANALYZE`.execute(db);
    busySite = 1001;
    inactiveUser = (await createAccount(db, { kind: 'user', actif: false })).id;
    app = await createApp({ db: db.withPlugin(capture), mailer: createMemoryMailer(), config: TEST_CONFIG });
    await app.ready();
    cookie = await login(app, (await createAccount(db, { roles: ['ROLE_ADMIN'] })).login);
  }, 120_000);
  afterAll(async () => {
    await app?.close();
    await handle?.close();
  });

  /** The plan of every statement one API call sends, as the names of the tables it reads whole. */
  async function scansOf(method: 'GET' | 'PUT', url: string, opts: { disableSeqScan?: boolean } = {}) {
    captured = [];
    const res = await app.inject({ method, url, headers: { cookie } });
    expect(res.statusCode, `${url}: ${res.body}`).toBeLessThan(500);
    const out: { sql: string; scans: string[]; indexes: string[] }[] = [];
    for (const { node, queryId } of captured) {
      const q = handle.db.getExecutor().compileQuery(node, queryId);
      if (!/^\s*(select|with|update|delete)\b/i.test(q.sql)) continue;
      const scans = await handle.db.transaction().execute(async (trx) => {
        if (opts.disableSeqScan) await sql`SET LOCAL enable_seqscan = off`.execute(trx);
        const res = await trx.executeQuery<{ 'QUERY PLAN': [{ Plan: PlanNode }] }>(CompiledQuery.raw(`EXPLAIN (FORMAT JSON) ${q.sql}`, [...q.parameters]));
        const plan = res.rows[0]['QUERY PLAN'][0].Plan;
        return { seq: seqScans(plan), indexes: indexesOf(plan) };
      });
      out.push({ sql: q.sql, scans: scans.seq, indexes: scans.indexes });
    }
    expect(out.length, `${url}: no statement captured`).toBeGreaterThan(0);
    return out;
  }

  /** No statement of the call reads any of `tables` whole. */
  async function expectNoSeqScan(url: string, tables: string[], opts: { method?: 'GET' | 'PUT'; disableSeqScan?: boolean } = {}) {
    for (const s of await scansOf(opts.method ?? 'GET', url, opts)) {
      for (const t of tables) expect(s.scans, `${url}\n${s.sql}`).not.toContain(t);
    }
  }

  it('lists the sites in every order and with every filter without reading the log or the whole site table', async () => {
    const base = '/api/admin/site/get/list/by/filters';
    for (const name of SITE_SORT_FIELDS) {
      for (const direction of ['asc', 'desc']) await expectNoSeqScan(`${base}?sort[name]=${name}&sort[direction]=${direction}&page=3`, ['intervention', 'site'], { disableSeqScan: true });
    }
    for (const q of ['search=jardin', 'search=j', 'search=ja', 'filter[nom]=ecole', 'filter[nom]=e', 'filter[adresse]=rue', 'filter[adresse]=1', 'filter[ville][]=Brest', 'filter[statut][]=2', 'filter[type]=quartier']) {
      await expectNoSeqScan(`${base}?${q}`, ['intervention', 'site'], { disableSeqScan: true });
    }
  });

  it('lists the users in every order, searched by one or two letters and filtered by phone start, from indexes', async () => {
    const base = '/api/admin/user/get/list/by/filters';
    for (const name of ['date', 'organisme', 'nom', 'prenom', 'email', 'tel', 'type', 'actif', 'emailValide']) {
      for (const direction of ['asc', 'desc']) await expectNoSeqScan(`${base}?sort[name]=${name}&sort[direction]=${direction}`, ['intervention', 'account'], { disableSeqScan: true });
    }
    for (const q of ['search=le', 'search=l', 'search=kerguelen', 'filter[nom]=ma', 'filter[tel]=06', 'filter[prenom]=z']) {
      await expectNoSeqScan(`${base}?${q}`, ['intervention', 'account'], { disableSeqScan: true });
    }
  });

  it('gives the cells of a site, with their has-interventions flag, without reading the log', async () => {
    await expectNoSeqScan(`/api/admin/siteComposteurs/get/by/site/${busySite}`, ['intervention']);
  });

  it('checks the history of a user being deleted through indexes', async () => {
    // The history check, then the delete itself with its foreign key checks.
    await expectNoSeqScan(`/api/admin/user/delete/${inactiveUser}`, ['intervention', 'intervention_submission', 'demande_intervention'], { method: 'PUT' });
  });

  it('finds the rows pointing at an account, an intervention or a request through an index, as deletes check them', async () => {
    // Every single-column foreign key to these tables: the check PostgreSQL runs on a delete.
    const fks = await sql<{ tbl: string; col: string }>`
      SELECT c.conrelid::regclass::text AS tbl, a.attname AS col
      FROM pg_constraint c JOIN pg_attribute a ON a.attrelid = c.conrelid AND a.attnum = c.conkey[1]
      WHERE c.contype = 'f' AND cardinality(c.conkey) = 1
        AND c.confrelid::regclass::text IN ('account', 'intervention', 'demande_intervention')`.execute(handle.db);
    expect(fks.rows.length).toBeGreaterThan(10);
    const scanned: string[] = [];
    for (const { tbl, col } of fks.rows) {
      const res = await handle.db.executeQuery<{ 'QUERY PLAN': [{ Plan: PlanNode }] }>(
        CompiledQuery.raw(`EXPLAIN (FORMAT JSON) SELECT 1 FROM ONLY ${tbl} x WHERE x.${col} = $1 FOR KEY SHARE OF x`, [1]),
      );
      const scans = seqScans(res.rows[0]['QUERY PLAN'][0].Plan);
      // Small tables (a few thousand rows at most) may be read whole; the big ones never.
      // (intervention_audit is empty here: its plan says nothing.)
      const big = ['intervention', 'intervention_submission', 'demande_intervention'];
      if (scans.some((t) => big.includes(t))) scanned.push(`${tbl}.${col}`);
    }
    expect(scanned).toEqual([]);
  });

  // The two interventions lists belong to the interventions administration (migration 008 and
  // interventions-admin.repository.ts): their statements are checked the same way.
  it('pages the global interventions list in every order and with its filters without reading the whole log', async () => {
    const base = '/api/admin/intervention/get/list/by/filters';
    for (const name of INTERVENTION_SORT_FIELDS) {
      for (const direction of ['asc', 'desc']) await expectNoSeqScan(`${base}?sort[name]=${name}&sort[direction]=${direction}`, ['intervention']);
    }
    for (const q of ['filter[date]=25/12/2025', 'filter[action]=3', `filter[site]=${busySite}`, 'page=200']) await expectNoSeqScan(`${base}?${q}`, ['intervention']);
  });

  it('gathers the matches of a narrow search first, even a term found nowhere, instead of walking the log in date order', async () => {
    for (const term of ['zzqx', 'charniere']) {
      for (const st of await scansOf('GET', `/api/admin/intervention/get/list/by/filters?search=${term}`)) {
        expect(st.scans, st.sql).not.toContain('intervention');
        expect(st.indexes, st.sql).not.toContain('intervention_list_date');
      }
    }
  });

  it("pages one site's interventions, for the administrators and on the public page, without reading the whole log", async () => {
    for (const direction of ['asc', 'desc']) {
      await expectNoSeqScan(`/api/admin/intervention/get/list/by/filters?id=${busySite}&sort[name]=date&sort[direction]=${direction}`, ['intervention']);
      await expectNoSeqScan(`/api/intervention/get/list/by/site/${busySite}?sort[name]=date&sort[direction]=${direction}`, ['intervention']);
    }
    await expectNoSeqScan(`/api/admin/intervention/get/list/by/filters?id=${busySite}&filter[action]=6`, ['intervention']);
    // By cell number: the site's own rows in that order, never the log's number index checked
    // row by row for the site (which the planner may pick from its statistics alone).
    for (const direction of ['asc', 'desc']) {
      for (const url of [`/api/admin/intervention/get/list/by/filters?id=${busySite}`, `/api/intervention/get/list/by/site/${busySite}?`]) {
        const walks = (await scansOf('GET', `${url}&sort[name]=numeroBac&sort[direction]=${direction}`)).filter((st) => /ORDER BY i\.numero_bac/.test(st.sql));
        expect(walks.length, url).toBe(1);
        expect(walks[0].indexes, `${url}\n${walks[0].sql}`).toContain('intervention_list_site_numero_bac');
      }
    }
    await expectNoSeqScan(`/api/intervention/get/list/by/site/${busySite}?filter[typeBac]=1&page=5`, ['intervention']);
  });
});

