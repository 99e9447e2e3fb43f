// Two figures of the interventions export (npm run bench -- --dataset 1m|100k):
//  - the whole-log export through the API on PostgreSQL, next to the floor of reading its data
//    (same rows, order and labels, unformatted) with `COPY (...) TO STDOUT WITH (FORMAT csv)`, to
//    the log itself read that way, and to the app's own COPY statement alone, with the server's
//    resident memory sampled during the export and its rows counted against the table;
//  - on the embedded database, how long /api/health and /api/logged wait while an export (or
//    the slowest list) runs: PGlite runs each statement on the server's main thread, or in a
//    worker thread with PGLITE_WORKER=1 (bench/measure.ts runs both, alternately).
import fs from 'node:fs';
import http from 'node:http';
import { Kysely, PostgresDialect } from 'kysely';
import type pg from 'pg';
import pgCopyStreams from 'pg-copy-streams';
import { inlineParameters } from '../src/server/db/sql-literal.js';
import { exportQueries } from '../src/server/modules/interventions/intervention-export.js';
import { fastPathsFor } from '../src/server/modules/interventions/intervention-list.js';
import type { Database } from '../src/server/db/schema.js';

export interface Stats {
  n: number;
  p50: number;
  p95: number;
  max: number;
}

export function quantiles(times: number[]): Stats {
  const s = [...times].sort((a, b) => a - b);
  const pick = (q: number) => s[Math.max(0, Math.ceil(q * s.length) - 1)] ?? 0;
  const r = (x: number) => Math.round(x * 100) / 100;
  return { n: s.length, p50: r(pick(0.5)), p95: r(pick(0.95)), max: r(s[s.length - 1] ?? 0) };
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function rssMb(pid: number): number | null {
  try {
    const m = /VmRSS:\s+(\d+) kB/.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m ? Math.round(Number(m[1]) / 1024) : null;
  } catch {
    return null;
  }
}

/** The app's COPY statement for the whole log in the table's default order (newest first). */
export function appExportStatement(): string {
  // Compiling needs no connection.
  const compiler = new Kysely<Database>({ dialect: new PostgresDialect({ pool: {} as never }) });
  const sort = { name: 'date', direction: 'desc' } as const;
  const query = exportQueries.lines({ f: {}, sort, date: null, search: null, paths: fastPathsFor({}, sort.name) }, null);
  return `COPY (${inlineParameters(query.compile(compiler))}) TO STDOUT (FORMAT binary)`;
}

/**
 * The floor: the export's data as PostgreSQL writes CSV, unformatted: the same rows in the same
 * order, with the labels its lines show (read through the same one-scan maps), dates and numbers
 * as PostgreSQL prints them, no formula guard.
 */
export const FLOOR_STATEMENT = `COPY (
  SELECT i.date,
         (SELECT jsonb_object_agg(s.id, coalesce(nullif(s.nom, ''), s.code)) FROM site s) ->> i.site_id::text AS site,
         (SELECT jsonb_object_agg(a.id, trim(a.nom || ' ' || coalesce(a.prenom, ''))) FROM account a) ->> i.intervenant_id::text AS intervenant,
         (SELECT jsonb_object_agg(t.id, t.libelle) FROM type_bac t) ->> i.type_bac_id::text AS type_bac, i.numero_bac,
         (SELECT jsonb_object_agg(t.id, t.libelle) FROM type_action t) ->> i.type_action_id::text AS action,
         i.valeur_nombre,
         (SELECT jsonb_object_agg(c.id_action * 100 + c.id_constante, c.constante) FROM type_action_constante c) ->> (i.type_action_id * 100 + i.valeur_constante)::text AS constante,
         i.valeur_texte, (SELECT d.numero FROM site_composteur d WHERE d.id = i.bac_destination_id) AS destination, i.observations,
         (SELECT jsonb_object_agg(a.id, trim(a.nom || ' ' || coalesce(a.prenom, ''))) FROM account a) ->> i.modification_agent_id::text AS agent, i.modified_at
    FROM (SELECT * FROM intervention ORDER BY date DESC, id DESC) i) TO STDOUT WITH (FORMAT csv)`;

/** The log itself in the export's order, every column, as PostgreSQL writes CSV (for scale). */
export const RAW_LOG_STATEMENT = 'COPY (SELECT * FROM intervention i ORDER BY i.date DESC, i.id DESC) TO STDOUT WITH (FORMAT csv)';

/** Runs a COPY TO STDOUT into this process, counting bytes. */
async function copyInto(client: pg.Client, statement: string): Promise<{ ms: number; bytes: number }> {
  const t = performance.now();
  const stream = client.query(pgCopyStreams.to(statement));
  let bytes = 0;
  for await (const chunk of stream) bytes += (chunk as Buffer).length;
  return { ms: performance.now() - t, bytes };
}

/** GET a CSV, streamed: bytes and CRLF line ends, and the server's RSS sampled every 25 ms meanwhile. */
function download(url: string, cookie: string, pid: number): Promise<{ ms: number; status: number; bytes: number; lines: number; rssPeakMb: number | null }> {
  return new Promise((resolve, reject) => {
    const t = performance.now();
    let peak = rssMb(pid);
    const sampler = setInterval(() => {
      const now = rssMb(pid);
      if (now !== null && (peak === null || now > peak)) peak = now;
    }, 25);
    const req = http.get(url, { headers: { cookie } }, (res) => {
      let bytes = 0;
      let lines = 0;
      let lastByte = -1;
      res.on('data', (c: Buffer) => {
        bytes += c.length;
        // CR LF, possibly split between two chunks.
        if (lastByte === 13 && c[0] === 10) lines++;
        for (let i = c.indexOf(10, 1); i !== -1; i = c.indexOf(10, i + 1)) if (c[i - 1] === 13) lines++;
        lastByte = c[c.length - 1];
      });
      res.on('end', () => {
        clearInterval(sampler);
        resolve({ ms: performance.now() - t, status: res.statusCode ?? 0, bytes, lines, rssPeakMb: peak });
      });
      res.on('error', (e) => {
        clearInterval(sampler);
        reject(e);
      });
    });
    req.on('error', (e) => {
      clearInterval(sampler);
      reject(e);
    });
  });
}

export interface WholeLogExportResult {
  rows: number;
  runs: { rawLogMs: number; floorMs: number; appCopyMs: number; apiMs: number; rssPeakMb: number | null }[];
  rawLogMs: number;
  floorMs: number;
  appCopyMs: number;
  apiMs: number;
  ratioToFloor: number;
  bytes: number;
  linesBesidesHeader: number;
  everyRowOnce: boolean;
  rssBeforeMb: number | null;
  rssPeakMb: number | null;
  targets: { ratio: number; rssMb: number };
  ok: boolean;
}

/** Interleaved rounds (floor, app statement, API) so that each compares runs seconds apart; the best of each is the figure. */
export async function wholeLogExport(client: pg.Client, serverUrl: string, serverPid: number, cookie: string, rounds = 2): Promise<WholeLogExportResult> {
  const rows = (await client.query<{ n: number }>('SELECT count(*)::int AS n FROM intervention')).rows[0].n;
  const statement = appExportStatement();
  await sleep(500);
  const rssBeforeMb = rssMb(serverPid);
  const runs: WholeLogExportResult['runs'] = [];
  let last: Awaited<ReturnType<typeof download>> | null = null;
  for (let i = 0; i < rounds; i++) {
    const raw = await copyInto(client, RAW_LOG_STATEMENT);
    const floor = await copyInto(client, FLOOR_STATEMENT);
    const app = await copyInto(client, statement);
    last = await download(`${serverUrl}/api/admin/intervention/export`, cookie, serverPid);
    if (last.status !== 200) throw new Error(`export answered ${last.status}`);
    runs.push({ rawLogMs: Math.round(raw.ms), floorMs: Math.round(floor.ms), appCopyMs: Math.round(app.ms), apiMs: Math.round(last.ms), rssPeakMb: last.rssPeakMb });
    console.log(
      `      round ${i + 1}: raw log COPY ${(raw.ms / 1000).toFixed(2)} s, export data COPY floor ${(floor.ms / 1000).toFixed(2)} s, ` +
        `app's COPY statement ${(app.ms / 1000).toFixed(2)} s, API ${(last.ms / 1000).toFixed(2)} s, server RSS peak ${last.rssPeakMb} MB`,
    );
  }
  const rawLogMs = Math.min(...runs.map((r) => r.rawLogMs));
  const floorMs = Math.min(...runs.map((r) => r.floorMs));
  const apiMs = Math.min(...runs.map((r) => r.apiMs));
  const appCopyMs = Math.min(...runs.map((r) => r.appCopyMs));
  const rssPeakMb = Math.max(...runs.map((r) => r.rssPeakMb ?? 0));
  const ratioToFloor = Math.round((apiMs / floorMs) * 100) / 100;
  const linesBesidesHeader = last!.lines - 1;
  const result: WholeLogExportResult = {
    rows,
    runs,
    rawLogMs,
    floorMs,
    appCopyMs,
    apiMs,
    ratioToFloor,
    bytes: last!.bytes,
    linesBesidesHeader,
    everyRowOnce: linesBesidesHeader === rows,
    rssBeforeMb,
    rssPeakMb,
    targets: { ratio: 1.5, rssMb: 250 },
    ok: false,
  };
  result.ok = ratioToFloor <= 1.5 && rssPeakMb < 250 && result.everyRowOnce;
  console.log(
    `      whole-log export: API ${(apiMs / 1000).toFixed(2)} s for ${linesBesidesHeader} lines (${(last!.bytes / 2 ** 20).toFixed(1)} MB; table ${rows} rows: ${result.everyRowOnce ? 'every row once' : 'MISMATCH'}); ` +
      `COPY floor of its data ${(floorMs / 1000).toFixed(2)} s (x${ratioToFloor}, target <= 1.5), app's COPY alone ${(appCopyMs / 1000).toFixed(2)} s, ` +
      `raw log COPY ${(rawLogMs / 1000).toFixed(2)} s; ` +
      `server RSS ${rssBeforeMb} MB before, peak ${rssPeakMb} MB (target < 250) ${result.ok ? 'ok' : 'MISS'}`,
  );
  return result;
}

/**
 * p95 of /api/health and /api/logged (a referent's session) while `work` runs again and again
 * on other connections: one probe of each every 10 ms, 100 of each.
 */
export async function headOfLine(url: string, referentCookie: string, work: () => Promise<void>, label: string) {
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  const probe = (path: string, cookie?: string) =>
    new Promise<number>((resolve, reject) => {
      const t = performance.now();
      http
        .get(`${url}${path}`, { agent, headers: cookie ? { cookie } : {} }, (res) => {
          res.resume();
          res.on('end', () => (res.statusCode === 200 ? resolve(performance.now() - t) : reject(new Error(`${path}: ${res.statusCode}`))));
        })
        .on('error', reject);
    });
  let running = true;
  const unitMs: number[] = [];
  const background = (async () => {
    while (running) {
      const t = performance.now();
      await work();
      unitMs.push(performance.now() - t);
    }
  })();
  const health: number[] = [];
  const logged: number[] = [];
  try {
    // Let the work start (the first export batch, the first list query).
    await sleep(300);
    for (let i = 0; i < 100; i++) {
      health.push(await probe('/api/health'));
      logged.push(await probe('/api/logged', referentCookie));
      await sleep(10);
    }
  } finally {
    running = false;
    await background;
    agent.destroy();
  }
  const units = unitMs.length;
  const out = {
    while: label,
    health: quantiles(health),
    logged: quantiles(logged),
    unitsDone: units,
    /** How long each unit of the background work took while the probes ran (an export, a list request). */
    unit: quantiles(unitMs),
    samples: { health, logged, unitMs },
    target: 50,
    ok: false,
  };
  out.ok = out.health.p95 < 50 && out.logged.p95 < 50;
  console.log(
    `      while ${label}: /api/health p95 ${out.health.p95} ms (max ${out.health.max}), /api/logged p95 ${out.logged.p95} ms (max ${out.logged.max}); ` +
      `${units} done meanwhile (median ${out.unit.p50} ms each); target p95 < 50 ms ${out.ok ? 'ok' : 'MISS'}`,
  );
  return out;
}

export type HeadOfLineResult = Awaited<ReturnType<typeof headOfLine>>;

/** One whole export through the API, read to the end (the background work of headOfLine). */
export function exportOnce(url: string, cookie: string) {
  return async () => {
    const res = await fetch(`${url}/api/admin/intervention/export`, { headers: { cookie } });
    await res.arrayBuffer();
  };
}

/** One request of a list route, read to the end. */
export function requestOnce(url: string, path: string, cookie: string) {
  return async () => {
    const res = await fetch(`${url}${path}`, { headers: { cookie } });
    await res.arrayBuffer();
  };
}
