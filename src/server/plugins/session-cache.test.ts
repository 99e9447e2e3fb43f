import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql, type KyselyPlugin } from 'kysely';
import { TEST_CONFIG, TEST_DRIVERS, createAccount, login, openTestDatabase } from '../../../tests/helpers/test-app.js';
import { createApp } from '../app.js';
import { createMemoryMailer } from '../mailer.js';
import { LISTEN_HEARTBEAT_MS, createPostgres, openPostgres, type DatabaseHandle } from '../db/client.js';
import { seedCities } from '../db/seed.js';
import { AUTH_NEUTRAL, AuthChanges, ConnectionWatcher, changesAuth, type AuthChangeFeed } from '../db/auth-changes.js';
import { SessionCache, type CachedSession } from './session-cache.js';
import { SESSION_MAX_AGE_MS, type CurrentUser } from './auth.js';

const user = (id: number): CurrentUser => ({ id, kind: 'user', username: `u${id}@exemple.fr`, nom: 'NOM', prenom: null, roles: ['ROLE_USER'] });
const entry = (id: number, expiresIn = 60_000): CachedSession => ({ idHash: `hash${id}`, user: user(id), lastSeenAt: Date.now(), expiresAt: Date.now() + expiresIn });

describe('which statements change who is logged in', () => {
  it.each([
    'delete from "session" where "id_hash" = $1',
    'update "account" set "actif" = $1 where "id" = $2',
    'delete from "account" where "id" = $1',
    'insert into "account_role" ("account_id", "role_id") values ($1, $2)',
    'delete from "account_role" where "role_id" = $1',
    'UPDATE role SET code = $1',
    'truncate table session',
    'with x as (select 1) delete from public.account_role where account_id = 1',
  ])('counts %s', (text) => expect(changesAuth(text)).toBe(true));

  it.each([
    'select * from "session" where "id_hash" = $1',
    'insert into "session" ("id_hash", "account_id", "expires_at") values ($1, $2, $3)',
    'update "session" set "last_seen_at" = $1, "expires_at" = $2 where "id_hash" = $3',
    'insert into "account" ("email") values ($1)',
    'update "account_history" set x = 1',
    'delete from "role_permission_note" where id = 1',
    'update "site" set "nom" = $1 -- account',
    `${AUTH_NEUTRAL} DELETE FROM session WHERE expires_at < now()`,
  ])('leaves out %s', (text) => expect(changesAuth(text)).toBe(false));

  it('signals a change in a transaction at its commit, and never for one rolled back', () => {
    const feed = new AuthChanges(true);
    const seen: string[] = [];
    feed.subscribe((e) => seen.push(e));
    const w = new ConnectionWatcher(feed);
    w.afterStatement('begin');
    w.afterStatement('delete from "session" where "id_hash" = $1');
    expect(seen).toEqual([]);
    w.afterStatement('commit');
    expect(seen).toEqual(['change']);
    w.afterStatement('begin');
    w.afterStatement('update "account" set "actif" = false');
    w.afterStatement('rollback');
    expect(seen).toEqual(['change']);
    w.afterStatement('update "account" set "actif" = false');
    expect(seen).toEqual(['change', 'change']);
    // A connection lost in the middle of a transaction may have committed it.
    w.afterStatement('begin');
    w.afterStatement('delete from "account_role"');
    w.released();
    expect(seen).toEqual(['change', 'change', 'change']);
  });
});

describe('SessionCache', () => {
  it('forgets everything on a change, and does not store a read that started before it', () => {
    const feed = new AuthChanges(true);
    const cache = new SessionCache(feed);
    const before = cache.generation;
    cache.set('a', entry(1), before);
    expect(cache.get('a')?.user.id).toBe(1);
    const readStarted = cache.generation;
    feed.changed();
    expect(cache.get('a')).toBeUndefined();
    // The read began before the change: what it found may be the old state.
    cache.set('b', entry(2), readStarted);
    expect(cache.get('b')).toBeUndefined();
    cache.set('b', entry(2), cache.generation);
    expect(cache.get('b')?.user.id).toBe(2);
  });

  it('is not used at all while changes from other processes cannot reach it', () => {
    const feed = new AuthChanges(true);
    const cache = new SessionCache(feed);
    cache.set('a', entry(1), cache.generation);
    feed.setLive(false);
    expect(cache.get('a')).toBeUndefined();
    cache.set('b', entry(2), cache.generation);
    feed.setLive(true);
    // What was there before the outage is gone: notifications sent meanwhile were lost.
    expect(cache.get('a')).toBeUndefined();
    expect(cache.get('b')).toBeUndefined();
  });

  it('never serves an expired session, and keeps a bounded number of entries', () => {
    const cache = new SessionCache(new AuthChanges(true), 3);
    cache.set('old', entry(1, -1), cache.generation);
    expect(cache.get('old')).toBeUndefined();
    for (const k of ['a', 'b', 'c', 'd']) cache.set(k, entry(1), cache.generation);
    expect(cache.size).toBe(3);
    expect(cache.get('a')).toBeUndefined();
    expect(cache.get('d')).toBeDefined();
  });
});

/** Counts the statements a database handle is sent through Kysely. */
function counting() {
  const sent: string[] = [];
  const plugin: KyselyPlugin = {
    transformQuery: (args) => args.node,
    transformResult: async (args) => {
      sent.push(args.queryId.queryId);
      return args.result;
    },
  };
  return { sent, plugin };
}

async function appOn(handle: DatabaseHandle, changes: AuthChangeFeed = handle.changes) {
  const count = counting();
  const app = await createApp({ db: handle.db.withPlugin(count.plugin), mailer: createMemoryMailer(), authChanges: changes, config: TEST_CONFIG });
  await app.ready();
  return { app, sent: count.sent };
}

describe.each(TEST_DRIVERS)('sessions kept in memory (%s)', (driver) => {
  let handle: Awaited<ReturnType<typeof openTestDatabase>>;
  let a: Awaited<ReturnType<typeof appOn>>;
  beforeAll(async () => {
    handle = await openTestDatabase(driver);
    await seedCities(handle.db, TEST_CONFIG.TERRITORY);
    a = await appOn(handle);
    // PostgreSQL: the LISTEN connection opens with the first subscriber.
    await waitLive(handle.changes);
  });
  afterAll(async () => {
    await a.app.close();
    await handle.close();
  });

  const get = (url: string, cookie: string) => a.app.inject({ url, headers: { cookie } });

  it('answers a known session without a database round trip', async () => {
    const acc = await createAccount(handle.db, { roles: ['ROLE_USER'] });
    const cookie = await login(a.app as never, acc.email);
    expect((await get('/api/logged', cookie)).json().logged).toBe(true);
    a.sent.length = 0;
    const res = await get('/api/logged', cookie);
    expect(res.json().user.username).toBe(acc.email);
    expect(a.sent).toEqual([]);
  });

  it('refuses the next request after a logout, a deactivation or a role withdrawal, at once', async () => {
    const admin = await createAccount(handle.db, { roles: ['ROLE_ADMIN'] });
    const adminCookie = await login(a.app as never, admin.identifiant!);
    const agent = await createAccount(handle.db, { kind: 'agent', roles: ['ROLE_ADMIN_USER'] });
    const cookie = await login(a.app as never, agent.identifiant!);
    const users = () => get('/api/admin/role/get/list/by/filters', cookie);
    expect((await get('/api/admin/user/get/all/actif', cookie)).statusCode).toBe(200);
    expect((await get('/api/admin/user/get/all/actif', cookie)).statusCode).toBe(200);
    expect((await users()).statusCode).toBe(403);

    // The role is granted and withdrawn through the roles screen's own route.
    const put = (agents: number[]) =>
      a.app.inject({ method: 'PUT', url: '/api/admin/role/update/4', headers: { cookie: adminCookie }, payload: { agents: agents.map(String) } });
    const holders = (await get('/api/admin/role/get/4', adminCookie)).json() as { agents?: { id: number }[] };
    const others = (holders.agents ?? []).map((x) => x.id);
    expect((await put([...others, agent.id])).statusCode).toBe(200);
    expect((await users()).statusCode).toBe(200);
    expect((await put(others)).statusCode).toBe(200);
    expect((await users()).statusCode).toBe(403);

    // Deactivated straight in the database (another tool, an import): refused at once too.
    await handle.db.updateTable('account').set({ actif: false }).where('id', '=', agent.id).execute();
    expect((await get('/api/admin/user/get/all/actif', cookie)).statusCode).toBe(401);

    const other = await createAccount(handle.db, { roles: ['ROLE_USER'] });
    const otherCookie = await login(a.app as never, other.email);
    expect((await get('/api/logged', otherCookie)).json().logged).toBe(true);
    expect((await a.app.inject({ url: '/logout', headers: { cookie: otherCookie } })).statusCode).toBe(302);
    expect((await get('/api/logged', otherCookie)).json().logged).toBe(false);
  });

  it('stops serving a session from memory at its absolute lifetime, even one used a moment ago', async () => {
    const acc = await createAccount(handle.db, { roles: ['ROLE_USER'] });
    const cookie = await login(a.app as never, acc.email);
    // Logged in 180 days ago, less two seconds; changing when it started tells no cache.
    await sql`UPDATE session SET created_at = now() - ${`${SESSION_MAX_AGE_MS / 1000 - 2} seconds`}::interval WHERE account_id = ${acc.id}`.execute(handle.db);
    const started = Date.now();
    expect((await get('/api/logged', cookie)).json().logged).toBe(true);
    a.sent.length = 0;
    expect((await get('/api/logged', cookie)).json().logged).toBe(true);
    expect(a.sent).toEqual([]);
    await new Promise((resolve) => setTimeout(resolve, Math.max(0, started + 2500 - Date.now())));
    expect((await get('/api/logged', cookie)).json()).toEqual({ logged: false, user: null });
    // Asked of the database, which ended it.
    expect(a.sent.length).toBeGreaterThan(0);
    expect(await handle.db.selectFrom('session').select('id_hash').where('account_id', '=', acc.id).execute()).toEqual([]);
  });

  it('keeps serving from memory after a rolled-back change and after logins elsewhere', async () => {
    const acc = await createAccount(handle.db, { roles: ['ROLE_USER'] });
    const someone = await createAccount(handle.db, { roles: ['ROLE_USER'] });
    const cookie = await login(a.app as never, acc.email);
    expect((await get('/api/logged', cookie)).json().logged).toBe(true);
    await handle.db
      .transaction()
      .execute(async (trx) => {
        await trx.deleteFrom('account_role').where('account_id', '=', acc.id).execute();
        throw new Error('annulé');
      })
      .catch(() => undefined);
    // Another login (a new session, and the clean-up of expired ones) changes nothing cached.
    await login(a.app as never, someone.email);
    a.sent.length = 0;
    expect((await get('/api/logged', cookie)).json().user.roles).toEqual(['ROLE_USER']);
    expect(a.sent).toEqual([]);
  });
});

function waitLive(feed: AuthChangeFeed, timeoutMs = 5000) {
  if (feed.live) return Promise.resolve();
  return new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('the feed never went live')), timeoutMs);
    const off = feed.subscribe((e) => {
      if (e !== 'live') return;
      clearTimeout(timer);
      off();
      resolve();
    });
  });
}

/** Resolves with the time the next change notice took to arrive. */
function nextChange(feed: AuthChangeFeed, timeoutMs = 2000) {
  const start = performance.now();
  return new Promise<number>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('no change notice arrived')), timeoutMs);
    const off = feed.subscribe((e) => {
      if (e !== 'change') return;
      clearTimeout(timer);
      off();
      resolve(performance.now() - start);
    });
  });
}

describe.runIf(process.env.TEST_DATABASE_URL)('sessions kept in memory by two processes on one PostgreSQL', () => {
  let first: Awaited<ReturnType<typeof openTestDatabase>>;
  let second: DatabaseHandle;
  let a: Awaited<ReturnType<typeof appOn>>;
  let b: Awaited<ReturnType<typeof appOn>>;
  beforeAll(async () => {
    first = await openTestDatabase('postgres');
    await seedCities(first.db, TEST_CONFIG.TERRITORY);
    // Its own pool and its own LISTEN connection: a second server process.
    second = await openPostgres(first.url!);
    a = await appOn(first);
    b = await appOn(second);
    await Promise.all([waitLive(first.changes), waitLive(second.changes)]);
  });
  afterAll(async () => {
    await a.app.close();
    await b.app.close();
    await second.close();
    await first.close();
  });

  it('drops on the other process the session logged out or the roles changed here, as the commit is notified', async () => {
    const acc = await createAccount(first.db, { kind: 'agent', roles: ['ROLE_ADMIN_USER'] });
    const cookie = await login(a.app as never, acc.identifiant!);
    const onB = () => b.app.inject({ url: '/api/admin/user/get/all/actif', headers: { cookie } });
    expect((await onB()).statusCode).toBe(200);
    b.sent.length = 0;
    expect((await onB()).statusCode).toBe(200);
    // Served from B's memory: only the route's own query.
    expect(b.sent).toHaveLength(1);

    let notice = nextChange(second.changes);
    await first.db.deleteFrom('account_role').where('account_id', '=', acc.id).execute();
    await notice;
    expect((await onB()).statusCode).toBe(403);

    await first.db.insertInto('account_role').values({ account_id: acc.id, role_id: 3 }).execute();
    notice = nextChange(second.changes);
    expect((await a.app.inject({ url: '/logout', headers: { cookie } })).statusCode).toBe(302);
    const delay = await notice;
    expect((await onB()).statusCode).toBe(401);
    // Loopback delivery: well under the time a person takes to make another request.
    expect(delay).toBeLessThan(2000);
  });

  it('reads every request from the database while its LISTEN connection is down, and caches again once it is back', async () => {
    const acc = await createAccount(first.db, { roles: ['ROLE_USER'] });
    const cookie = await login(a.app as never, acc.email);
    const onB = () => b.app.inject({ url: '/api/logged', headers: { cookie } });
    expect((await onB()).json().logged).toBe(true);

    const down = new Promise<void>((resolve) => {
      const off = second.changes.subscribe((e) => e === 'down' && (off(), resolve()));
    });
    const back = new Promise<void>((resolve) => {
      const off = second.changes.subscribe((e) => e === 'live' && (off(), resolve()));
    });
    // The listening backends of this database are cut (as a restart or failover would).
    await sql`SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = current_database() AND query LIKE 'LISTEN%' AND pid <> pg_backend_pid()`.execute(first.db);
    await down;
    b.sent.length = 0;
    expect((await onB()).json().logged).toBe(true);
    expect(b.sent.length).toBeGreaterThan(0);
    // A change made during the outage is not missed.
    await first.db.updateTable('account').set({ actif: false }).where('id', '=', acc.id).execute();
    expect((await onB()).json().logged).toBe(false);

    await back;
    const again = await createAccount(first.db, { roles: ['ROLE_USER'] });
    const cookie2 = await login(a.app as never, again.email);
    const onB2 = () => b.app.inject({ url: '/api/logged', headers: { cookie: cookie2 } });
    expect((await onB2()).json().logged).toBe(true);
    b.sent.length = 0;
    expect((await onB2()).json().logged).toBe(true);
    expect(b.sent).toEqual([]);
  }, 30_000);
});

/**
 * A TCP relay to PostgreSQL that can go silent without closing anything, as a dead peer or a
 * dropped route does: bytes stop flowing both ways, no error, no end.
 */
async function silentRelay(target: URL) {
  let silent = false;
  const server = net.createServer((inbound) => {
    const outbound = net.connect(Number(target.port || 5432), target.hostname);
    inbound.on('data', (d) => !silent && outbound.write(d));
    outbound.on('data', (d) => !silent && inbound.write(d));
    const close = () => {
      inbound.destroy();
      outbound.destroy();
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
    goSilent: () => (silent = true),
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

describe.runIf(process.env.TEST_DATABASE_URL)('the LISTEN connection of a process', () => {
  it('counts as lost when it stops answering without a word, so the cache is no longer used', async () => {
    const db = await openTestDatabase('postgres');
    const relay = await silentRelay(new URL(db.url!));
    const saved = { ...LISTEN_HEARTBEAT_MS };
    Object.assign(LISTEN_HEARTBEAT_MS, { every: 100, timeout: 200 });
    const handle = createPostgres(relay.url);
    try {
      const off = handle.changes.subscribe(() => undefined);
      await waitLive(handle.changes);
      const down = new Promise<number>((resolve) => {
        const start = performance.now();
        handle.changes.subscribe((e) => e === 'down' && resolve(performance.now() - start));
      });
      relay.goSilent();
      const after = await down;
      expect(handle.changes.live).toBe(false);
      // Found out within one heartbeat period and its timeout, not hours later.
      expect(after).toBeLessThan(2000);
      off();
    } finally {
      Object.assign(LISTEN_HEARTBEAT_MS, saved);
      await handle.close();
      await relay.close();
      await db.close();
    }
  });
});
