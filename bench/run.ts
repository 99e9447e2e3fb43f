// npm run bench — two figures of the field app:
//  1. replay of 500 queued submissions after reconnection: a real server (temporary DATA_DIR),
//     the app's own outbox on fake-indexeddb with a fetch sender and a session cookie, drained
//     against it; the time, and the count on the server, which must equal 500;
//  2. the gzip size of the JavaScript /admin/fiche/site/{id} needs before the user can fill and
//     save the form, from the Vite manifest: the entry chunk, the site sheet's chunk, everything
//     the sheet itself loads (static or lazy), the IndexedDB layer (Dexie: the phone's copy of
//     the sites and the outbox the save writes to), and all their static imports; target
//     < 250 KB. What the shell loads after the first render without the form needing it (toast
//     and modal hosts, account menu, service worker registration) is listed, not counted.
//     Builds into a temporary directory, or reads the build named by BENCH_DIST.
//  3. the planning of a day's route through 60 stops (bench/route.ts, also runnable alone):
//     p50, p95 and max, with and without a start point; target p95 < 50 ms.
// Options (after `npm run bench --`):
//   --dataset 1m|100k  also runs the dataset bench (bench/measure.ts) on the
//                      PostgreSQL of BENCH_DATABASE_URL or TEST_DATABASE_URL: routes through the
//                      API next to their bare SQL, load, submissions, and at 100k the PGlite figures;
//   --only <pattern>   runs only the dataset bench's rows whose name matches (a case-insensitive
//                      regular expression; 'load', 'submissions', 'inserts', 'pglite' and
//                      'backup' name those parts);
//                      the two checks above are then skipped;
//   --rebuild          rebuilds the dataset even when it exists;
//   --build-only       builds (or reuses and migrates) the dataset, prints its URL and shape, stops;
//   --runs <n>         timed requests per route variant (default 50).
// The exit code is non-zero only when a hard check fails (replay count, bundle budget);
// the dataset bench's targets are reported, not fatal.
import 'fake-indexeddb/auto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import zlib from 'node:zlib';
import { sql } from 'kysely';
import { loadConfig } from '../src/server/config.js';
import { startServer } from '../src/server/main.js';
import { CompostOfflineDb } from '../src/web/offline/db.js';
import { Outbox } from '../src/web/offline/outbox.js';
import { httpSender } from '../src/web/offline/sender.js';
import type { InterventionSubmission } from '../src/shared/schemas/interventions.js';
import { DATASETS, preparePgDataset, type DatasetName } from './dataset.js';
import { measureDataset } from './measure.js';
import { BACKUP_GOAL_S, benchBackup } from './backup.js';
import { ROUTE_STOPS, ROUTE_TARGET_MS, printRouteBench, routeBenchmark } from './route.js';

const SUBMISSIONS = 500;
const BUNDLE_TARGET_KB = 250;
const SITE_SHEET_MODULE = 'src/web/modules/field-entry/site-sheet-page.tsx';
/** Loaded on first use by the shell, but the sheet cannot show the phone's sites offline nor save without it: counted. */
const NEEDED_LAZY_MODULES = ['src/web/offline/db.ts'];
/** Another screen's chunk: opened by navigation only. */
const SCREEN = /-page\.tsx$/;

const results: { name: string; ok: boolean; detail: string }[] = [];
const report = (name: string, ok: boolean, detail: string) => {
  results.push({ name, ok, detail });
  console.log(`${ok ? 'PASS' : 'FAIL'}  ${name}: ${detail}`);
};

async function replayBenchmark() {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'compost-bench-'));
  const password = 'bench-motdepasse';
  const config = loadConfig({
    PORT: '0',
    HOST: '127.0.0.1',
    DATA_DIR: dataDir,
    ADMIN_LOGIN: 'bench',
    ADMIN_PASSWORD: password,
    ADMIN_EMAIL: 'bench@compost.test',
    LOG_LEVEL: 'warn',
  });
  const server = await startServer(config);
  try {
    const { db } = server;
    // One active site with an input cell and a maturation cell, straight in the database: the
    // benchmark measures the intervention route, not the site screens.
    const type = await db.selectFrom('type_site').select('id').orderBy('id').executeTakeFirstOrThrow();
    const composteur = await db.selectFrom('type_composteur').select('id').orderBy('id').executeTakeFirstOrThrow();
    const ville = await db.selectFrom('ville').select(['nom', 'cp']).orderBy('nom').executeTakeFirstOrThrow();
    const site = await db
      .insertInto('site')
      .values({ code: 'BEN001', nom: 'Banc d’essai', ville: ville.nom, cp: ville.cp, adresse: 'Rue du Banc', type_site_id: type.id, statut_id: 1 })
      .returning('id')
      .executeTakeFirstOrThrow();
    const cells = await db
      .insertInto('site_composteur')
      .values([
        { site_id: site.id, type_composteur_id: composteur.id, type_bac_id: 1, numero: 1 },
        { site_id: site.id, type_composteur_id: composteur.id, type_bac_id: 3, numero: 2 },
      ])
      .returning(['id', 'type_bac_id'])
      .execute();
    const apport = cells.find((c) => c.type_bac_id === 1)!.id;
    const maturation = cells.find((c) => c.type_bac_id === 3)!.id;

    const login = await fetch(`${server.url}/api/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ username: 'bench', password }),
    });
    if (!login.ok) throw new Error(`login failed: ${login.status} ${await login.text()}`);
    const cookie = login.headers
      .getSetCookie()
      .map((c) => c.split(';')[0])
      .join('; ');
    const ownerId = ((await login.json()) as { user: { id: number } }).user.id;

    const offline = new CompostOfflineDb(`bench-${Date.now()}`);
    const outbox = new Outbox<InterventionSubmission>({
      table: offline.outbox,
      send: httpSender((body) =>
        fetch(`${server.url}/api/admin/intervention/add`, { method: 'POST', headers: { 'content-type': 'application/json', cookie }, body: JSON.stringify(body) }),
      ),
    });
    const start = Date.now() - SUBMISSIONS * 60_000;
    for (let i = 0; i < SUBMISSIONS; i++) {
      await outbox.add(
        {
          clientId: crypto.randomUUID(),
          site: site.id,
          date: new Date(start + i * 60_000).toISOString(),
          values: [
            { composteur: apport, action: 1, valeur: null, bacDestination: null, observations: null, demandeIntervention: null },
            { composteur: apport, action: 3, valeur: 50 + (i % 100), bacDestination: maturation, observations: null, demandeIntervention: null },
            { composteur: maturation, action: 6, valeur: 40 + (i % 30) / 2, bacDestination: null, observations: `relevé ${i}`, demandeIntervention: null },
          ],
        } as InterventionSubmission,
        { ownerId, ownerName: 'bench', siteLabel: 'BEN001 - Rue du Banc' },
      );
    }

    const t0 = performance.now();
    const drained = await outbox.drain({ ownerId, force: true });
    const ms = performance.now() - t0;
    const left = await outbox.entries();
    const onServer = await db
      .selectFrom('intervention_submission')
      .select(sql<number>`count(*)::int`.as('n'))
      .executeTakeFirstOrThrow();
    const rows = await db
      .selectFrom('intervention')
      .where('site_id', '=', site.id)
      .select(sql<number>`count(*)::int`.as('n'))
      .executeTakeFirstOrThrow();
    console.log(
      `      replay: ${drained.sent.length} sent in ${(ms / 1000).toFixed(2)} s (${(ms / SUBMISSIONS).toFixed(1)} ms each, ${((SUBMISSIONS / ms) * 1000).toFixed(0)} per s); ` +
        `${left.length} left in the outbox; server: ${onServer.n} submissions, ${rows.n} interventions`,
    );
    if (left.length > 0) console.log(`      first entry left: ${left[0].state} ${left[0].lastError ?? ''} ${JSON.stringify(left[0].fieldErrors)}`);
    report('replay of 500 queued submissions', onServer.n === SUBMISSIONS && left.length === 0 && rows.n === SUBMISSIONS * 3, `${onServer.n}/${SUBMISSIONS} on the server in ${(ms / 1000).toFixed(2)} s`);
    offline.close();
  } finally {
    await server.close();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

interface ManifestChunk {
  file: string;
  imports?: string[];
  dynamicImports?: string[];
  css?: string[];
  isEntry?: boolean;
}

async function distWithManifest(): Promise<{ dir: string; temporary: boolean }> {
  // A dist/ left by an earlier build may not match the sources: measure a fresh build unless
  // BENCH_DIST names one on purpose.
  if (process.env.BENCH_DIST) {
    const dir = path.resolve(process.env.BENCH_DIST);
    if (!fs.existsSync(path.join(dir, '.vite', 'manifest.json'))) throw new Error(`no Vite manifest in ${dir}`);
    return { dir, temporary: false };
  }
  const out = fs.mkdtempSync(path.join(os.tmpdir(), 'compost-bench-dist-'));
  console.log(`      building the web app into ${out}`);
  const { build } = await import('vite');
  await build({ logLevel: 'warn', build: { outDir: out, emptyOutDir: true } });
  return { dir: out, temporary: true };
}

async function bundleBenchmark() {
  const { dir, temporary } = await distWithManifest();
  try {
    const manifest = JSON.parse(fs.readFileSync(path.join(dir, '.vite', 'manifest.json'), 'utf8')) as Record<string, ManifestChunk>;
    const entryKey = Object.keys(manifest).find((k) => manifest[k].isEntry && k.endsWith('index.html'));
    if (!entryKey) throw new Error('no index.html entry in the manifest');
    if (!manifest[SITE_SHEET_MODULE]) throw new Error(`${SITE_SHEET_MODULE} is not a chunk of its own in the manifest (is the route lazy?)`);

    // A chunk and its static imports, into `into`; returns the dynamic imports met on the way.
    const closure = (key: string, into: Set<string>, css?: Set<string>): string[] => {
      const dynamic: string[] = [];
      const visit = (k: string) => {
        const chunk = manifest[k];
        if (!chunk || into.has(chunk.file)) return;
        into.add(chunk.file);
        for (const c of chunk.css ?? []) css?.add(c);
        dynamic.push(...(chunk.dynamicImports ?? []));
        for (const i of chunk.imports ?? []) visit(i);
      };
      visit(key);
      return dynamic;
    };

    const files = new Set<string>();
    const css = new Set<string>();
    // The shell's own lazy imports: other screens, or things loaded after the first render.
    const shellLazy = closure(entryKey, files, css);
    // Everything the sheet loads itself, lazily or not, is needed by it.
    const pending = [SITE_SHEET_MODULE, ...NEEDED_LAZY_MODULES];
    for (let key = pending.shift(); key !== undefined; key = pending.shift()) {
      for (const d of closure(key, files, css)) if (!SCREEN.test(d) && !files.has(manifest[d]?.file ?? '')) pending.push(d);
    }

    const gzip = (file: string) => zlib.gzipSync(fs.readFileSync(path.join(dir, file))).length;
    const rows = [...files].map((f) => ({ file: f, raw: fs.statSync(path.join(dir, f)).size, gz: gzip(f) })).sort((a, b) => b.gz - a.gz);
    for (const r of rows) console.log(`      ${(r.gz / 1024).toFixed(1).padStart(7)} KB gz  ${(r.raw / 1024).toFixed(1).padStart(7)} KB  ${r.file}`);
    const total = rows.reduce((s, r) => s + r.gz, 0) / 1024;
    const cssTotal = [...css].reduce((s, f) => s + gzip(f), 0) / 1024;
    console.log(`      CSS loaded with it: ${cssTotal.toFixed(1)} KB gz (not counted: the target is about JavaScript)`);

    const later = new Set<string>();
    const laterNames = shellLazy.filter((k) => !SCREEN.test(k) && !NEEDED_LAZY_MODULES.includes(k));
    for (const key of laterNames) closure(key, later);
    const laterOnly = [...later].filter((f) => !files.has(f));
    const laterKb = laterOnly.reduce((s, f) => s + gzip(f), 0) / 1024;
    console.log(
      `      loaded after the first render, not needed to fill and save (${laterNames.map((k) => path.basename(k)).join(', ')}): ` +
        `${laterKb.toFixed(1)} KB gz in ${laterOnly.length} chunk(s) (not counted)`,
    );
    report(`JavaScript of /admin/fiche/site/{id} before usable`, total < BUNDLE_TARGET_KB, `${total.toFixed(1)} KB gzip (target < ${BUNDLE_TARGET_KB} KB)`);
  } finally {
    if (temporary) fs.rmSync(dir, { recursive: true, force: true });
  }
}

function parseArgs(argv: string[]) {
  const out: { dataset?: DatasetName; only?: RegExp; rebuild: boolean; buildOnly: boolean; runs: number; memory?: boolean } = { rebuild: false, buildOnly: false, runs: 50 };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    const value = () => {
      const v = argv[++i];
      if (v === undefined) throw new Error(`${a} needs a value`);
      return v;
    };
    if (a === '--dataset') {
      const v = value();
      if (!(v in DATASETS)) throw new Error(`--dataset: ${Object.keys(DATASETS).join(' or ')}`);
      out.dataset = v as DatasetName;
    } else if (a === '--only') out.only = new RegExp(value(), 'i');
    else if (a === '--rebuild') out.rebuild = true;
    else if (a === '--build-only') out.buildOnly = true;
    else if (a === '--memory') out.memory = true;
    else if (a === '--runs') out.runs = Math.max(5, Number(value()) || 50);
    else throw new Error(`unknown option ${a}`);
  }
  if ((out.only || out.buildOnly) && !out.dataset) throw new Error('--only and --build-only need --dataset');
  return out;
}

const args = parseArgs(process.argv.slice(2));
// The server's memory at 100,000 interventions on the embedded database, under load (bench/memory.ts).
if (args.memory) {
  const { measureMemory } = await import('./memory.js');
  const r = await measureMemory();
  process.exit(r.errors === 0 ? 0 : 1);
}
if (args.dataset && args.buildOnly) {
  const { url, info } = await preparePgDataset(args.dataset, { rebuild: args.rebuild });
  console.log(`${url}\n${JSON.stringify(info, null, 2)}`);
  process.exit(0);
}
const t = Date.now();
if (!args.only) {
  try {
    await replayBenchmark();
  } catch (error) {
    report('replay of 500 queued submissions', false, (error as Error).message);
  }
  try {
    await bundleBenchmark();
  } catch (error) {
    report('JavaScript of /admin/fiche/site/{id} before usable', false, (error as Error).message);
  }
  try {
    const rows = routeBenchmark();
    printRouteBench(rows);
    const worst = Math.max(...rows.map((r) => r.p95));
    report(`route planning of ${ROUTE_STOPS} stops`, worst < ROUTE_TARGET_MS, `p95 ${worst.toFixed(1)} ms (target < ${ROUTE_TARGET_MS} ms)`);
  } catch (error) {
    report(`route planning of ${ROUTE_STOPS} stops`, false, (error as Error).message);
  }
}
if (args.dataset) {
  // Reported, never fatal: a route being built elsewhere may be absent or slow.
  try {
    await measureDataset({ dataset: args.dataset, only: args.only, rebuild: args.rebuild, runs: args.runs, warmup: 3, capMs: 15_000 });
  } catch (error) {
    console.log(`      dataset bench stopped: ${(error as Error).stack ?? (error as Error).message}`);
  }
  // Backup and restore of the whole dataset's database (bench/backup.ts), on PostgreSQL.
  if (!args.only || args.only.test('backup')) {
    try {
      const r = await benchBackup(args.dataset, (line) => console.log(`      ${line}`));
      console.log(
        `${r.backupSeconds <= BACKUP_GOAL_S && r.restoreSeconds <= BACKUP_GOAL_S && r.countsEqual ? 'PASS' : 'MISS'}  backup/restore ${args.dataset}: backup ${r.backupSeconds.toFixed(1)} s, restore ${r.restoreSeconds.toFixed(1)} s (goal ${BACKUP_GOAL_S} s each), ${(r.bytes / 1024 / 1024).toFixed(1)} MB for ${r.rows} rows, RSS peak ${r.peakRssMb} MB`,
      );
    } catch (error) {
      console.log(`      backup bench stopped: ${(error as Error).stack ?? (error as Error).message}`);
    }
  }
}
console.log(`\n${results.filter((r) => r.ok).length}/${results.length} PASS in ${((Date.now() - t) / 1000).toFixed(1)} s`);
process.exit(results.every((r) => r.ok) ? 0 : 1);
