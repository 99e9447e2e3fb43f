// Fault tests (issue 9): the server outlives PostgreSQL dropping its connections, idle or in
// the middle of a burst, and being killed itself; a phone that resends every submission it
// got no 2xx for ends with each one stored exactly once. They need a PostgreSQL server
// (TEST_DATABASE_URL), like every other PostgreSQL test; the start-up wait does not.
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Writable } from 'node:stream';
import { spawn, type ChildProcess } from 'node:child_process';
import { sql } from 'kysely';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TEST_DRIVERS, createAccount, createTestApp, loggedAs } from '../../../tests/helpers/test-app.js';
import { createEquippedSite } from '../modules/interventions/test-factories.js';
import { loadConfig } from '../config.js';
import { startServer } from '../main.js';
import { openPostgres, type DatabaseHandle } from './client.js';
import { migrate } from './migrate.js';

const POSTGRES = TEST_DRIVERS.filter((d) => d === 'postgres');
const ADD = '/api/admin/intervention/add';

type Site = Awaited<ReturnType<typeof createEquippedSite>>;

/** A submission of two blocks on the site's apport cell, as the phone sends it. */
function submission(site: Site, clientId: string = crypto.randomUUID()) {
  return {
    clientId,
    site: site.id,
    date: new Date(Date.now() - 3600_000).toISOString(),
    values: [
      { composteur: site.apport, action: 1 },
      { composteur: site.apport, action: 4, valeur: 80 },
    ],
  };
}

/** Ends every connection to the database but the caller's, as a PostgreSQL restart or failover would. */
async function terminateAll(admin: DatabaseHandle, dbName: string): Promise<number> {
  const r = await sql<{ n: number }>`
    SELECT count(*)::int AS n FROM (
      SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = ${dbName} AND pid <> pg_backend_pid()
    ) t`.execute(admin.db);
  return r.rows[0].n;
}

/** Each clientId's stored submissions and interventions: exactly once means 1 and 2. */
async function storedCounts(db: DatabaseHandle['db'], clientIds: string[]) {
  const subs = await db
    .selectFrom('intervention_submission')
    .where('client_id', 'in', clientIds)
    .select(['client_id', sql<number>`count(*)::int`.as('n')])
    .groupBy('client_id')
    .execute();
  const rows = await db
    .selectFrom('intervention')
    .where('client_id', 'in', clientIds)
    .select(['client_id', sql<number>`count(*)::int`.as('n')])
    .groupBy('client_id')
    .execute();
  const bySub = new Map(subs.map((r) => [r.client_id, r.n]));
  const byRow = new Map(rows.map((r) => [r.client_id, r.n]));
  return clientIds.map((id) => ({ id, submissions: bySub.get(id) ?? 0, interventions: byRow.get(id) ?? 0 }));
}

function expectExactlyOnce(counts: Awaited<ReturnType<typeof storedCounts>>) {
  const wrong = counts.filter((c) => c.submissions !== 1 || c.interventions !== 2);
  expect(wrong).toEqual([]);
}

describe('start-up against a PostgreSQL server that does not answer', () => {
  it('retries with a logged wait, then stops with a French message naming DATABASE_URL', async () => {
    const lines: string[] = [];
    const log = pino(
      { level: 'info' },
      new Writable({
        write(chunk, _enc, done) {
          lines.push(String(chunk));
          done();
        },
      }),
    );
    const config = loadConfig({ DATABASE_URL: 'postgres://compost:secret@127.0.0.1:1/compost', PORT: '0', LOG_LEVEL: 'info' });
    const started = Date.now();
    const error = await startServer(config, { databaseWaitMs: 1600, log }).then(
      () => null,
      (e: Error) => e,
    );
    expect(error?.message).toContain('La base PostgreSQL de DATABASE_URL (127.0.0.1:1/compost) ne répond pas après 2 s');
    expect(error?.message).toContain('ECONNREFUSED');
    expect(error?.message).toContain('Vérifiez que le serveur PostgreSQL est démarré et joignable, et que DATABASE_URL est juste.');
    // The password of the URL is never shown.
    expect(error?.message).not.toContain('secret');
    const waits = lines.filter((l) => l.includes('ne répond pas encore'));
    expect(waits.length).toBeGreaterThanOrEqual(2);
    expect(waits[0]).toContain('nouvel essai dans 0.5 s');
    expect(Date.now() - started).toBeGreaterThanOrEqual(1400);
  });
});

describe.each(POSTGRES)('connections dropped by PostgreSQL (%s)', (driver) => {
  let ctx: Awaited<ReturnType<typeof createTestApp>>;
  let admin: DatabaseHandle;
  let dbName: string;
  let agent: Awaited<ReturnType<typeof loggedAs>>;
  let site: Site;
  const logged = () => ctx.app.inject({ url: '/api/logged', headers: { cookie: agent.cookie } });
  const post = (payload: object) => ctx.app.inject({ method: 'POST', url: ADD, headers: { cookie: agent.cookie }, payload });

  beforeAll(async () => {
    ctx = await createTestApp(driver);
    admin = await openPostgres(process.env.TEST_DATABASE_URL!);
    dbName = (await sql<{ name: string }>`SELECT current_database() AS name`.execute(ctx.db)).rows[0].name;
    agent = await loggedAs(ctx, ['ROLE_ADMIN_SITE']);
    site = await createEquippedSite(ctx.db);
  });
  afterAll(async () => {
    await admin.close();
    await ctx.close();
  });

  it('answers again at once after its idle connections are terminated', async () => {
    // Fill the pool with idle connections.
    await Promise.all(Array.from({ length: 10 }, () => logged()));
    expect(await terminateAll(admin, dbName)).toBeGreaterThan(0);
    const statuses: number[] = [];
    for (let i = 0; i < 20; i++) statuses.push((await logged()).statusCode);
    // A read that meets a connection whose end has not been read yet runs again on another.
    expect(statuses).toEqual(Array(20).fill(200));
    expect((await ctx.app.inject({ url: '/api/ready' })).statusCode).toBe(200);
  });

  it('answers 200 or 503 during a burst cut six times, then stores every resent submission exactly once', async () => {
    const payloads = Array.from({ length: 100 }, () => submission(site));
    const firstTry = new Map<string, number>();
    const statuses: number[] = [];
    let done = 0;
    const cutting: Promise<number>[] = [];
    const track = <T extends { statusCode: number }>(p: Promise<T>) =>
      p.then((res) => {
        statuses.push(res.statusCode);
        done++;
        // Cut while most requests are still queued or running.
        if (done % 30 === 10) {
          cutting.push(terminateAll(admin, dbName));
        }
        return res;
      });
    await Promise.all([
      ...payloads.map((p) => track(post(p)).then((res) => firstTry.set(p.clientId, res.statusCode))),
      ...Array.from({ length: 100 }, () => track(logged())),
    ]);
    expect((await Promise.all(cutting)).reduce((a, b) => a + b, 0)).toBeGreaterThan(0);
    const unexpected = statuses.filter((s) => s !== 200 && s !== 503);
    expect(unexpected).toEqual([]);
    if (process.env.RESILIENCE_REPORT) console.log('burst answers', { ok: statuses.filter((s) => s === 200).length, unavailable: statuses.filter((s) => s === 503).length });

    // The phone resends what it got no 2xx for.
    const toResend = payloads.filter((p) => firstTry.get(p.clientId) !== 200);
    for (const p of toResend) expect((await post(p)).statusCode).toBe(200);
    expect((await logged()).statusCode).toBe(200);
    expectExactlyOnce(await storedCounts(ctx.db, payloads.map((p) => p.clientId)));
  }, 120_000);
});

/** `npm start` without the build, on the given PostgreSQL database; resolves with its URL once listening. */
function startChild(databaseUrl: string, dataDir: string) {
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/server/start.ts'], {
    env: { ...process.env, DATABASE_URL: databaseUrl, DATA_DIR: dataDir, SKIP_BUILD: '1', PORT: '0', HOST: '127.0.0.1', ADMIN_PASSWORD: 'un-mot-de-passe', LOG_LEVEL: 'warn' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout.on('data', (d) => (out += d));
  child.stderr.on('data', (d) => (out += d));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  const url = new Promise<string>((resolve, reject) => {
    const t = setInterval(() => {
      const m = out.match(/est prêt : (http:\/\/\S+)/);
      if (m) {
        clearInterval(t);
        resolve(m[1]);
      } else if (child.exitCode !== null || child.signalCode !== null) {
        clearInterval(t);
        reject(new Error(out));
      }
    }, 50);
  });
  return { child, url, exited, output: () => out };
}

async function stopChild(c: { child: ChildProcess; exited: Promise<number | null> }) {
  if (c.child.exitCode === null && c.child.signalCode === null) c.child.kill('SIGTERM');
  await c.exited;
}

describe.each(POSTGRES)('server processes killed and replaying (%s)', () => {
  const baseUrl = process.env.TEST_DATABASE_URL!;
  const name = `compost_t_${crypto.randomBytes(6).toString('hex')}`;
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'compost-resilience-'));
  let dbUrl: string;
  let handle: DatabaseHandle;
  let admin: DatabaseHandle;

  beforeAll(async () => {
    admin = await openPostgres(baseUrl);
    await sql.raw(`CREATE DATABASE ${name}`).execute(admin.db);
    const u = new URL(baseUrl);
    u.pathname = `/${name}`;
    dbUrl = u.toString();
    handle = await openPostgres(dbUrl);
    await migrate(handle.db);
  });
  afterAll(async () => {
    await handle.close();
    await terminateAll(admin, name);
    await sql.raw(`DROP DATABASE IF EXISTS ${name}`).execute(admin.db);
    await admin.close();
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  async function loginTo(url: string, login: string) {
    const res = await fetch(`${url}/api/login`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ username: login, password: 'motdepasse-test' }) });
    expect(res.status).toBe(200);
    return res.headers.getSetCookie().map((c) => c.split(';')[0]).find((c) => c.startsWith('compost_sid='))!;
  }
  const postTo = (url: string, cookie: string, payload: object) =>
    fetch(`${url}${ADD}`, { method: 'POST', headers: { 'content-type': 'application/json', cookie }, body: JSON.stringify(payload) });

  it('loses and doubles nothing when killed mid-burst, restarted, and replayed by two processes at once; refuses an id reused for other content', async () => {
    const first = startChild(dbUrl, dataDir);
    const url1 = await first.url;
    const account = await createAccount(handle.db, { roles: ['ROLE_ADMIN_SITE'] });
    const site = await createEquippedSite(handle.db);
    const cookie = await loginTo(url1, account.login);

    const payloads = Array.from({ length: 100 }, () => submission(site));
    const got2xx = new Set<string>();
    let answered = 0;
    await Promise.all(
      payloads.map((p) =>
        postTo(url1, cookie, p).then(
          async (res) => {
            if (res.status >= 200 && res.status < 300) got2xx.add(p.clientId);
            else expect([503]).toContain(res.status);
            await res.arrayBuffer();
            // Killed while the rest of the burst is in flight.
            if (++answered === 30) first.child.kill('SIGKILL');
          },
          () => undefined, // the connection died with the process: no answer, to be resent
        ),
      ),
    );
    await first.exited;
    expect(first.child.signalCode).toBe('SIGKILL');
    expect(got2xx.size).toBeGreaterThanOrEqual(30);
    expect(got2xx.size).toBeLessThan(100);

    // Restarted, and a second process on the same database; the session is still valid.
    const second = startChild(dbUrl, dataDir);
    const third = startChild(dbUrl, dataDir);
    try {
      const [url2, url3] = await Promise.all([second.url, third.url]);
      // Each process receives every submission the phone got no 2xx for, at the same time.
      const pending = payloads.filter((p) => !got2xx.has(p.clientId));
      const answers = await Promise.all(pending.flatMap((p) => [postTo(url2, cookie, p), postTo(url3, cookie, p)]));
      expect(answers.map((r) => r.status).filter((s) => s !== 200)).toEqual([]);
      const bodies = await Promise.all(answers.map((r) => r.json() as Promise<{ interventions: number[] }>));
      // Both processes answer the same stored result for one clientId.
      for (let i = 0; i < bodies.length; i += 2) expect(bodies[i].interventions).toEqual(bodies[i + 1].interventions);
      // Resending one that had been stored is harmless too.
      const stored = payloads.find((p) => got2xx.has(p.clientId))!;
      expect((await postTo(url3, cookie, stored)).status).toBe(200);

      expectExactlyOnce(await storedCounts(handle.db, payloads.map((p) => p.clientId)));

      const reused = { ...submission(site, stored.clientId), values: [{ composteur: site.apport, action: 1 }] };
      const conflict = await postTo(url2, cookie, reused);
      expect(conflict.status).toBe(409);
      expect((await conflict.json()).status).toBe('error');
      expectExactlyOnce(await storedCounts(handle.db, [stored.clientId]));
    } finally {
      await Promise.all([stopChild(second), stopChild(third)]);
    }
    expect(await second.exited).toBe(0);
  }, 180_000);
});
