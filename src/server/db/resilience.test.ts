// Fault tests: the server outlives PostgreSQL dropping its connections, idle or in the middle
// of a burst, and being killed itself; a phone that resends every submission it got no 2xx for
// ends with each one stored exactly once. Every way the server refuses a connection, a
// statement stuck behind a lock and a connection gone silent answer 503 with Retry-After (the
// outbox waits and sends again), in bounded time, with nothing half stored. They need a
// PostgreSQL server (TEST_DATABASE_URL), like every other PostgreSQL test; the start-up wait
// and the stand-in servers do not.
import crypto from 'node:crypto';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { Writable } from 'node:stream';
import { spawn, type ChildProcess } from 'node:child_process';
import { sql } from 'kysely';
import pg from 'pg';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TEST_CONFIG, TEST_DRIVERS, createAccount, createTestApp, loggedAs, login, openTestDatabase } from '../../../tests/helpers/test-app.js';
import { createEquippedSite } from '../modules/field-entry/test-factories.js';
import { loadConfig } from '../config.js';
import { startServer } from '../main.js';
import { createApp } from '../app.js';
import { createMemoryMailer } from '../mailer.js';
import { NO_ANSWER_CODE } from '../errors.js';
import { createPostgres, openPostgres, withStatementTimeout, type DatabaseHandle } from './client.js';
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

/** An agent who may add interventions on every site, logged in on `app`, and a site with cells. */
async function agentAndSite(app: Awaited<ReturnType<typeof createApp>>, handle: DatabaseHandle) {
  const account = await createAccount(handle.db, { roles: ['ROLE_ADMIN_SITE'] });
  const cookie = await login(app, account.login);
  const site = await createEquippedSite(handle.db);
  return { cookie, site };
}

/** The backend pid of the first statement of database `dbName` found waiting for a lock. */
async function waitForLockWaiter(admin: DatabaseHandle, dbName: string): Promise<number> {
  for (let i = 0; i < 200; i++) {
    const r = await sql<{ pid: number }>`
      SELECT pid FROM pg_stat_activity WHERE datname = ${dbName} AND wait_event_type = 'Lock' AND pid <> pg_backend_pid()`.execute(admin.db);
    if (r.rows[0]) return r.rows[0].pid;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  throw new Error('no statement waits for the lock');
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

const UNAVAILABLE = { status: 'error', message: 'Service momentanément indisponible, réessayez dans un instant.' };

/** The answer a request that needs the database gets: a login (it reads the account first). */
async function loginAnswer(app: Awaited<ReturnType<typeof createApp>>) {
  const res = await app.inject({ method: 'POST', url: '/api/login', payload: { username: 'chef', password: 'un-mot-de-passe' } });
  return { status: res.statusCode, body: res.json() as unknown, retryAfter: res.headers['retry-after'] };
}

/** An app (not listening) on the given database handle. */
function appOn(handle: DatabaseHandle) {
  return createApp({ db: handle.db, mailer: createMemoryMailer(), authChanges: handle.changes, config: TEST_CONFIG });
}

/**
 * A stand-in for a PostgreSQL server that refuses every connection the way a real one does at
 * start-up: an ErrorResponse with the given SQLSTATE, after asking for the password when
 * `askPassword` (as a server whose password was changed does), then the end of the connection.
 */
async function refusingServer(code: string, message: string, opts: { askPassword?: boolean } = {}) {
  const field = (tag: string, value: string) => Buffer.concat([Buffer.from(tag), Buffer.from(value, 'utf8'), Buffer.from([0])]);
  const errorResponse = () => {
    const body = Buffer.concat([field('S', 'FATAL'), field('V', 'FATAL'), field('C', code), field('M', message), Buffer.from([0])]);
    const head = Buffer.alloc(5);
    head.write('E', 0);
    head.writeInt32BE(body.length + 4, 1);
    return Buffer.concat([head, body]);
  };
  const sockets = new Set<net.Socket>();
  const server = net.createServer((socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => undefined);
    let gotStartup = false;
    socket.on('data', (chunk) => {
      if (!gotStartup) {
        gotStartup = true;
        if (opts.askPassword) {
          // AuthenticationCleartextPassword: the client answers with a PasswordMessage ('p').
          const ask = Buffer.alloc(9);
          ask.write('R', 0);
          ask.writeInt32BE(8, 1);
          ask.writeInt32BE(3, 5);
          socket.write(ask);
          return;
        }
      } else if (chunk[0] !== 'p'.charCodeAt(0)) return;
      socket.end(errorResponse());
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as net.AddressInfo).port;
  return {
    url: `postgres://compost:ancien-mot-de-passe@127.0.0.1:${port}/compost`,
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}

describe('a PostgreSQL server that refuses connections', () => {
  // What the driver sees when the server is starting up or shutting down, crashed, or no
  // longer accepts the password: each is an outage for the phone, never a server error.
  it.each([
    ['57P03', 'the database system is starting up', false],
    ['57P03', 'the database system is shutting down', false],
    ['57P02', 'terminating connection due to crash of another server process', false],
    ['28P01', 'password authentication failed for user "compost"', true],
    ['55000', 'database "compost" is not currently accepting connections', false],
  ])('answers 503 with Retry-After to a request when the server says %s (%s)', async (code, message, askPassword) => {
    const server = await refusingServer(code, message, { askPassword });
    const handle = createPostgres(server.url);
    const app = await appOn(handle);
    try {
      await expect(sql`SELECT 1`.execute(handle.db)).rejects.toMatchObject({ code });
      expect(await loginAnswer(app)).toEqual({ status: 503, body: UNAVAILABLE, retryAfter: '5' });
    } finally {
      await app.close();
      await handle.close();
      await server.close();
    }
  });

  it('stops a start at once with the reason when the password is refused, instead of waiting for the server', async () => {
    const server = await refusingServer('28P01', 'password authentication failed for user "compost"', { askPassword: true });
    try {
      const config = loadConfig({ DATABASE_URL: server.url, PORT: '0', LOG_LEVEL: 'silent' });
      const started = Date.now();
      const error = await startServer(config, { databaseWaitMs: 10_000, log: pino({ level: 'silent' }) }).then(
        () => null,
        (e: Error) => e,
      );
      expect(error?.message).toContain('password authentication failed');
      expect(error?.message).not.toContain('ancien-mot-de-passe');
      expect(Date.now() - started).toBeLessThan(5000);
    } finally {
      await server.close();
    }
  });
});

describe.each(POSTGRES)('a PostgreSQL database that refuses this server (%s)', () => {
  const baseUrl = process.env.TEST_DATABASE_URL!;
  const suffix = crypto.randomBytes(5).toString('hex');
  let admin: DatabaseHandle;
  const urlFor = (changes: { user?: string; database?: string }) => {
    const u = new URL(baseUrl);
    if (changes.user) {
      u.username = changes.user;
      u.password = '';
    }
    if (changes.database) u.pathname = `/${changes.database}`;
    return u.toString();
  };
  beforeAll(async () => {
    admin = await openPostgres(baseUrl);
  });
  afterAll(async () => {
    await admin.close();
  });

  async function expectOutage(url: string, code: string) {
    const handle = createPostgres(url);
    const app = await appOn(handle);
    try {
      await expect(sql`SELECT 1`.execute(handle.db)).rejects.toMatchObject({ code });
      expect(await loginAnswer(app)).toEqual({ status: 503, body: UNAVAILABLE, retryAfter: '5' });
    } finally {
      await app.close();
      await handle.close();
    }
  }

  it('answers 503 when the role may no longer log in (28000)', async () => {
    const role = `compost_nologin_${suffix}`;
    await sql.raw(`CREATE ROLE ${role} NOLOGIN`).execute(admin.db);
    try {
      await expectOutage(urlFor({ user: role }), '28000');
    } finally {
      await sql.raw(`DROP ROLE IF EXISTS ${role}`).execute(admin.db);
    }
  });

  it('answers 503 when the role was dropped (28000)', async () => {
    await expectOutage(urlFor({ user: `compost_gone_${suffix}` }), '28000');
  });

  it('answers 503 when every connection slot is taken (53300)', async () => {
    // Superusers ignore connection limits: a role of the app's kind with none left.
    const role = `compost_full_${suffix}`;
    await sql.raw(`CREATE ROLE ${role} LOGIN CONNECTION LIMIT 0`).execute(admin.db);
    try {
      await expectOutage(urlFor({ user: role }), '53300');
    } finally {
      await sql.raw(`DROP ROLE IF EXISTS ${role}`).execute(admin.db);
    }
  });

  it('answers 503 when an administrator ends the connection of a write in progress (57P01), storing none of it', async () => {
    const name = `compost_t_kill_${suffix}`;
    await sql.raw(`CREATE DATABASE ${name}`).execute(admin.db);
    const handle = createPostgres(urlFor({ database: name }));
    const holder = new pg.Client({ connectionString: urlFor({ database: name }) });
    try {
      await migrate(handle.db);
      const app = await appOn(handle);
      try {
        const { cookie, site } = await agentAndSite(app, handle);
        // The write blocks behind a lock on a table its trigger fills, after its first inserts.
        await holder.connect();
        await holder.query('BEGIN');
        await holder.query('LOCK TABLE intervention_stats_mois IN ACCESS EXCLUSIVE MODE');
        const payload = submission(site);
        const answer = app.inject({ method: 'POST', url: ADD, headers: { cookie }, payload });
        const blocked = await waitForLockWaiter(admin, name);
        await sql`SELECT pg_terminate_backend(${blocked})`.execute(admin.db);
        const res = await answer;
        expect(res.statusCode).toBe(503);
        expect(res.json()).toEqual(UNAVAILABLE);
        expect(res.headers['retry-after']).toBe('5');
        await holder.query('ROLLBACK');
        expect(await storedCounts(handle.db, [payload.clientId])).toEqual([{ id: payload.clientId, submissions: 0, interventions: 0 }]);
        // Sent again, it is stored once.
        expect((await app.inject({ method: 'POST', url: ADD, headers: { cookie }, payload })).statusCode).toBe(200);
        expectExactlyOnce(await storedCounts(handle.db, [payload.clientId]));
      } finally {
        await app.close();
      }
    } finally {
      await holder.end().catch(() => undefined);
      await handle.close();
      await sql.raw(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`).execute(admin.db);
    }
  });

  it('answers 503 once its database is gone (3D000)', async () => {
    const name = `compost_t_gone_${suffix}`;
    await sql.raw(`CREATE DATABASE ${name}`).execute(admin.db);
    const handle = createPostgres(urlFor({ database: name }));
    try {
      await migrate(handle.db);
      const app = await appOn(handle);
      try {
        const { cookie } = await agentAndSite(app, handle);
        expect((await app.inject({ url: '/api/admin/intervention/get/list/by/filters', headers: { cookie } })).statusCode).toBe(200);
        await sql.raw(`DROP DATABASE ${name} WITH (FORCE)`).execute(admin.db);
        await expect(sql`SELECT 1`.execute(handle.db)).rejects.toMatchObject({ code: '3D000' });
        expect(await loginAnswer(app)).toEqual({ status: 503, body: UNAVAILABLE, retryAfter: '5' });
        expect((await app.inject({ url: '/api/ready' })).statusCode).toBe(503);
      } finally {
        await app.close();
      }
    } finally {
      await handle.close();
      await sql.raw(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`).execute(admin.db);
    }
  });
});

/**
 * A TCP relay to PostgreSQL whose open connections can go silent without closing anything, as
 * after a dead peer or a dropped route: their bytes stop flowing both ways, no error, no end.
 * Connections opened afterwards work (the route came back, or another one is taken).
 */
async function silencingRelay(target: string) {
  const t = new URL(target);
  const open = new Set<{ silent: boolean; close: () => void }>();
  const server = net.createServer((inbound) => {
    const outbound = net.connect(Number(t.port || 5432), t.hostname);
    const link = { silent: false, close: () => (inbound.destroy(), outbound.destroy()) };
    open.add(link);
    inbound.on('data', (d) => !link.silent && outbound.write(d));
    outbound.on('data', (d) => !link.silent && inbound.write(d));
    const close = () => {
      open.delete(link);
      link.close();
    };
    inbound.on('error', close).on('close', close);
    outbound.on('error', close).on('close', close);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = new URL(target);
  url.hostname = '127.0.0.1';
  url.port = String((server.address() as net.AddressInfo).port);
  return {
    url: url.toString(),
    silenceOpenConnections: () => open.forEach((l) => (l.silent = true)),
    close: () =>
      new Promise<void>((resolve) => {
        open.forEach((l) => l.close());
        server.close(() => resolve());
      }),
  };
}

describe.each(POSTGRES)('statements that do not finish (%s)', () => {
  // A short limit so that the tests wait one second, not the default fifteen.
  const LIMIT = { statementTimeoutMs: 1000, noAnswerGraceMs: 1000 };
  let base: Awaited<ReturnType<typeof openTestDatabase>>;
  let handle: ReturnType<typeof createPostgres>;
  let app: Awaited<ReturnType<typeof createApp>>;
  let holder: pg.Client;
  let cookie: string;
  let site: Site;

  /** Holds `table` locked against everything (as a long migration or a stuck session would). */
  async function lock(table: string) {
    holder = new pg.Client({ connectionString: base.url });
    await holder.connect();
    await holder.query('BEGIN');
    await holder.query(`LOCK TABLE ${table} IN ACCESS EXCLUSIVE MODE`);
  }
  async function unlock() {
    await holder.query('ROLLBACK');
    await holder.end();
  }

  beforeAll(async () => {
    base = await openTestDatabase('postgres');
    handle = createPostgres(base.url!, LIMIT);
    app = await appOn(handle);
    ({ cookie, site } = await agentAndSite(app, handle));
  });
  afterAll(async () => {
    await app.close();
    await handle.close();
    await base.close();
  });

  it('answers 503 within the limit to a read stuck behind a lock, then serves it once the lock is gone', async () => {
    const list = () => app.inject({ url: '/api/admin/intervention/get/list/by/filters', headers: { cookie } });
    await lock('intervention');
    try {
      const started = performance.now();
      const res = await list();
      const elapsed = performance.now() - started;
      expect(res.statusCode).toBe(503);
      expect(res.json()).toEqual(UNAVAILABLE);
      expect(res.headers['retry-after']).toBe('5');
      // Cancelled by the server at its limit, well before the client would give up.
      expect(elapsed).toBeGreaterThanOrEqual(900);
      expect(elapsed).toBeLessThan(LIMIT.statementTimeoutMs + LIMIT.noAnswerGraceMs);
      await expect(sql`SELECT count(*) FROM intervention`.execute(handle.db)).rejects.toMatchObject({ code: '57014' });
    } finally {
      await unlock();
    }
    expect((await list()).statusCode).toBe(200);
  });

  it('answers 503 to a write stuck behind a lock and keeps none of it; sent again, it is stored once', async () => {
    // The intervention rows are inserted, then their trigger waits on the monthly summary.
    await lock('intervention_stats_mois');
    const payload = submission(site);
    try {
      const res = await app.inject({ method: 'POST', url: ADD, headers: { cookie }, payload });
      expect(res.statusCode).toBe(503);
      expect(res.json()).toEqual(UNAVAILABLE);
    } finally {
      await unlock();
    }
    expect(await storedCounts(handle.db, [payload.clientId])).toEqual([{ id: payload.clientId, submissions: 0, interventions: 0 }]);
    expect((await app.inject({ method: 'POST', url: ADD, headers: { cookie }, payload })).statusCode).toBe(200);
    expectExactlyOnce(await storedCounts(handle.db, [payload.clientId]));
  });

  it('gives up a statement whose connection went silent after the limit and its grace, then serves on a fresh connection', async () => {
    const relay = await silencingRelay(base.url!);
    // One connection, so that the request after the cut cannot be served by another old one.
    const cut = createPostgres(relay.url, { ...LIMIT, max: 1 });
    const cutApp = await appOn(cut);
    try {
      const list = () => cutApp.inject({ url: '/api/admin/intervention/get/list/by/filters', headers: { cookie } });
      expect((await list()).statusCode).toBe(200);
      relay.silenceOpenConnections();
      const started = performance.now();
      const res = await list();
      const elapsed = performance.now() - started;
      expect(res.statusCode).toBe(503);
      expect(res.json()).toEqual(UNAVAILABLE);
      expect(elapsed).toBeGreaterThanOrEqual(LIMIT.statementTimeoutMs + LIMIT.noAnswerGraceMs - 100);
      expect(elapsed).toBeLessThan(LIMIT.statementTimeoutMs + LIMIT.noAnswerGraceMs + 1500);
      expect((await list()).statusCode).toBe(200);
      // The same wait applies to any statement: it fails with the client's own error.
      relay.silenceOpenConnections();
      await expect(sql`SELECT 1`.execute(cut.db)).rejects.toMatchObject({ code: NO_ANSWER_CODE });
    } finally {
      await cutApp.close();
      await cut.close();
      await relay.close();
    }
  });

  it('lets an export run past the limit in its own transaction, and lends no connection with another limit afterwards', async () => {
    const one = createPostgres(base.url!, { ...LIMIT, max: 1 });
    const limitNow = async () => (await sql<{ statement_timeout: string }>`SHOW statement_timeout`.execute(one.db)).rows[0].statement_timeout;
    try {
      expect(await limitNow()).toBe('1s');
      await lock('intervention');
      // Held for longer than the limit and the client's grace together.
      const release = new Promise<void>((resolve) => setTimeout(() => void unlock().then(resolve), 2500));
      const started = performance.now();
      const n = await withStatementTimeout(one.db, 0, async (trx) => (await sql<{ n: number }>`SELECT count(*)::int AS n FROM intervention`.execute(trx)).rows[0].n);
      expect(performance.now() - started).toBeGreaterThanOrEqual(2400);
      expect(typeof n).toBe('number');
      await release;
      // SET LOCAL ended with its transaction.
      expect(await limitNow()).toBe('1s');

      // A connection given a session limit of its own is closed when given back.
      await one.db.connection().execute(async (conn) => {
        await sql`SET statement_timeout = 0`.execute(conn);
        expect((await sql<{ statement_timeout: string }>`SHOW statement_timeout`.execute(conn)).rows[0].statement_timeout).toBe('0');
      });
      expect(await limitNow()).toBe('1s');
      await one.db.connection().execute(async (conn) => {
        await sql`SELECT set_config('statement_timeout', ${'5min'}, false)`.execute(conn);
      });
      expect(await limitNow()).toBe('1s');
    } finally {
      await one.close();
    }
    // The pool of the app was never given those limits.
    await lock('intervention');
    try {
      await expect(sql`SELECT count(*) FROM intervention`.execute(handle.db)).rejects.toMatchObject({ code: '57014' });
    } finally {
      await unlock();
    }
  });
});
