// The dataset bench (npm run bench -- --dataset 1m|100k [--only <pattern>]):
//  1. builds or reuses the dataset (bench/dataset.ts) and applies the app's newer migrations;
//  2. times every route variant of bench/routes.ts through HTTP against a server in a child
//     process (bench/server-child.ts), next to the bare SQL the app issued for that request,
//     replayed on a separate connection: p50/p95 of both, the ratio, the targets;
//  3. load: a bare Fastify route, /api/app/info/get and /api/logged under autocannon
//     (20 connections), and intervention submissions with fresh client ids (10 and 50
//     connections, 20 s each; stored == acknowledged), against `src/server/start.ts` in a child
//     process; the server's RSS idle and after; single-row inserts into the log with and without
//     its triggers ('inserts', rolled back);
//  4. the whole-log interventions export through the API next to the floor of COPY (...) TO
//     STDOUT WITH (FORMAT csv) over the log in the same order, with the server's RSS peak
//     meanwhile ('whole-log export'; bench/export-bench.ts);
//  5. at 100k: the embedded PGlite figures (start time to first answer, RSS, list p95); at both
//     sizes, how long /api/health and /api/logged wait on PGlite 100k while an export or the
//     slowest list runs ('pglite head-of-line'), with PGlite on the server's main thread and in a
//     worker thread (PGLITE_WORKER=1), in alternating rounds, and the export's duration in each.
// Writes bench/results/<dataset>-<timestamp>.json. Target misses are reported, never fatal.
import { spawn, type ChildProcess } from 'node:child_process';
import { startCommand } from './start-command.js';
import crypto from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';
import pg from 'pg';
import {
  BENCH_ADMIN_LOGIN,
  BENCH_PASSWORD,
  BENCH_PROVIDER_EMAIL,
  preparePgDataset,
  preparePgliteDataset,
  type DatasetInfo,
  type DatasetName,
} from './dataset.js';
import { PAGE_MAX, toQueryString } from '../src/shared/schemas/list.js';
import { LIST_DEPTH } from '../src/shared/schemas/list-depth.js';
import { POSTGRES_SESSION_OPTIONS } from '../src/server/db/client.js';
import { PGLITE_ROUTES, ROUTES, type BenchContext, type Persona, type RouteVariant } from './routes.js';
import { exportOnce, headOfLine, quantiles, requestOnce, wholeLogExport } from './export-bench.js';
import type { CapturedQuery } from './server-child.js';
import { preparedStatementName } from '../src/server/db/plan-once.js';

const here = path.dirname(fileURLToPath(import.meta.url));
const root = path.resolve(here, '..');

export interface MeasureOptions {
  dataset: DatasetName;
  only?: RegExp;
  rebuild?: boolean;
  runs: number;
  warmup: number;
  /** Time cap per variant (API), in ms: a slow route is reported on fewer runs. */
  capMs: number;
}

interface Stats {
  n: number;
  p50: number;
  p95: number;
  mean: number;
  max: number;
}

export interface RouteResult {
  name: string;
  path: string;
  as: Persona;
  status: number | 'absent' | 'error';
  message?: string;
  bytes?: number;
  count?: number;
  api?: Stats;
  bare?: Stats & { statements: number };
  /** The statements the app issued for one request (replayed for the bare figures). */
  sql?: { sql: string; parameters: unknown[]; ms: number }[];
  ratio?: number;
  target: number;
  p95Ok?: boolean;
  ratioOk?: boolean;
  /** Page 1 or the last page of a list in one order (RouteVariant.pageEnd). */
  pageEnd?: boolean;
}

const NOT_FOUND_ROUTE = 'Ressource introuvable.';
/** Page 1 and the last page of a list, in any order, at 1,000,000 interventions on PostgreSQL (p95, ms). */
const PAGE_END_GOAL_MS = 10;

function stats(times: number[]): Stats {
  const s = [...times].sort((a, b) => a - b);
  const pick = (q: number) => s[Math.max(0, Math.ceil(q * s.length) - 1)];
  const r = (x: number) => Math.round(x * 100) / 100;
  return { n: s.length, p50: r(pick(0.5)), p95: r(pick(0.95)), mean: r(s.reduce((a, b) => a + b, 0) / s.length), max: r(s[s.length - 1]) };
}

// ---------------------------------------------------------------------------------------------
// HTTP: one keep-alive socket, the whole body read (CSV streams included).

const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });

interface HttpAnswer {
  status: number;
  body: Buffer;
  headers: http.IncomingHttpHeaders;
}

function request(base: string, pathAndQuery: string, opts: { method?: string; cookie?: string; body?: unknown } = {}): Promise<HttpAnswer> {
  const url = new URL(pathAndQuery, base);
  const payload = opts.body === undefined ? undefined : Buffer.from(JSON.stringify(opts.body));
  return new Promise((resolve, reject) => {
    const req = http.request(
      url,
      {
        method: opts.method ?? 'GET',
        agent,
        headers: {
          ...(opts.cookie ? { cookie: opts.cookie } : {}),
          ...(payload ? { 'content-type': 'application/json', 'content-length': payload.length } : {}),
        },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks), headers: res.headers }));
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(payload);
  });
}

async function login(base: string, username: string): Promise<string> {
  const r = await request(base, '/api/login', { method: 'POST', body: { username, password: BENCH_PASSWORD } });
  if (r.status !== 200) throw new Error(`login ${username}: ${r.status} ${r.body.toString()}`);
  const set = r.headers['set-cookie'] ?? [];
  return set.map((c) => c.split(';')[0]).join('; ');
}

// ---------------------------------------------------------------------------------------------
// Child processes.

interface Child {
  proc: ChildProcess;
  url: string;
  startMs: number;
  call<T>(msg: Record<string, unknown>): Promise<T>;
  stop(): Promise<void>;
}

// Servers start as `npm start` starts them: its environment (malloc arenas) and node flags.
const start = startCommand();
const tsxArgs = (file: string) => [...start.nodeArgs, file];

function rssOf(pid: number | undefined): number | null {
  if (!pid) return null;
  try {
    const m = /VmRSS:\s+(\d+) kB/.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m ? Math.round(Number(m[1]) / 1024) : null;
  } catch {
    return null;
  }
}

function stopProcess(proc: ChildProcess): Promise<void> {
  return new Promise((resolve) => {
    if (proc.exitCode !== null || proc.signalCode !== null) return resolve();
    const timer = setTimeout(() => proc.kill('SIGKILL'), 15_000);
    proc.once('exit', () => {
      clearTimeout(timer);
      resolve();
    });
    proc.kill('SIGTERM');
  });
}

/** bench/server-child.ts over DATABASE_URL or DATA_DIR. */
async function startBenchServer(env: Record<string, string>): Promise<Child> {
  const proc = spawn(process.execPath, tsxArgs(path.join(here, 'server-child.ts')), {
    cwd: root,
    // No daily backup nor alerts run: at start each would catch up the missed one, whole-table reads beside the timings.
    env: { ...process.env, ...start.env, PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'warn', DEMO_DATA: '', BACKUP_AT: 'off', ALERTS_AT: 'off', ...env },
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    serialization: 'advanced',
  });
  let next = 1;
  const pending = new Map<number, (m: Record<string, unknown>) => void>();
  const ready = new Promise<{ url: string; startMs: number }>((resolve, reject) => {
    proc.on('message', (m: Record<string, unknown>) => {
      if (m.ready) resolve(m as { url: string; startMs: number });
      else pending.get(m.id as number)?.(m);
    });
    proc.once('exit', (code) => reject(new Error(`bench server exited (${code})`)));
  });
  const { url, startMs } = await ready;
  return {
    proc,
    url,
    startMs,
    call<T>(msg: Record<string, unknown>) {
      const id = next++;
      return new Promise<T>((resolve, reject) => {
        pending.set(id, (m) => {
          pending.delete(id);
          if (m.error) reject(new Error(String(m.error)));
          else resolve(m as T);
        });
        proc.send({ ...msg, id });
      });
    },
    stop: () => stopProcess(proc),
  };
}

/** The production entry point, `src/server/start.ts`, as `npm start` runs it (no web build). */
async function startAppServer(env: Record<string, string>): Promise<{ proc: ChildProcess; url: string; readyMs: number }> {
  const port = 20000 + Math.floor(Math.random() * 20000);
  const t0 = performance.now();
  const proc = spawn(process.execPath, tsxArgs(path.join(root, 'src/server/start.ts')), {
    cwd: root,
    env: { ...process.env, ...start.env, SKIP_BUILD: '1', PORT: String(port), HOST: '127.0.0.1', LOG_LEVEL: 'warn', DEMO_DATA: '', BACKUP_AT: 'off', ALERTS_AT: 'off', ...env },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  proc.stdout!.resume();
  const url = `http://127.0.0.1:${port}`;
  // Time to the first answer of the public route, as a user would see it.
  for (;;) {
    if (proc.exitCode !== null) throw new Error(`server exited (${proc.exitCode})`);
    try {
      const r = await request(url, '/api/app/info/get');
      if (r.status === 200) break;
    } catch {
      /* not listening yet */
    }
    await new Promise((r) => setTimeout(r, 25));
  }
  return { proc, url, readyMs: performance.now() - t0 };
}

async function startBareFastify(): Promise<{ proc: ChildProcess; url: string }> {
  const proc = spawn(process.execPath, tsxArgs(path.join(here, 'bare-fastify.ts')), { cwd: root, stdio: ['ignore', 'pipe', 'inherit'] });
  const url = await new Promise<string>((resolve, reject) => {
    let out = '';
    proc.stdout!.on('data', (c: Buffer) => {
      out += c.toString();
      const m = /listening (\S+)/.exec(out);
      if (m) resolve(m[1]);
    });
    proc.once('exit', (code) => reject(new Error(`bare fastify exited (${code})`)));
  });
  return { proc, url };
}

// ---------------------------------------------------------------------------------------------
// Context: the ids the variants point at.

type RowsOf = (text: string, values?: unknown[]) => Promise<unknown[]>;

async function benchContext(rowsOf: RowsOf, info: DatasetInfo): Promise<BenchContext> {
  const one = async <T>(text: string, values: unknown[] = []) => (await rowsOf(text, values))[0] as T;
  const city = await one<{ ville: string }>(`SELECT ville FROM site GROUP BY ville ORDER BY count(*) DESC LIMIT 1`);
  const street = await one<{ code_insee: string } | undefined>(`SELECT code_insee FROM rue GROUP BY 1 ORDER BY count(*) DESC LIMIT 1`);
  const cell = async (site: number) =>
    (await one<{ id: number }>(`SELECT id FROM site_composteur WHERE site_id = $1 AND actif ORDER BY numero LIMIT 1 OFFSET 1`, [site])).id;
  const referent = await one<{ account_id: number }>(`SELECT account_id FROM site_referent WHERE site_id = $1 ORDER BY account_id LIMIT 1`, [info.busiestSiteId]);
  const demandeur = await one<{ id: number | null }>(`SELECT min(demandeur_id) AS id FROM site`);
  const intervention = await one<{ id: number }>(`SELECT id FROM intervention WHERE site_id = $1 ORDER BY id DESC LIMIT 1`, [info.busiestSiteId]);
  return {
    year: info.busiestYear,
    busiestSite: info.busiestSiteId,
    typicalSite: info.typicalSiteId,
    providerId: info.providerId,
    city: city.ville,
    streetCity: street?.code_insee ?? '29019',
    busyCell: await cell(info.busiestSiteId),
    typicalCell: await cell(info.typicalSiteId),
    referentId: referent.account_id,
    demandeurId: demandeur.id ?? 1,
    interventionId: intervention.id,
  };
}

// ---------------------------------------------------------------------------------------------
// Route variants.

interface Sessions {
  admin: string;
  provider: string;
  referent: string;
  anonymous: string;
}

function firstArray(json: unknown): unknown[] | null {
  if (Array.isArray(json)) return json;
  if (json && typeof json === 'object') for (const v of Object.values(json)) if (Array.isArray(v)) return v;
  return null;
}

async function benchRoute(
  v: RouteVariant,
  ctx: BenchContext,
  server: Child,
  sessions: Sessions,
  bareRunner: (statements: CapturedQuery[], runs: number) => Promise<number[]>,
  opts: MeasureOptions,
): Promise<RouteResult> {
  const as = v.as ?? 'admin';
  const cookie = sessions[as];
  let p = v.path(ctx);
  const target = v.target ?? 50;
  const result: RouteResult = { name: v.name, path: p, as, status: 'error', target, ...(v.pageEnd ? { pageEnd: true } : {}) };
  const get = () => request(server.url, p, { cookie });

  try {
    let first = await get();
    if (first.status === 404 && first.body.toString().includes(NOT_FOUND_ROUTE)) {
      result.status = 'absent';
      return result;
    }
    if (v.lastPage && first.status === 200) {
      const json = JSON.parse(first.body.toString()) as { count?: number };
      const rows = firstArray(json)?.length ?? 0;
      // Without rowsPerPage in the query, a full first page has the list's default size.
      const rpp = Number(new URL(p, server.url).searchParams.get('rowsPerPage')) || Math.max(rows, 1);
      // Past LIST_DEPTH rows (and PAGE_MAX) the list answers 400 by design: the deepest page a client can ask.
      const last = Math.min(PAGE_MAX, Math.floor(LIST_DEPTH / rpp) - 1, Math.max(0, Math.ceil((json.count ?? 0) / rpp) - 1));
      const u = new URL(p, server.url);
      u.searchParams.set('page', String(last));
      p = `${u.pathname}${u.search}`;
      result.path = p;
      first = await get();
    }
    result.status = first.status;
    result.bytes = first.body.length;
    if (first.status !== 200) {
      result.message = first.body.toString().slice(0, 200);
      return result;
    }
    if (v.kind !== 'csv') {
      const json = JSON.parse(first.body.toString()) as { count?: number };
      if (typeof json.count === 'number') result.count = json.count;
    }

    for (let i = 1; i < opts.warmup; i++) await get();
    // The statements of one request, as the app issued them.
    await server.call({ cmd: 'capture', on: true });
    await get();
    const { queries } = await server.call<{ queries: CapturedQuery[] }>({ cmd: 'take' });
    await server.call({ cmd: 'capture', on: false });

    const runs = Math.min(opts.runs, v.maxRuns ?? Infinity);
    const times: number[] = [];
    const start = performance.now();
    for (let i = 0; i < runs; i++) {
      const t = performance.now();
      const r = await get();
      times.push(performance.now() - t);
      if (r.status !== 200) throw new Error(`status ${r.status} on run ${i}`);
      if (performance.now() - start > opts.capMs && times.length >= 5) break;
    }
    result.api = stats(times);
    result.sql = queries.map((x) => ({ sql: x.sql.slice(0, 4000), parameters: x.parameters, ms: Math.round(x.ms * 100) / 100 }));
    if (queries.length > 0) {
      const bareTimes = await bareRunner(queries, Math.min(opts.runs, v.maxRuns ?? Infinity));
      result.bare = { ...stats(bareTimes), statements: queries.length };
      result.ratio = Math.round((result.api.p95 / result.bare.p95) * 100) / 100;
      result.ratioOk = result.api.p95 <= 3 * result.bare.p95 + 5;
    }
    result.p95Ok = result.api.p95 <= target;
  } catch (e) {
    result.status = 'error';
    result.message = (e as Error).message;
  }
  return result;
}

/** The statements replayed on a separate PostgreSQL connection, in order, `runs` times. */
function pgBareRunner(client: pg.Client, capMs: number) {
  return async (statements: CapturedQuery[], runs: number) => {
    const times: number[] = [];
    const start = performance.now();
    for (let i = 0; i < runs; i++) {
      const t = performance.now();
      // A statement the app plans once (plan-once.ts) is a named prepared statement here too.
      for (const s of statements) await client.query({ text: s.sql, values: s.parameters, name: preparedStatementName(s.sql) });
      times.push(performance.now() - t);
      if (performance.now() - start > capMs && times.length >= 5) break;
    }
    return times;
  };
}

// ---------------------------------------------------------------------------------------------
// Output.

const fmt = (x: number | undefined) => (x === undefined ? '-' : x >= 100 ? x.toFixed(0) : x.toFixed(1));

export function printRoutes(rows: RouteResult[]) {
  console.log(
    `\n      ${'route variant'.padEnd(58)} ${'status'.padEnd(6)} ${'API p50'.padStart(8)} ${'p95'.padStart(8)} ${'bare p50'.padStart(9)} ${'p95'.padStart(8)} ${'ratio'.padStart(6)} ${'n'.padStart(3)} targets`,
  );
  for (const r of rows) {
    const flags =
      r.status === 'absent'
        ? 'absent'
        : r.status !== 200
          ? `${r.message ?? ''}`.slice(0, 60)
          : [r.p95Ok ? 'ok' : `p95>${r.target}`, r.ratioOk === undefined ? '' : r.ratioOk ? '' : '>3x+5'].filter(Boolean).join(' ');
    console.log(
      `      ${r.name.slice(0, 58).padEnd(58)} ${String(r.status).padEnd(6)} ${fmt(r.api?.p50).padStart(8)} ${fmt(r.api?.p95).padStart(8)} ${fmt(r.bare?.p50).padStart(9)} ${fmt(r.bare?.p95).padStart(8)} ${(r.ratio === undefined ? '-' : r.ratio.toFixed(1)).padStart(6)} ${String(r.api?.n ?? '-').padStart(3)} ${flags}`,
    );
  }
}

// ---------------------------------------------------------------------------------------------
// Load (autocannon) and submissions.

interface LoadResult {
  name: string;
  reqPerSec: number;
  p50: number;
  p90: number;
  p99: number;
  errors: number;
  non2xx: number;
  ratioToBare?: number;
  target?: number;
  ok?: boolean;
}

async function cannon(name: string, url: string, opts: { cookie?: string; duration: number; connections: number }): Promise<LoadResult> {
  const r = await autocannon({ url, connections: opts.connections, duration: opts.duration, headers: opts.cookie ? { cookie: opts.cookie } : {} });
  return { name, reqPerSec: Math.round(r.requests.average), p50: r.latency.p50, p90: r.latency.p90, p99: r.latency.p99, errors: r.errors, non2xx: r.non2xx };
}

interface SubmissionResult {
  seconds: number;
  connections: number;
  /** Accounts the entries came from. */
  accounts: number;
  sent: number;
  acknowledged: number;
  refused: number;
  reqPerSec: number;
  p50: number;
  p95: number;
  storedForRun: number;
  acknowledgedStored: number;
  lost: number;
  doubled: number;
  target: number;
  ok: boolean;
}

/** Field submissions acknowledged per second, at 10 and at 50 connections, none lost or doubled. */
const SUBMISSIONS_TARGET = 400;

/**
 * What the bench's own writes leave behind, cleared as autovacuum would on a live database: the
 * submissions delete what they added, and the insert rounds roll back, leaving dead row versions
 * in the log and in its small summary tables (the same few summary rows are rewritten by every
 * entry). A PostgreSQL server with autovacuum off (a test server may run so) would otherwise keep
 * them from one run to the next, and every later figure would pay for them: on such a server,
 * after one full bench run, intervention_count held 369,000 dead versions for 38,700 live rows.
 */
async function vacuumChurned(client: pg.Client) {
  await client.query(
    'VACUUM intervention, intervention_submission, intervention_count, intervention_stats_mois, intervention_stats_mois_reseau, intervention_stats_site_mois, site_composteur',
  );
}

/**
 * `cookies`: the sessions the connections send with, one each in turn. One cookie: every entry
 * comes from one account; one per connection: each connection is a person with a phone.
 */
async function submissions(url: string, cookies: string[], client: pg.Client, seconds: number, connections: number): Promise<SubmissionResult> {
  // Active sites with an input and a maturation cell: entries go round them.
  const sites = (
    await client.query<{ site: number; apport: number; maturation: number }>(`
      SELECT s.id AS site,
             (SELECT id FROM site_composteur WHERE site_id = s.id AND actif AND type_bac_id = 1 ORDER BY numero LIMIT 1) AS apport,
             (SELECT id FROM site_composteur WHERE site_id = s.id AND actif AND type_bac_id = 3 ORDER BY numero LIMIT 1) AS maturation
      FROM site s WHERE s.statut_id = 1 ORDER BY s.id LIMIT 50`)
  ).rows.filter((r) => r.apport && r.maturation);
  // Client ids of this run share their first 8 hex digits (still valid v4 UUIDs).
  const tag = crypto.randomBytes(4).toString('hex');
  const ackIds: number[] = [];
  const latencies: number[] = [];
  let sent = 0;
  let acknowledged = 0;
  let refused = 0;
  let connectionsSeen = 0;
  await autocannon({
    url: `${url}/api/admin/intervention/add`,
    connections,
    duration: seconds,
    requests: [
      {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        setupRequest: (req: Record<string, unknown>, context: Record<string, unknown>) => {
          // The context lives as long as its connection: its account is chosen once.
          context.cookie ??= cookies[connectionsSeen++ % cookies.length];
          const s = sites[sent % sites.length];
          sent++;
          const clientId = tag + crypto.randomUUID().slice(8);
          context.start = performance.now();
          return {
            ...req,
            headers: { ...(req.headers as Record<string, string>), cookie: context.cookie as string },
            body: JSON.stringify({
              clientId,
              site: s.site,
              date: new Date(Date.now() - Math.floor(Math.random() * 3600_000)).toISOString(),
              values: [
                { composteur: s.apport, action: 1, valeur: null, bacDestination: null, observations: null, demandeIntervention: null },
                { composteur: s.maturation, action: 6, valeur: 40 + (sent % 30) / 2, bacDestination: null, observations: 'banc d’essai', demandeIntervention: null },
              ],
            }),
          };
        },
        onResponse: (status: number, body: string, context: Record<string, unknown>) => {
          latencies.push(performance.now() - (context.start as number));
          if (status === 200) {
            acknowledged++;
            ackIds.push(...(JSON.parse(body) as { interventions: number[] }).interventions);
          } else refused++;
        },
      },
    ],
  });
  const like = `${tag}%`;
  const countStored = async () => (await client.query<{ n: number }>(`SELECT count(*)::int AS n FROM intervention_submission WHERE client_id::text LIKE $1`, [like])).rows[0].n;
  // The requests still in flight when the run ended are stored after it: wait until the count holds.
  let stored = await countStored();
  for (let previous = -1; stored !== previous; ) {
    previous = stored;
    await new Promise((r) => setTimeout(r, 300));
    stored = await countStored();
  }
  const rows = (
    await client.query<{ n: number; d: number }>(`SELECT count(*)::int AS n, count(DISTINCT id)::int AS d FROM intervention WHERE id = ANY($1::int[])`, [ackIds])
  ).rows[0];
  const perClient = (
    await client.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM (SELECT client_id FROM intervention WHERE client_id::text LIKE $1 GROUP BY 1 HAVING count(*) <> 2) x`,
      [like],
    )
  ).rows[0].n;
  // The bench leaves the dataset as it found it.
  await client.query(`DELETE FROM intervention WHERE client_id::text LIKE $1`, [like]);
  await client.query(`DELETE FROM intervention_submission WHERE client_id::text LIKE $1`, [like]);
  await vacuumChurned(client);
  const st = stats(latencies.length ? latencies : [0]);
  const lost = ackIds.length - rows.d;
  const res: SubmissionResult = {
    seconds,
    connections,
    accounts: Math.min(cookies.length, connections),
    sent,
    acknowledged,
    refused,
    reqPerSec: Math.round(acknowledged / seconds),
    p50: st.p50,
    p95: st.p95,
    storedForRun: stored,
    acknowledgedStored: rows.d / 2,
    lost,
    doubled: perClient,
    target: SUBMISSIONS_TARGET,
    ok: false,
  };
  res.ok = res.reqPerSec >= SUBMISSIONS_TARGET && lost === 0 && perClient === 0 && refused === 0;
  return res;
}

// ---------------------------------------------------------------------------------------------
// Main.

export async function measureDataset(opts: MeasureOptions): Promise<{ file: string; ok: boolean }> {
  const want = (name: string) => !opts.only || opts.only.test(name);
  const out: Record<string, unknown> = { dataset: opts.dataset, startedAt: new Date().toISOString(), machine: machine() };
  console.log(`\n== Dataset bench ${opts.dataset}`);
  const dir = path.join(here, 'results');
  fs.mkdirSync(dir, { recursive: true });
  const file = path.join(dir, `${opts.dataset}-${new Date().toISOString().replace(/[:.]/g, '-')}.json`);
  // Written after every row: a run stopped half-way keeps what it measured.
  const save = () => fs.writeFileSync(file, JSON.stringify(out, null, 2));
  const t = performance.now();
  const { url: dbUrl, info, built } = await preparePgDataset(opts.dataset, { rebuild: opts.rebuild });
  out.datasetInfo = info;
  out.datasetBuilt = built;
  console.log(`      dataset ${opts.dataset} ${built ? 'built' : 'reused'} (${((performance.now() - t) / 1000).toFixed(1)} s): ${JSON.stringify(info.counts)}`);

  // The bare SQL runs with the app's own session settings (jit off).
  const client = new pg.Client({ connectionString: dbUrl, options: POSTGRES_SESSION_OPTIONS });
  await client.connect();
  try {
    // What an earlier run left (its last insert rounds) is gone before this one reads or writes.
    const autovacuum = (await client.query<{ autovacuum: string }>('SHOW autovacuum')).rows[0].autovacuum;
    if (autovacuum !== 'on') console.log(`      autovacuum is ${autovacuum} on this server: the bench vacuums after its own writes, as autovacuum would`);
    await vacuumChurned(client);
    const ctx = await benchContext(async (text, values) => (await client.query(text, values)).rows, info);
    out.context = ctx;

    // --- Routes -------------------------------------------------------------------------------
    const variants = ROUTES.filter((v) => want(v.name) && (!v.optIn || opts.only !== undefined));
    if (variants.length > 0) {
      const server = await startBenchServer({ DATABASE_URL: dbUrl });
      try {
        const sessions = await openSessions(server.url, info);
        const rows: RouteResult[] = [];
        const bare = pgBareRunner(client, opts.capMs);
        for (const v of variants) {
          const r = await benchRoute(v, ctx, server, sessions, bare, opts);
          rows.push(r);
          out.routes = rows;
          save();
          process.stdout.write(`      ${r.name.padEnd(58)} ${String(r.status).padEnd(6)} ${fmt(r.api?.p95)} ms / bare ${fmt(r.bare?.p95)} ms\n`);
        }
        printRoutes(rows);
        out.routes = rows;
        summarize(rows);
      } finally {
        await server.stop();
      }
    }

    // --- Whole-log export -----------------------------------------------------------------------
    if (want('whole-log export')) {
      console.log('\n      whole-log interventions export (PostgreSQL) next to its COPY floor');
      const server = await startBenchServer({ DATABASE_URL: dbUrl });
      try {
        out.wholeLogExport = await wholeLogExport(client, server.url, server.proc.pid!, await login(server.url, BENCH_ADMIN_LOGIN));
      } finally {
        await server.stop();
      }
      save();
    }

    // --- Load ---------------------------------------------------------------------------------
    if (want('load') || want('submissions') || want('inserts')) out.load = await loadBench(dbUrl, info, client, want);
    save();

    // --- Embedded PGlite (100k) ---------------------------------------------------------------
    if (opts.dataset === '100k' && want('pglite')) out.pglite = await pgliteBench(opts, ctx, info);
    else if (want('pglite head-of-line')) out.pgliteHeadOfLine = await pgliteHeadOfLine(opts);
  } finally {
    await client.end();
  }

  out.finishedAt = new Date().toISOString();
  out.loadAverageAtEnd = os.loadavg().map((x) => Math.round(x * 100) / 100);
  console.log(`      load average at start ${JSON.stringify((out.machine as { loadAverageAtStart: number[] }).loadAverageAtStart)}, at end ${JSON.stringify(out.loadAverageAtEnd)} (${os.cpus().length} CPUs)`);
  save();
  console.log(`\n      results: ${path.relative(root, file)}`);
  return { file, ok: true };
}

function machine() {
  // The load average says whether other work shared the CPU during the run.
  return {
    cpus: os.cpus().length,
    cpuModel: os.cpus()[0]?.model,
    memGb: Math.round(os.totalmem() / 2 ** 30),
    node: process.version,
    platform: `${os.type()} ${os.release()}`,
    loadAverageAtStart: os.loadavg().map((x) => Math.round(x * 100) / 100),
  };
}

async function openSessions(url: string, info: DatasetInfo): Promise<Sessions> {
  return {
    admin: await login(url, BENCH_ADMIN_LOGIN),
    provider: await login(url, BENCH_PROVIDER_EMAIL),
    referent: await login(url, info.referents[0].email),
    anonymous: '',
  };
}

function summarize(rows: RouteResult[]) {
  const measured = rows.filter((r) => r.api);
  const absent = rows.filter((r) => r.status === 'absent');
  const failed = rows.filter((r) => r.status !== 200 && r.status !== 'absent');
  const p95Miss = measured.filter((r) => !r.p95Ok);
  const ratioMiss = measured.filter((r) => r.ratioOk === false);
  const p95s = measured.map((r) => r.api!.p95).sort((a, b) => a - b);
  console.log(
    `\n      ${measured.length} variants measured (median p95 ${fmt(p95s[Math.floor(p95s.length / 2)])} ms), ${absent.length} absent, ${failed.length} not 200; ` +
      `p95 target missed by ${p95Miss.length}, ratio target (API <= 3 x bare + 5 ms) missed by ${ratioMiss.length}`,
  );
  for (const r of p95Miss) console.log(`        MISS p95  ${r.name}: ${fmt(r.api!.p95)} ms > ${r.target} ms (bare ${fmt(r.bare?.p95)} ms)`);
  for (const r of ratioMiss) console.log(`        MISS ratio ${r.name}: ${fmt(r.api!.p95)} ms > 3 x ${fmt(r.bare?.p95)} + 5 ms`);
  for (const r of failed) console.log(`        ${r.status} ${r.name}: ${r.message ?? ''}`);
  // The depth policy's two ends: page 1 and the last page of every list in every order.
  const ends = measured.filter((r) => r.pageEnd);
  if (ends.length > 0) {
    const over = ends.filter((r) => r.api!.p95 > PAGE_END_GOAL_MS);
    const slowest = ends.reduce((a, b) => (b.api!.p95 > a.api!.p95 ? b : a));
    console.log(
      `      page 1 and last page of every list and sort: ${ends.length} variants, ${ends.length - over.length} at p95 <= ${PAGE_END_GOAL_MS} ms, ` +
        `slowest ${slowest.name} ${fmt(slowest.api!.p95)} ms (p50 ${fmt(slowest.api!.p50)}, bare p95 ${fmt(slowest.bare?.p95)})`,
    );
    for (const r of over) console.log(`        OVER ${PAGE_END_GOAL_MS} ms  ${r.name}: p95 ${fmt(r.api!.p95)} ms, p50 ${fmt(r.api!.p50)} ms (bare p95 ${fmt(r.bare?.p95)} ms)`);
  }
}

/**
 * The cost of the intervention triggers: single-row INSERTs into the 1M log, one statement per
 * round trip, with the triggers and then with them disabled (ALTER TABLE … DISABLE TRIGGER USER,
 * inside the transaction), each round in a transaction rolled back, so the dataset stays as it was.
 *
 * Two ways, reported side by side:
 * - per entry (the goal's line): each insert in a savepoint rolled back at once, as a field entry
 *   is a transaction of its own that finds the summary rows as they were;
 * - in one transaction: the 2,000 inserts of a round pile up in the same transaction, so each
 *   one also updates the summary rows its predecessors left (a longer version chain every time),
 *   which no user's write does.
 */
async function insertRates(client: pg.Client, rows = 2000) {
  const ROUNDS = 5;
  const cell = (
    await client.query<{ site: number; cell: number; account: number }>(`
      SELECT sc.site_id AS site, sc.id AS cell, (SELECT id FROM account WHERE kind = 'user' ORDER BY id LIMIT 1) AS account
      FROM site_composteur sc JOIN site s ON s.id = sc.site_id WHERE s.statut_id = 1 AND sc.actif AND sc.type_bac_id = 1 ORDER BY sc.id LIMIT 1`)
  ).rows[0];
  const rate = async (withTriggers: boolean, perEntry: boolean) => {
    // Each round from the same state: without it, a round also pays for the dead summary
    // versions the rounds before it left.
    await vacuumChurned(client);
    await client.query('BEGIN');
    try {
      if (!withTriggers) await client.query('ALTER TABLE intervention DISABLE TRIGGER USER');
      const start = performance.now();
      for (let i = 0; i < rows; i++) {
        if (perEntry) await client.query('SAVEPOINT entry');
        await client.query(
          `INSERT INTO intervention (date, site_id, site_composteur_id, type_action_id, valeur_nombre, intervenant_id) VALUES (now() - make_interval(secs => $1), $2, $3, 6, $4, $5)`,
          [i, cell.site, cell.cell, 40 + (i % 20), cell.account],
        );
        if (perEntry) await client.query('ROLLBACK TO SAVEPOINT entry');
      }
      return Math.round(rows / ((performance.now() - start) / 1000));
    } finally {
      await client.query('ROLLBACK');
    }
  };
  const triggers = (await client.query<{ n: number }>(`SELECT count(*)::int AS n FROM pg_trigger WHERE tgrelid = 'intervention'::regclass AND NOT tgisinternal`)).rows[0].n;
  // Alternating rounds, the median of each: on a shared 2-core machine one round of either kind
  // varies by a factor of two, so five of each.
  const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
  const measure = async (perEntry: boolean) => {
    const withT: number[] = [];
    const without: number[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      withT.push(await rate(true, perEntry));
      without.push(await rate(false, perEntry));
    }
    return { withTriggers: median(withT), withoutTriggers: median(without), cost: median(without) / median(withT), rounds: { withTriggers: withT, withoutTriggers: without } };
  };
  const perEntry = await measure(true);
  const oneTransaction = await measure(false);
  console.log(
    `      single-row inserts into intervention (${rows} a round, ${ROUNDS} rounds, median), each entry on its own: ${perEntry.withTriggers}/s with its ${triggers} triggers, ` +
      `${perEntry.withoutTriggers}/s without: the triggers cost x${perEntry.cost.toFixed(2)} (goal <= 1.4) ${perEntry.cost <= 1.4 ? 'ok' : 'MISS'}`,
  );
  console.log(
    `      the same, all of a round in one transaction: ${oneTransaction.withTriggers}/s with, ${oneTransaction.withoutTriggers}/s without: x${oneTransaction.cost.toFixed(2)}`,
  );
  return { rows, triggers, ...perEntry, oneTransaction };
}

async function loadBench(dbUrl: string, info: DatasetInfo, client: pg.Client, want: (n: string) => boolean) {
  const out: Record<string, unknown> = {};
  const bareSrv = await startBareFastify();
  const app = await startAppServer({ DATABASE_URL: dbUrl });
  try {
    const cookie = await login(app.url, BENCH_ADMIN_LOGIN);
    // Idle: started, logged in, nothing else asked yet.
    await new Promise((r) => setTimeout(r, 500));
    out.rssIdleMb = rssOf(app.proc.pid);
    out.startMs = Math.round(app.readyMs);
    if (want('load')) {
      // Six rounds of the three routes, 5 s each, interleaved: on a shared 2-core machine one
      // 10-s run of each in turn gave the bare route anywhere from 37,000 to 68,000 req/s. Each
      // round's ratios compare runs seconds apart; the median of the six rounds is the figure.
      const duration = 5;
      const roundCount = 6;
      const rounds: { bare: LoadResult; pub: LoadResult; auth: LoadResult }[] = [];
      for (let round = 0; round < roundCount; round++) {
        const bare = await cannon('bare Fastify {hello}', `${bareSrv.url}/`, { duration, connections: 20 });
        const pub = await cannon('/api/app/info/get', `${app.url}/api/app/info/get`, { duration, connections: 20 });
        const auth = await cannon('/api/logged (session)', `${app.url}/api/logged`, { duration, connections: 20, cookie });
        pub.ratioToBare = Math.round((pub.reqPerSec / bare.reqPerSec) * 1000) / 1000;
        auth.ratioToBare = Math.round((auth.reqPerSec / bare.reqPerSec) * 1000) / 1000;
        rounds.push({ bare, pub, auth });
      }
      // The median of an even count: the mean of the two middle rounds' ratios.
      const median = (key: 'pub' | 'auth'): LoadResult => {
        const sorted = [...rounds].sort((a, b) => a[key].ratioToBare! - b[key].ratioToBare!);
        const low = sorted[roundCount / 2 - 1][key];
        const high = sorted[roundCount / 2][key];
        return { ...low, ratioToBare: Math.round(((low.ratioToBare! + high.ratioToBare!) / 2) * 1000) / 1000 };
      };
      const pub = { ...median('pub'), target: 0.6 };
      pub.ok = pub.ratioToBare! >= 0.6 && rounds.every((r) => r.pub.non2xx === 0);
      const auth = { ...median('auth'), target: 0.6 };
      auth.ok = auth.ratioToBare! >= 0.6 && rounds.every((r) => r.auth.non2xx === 0);
      out.throughput = { rounds, medianPublic: pub, medianAuthenticated: auth };
      console.log(`\n      load (20 connections, ${roundCount} rounds of ${duration} s per route, alternating)`);
      for (const [i, r] of rounds.entries())
        for (const x of [r.bare, r.pub, r.auth])
          console.log(
            `      round ${i + 1} ${x.name.padEnd(26)} ${String(x.reqPerSec).padStart(7)} req/s  p50 ${x.p50} ms  p90 ${x.p90} ms  p99 ${x.p99} ms  errors ${x.errors} non-2xx ${x.non2xx}` +
              (x.ratioToBare === undefined ? '' : `  ${(x.ratioToBare * 100).toFixed(0)}% of bare`),
          );
      for (const x of [pub, auth])
        console.log(`      median of ${roundCount} rounds: ${x.name} ${(x.ratioToBare! * 100).toFixed(0)}% of bare (target ${x.target * 100}%) ${x.ok ? 'ok' : 'MISS'}`);
    }
    if (want('submissions')) {
      // The providers of the dataset, who record on every site: one per connection, as phones
      // in the field are; then every entry from the admin's one account.
      const providers = (
        await client.query<{ email: string }>(`SELECT email FROM account WHERE kind = 'user' AND type_user_id = 3 AND actif AND password_hash IS NOT NULL ORDER BY id LIMIT 50`)
      ).rows;
      const people: string[] = [];
      for (const p of providers) people.push(await login(app.url, p.email));
      const runs: SubmissionResult[] = [];
      for (const [who, cookies] of [['one account per connection', people], ['one account', [cookie]]] as const) for (const connections of [10, 50]) {
        const s = await submissions(app.url, [...cookies], client, 20, connections);
        runs.push(s);
        console.log(
          `      submissions (${connections} connections, ${who === 'one account' ? who : `${s.accounts} accounts`}, 20 s): ${s.reqPerSec}/s (target >= ${s.target}), p50 ${s.p50} ms, p95 ${s.p95} ms; ` +
            `${s.acknowledged} acknowledged, ${s.refused} refused, ${s.storedForRun} stored; lost ${s.lost}, doubled ${s.doubled} ${s.ok ? 'ok' : 'MISS'}`,
        );
      }
      out.submissions = runs;
    }
    if (want('inserts')) out.inserts = await insertRates(client);
    out.rssAfterMb = rssOf(app.proc.pid);
    console.log(`      server RSS: idle ${out.rssIdleMb} MB, after load ${out.rssAfterMb} MB; start to first answer ${out.startMs} ms`);
    void info;
  } finally {
    await stopProcess(app.proc);
    await stopProcess(bareSrv.proc);
  }
  return out;
}

/** The two ways the server can run PGlite, compared by the bench. */
const PGLITE_MODES = [
  { mode: 'main thread', env: { PGLITE_WORKER: '0' } },
  { mode: 'worker thread', env: { PGLITE_WORKER: '1' } },
] as const;
type PgliteMode = (typeof PGLITE_MODES)[number]['mode'];

/**
 * A copy of the dataset's directory for the worker-thread server: the two servers run side by
 * side (each idle while the other is measured) and a PGlite directory has one opener.
 */
function workerCopyOf(dataDir: string): string {
  const copy = `${dataDir}-worker`;
  fs.rmSync(copy, { recursive: true, force: true });
  fs.cpSync(dataDir, copy, { recursive: true });
  return copy;
}

async function pgliteBench(opts: MeasureOptions, ctx: BenchContext, pgInfo: DatasetInfo) {
  const dataDir = process.env.BENCH_PGLITE_DIR ?? path.join(os.tmpdir(), `compost-bench-pglite-${opts.dataset}`);
  console.log(`\n== Embedded PGlite, dataset ${opts.dataset} (${dataDir})`);
  const t = performance.now();
  const { info, built } = await preparePgliteDataset(opts.dataset, dataDir, { rebuild: opts.rebuild });
  const out: Record<string, unknown> = { dataDir, built, prepareSeconds: Math.round((performance.now() - t) / 100) / 10, counts: info.counts };
  void ctx;
  void pgInfo;
  const workerDir = workerCopyOf(dataDir);

  // Start time to first answer and idle RSS, with the production entry point, in both modes.
  const starts: Record<string, { startToFirstAnswerMs: number; rssIdleMb: number | null }> = {};
  for (const { mode, env } of PGLITE_MODES) {
    const app = await startAppServer({ DATA_DIR: mode === 'worker thread' ? workerDir : dataDir, DATABASE_URL: '', ...env });
    try {
      await new Promise((r) => setTimeout(r, 500));
      starts[mode] = { startToFirstAnswerMs: Math.round(app.readyMs), rssIdleMb: rssOf(app.proc.pid) };
    } finally {
      await stopProcess(app.proc);
    }
    console.log(`      ${mode}: start to first answer ${starts[mode].startToFirstAnswerMs} ms; RSS idle ${starts[mode].rssIdleMb} MB`);
  }
  out.startToFirstAnswerMs = starts['main thread'].startToFirstAnswerMs;
  out.rssIdleMb = starts['main thread'].rssIdleMb;
  out.starts = starts;

  // `--only 'pglite|yearly report'` times only the embedded routes it names, and skips the
  // head-of-line figures; a pattern that names none of them (`--only pglite`) times them all.
  const embedded = ROUTES.filter((r) => PGLITE_ROUTES.test(r.name));
  const named = opts.only ? embedded.filter((r) => opts.only!.test(r.name)) : [];
  const pgliteRoutes = named.length > 0 ? named : embedded;

  // The list routes, timed the same way in both modes, variant by variant; bare SQL replayed
  // inside each server's own PGlite.
  const server = await startBenchServer({ DATA_DIR: dataDir, DATABASE_URL: '', ...PGLITE_MODES[0].env });
  let worker: Child | null = null;
  try {
    worker = await startBenchServer({ DATA_DIR: workerDir, DATABASE_URL: '', ...PGLITE_MODES[1].env });
    // The ids of the PGlite dataset (same generator, its own random draw), read by the server.
    const pctx = await benchContext(async (text, values) => (await server.call<{ rows: unknown[] }>({ cmd: 'query', sql: text, parameters: values ?? [] })).rows, info);
    out.context = pctx;
    const sessions = await openSessions(server.url, info);
    const workerSessions = await openSessions(worker.url, info);
    const bareOn = (child: Child) => async (statements: CapturedQuery[], runs: number) =>
      (await child.call<{ times: number[] }>({ cmd: 'bare', statements, runs, capMs: opts.capMs })).times;
    const rows: RouteResult[] = [];
    const workerRows: RouteResult[] = [];
    for (const v of pgliteRoutes) {
      const r = await benchRoute(v, pctx, server, sessions, bareOn(server), opts);
      const w = await benchRoute(v, pctx, worker, workerSessions, bareOn(worker), opts);
      rows.push(r);
      workerRows.push(w);
      process.stdout.write(
        `      ${r.name.padEnd(58)} ${String(r.status).padEnd(6)} ${fmt(r.api?.p95)} ms / bare ${fmt(r.bare?.p95)} ms; worker thread ${fmt(w.api?.p95)} ms / bare ${fmt(w.bare?.p95)} ms\n`,
      );
    }
    out.rssAfterMb = rssOf(server.proc.pid);
    out.rssAfterMbWorker = rssOf(worker.proc.pid);
    console.log('\n      PGlite on the main thread');
    printRoutes(rows);
    console.log('\n      PGlite in a worker thread (PGLITE_WORKER=1)');
    printRoutes(workerRows);
    out.routes = rows;
    out.workerRoutes = workerRows;
    if (named.length > 0) return out;
    out.loggedWhilePaging = await loggedWhilePaging(server.url, sessions, 'main thread');
    out.loggedWhilePagingWorker = await loggedWhilePaging(worker.url, workerSessions, 'worker thread');
    out.headOfLine = await headOfLineFigures(
      [
        { mode: 'main thread', url: server.url, sessions },
        { mode: 'worker thread', url: worker.url, sessions: workerSessions },
      ],
      pctx,
      rows,
    );
  } finally {
    await server.stop();
    await worker?.stop();
  }
  return out;
}

/** List variants a slow embedded list is looked for among (each asked once, the slowest kept). */
const SLOW_LIST_CANDIDATES = /^(interventions global (sort|last page|page 2500|filter date)|site table \(public, busiest\) (sort|last page)|requests history (sort|last page))/;

type HolStats = ReturnType<typeof quantiles>;

interface ModeServer {
  mode: PgliteMode;
  url: string;
  sessions: Sessions;
}

/** Rounds of the head-of-line figures, the modes taking turns (ABBA: a drift of the machine's load weighs on both alike). */
const HEAD_OF_LINE_ROUNDS = 4;

/**
 * /api/health and /api/logged on the embedded database while an export, then the slowest list,
 * run without pause; with each server (PGlite on the main thread, in a worker thread) in turn,
 * round after round, plus the export alone. The figures pool the rounds' probes.
 */
async function headOfLineFigures(servers: ModeServer[], ctx: BenchContext, measured: RouteResult[] = []) {
  const first = servers[0];
  // The slowest list: the slowest measured one, or the slowest of the candidates asked once each.
  let slowest = measured.filter((r) => r.api && SLOW_LIST_CANDIDATES.test(r.name)).sort((a, b) => b.api!.p95 - a.api!.p95)[0];
  if (!slowest) {
    const timed: { name: string; path: string; as: Persona; ms: number }[] = [];
    for (const v of ROUTES.filter((r) => SLOW_LIST_CANDIDATES.test(r.name) && !r.lastPage)) {
      const p = v.path(ctx);
      const as = v.as ?? 'admin';
      await request(first.url, p, { cookie: first.sessions[as] });
      const t = performance.now();
      const r = await request(first.url, p, { cookie: first.sessions[as] });
      if (r.status === 200) timed.push({ name: v.name, path: p, as, ms: performance.now() - t });
    }
    const top = timed.sort((a, b) => b.ms - a.ms)[0];
    if (top) slowest = { name: top.name, path: top.path, as: top.as, status: 200, target: 50, api: { n: 1, p50: top.ms, p95: top.ms, mean: top.ms, max: top.ms } };
  }
  if (slowest) console.log(`      slowest list on the embedded database: ${slowest.name} (${fmt(slowest.api!.p95)} ms)`);

  type Condition = 'idle' | 'duringExport' | 'duringSlowestList';
  const pooled = new Map<string, { health: number[]; logged: number[]; unitMs: number[] }>();
  const pool = (mode: PgliteMode, condition: Condition | 'exportAlone', r: { health?: number[]; logged?: number[]; unitMs: number[] }) => {
    const key = `${mode}/${condition}`;
    const p = pooled.get(key) ?? { health: [], logged: [], unitMs: [] };
    p.health.push(...(r.health ?? []));
    p.logged.push(...(r.logged ?? []));
    p.unitMs.push(...r.unitMs);
    pooled.set(key, p);
  };
  const rounds: Record<string, unknown>[] = [];
  for (let round = 0; round < HEAD_OF_LINE_ROUNDS; round++) {
    const order = round % 2 === 0 ? servers : [...servers].reverse();
    for (const s of order) {
      console.log(`      round ${round + 1}, PGlite on the ${s.mode}`);
      const { url, sessions } = s;
      const r: Record<string, unknown> = { round: round + 1, mode: s.mode };
      // The export with nothing else asked: its own duration.
      const t = performance.now();
      await exportOnce(url, sessions.admin)();
      const aloneMs = performance.now() - t;
      r.exportAloneMs = Math.round(aloneMs);
      pool(s.mode, 'exportAlone', { unitMs: [aloneMs] });
      const runs: [Condition, () => Promise<void>, string][] = [
        // The same probes with nothing else running: what the machine gives at the moment.
        ['idle', () => new Promise((resolve) => setTimeout(resolve, 50)), 'nothing else runs (control)'],
        ['duringExport', exportOnce(url, sessions.admin), 'a whole-log export runs'],
      ];
      if (slowest) runs.push(['duringSlowestList', requestOnce(url, slowest.path, sessions[slowest.as]), `"${slowest.name}" runs`]);
      for (const [condition, work, label] of runs) {
        const { samples, ...figures } = await headOfLine(url, sessions.referent, work, label);
        r[condition] = figures;
        pool(s.mode, condition, samples);
      }
      rounds.push(r);
    }
  }

  const summary: Record<string, Record<string, unknown>> = {};
  const line = (label: string, x: { health: HolStats; logged: HolStats; unit: HolStats | null }, unitLabel: string) =>
    console.log(
      `      ${label.padEnd(36)} ${`${fmt(x.health.p95)} / ${fmt(x.health.max)}`.padStart(14)} ${`${fmt(x.logged.p95)} / ${fmt(x.logged.max)}`.padStart(14)}   ${x.unit ? `${unitLabel} ${fmt(x.unit.p50)} ms (n ${x.unit.n})` : ''}`,
    );
  console.log(
    `\n      PGlite 100k, /api/health and /api/logged (${HEAD_OF_LINE_ROUNDS} rounds per mode, alternating, probes pooled; target p95 < 50 ms)` +
      `\n      ${''.padEnd(36)} ${'health p95/max'.padStart(14)} ${'logged p95/max'.padStart(14)}   background work, median`,
  );
  for (const { mode } of servers) {
    const get = (c: Condition) => pooled.get(`${mode}/${c}`);
    const alone = pooled.get(`${mode}/exportAlone`)!;
    const m: Record<string, unknown> = { exportAlone: quantiles(alone.unitMs) };
    for (const c of ['idle', 'duringExport', 'duringSlowestList'] as const) {
      const p = get(c);
      if (!p) continue;
      const x = { health: quantiles(p.health), logged: quantiles(p.logged), unit: c === 'idle' ? null : quantiles(p.unitMs) };
      const ok = x.health.p95 < 50 && x.logged.p95 < 50;
      m[c] = { ...x, ok };
      line(`${mode}, ${c === 'idle' ? 'nothing else' : c === 'duringExport' ? 'during whole-log export' : 'during slowest list'}`, x, c === 'duringExport' ? 'export' : 'list');
    }
    console.log(`      ${`${mode}, whole-log export alone`.padEnd(36)} ${''.padStart(14)} ${''.padStart(14)}   export ${fmt(quantiles(alone.unitMs).p50)} ms (n ${alone.unitMs.length})`);
    summary[mode] = m;
  }
  return { slowestList: slowest ? { name: slowest.name, p95: slowest.api!.p95 } : null, rounds: HEAD_OF_LINE_ROUNDS, byRound: rounds, summary };
}

/** The PGlite 100k head-of-line figures alone (the 1m bench, whose embedded figures are not measured otherwise), in both modes. */
async function pgliteHeadOfLine(opts: MeasureOptions) {
  const dataDir = process.env.BENCH_PGLITE_DIR ?? path.join(os.tmpdir(), 'compost-bench-pglite-100k');
  console.log(`\n== Embedded PGlite 100k: requests waiting behind an export or a slow list, PGlite on the main thread and in a worker thread (${dataDir})`);
  const { info } = await preparePgliteDataset('100k', dataDir, { rebuild: opts.rebuild });
  const workerDir = workerCopyOf(dataDir);
  const server = await startBenchServer({ DATA_DIR: dataDir, DATABASE_URL: '', ...PGLITE_MODES[0].env });
  let worker: Child | null = null;
  try {
    worker = await startBenchServer({ DATA_DIR: workerDir, DATABASE_URL: '', ...PGLITE_MODES[1].env });
    const ctx = await benchContext(async (text, values) => (await server.call<{ rows: unknown[] }>({ cmd: 'query', sql: text, parameters: values ?? [] })).rows, info);
    return await headOfLineFigures(
      [
        { mode: 'main thread', url: server.url, sessions: await openSessions(server.url, info) },
        { mode: 'worker thread', url: worker.url, sessions: await openSessions(worker.url, info) },
      ],
      ctx,
    );
  } finally {
    await server.stop();
    await worker?.stop();
  }
}

/**
 * The embedded database has one connection: a slow query makes every other request wait.
 * Times /api/logged (a referent's phone checking its session) while an administrator pages
 * through the global interventions list without pause, on another connection.
 */
async function loggedWhilePaging(url: string, sessions: Sessions, mode: PgliteMode) {
  let paging = true;
  let pages = 0;
  const pager = (async () => {
    while (paging) {
      const page = pages % 50;
      const r = await fetch(`${url}/api/admin/intervention/get/list/by/filters?${toQueryString({ page, rowsPerPage: 20 })}`, { headers: { cookie: sessions.admin } });
      await r.arrayBuffer();
      pages++;
    }
  })();
  const times: number[] = [];
  try {
    for (let i = 0; i < 100; i++) {
      const t = performance.now();
      const r = await request(url, '/api/logged', { cookie: sessions.referent });
      times.push(performance.now() - t);
      if (r.status !== 200) throw new Error(`/api/logged: ${r.status}`);
    }
  } finally {
    paging = false;
    await pager;
  }
  const result = { logged: stats(times), listPagesServed: pages };
  console.log(`      ${mode}: /api/logged while the global interventions list is paged: p50 ${fmt(result.logged.p50)} ms, p95 ${fmt(result.logged.p95)} ms (${pages} list pages served meanwhile)`);
  return result;
}
