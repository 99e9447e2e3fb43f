import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import Fastify, { type FastifyInstance } from 'fastify';
import { serializerCompiler, validatorCompiler } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { TEST_DRIVERS, createAccount, createTestApp, login, openTestDatabase } from '../../../tests/helpers/test-app.js';
import type { DatabaseHandle, Db } from '../db/client.js';
import { hashToken, newToken } from '../tokens.js';
import authPlugin, { SESSION_MAX_AGE_MS, SESSION_TTL_MS } from './auth.js';
import { PERMISSIONS, ROLES, type Permission } from '../../shared/permissions.js';
import errorsPlugin from './errors.js';

type Ctx = Awaited<ReturnType<typeof createTestApp>>;
const DAY = 24 * 3600_000;

/** A session row as an earlier visit would have left it; returns the cookie header. */
async function storedSession(db: Db, accountId: number, times: { lastSeenAt: Date; expiresAt: Date; createdAt?: Date }) {
  const token = newToken();
  await db
    .insertInto('session')
    .values({
      id_hash: hashToken(token),
      account_id: accountId,
      last_seen_at: times.lastSeenAt,
      expires_at: times.expiresAt,
      ...(times.createdAt ? { created_at: times.createdAt } : {}),
    })
    .execute();
  return { cookie: `compost_sid=${token}`, idHash: hashToken(token) };
}

describe.each(TEST_DRIVERS)('sessions and guards in the application (%s)', (driver) => {
  let ctx: Ctx;
  beforeAll(async () => {
    // Behind one reverse proxy (TRUST_PROXY=1), whose X-Forwarded-Host is believed.
    ctx = await createTestApp(driver, { TRUST_PROXY: 1 });
  });
  afterAll(() => ctx.close());

  const logged = (cookie: string) => ctx.app.inject({ url: '/api/logged', headers: { cookie } });
  const sessionRow = (idHash: string) => ctx.db.selectFrom('session').selectAll().where('id_hash', '=', idHash).executeTakeFirst();

  describe('sliding expiry', () => {
    it('pushes the expiry of a session last seen over an hour ago and renews the cookie', async () => {
      const acc = await createAccount(ctx.db);
      const s = await storedSession(ctx.db, acc.id, { lastSeenAt: new Date(Date.now() - 3 * DAY), expiresAt: new Date(Date.now() + DAY) });
      const res = await logged(s.cookie);
      expect(res.json().logged).toBe(true);
      const row = (await sessionRow(s.idHash))!;
      expect(new Date(row.expires_at).getTime()).toBeGreaterThan(Date.now() + SESSION_TTL_MS - 60_000);
      // A phone used once a week in the field never gets logged out.
      expect(SESSION_TTL_MS).toBeGreaterThanOrEqual(30 * DAY);
      expect(new Date(row.last_seen_at).getTime()).toBeGreaterThan(Date.now() - 60_000);
      const renewed = res.cookies.find((c) => c.name === 'compost_sid')!;
      expect(renewed.value).toBe(s.cookie.split('=')[1]);
      expect(renewed.maxAge).toBe(SESSION_TTL_MS / 1000);
    });

    it('does not rewrite a session seen within the hour', async () => {
      const acc = await createAccount(ctx.db);
      const expiresAt = new Date(Date.now() + 10 * DAY);
      const s = await storedSession(ctx.db, acc.id, { lastSeenAt: new Date(Date.now() - 5 * 60_000), expiresAt });
      const res = await logged(s.cookie);
      expect(res.json().logged).toBe(true);
      expect(new Date((await sessionRow(s.idHash))!.expires_at).getTime()).toBe(expiresAt.getTime());
      expect(res.cookies.find((c) => c.name === 'compost_sid')).toBeUndefined();
    });
  });

  describe('absolute lifetime', () => {
    it('ends a session 180 days after its login however recently it was used; logging in again opens a new one', async () => {
      expect(SESSION_MAX_AGE_MS).toBe(180 * DAY);
      const acc = await createAccount(ctx.db, { roles: ['ROLE_USER'] });
      const s = await storedSession(ctx.db, acc.id, {
        createdAt: new Date(Date.now() - 180 * DAY - 60_000),
        lastSeenAt: new Date(Date.now() - 5 * 60_000),
        expiresAt: new Date(Date.now() + 59 * DAY),
      });
      expect((await logged(s.cookie)).json()).toEqual({ logged: false, user: null });
      expect((await ctx.app.inject({ url: '/api/admin/annee/get/all', headers: { cookie: s.cookie } })).statusCode).toBe(401);
      expect(await sessionRow(s.idHash)).toBeUndefined();
      const cookie = await login(ctx.app, acc.email);
      expect((await logged(cookie)).json().logged).toBe(true);
    });

    it('still serves a session used within 60 days and younger than 180 days', async () => {
      const acc = await createAccount(ctx.db);
      const s = await storedSession(ctx.db, acc.id, {
        createdAt: new Date(Date.now() - 179 * DAY),
        lastSeenAt: new Date(Date.now() - 30 * 60_000),
        expiresAt: new Date(Date.now() + 59 * DAY),
      });
      expect((await logged(s.cookie)).json().logged).toBe(true);
    });

    it('pushes the expiry no further than 180 days after the login, and the cookie no further either', async () => {
      const acc = await createAccount(ctx.db);
      const createdAt = new Date(Date.now() - 179 * DAY);
      const s = await storedSession(ctx.db, acc.id, { createdAt, lastSeenAt: new Date(Date.now() - 2 * 3600_000), expiresAt: new Date(Date.now() + 12 * 3600_000) });
      const res = await logged(s.cookie);
      expect(res.json().logged).toBe(true);
      const row = (await sessionRow(s.idHash))!;
      // One day left of the 180, not 60 more days.
      expect(new Date(row.expires_at).getTime()).toBe(createdAt.getTime() + 180 * DAY);
      const renewed = res.cookies.find((c) => c.name === 'compost_sid')!;
      expect(Math.abs(renewed.maxAge! - DAY / 1000)).toBeLessThanOrEqual(60);
    });
  });

  it('ignores an expired session', async () => {
    const acc = await createAccount(ctx.db);
    const s = await storedSession(ctx.db, acc.id, { lastSeenAt: new Date(Date.now() - 70 * DAY), expiresAt: new Date(Date.now() - 1000) });
    expect((await logged(s.cookie)).json()).toEqual({ logged: false, user: null });
    expect((await ctx.app.inject({ url: '/api/admin/annee/get/all', headers: { cookie: s.cookie } })).statusCode).toBe(401);
    expect(await sessionRow(s.idHash)).toBeUndefined();
  });

  it('ignores the session of an account deactivated since it logged in', async () => {
    const acc = await createAccount(ctx.db, { roles: ['ROLE_USER'] });
    const cookie = await login(ctx.app, acc.email);
    expect((await logged(cookie)).json().logged).toBe(true);
    await ctx.db.updateTable('account').set({ actif: false }).where('id', '=', acc.id).execute();
    expect((await logged(cookie)).json()).toEqual({ logged: false, user: null });
    expect((await ctx.app.inject({ url: '/api/admin/annee/get/all', headers: { cookie } })).statusCode).toBe(401);
    // The session is deleted, so reactivating the account does not revive it.
    expect(await ctx.db.selectFrom('session').select('id_hash').where('account_id', '=', acc.id).execute()).toEqual([]);
    await ctx.db.updateTable('account').set({ actif: true }).where('id', '=', acc.id).execute();
    expect((await logged(cookie)).json().logged).toBe(false);
  });

  it('sees role changes on the next request of an open session', async () => {
    const acc = await createAccount(ctx.db, { kind: 'agent' });
    const cookie = await login(ctx.app, acc.identifiant!);
    expect((await logged(cookie)).json().user.roles).toEqual([]);
    await ctx.db.insertInto('account_role').values({ account_id: acc.id, role_id: 1 }).execute();
    expect((await logged(cookie)).json().user.roles).toEqual(['ROLE_ADMIN']);
  });

  describe('cross-origin requests', () => {
    const postLogin = (headers: Record<string, string>) =>
      ctx.app.inject({ method: 'POST', url: '/api/login', payload: { username: 'personne', password: 'x' }, headers });

    it.each([
      ['another site in Origin', { origin: 'https://evil.example', host: 'compost.example.fr' }],
      ['Sec-Fetch-Site cross-site', { 'sec-fetch-site': 'cross-site' }],
      ['Sec-Fetch-Site same-site', { 'sec-fetch-site': 'same-site', origin: 'https://autre.example.fr', host: 'compost.example.fr' }],
      ['an opaque null Origin', { origin: 'null' }],
      ['a malformed Origin', { origin: 'pas une origine' }],
      ['the same host on another port', { origin: 'http://compost.example.fr:8080', host: 'compost.example.fr' }],
    ])('refuses a POST with %s', async (_name, headers) => {
      const res = await postLogin(headers);
      expect(res.statusCode).toBe(403);
      expect(res.json()).toEqual({ status: 'error', message: 'Requête refusée : origine non autorisée.' });
    });

    it.each([
      ['its own Origin', { origin: 'https://compost.example.fr', host: 'compost.example.fr' }],
      ['Sec-Fetch-Site same-origin', { 'sec-fetch-site': 'same-origin', origin: 'http://localhost:3000', host: 'localhost:3000' }],
      ['Sec-Fetch-Site none (typed by the user)', { 'sec-fetch-site': 'none' }],
      ['neither header (a non-browser client)', {}],
      ['the Origin a trusted proxy forwarded the host of', { origin: 'https://compost.example.fr', host: '127.0.0.1:3000', 'x-forwarded-host': 'compost.example.fr' }],
      ['the PUBLIC_URL origin behind a proxy that rewrote Host', { origin: 'http://localhost:3000', host: '10.0.0.5:3000' }],
    ])('accepts a POST with %s', async (_name, headers) => {
      const res = await postLogin(headers);
      expect(res.statusCode).toBe(400);
      expect(res.json().message).toBe('Identifiant ou mot de passe incorrect.');
    });

    it('never refuses a read, so links from e-mails and other sites open', async () => {
      const res = await ctx.app.inject({ url: '/api/logged', headers: { 'sec-fetch-site': 'cross-site', origin: 'https://evil.example' } });
      expect(res.statusCode).toBe(200);
    });
  });

  describe('/api/admin guard', () => {
    it('answers 401 to a visitor without session', async () => {
      const res = await ctx.app.inject('/api/admin/annee/get/all');
      expect(res.statusCode).toBe(401);
      expect(res.json()).toEqual({ status: 'error', message: 'Vous devez être connecté.' });
    });

    it('answers 403 to a logged account without any role', async () => {
      const acc = await createAccount(ctx.db, { kind: 'agent' });
      const cookie = await login(ctx.app, acc.identifiant!);
      const res = await ctx.app.inject({ url: '/api/admin/annee/get/all', headers: { cookie } });
      expect(res.statusCode).toBe(403);
      expect(res.json()).toEqual({ status: 'error', message: 'Accès non authorisé.' });
    });

    it('lets a role holding the permission through', async () => {
      const acc = await createAccount(ctx.db, { roles: ['ROLE_PRESTATAIRE'] });
      const cookie = await login(ctx.app, acc.email);
      expect((await ctx.app.inject({ url: '/api/admin/annee/get/all', headers: { cookie } })).statusCode).toBe(200);
    });
  });
});

describe.each(TEST_DRIVERS)('every /api/admin route of the application (%s)', (driver) => {
  let ctx: Ctx;
  const cookies = new Map<string, string>();
  beforeAll(async () => {
    ctx = await createTestApp(driver);
  });
  afterAll(() => ctx.close());

  const adminRoutes = () => ctx.app.routeGuards.filter((r) => r.url.startsWith('/api/admin/') && r.method !== 'HEAD');
  /** A request the route would take, whatever its parameters mean: ids 1, an empty JSON body. */
  const call = (route: { method: string; url: string }, cookie?: string) =>
    ctx.app.inject({
      method: route.method as 'GET',
      url: route.url.replace(/:[A-Za-z_]+/g, '1'),
      ...(route.method === 'GET' || route.method === 'DELETE' ? {} : { payload: {} }),
      headers: cookie ? { cookie } : {},
    });
  async function cookieFor(roles: string[]) {
    const key = roles.join(',');
    if (!cookies.has(key)) {
      const acc = await createAccount(ctx.db, { kind: roles.length === 0 ? 'agent' : undefined, roles });
      cookies.set(key, await login(ctx.app, acc.login));
    }
    return cookies.get(key)!;
  }

  it('answers 401 to a visitor, before looking at parameters or body', async () => {
    expect(adminRoutes().length).toBeGreaterThan(20);
    for (const route of adminRoutes()) {
      const res = await call(route);
      expect(res.statusCode, `${route.method} ${route.url}`).toBe(401);
      expect(res.json()).toEqual({ status: 'error', message: 'Vous devez être connecté.' });
    }
  });

  it('answers 403 to a logged account without any role', async () => {
    const cookie = await cookieFor([]);
    for (const route of adminRoutes()) {
      const res = await call(route, cookie);
      expect(res.statusCode, `${route.method} ${route.url}`).toBe(403);
      expect(res.json()).toEqual({ status: 'error', message: 'Accès non authorisé.' });
    }
  });

  it('answers 403 to each role its permission does not list', async () => {
    let checked = 0;
    for (const route of adminRoutes()) {
      // Routes guarded by their own code are covered by the two tests above only.
      if (route.permissions === null || route.permissions === 'any-role') continue;
      const allowed: readonly string[] = route.permissions.flatMap((p: Permission) => PERMISSIONS[p]);
      for (const role of ROLES.filter((r) => !allowed.includes(r))) {
        const res = await call(route, await cookieFor([role]));
        expect(res.statusCode, `${role} on ${route.method} ${route.url}`).toBe(403);
        checked++;
      }
    }
    expect(checked).toBeGreaterThan(20);
  });
});

describe.each(TEST_DRIVERS)('auth plugin on its own (%s)', (driver) => {
  let handle: DatabaseHandle;
  let app: FastifyInstance;
  beforeAll(async () => {
    handle = await openTestDatabase(driver);
    app = Fastify({ trustProxy: true });
    app.setValidatorCompiler(validatorCompiler);
    app.setSerializerCompiler(serializerCompiler);
    await app.register(errorsPlugin, {});
    await app.register(authPlugin, { db: handle.db, secureCookies: true, publicUrl: 'https://compost.example.fr/' });
    app.post('/api/echo', async () => ({ ok: true }));
    app.post('/api/session/:id', async (request, reply) => {
      await app.startSession(reply, Number((request.params as { id: string }).id));
      return { ok: true };
    });
    app.get('/api/admin/users-only', { onRequest: app.guard('user.manage') }, async () => ({ ok: true }));
    app.get('/api/admin/unguarded', async () => ({ ok: true }));
    app.post(
      '/api/admin/strict',
      { onRequest: app.guard('role.manage'), schema: { body: z.object({ name: z.string() }) } },
      async () => ({ ok: true }),
    );
    app.get('/api/any-role', { onRequest: app.guard() }, async () => ({ ok: true }));
    app.get('/api/admin/either', { onRequest: app.guard('site.manage', 'user.manage') }, async () => ({ ok: true }));
    await app.ready();
  });
  afterAll(async () => {
    await app.close();
    await handle.close();
  });

  async function cookieFor(roles: string[]) {
    const acc = await createAccount(handle.db, { roles });
    const res = await app.inject({ method: 'POST', url: `/api/session/${acc.id}` });
    const c = res.cookies.find((x) => x.name === 'compost_sid')!;
    return { cookie: `compost_sid=${c.value}`, set: c };
  }

  it('marks the session cookie Secure when the public address is https', async () => {
    const { set } = await cookieFor([]);
    expect(set).toMatchObject({ secure: true, httpOnly: true, sameSite: 'Lax', path: '/' });
  });

  it('accepts the public origin even when a proxy rewrote the Host header', async () => {
    const res = await app.inject({ method: 'POST', url: '/api/echo', headers: { origin: 'https://compost.example.fr', host: '127.0.0.1:3000' } });
    expect(res.statusCode).toBe(200);
    const other = await app.inject({ method: 'POST', url: '/api/echo', headers: { origin: 'http://compost.example.fr', host: '127.0.0.1:3000' } });
    expect(other.statusCode).toBe(403);
  });

  it('answers 403 to a role without the permission and lets a role with it through', async () => {
    const user = await cookieFor(['ROLE_USER']);
    const denied = await app.inject({ url: '/api/admin/users-only', headers: { cookie: user.cookie } });
    expect(denied.statusCode).toBe(403);
    expect(denied.json()).toEqual({ status: 'error', message: 'Accès non authorisé.' });
    const admin = await cookieFor(['ROLE_ADMIN_USER']);
    expect((await app.inject({ url: '/api/admin/users-only', headers: { cookie: admin.cookie } })).json()).toEqual({ ok: true });
  });

  it('requires a session on every /api/admin route, even one without its own guard', async () => {
    expect((await app.inject('/api/admin/unguarded')).statusCode).toBe(401);
    const user = await cookieFor(['ROLE_USER']);
    expect((await app.inject({ url: '/api/admin/unguarded', headers: { cookie: user.cookie } })).statusCode).toBe(200);
  });

  it('checks the role before validating the body', async () => {
    const user = await cookieFor(['ROLE_USER']);
    expect((await app.inject({ method: 'POST', url: '/api/admin/strict', payload: {}, headers: { cookie: user.cookie } })).statusCode).toBe(403);
    const admin = await cookieFor(['ROLE_ADMIN_ROLE']);
    const invalid = await app.inject({ method: 'POST', url: '/api/admin/strict', payload: {}, headers: { cookie: admin.cookie } });
    expect(invalid.statusCode).toBe(400);
    expect(invalid.json().errors).toEqual([{ key: 'name', error: expect.any(String) }]);
    expect((await app.inject({ method: 'POST', url: '/api/admin/strict', payload: { name: 'x' }, headers: { cookie: admin.cookie } })).json()).toEqual({ ok: true });
  });

  it('lets any role through a guard without permission, but not an account without role', async () => {
    expect((await app.inject('/api/any-role')).statusCode).toBe(401);
    expect((await app.inject({ url: '/api/any-role', headers: { cookie: (await cookieFor([])).cookie } })).statusCode).toBe(403);
    expect((await app.inject({ url: '/api/any-role', headers: { cookie: (await cookieFor(['ROLE_USER'])).cookie } })).statusCode).toBe(200);
  });

  it('lets through a role of any of the permissions of a guard', async () => {
    expect((await app.inject({ url: '/api/admin/either', headers: { cookie: (await cookieFor(['ROLE_ADMIN_SITE'])).cookie } })).statusCode).toBe(200);
    expect((await app.inject({ url: '/api/admin/either', headers: { cookie: (await cookieFor(['ROLE_ADMIN_USER'])).cookie } })).statusCode).toBe(200);
    expect((await app.inject({ url: '/api/admin/either', headers: { cookie: (await cookieFor(['ROLE_USER'])).cookie } })).statusCode).toBe(403);
  });

  it('reads the session, its account and all its roles in a single query per request', async () => {
    // A second instance on a database handle that counts what it is sent.
    const sent: string[] = [];
    const counting = handle.db.withPlugin({
      transformQuery: (args) => args.node,
      transformResult: async (args) => {
        sent.push(args.queryId.queryId);
        return args.result;
      },
    });
    const other = Fastify();
    await other.register(authPlugin, { db: counting, secureCookies: false });
    other.get('/api/whoami', async (request) => ({ roles: request.user?.roles ?? null }));
    await other.ready();
    try {
      const { cookie } = await cookieFor(['ROLE_USER', 'ROLE_ADMIN_SITE', 'ROLE_ADMIN']);
      sent.length = 0;
      const res = await other.inject({ url: '/api/whoami', headers: { cookie } });
      // Roles in the order of their ids (src/shared/domain.ts).
      expect(res.json()).toEqual({ roles: ['ROLE_ADMIN', 'ROLE_ADMIN_SITE', 'ROLE_USER'] });
      expect(sent).toHaveLength(1);
      const none = await cookieFor([]);
      sent.length = 0;
      expect((await other.inject({ url: '/api/whoami', headers: { cookie: none.cookie } })).json()).toEqual({ roles: [] });
      expect(sent).toHaveLength(1);
    } finally {
      await other.close();
    }
  });

  it('applies a logout or a role change made through another process at once', async () => {
    // Two servers on one database: what one of them changes, the other sees on its next request.
    const other = Fastify();
    await other.register(authPlugin, { db: handle.db, secureCookies: false });
    other.get('/api/admin/users-only', { onRequest: other.guard('user.manage') }, async () => ({ ok: true }));
    other.post('/api/logout', async (request, reply) => {
      await other.endSession(request, reply);
      return { ok: true };
    });
    await other.ready();
    try {
      const acc = await createAccount(handle.db, { roles: ['ROLE_ADMIN_USER'] });
      const res = await app.inject({ method: 'POST', url: `/api/session/${acc.id}` });
      const cookie = `compost_sid=${res.cookies.find((x) => x.name === 'compost_sid')!.value}`;
      const call = () => app.inject({ url: '/api/admin/users-only', headers: { cookie } });
      expect((await call()).statusCode).toBe(200);
      await handle.db.deleteFrom('account_role').where('account_id', '=', acc.id).execute();
      expect((await call()).statusCode).toBe(403);
      await handle.db.insertInto('account_role').values({ account_id: acc.id, role_id: 3 }).execute();
      expect((await call()).statusCode).toBe(200);
      expect((await other.inject({ method: 'POST', url: '/api/logout', headers: { cookie } })).statusCode).toBe(200);
      expect((await call()).statusCode).toBe(401);
    } finally {
      await other.close();
    }
  });

  it('records each route with its guard', () => {
    expect(app.routeGuards).toContainEqual({ method: 'GET', url: '/api/admin/users-only', permissions: ['user.manage'] });
    expect(app.routeGuards).toContainEqual({ method: 'GET', url: '/api/admin/unguarded', permissions: null });
    expect(app.routeGuards).toContainEqual({ method: 'GET', url: '/api/any-role', permissions: 'any-role' });
    expect(app.routeGuards).toContainEqual({ method: 'GET', url: '/api/admin/either', permissions: ['site.manage', 'user.manage'] });
  });

  it('refuses at registration a guard declared later than onRequest, or two guards on one route', async () => {
    const other = Fastify();
    await other.register(authPlugin, { db: handle.db, secureCookies: false });
    try {
      // A guard after onRequest would let a caller without the right see the body's field errors.
      expect(() => other.post('/api/admin/late', { preValidation: other.guard('user.manage') }, async () => ({ ok: true }))).toThrow(
        /POST \/api\/admin\/late: app.guard\(\) is an onRequest hook, declare it as `onRequest`, not `preValidation`/,
      );
      expect(() => other.get('/api/admin/later', { preHandler: [async () => undefined, other.guard()] }, async () => ({ ok: true }))).toThrow(/not `preHandler`/);
      expect(() => other.get('/api/admin/twice', { onRequest: [other.guard('user.manage'), other.guard('role.manage')] }, async () => ({ ok: true }))).toThrow(
        /one app.guard\(\) per route/,
      );
      other.get('/api/admin/right', { onRequest: other.guard('user.manage') }, async () => ({ ok: true }));
      expect(other.routeGuards.filter((g) => g.url !== '/api/admin/right')).toEqual([]);
      expect(other.routeGuards).toEqual([
        { method: 'GET', url: '/api/admin/right', permissions: ['user.manage'] },
        { method: 'HEAD', url: '/api/admin/right', permissions: ['user.manage'] },
      ]);
    } finally {
      await other.close();
    }
  });
});
