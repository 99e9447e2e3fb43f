// `npx tsx bench/import.ts [lines]`: moving in at scale. Generates a sites file (50 sites, three
// cells each) and an interventions file of 100,000 lines (by default) over ten years, then
// imports both into a real server started as `npm start` starts it (src/server/start.ts with
// its environment and node flags) on a new database: PostgreSQL when DATABASE_URL is set (a
// fresh database beside it), else PGlite in a temporary DATA_DIR, created by a first start that
// is stopped, as an installed server would be restarted. One dry run, then the import, through
// HTTP, while another logged-in client keeps asking /api/logged. Prints the durations, the
// server's RSS (at rest before, and its peak during the import, sampled every 50 ms) and that
// other client's p95 and slowest answer. Targets: under 60 s on PostgreSQL, 120 s on PGlite;
// /api/logged p95 under 50 ms; 300 MB.
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { startCommand } from './start-command.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const LINES = Number(process.argv[2] ?? 100_000);
const SITES = 50;
const PASSWORD = `bench-import-${crypto.randomBytes(6).toString('hex')}`;
const ACTIONS: [string, string, () => string, string][] = [
  ['Apport', '1', () => '', 'Brassage'],
  ['Apport', '1', () => String(5 + Math.floor(Math.random() * 50)), 'Arrosage'],
  ['Apport', '1', () => `${20 + Math.floor(Math.random() * 50)},5`, 'Température'],
  ['Broyat', '2', () => String(10 + Math.floor(Math.random() * 100)), 'Apport de broyat'],
  ['Broyat', '2', () => ['Vide', '1/4', '1/2', '3/4', 'Plein'][Math.floor(Math.random() * 5)], 'Niveau de broyat'],
  ['Maturation', '3', () => String(Math.floor(Math.random() * 200)), 'Distribution de compost'],
];

function sitesFile(): Buffer {
  const lines = ['Code;Nom;Adresse;Ville;Type;Cellules'];
  for (let i = 1; i <= SITES; i++) lines.push(`B${String(i).padStart(3, '0')};Site ${i};${i} rue de Siam;Brest;Quartier;n°1 Apport (400 L) | n°2 Broyat (600 L) | n°3 Maturation (800 L)`);
  return Buffer.from(lines.join('\r\n'));
}

function interventionsFile(): Buffer {
  const start = Date.UTC(2014, 0, 1);
  const span = Date.UTC(2024, 0, 1) - start;
  const lines = ['Date;Site;Intervenant;Type Cellule;N° Cellule;Action;Valeur;Unité;Observations'];
  const pad = (n: number) => String(n).padStart(2, '0');
  for (let i = 0; i < LINES; i++) {
    const d = new Date(start + Math.floor((i / LINES) * span) + Math.floor(Math.random() * 3600_000));
    const [bac, n, value, action] = ACTIONS[i % ACTIONS.length];
    const date = `${pad(d.getUTCDate())}/${pad(d.getUTCMonth() + 1)}/${d.getUTCFullYear()} ${pad(d.getUTCHours())}:${pad(d.getUTCMinutes())}`;
    lines.push(`${date};B${String(1 + (i % SITES)).padStart(3, '0')};Ancien outil;${bac};${n};${action};${value()};;ligne ${i}`);
  }
  return Buffer.from(lines.join('\r\n'));
}

function status(pid: number): { rss: number; hwm: number } {
  const text = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
  const mb = (key: string) => Math.round(Number(new RegExp(`${key}:\\s+(\\d+) kB`).exec(text)?.[1] ?? 0) / 1024);
  return { rss: mb('VmRSS'), hwm: mb('VmHWM') };
}

/** Starts the server as `npm start` does; resolves once it answers. */
async function startServer(env: Record<string, string>): Promise<{ proc: ChildProcess; url: string }> {
  const port = 20000 + Math.floor(Math.random() * 20000);
  const start = startCommand();
  const proc = spawn(process.execPath, [...start.nodeArgs, path.join(root, 'src/server/start.ts')], {
    cwd: root,
    env: { ...process.env, ...start.env, SKIP_BUILD: '1', PORT: String(port), HOST: '127.0.0.1', LOG_LEVEL: 'warn', DEMO_DATA: '0', BACKUP_AT: 'off', ALERTS_AT: 'off', TERRITORY: '242900314', ADMIN_LOGIN: 'bench', ADMIN_PASSWORD: PASSWORD, ...env },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  const url = `http://127.0.0.1:${port}`;
  for (;;) {
    if (proc.exitCode !== null) throw new Error(`server exited (${proc.exitCode})`);
    if (await fetch(`${url}/api/health`).then((r) => r.ok, () => false)) return { proc, url };
    await new Promise((r) => setTimeout(r, 100));
  }
}

async function stop(proc: ChildProcess) {
  if (proc.exitCode !== null) return;
  const exited = new Promise((r) => proc.once('exit', r));
  proc.kill('SIGTERM');
  await exited;
}

async function main() {
  const base = process.env.DATABASE_URL;
  let dbUrl: string | null = null;
  let dataDir: string | null = null;
  const dbName = `compost_bench_import_${crypto.randomBytes(4).toString('hex')}`;
  if (base) {
    const admin = new pg.Client({ connectionString: base });
    await admin.connect();
    await admin.query(`CREATE DATABASE ${dbName}`);
    await admin.end();
    const u = new URL(base);
    u.pathname = `/${dbName}`;
    dbUrl = u.toString();
  } else dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'compost-bench-import-'));
  const env: Record<string, string> = dbUrl ? { DATABASE_URL: dbUrl } : { DATA_DIR: dataDir!, DATABASE_URL: '' };
  const sites = sitesFile();
  const file = interventionsFile();
  let server: ChildProcess | null = null;
  try {
    // The first start creates the database (PGlite's cluster, the migrations, the first
    // administrator); the measured server is the next start on it.
    await stop((await startServer(env)).proc);
    const started = await startServer(env);
    server = started.proc;
    const { url } = started;
    const pid = server.pid!;
    const login = await fetch(`${url}/api/login`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ username: 'bench', password: PASSWORD }) });
    if (!login.ok) throw new Error(`login: ${login.status} ${await login.text()}`);
    const cookie = login.headers
      .getSetCookie()
      .map((c) => c.split(';')[0])
      .join('; ');
    const post = async (kind: string, body: Buffer, mode: string) => {
      const form = new FormData();
      form.append('fichier', new Blob([new Uint8Array(body)], { type: 'text/csv' }), `${kind}.csv`);
      const t = performance.now();
      const res = await fetch(`${url}/api/admin/import/${kind}?mode=${mode}`, { method: 'POST', body: form, headers: { cookie } });
      const r = (await res.json()) as { crees: number; erreurs: unknown[] };
      if (res.status !== 200 || r.erreurs.length) throw new Error(`${kind} ${mode}: ${res.status} ${JSON.stringify(r).slice(0, 500)}`);
      return { ms: performance.now() - t, r };
    };
    await post('sites', sites, 'import');
    await new Promise((r) => setTimeout(r, 1000));
    const idle = status(pid);

    let peak = idle.rss;
    const sampler = setInterval(() => {
      try {
        peak = Math.max(peak, status(pid).rss);
      } catch {
        /* exited */
      }
    }, 50);
    const times: number[] = [];
    let running = true;
    const other = (async () => {
      while (running) {
        const t = performance.now();
        const r = await fetch(`${url}/api/logged`, { headers: { cookie } });
        await r.arrayBuffer();
        times.push(performance.now() - t);
        await new Promise((r) => setTimeout(r, 100));
      }
    })();
    const dry = await post('interventions', file, 'essai');
    const dryPeak = peak;
    const real = await post('interventions', file, 'import');
    running = false;
    await other;
    clearInterval(sampler);
    const end = status(pid);
    const mb = (b: number) => `${Math.round(b / 1024 / 1024)} MB`;
    console.log(`Base : ${dbUrl ? 'PostgreSQL' : 'PGlite'} ; fichier : ${LINES.toLocaleString('fr-FR')} lignes, ${mb(file.length)}`);
    console.log(`Essai : ${(dry.ms / 1000).toFixed(1)} s (${dry.r.crees} à créer)`);
    console.log(`Import : ${(real.ms / 1000).toFixed(1)} s (${real.r.crees} créées)`);
    times.sort((a, b) => a - b);
    const p95 = times[Math.min(times.length - 1, Math.floor(times.length * 0.95))] ?? 0;
    console.log(`Serveur : RSS au repos ${idle.rss} MB, maximal pendant l'essai ${dryPeak} MB, pendant l'import ${Math.max(peak, end.rss)} MB (VmHWM depuis le démarrage ${end.hwm} MB), à la fin ${end.rss} MB`);
    console.log(`/api/logged pendant l'import : ${times.length} réponses, p95 ${Math.round(p95)} ms, la plus lente ${Math.round(times.at(-1) ?? 0)} ms`);
  } finally {
    if (server) await stop(server);
    if (dataDir) fs.rmSync(dataDir, { recursive: true, force: true });
    if (base) {
      const admin = new pg.Client({ connectionString: base });
      await admin.connect();
      await admin.query(`DROP DATABASE IF EXISTS ${dbName}`);
      await admin.end();
    }
  }
}

await main();
