// `npx tsx bench/import.ts [lines]`: moving in at scale. Generates a sites file (50 sites, three
// cells each) and an interventions file of 100,000 lines (by default) over ten years, imports
// both through the API (one dry run, then the import) on a fresh database (PostgreSQL when
// DATABASE_URL is set, else PGlite in a temporary data directory, in its worker thread, as the
// server runs it) while another logged-in client keeps asking /api/logged, and prints the
// durations, the peak RSS and that other client's p95 and slowest answer. Targets: under 60 s
// on PostgreSQL, 120 s on PGlite; /api/logged p95 under 50 ms; 300 MB.
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { sql } from 'kysely';
import { openDatabase, openPostgres } from '../src/server/db/client.js';
import { migrate } from '../src/server/db/migrate.js';
import { seedCities } from '../src/server/db/seed.js';
import { createApp } from '../src/server/app.js';
import { createMemoryMailer } from '../src/server/mailer.js';
import { hashPassword } from '../src/server/passwords.js';
import importsRoutes from '../src/server/modules/imports/imports.routes.js';

const LINES = Number(process.argv[2] ?? 100_000);
const SITES = 50;
const ACTIONS: [string, string, () => string, string][] = [
  ['Apport', '1', () => '', 'Brassage'],
  ['Apport', '1', () => String(5 + Math.floor(Math.random() * 50)), 'Arrosage'],
  ['Apport', '1', () => `${20 + Math.floor(Math.random() * 50)},5`, 'Température'],
  ['Broyat', '2', () => String(10 + Math.floor(Math.random() * 100)), 'Apport de broyat'],
  ['Broyat', '2', () => ['Vide', '1/4', '1/2', '3/4', 'Plein'][Math.floor(Math.random() * 5)], 'Niveau de broyat'],
  ['Maturation', '3', () => String(Math.floor(Math.random() * 200)), 'Distribution de compost'],
];

function multipart(body: Buffer) {
  const boundary = `----bench${crypto.randomBytes(6).toString('hex')}`;
  const head = Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="fichier"; filename="f.csv"\r\nContent-Type: text/csv\r\n\r\n`);
  return { payload: Buffer.concat([head, body, Buffer.from(`\r\n--${boundary}--\r\n`)]), headers: { 'content-type': `multipart/form-data; boundary=${boundary}` } };
}

async function main() {
  const url = process.env.DATABASE_URL;
  let dbName: string | null = null;
  let handle: Awaited<ReturnType<typeof openDatabase>> | undefined;
  if (url) {
    dbName = `compost_bench_import_${crypto.randomBytes(4).toString('hex')}`;
    const admin = await openPostgres(url);
    await sql.raw(`CREATE DATABASE ${dbName}`).execute(admin.db);
    await admin.close();
    const u = new URL(url);
    u.pathname = `/${dbName}`;
    handle = await openPostgres(u.toString());
  }
  const dataDir = url ? null : fs.mkdtempSync(path.join(os.tmpdir(), 'compost-bench-import-'));
  if (dataDir) handle = await openDatabase({ dataDir });
  if (!handle) throw new Error("no database");
  await migrate(handle.db);
  await seedCities(handle.db, '242900314');
  // As the server does after migrating a new embedded database (main.ts): a fresh engine, so
  // that the memory measured is the import's, not the migrations'.
  if (dataDir) {
    await handle.close();
    handle = await openDatabase({ dataDir });
  }
  const db = handle.db;
  const deps = { db, mailer: createMemoryMailer(), authChanges: handle.changes, config: { APP_NAME: 'Bench', APP_CONTACT: '', publicUrl: 'http://localhost', secureCookies: false, TERRITORY: '242900314' } };
  const app = await createApp(deps);
  if (!app.hasRoute({ method: 'POST', url: '/api/admin/import/:kind' })) await app.register(importsRoutes, { prefix: '/api', ...deps });
  await app.ready();
  const account = await db
    .insertInto('account')
    .values({ kind: 'agent', identifiant: 'bench', email: 'bench@exemple.fr', password_hash: await hashPassword('bench-import-1'), nom: 'BENCH', prenom: 'Import', email_valide: true, actif: true })
    .returning('id')
    .executeTakeFirstOrThrow();
  await sql`INSERT INTO account_role (account_id, role_id) SELECT ${account.id}, id FROM role WHERE code = 'ROLE_ADMIN'`.execute(db);
  const login = await app.inject({ method: 'POST', url: '/api/login', payload: { username: 'bench', password: 'bench-import-1' } });
  const cookie = `compost_sid=${login.cookies.find((c) => c.name === 'compost_sid')!.value}`;

  const post = async (kind: string, body: Buffer, mode: string) => {
    const { payload, headers } = multipart(body);
    const t = performance.now();
    const res = await app.inject({ method: 'POST', url: `/api/admin/import/${kind}?mode=${mode}`, payload, headers: { ...headers, cookie } });
    const r = res.json();
    if (res.statusCode !== 200 || r.erreurs.length) throw new Error(`${kind} ${mode}: ${res.statusCode} ${res.body.slice(0, 500)}`);
    return { ms: performance.now() - t, r };
  };

  const sites = ['Code;Nom;Adresse;Ville;Type;Cellules'];
  for (let i = 1; i <= SITES; i++) sites.push(`B${String(i).padStart(3, '0')};Site ${i};${i} rue de Siam;Brest;Quartier;n°1 Apport (400 L) | n°2 Broyat (600 L) | n°3 Maturation (800 L)`);
  await post('sites', Buffer.from(sites.join('\r\n')), 'import');

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
  const file = Buffer.from(lines.join('\r\n'));

  let peak = process.memoryUsage().rss;
  const times: number[] = [];
  let running = true;
  let heapPeak = 0;
  const sampler = setInterval(() => {
    const m = process.memoryUsage();
    peak = Math.max(peak, m.rss);
    heapPeak = Math.max(heapPeak, m.heapUsed);
  }, 50);
  const other = (async () => {
    while (running) {
      const t = performance.now();
      await app.inject({ method: 'GET', url: '/api/logged', headers: { cookie } });
      times.push(performance.now() - t);
      await new Promise((r) => setTimeout(r, 100));
    }
  })();
  const dry = await post('interventions', file, 'essai');
  const real = await post('interventions', file, 'import');
  running = false;
  await other;
  clearInterval(sampler);
  const mb = (b: number) => `${Math.round(b / 1024 / 1024)} MB`;
  console.log(`Base : ${url ? 'PostgreSQL' : 'PGlite'} ; fichier : ${LINES.toLocaleString('fr-FR')} lignes, ${mb(file.length)}`);
  console.log(`Essai : ${(dry.ms / 1000).toFixed(1)} s (${dry.r.crees} à créer)`);
  console.log(`Import : ${(real.ms / 1000).toFixed(1)} s (${real.r.crees} créées)`);
  times.sort((a, b) => a - b);
  const p95 = times[Math.min(times.length - 1, Math.floor(times.length * 0.95))] ?? 0;
  console.log(`RSS maximal : ${mb(peak)} (tas JavaScript : ${mb(heapPeak)}) ; /api/logged pendant l'import : ${times.length} réponses, p95 ${Math.round(p95)} ms, la plus lente ${Math.round(times.at(-1) ?? 0)} ms`);
  await app.close();
  await handle!.close();
  if (dataDir) fs.rmSync(dataDir, { recursive: true, force: true });
  if (url && dbName) {
    const admin = await openPostgres(url);
    await sql.raw(`DROP DATABASE IF EXISTS ${dbName}`).execute(admin.db);
    await admin.close();
  }
}

await main();
