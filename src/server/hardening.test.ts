// Hardening: probes, answers when the database is out of reach, Fastify's own refusals, the
// security headers over http and https, no caching of API answers, and who may set the
// client address (TRUST_PROXY).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Fastify from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TEST_CONFIG, TEST_DRIVERS, createTestApp, openTestDatabase } from '../../tests/helpers/test-app.js';
import { createApp, tileSource } from './app.js';
import { createPostgres } from './db/client.js';
import { createMemoryMailer } from './mailer.js';
import errorsPlugin from './plugins/errors.js';
import { DatabaseNoAnswerError } from './errors.js';

const UNAVAILABLE = { status: 'error', message: 'Service momentanément indisponible, réessayez dans un instant.' };

describe.each(TEST_DRIVERS)('health probes (%s)', (driver) => {
  let ctx: Awaited<ReturnType<typeof createTestApp>>;
  beforeAll(async () => {
    ctx = await createTestApp(driver);
  });
  afterAll(() => ctx.close());

  it('answers liveness and readiness without a session, never cached', async () => {
    for (const url of ['/api/health', '/api/ready']) {
      const res = await ctx.app.inject({ url });
      expect(res.statusCode).toBe(200);
      expect(res.json()).toEqual({ status: 'ok' });
      expect(res.headers['cache-control']).toBe('no-store');
    }
  });
});

describe('a database that does not answer', () => {
  // Nothing listens on port 1: every connection is refused, as when PostgreSQL is down.
  const unreachable = createPostgres('postgres://compost@127.0.0.1:1/compost');
  let app: Awaited<ReturnType<typeof createApp>>;
  beforeAll(async () => {
    app = await createApp({ db: unreachable.db, mailer: createMemoryMailer(), config: TEST_CONFIG });
  });
  afterAll(async () => {
    await app.close();
    await unreachable.close();
  });

  it('keeps the process alive: liveness 200, readiness 503', async () => {
    expect((await app.inject({ url: '/api/health' })).statusCode).toBe(200);
    const ready = await app.inject({ url: '/api/ready' });
    expect(ready.statusCode).toBe(503);
    expect(ready.json()).toEqual({ status: 'error', message: 'Base de données indisponible.' });
  });

  it('answers 503 with a French message to a request that needs the database', async () => {
    const res = await app.inject({ method: 'POST', url: '/api/login', payload: { username: 'chef', password: 'un-mot-de-passe' } });
    expect(res.statusCode).toBe(503);
    expect(res.json()).toEqual(UNAVAILABLE);
    expect(Number(res.headers['retry-after'])).toBeGreaterThan(0);
  });
});

describe('errors raised by the database driver', () => {
  async function answerTo(error: Error & { code?: string }) {
    const app = Fastify();
    await app.register(errorsPlugin, {});
    app.get('/x', async () => {
      throw error;
    });
    const res = await app.inject({ url: '/x' });
    await app.close();
    return { status: res.statusCode, body: res.json() };
  }
  const withCode = (message: string, code?: string) => Object.assign(new Error(message), code ? { code } : {});

  it('answers 503 to every form of lost or refused connection', async () => {
    const lost = [
      withCode('terminating connection due to administrator command', '57P01'),
      withCode('terminating connection due to crash of another server process', '57P02'),
      withCode('the database system is starting up', '57P03'),
      withCode('connection failure', '08006'),
      withCode('connection does not exist', '08003'),
      withCode('connection exception', '08000'),
      withCode('Connection terminated unexpectedly'),
      withCode('Connection terminated'),
      withCode('timeout exceeded when trying to connect'),
      withCode('connect ECONNREFUSED 127.0.0.1:5432', 'ECONNREFUSED'),
      withCode('read ECONNRESET', 'ECONNRESET'),
      new AggregateError([withCode('connect ECONNREFUSED ::1:5432', 'ECONNREFUSED')], ''),
    ];
    for (const e of lost) expect(await answerTo(e)).toEqual({ status: 503, body: UNAVAILABLE });
  });

  it('answers 503 when the server refuses the connection: database gone, credentials refused, resources exhausted', async () => {
    const refused = [
      withCode('database "compost" does not exist', '3D000'),
      withCode('database "compost" was dropped', '57P04'),
      withCode('password authentication failed for user "compost"', '28P01'),
      withCode('role "compost" is not permitted to log in', '28000'),
      withCode('sorry, too many clients already', '53300'),
      withCode('could not extend file: No space left on device', '53100'),
      withCode('out of memory', '53200'),
      withCode('terminating connection due to idle-session timeout', '57P05'),
    ];
    for (const e of refused) expect(await answerTo(e), e.message).toEqual({ status: 503, body: UNAVAILABLE });
  });

  it('answers 503 to a statement cancelled, out of time or rolled back to let another through', async () => {
    const interrupted = [
      withCode('canceling statement due to statement timeout', '57014'),
      withCode('canceling statement due to lock timeout', '55P03'),
      withCode('terminating connection due to idle-in-transaction timeout', '25P03'),
      withCode('could not serialize access due to concurrent update', '40001'),
      withCode('deadlock detected', '40P01'),
      new DatabaseNoAnswerError(20_000),
    ];
    for (const e of interrupted) {
      const answer = await answerTo(e);
      expect(answer, e.message).toEqual({ status: 503, body: UNAVAILABLE });
    }
  });

  it('asks the client to come back after a few seconds', async () => {
    const app = Fastify();
    await app.register(errorsPlugin, {});
    app.get('/x', async () => {
      throw withCode('canceling statement due to statement timeout', '57014');
    });
    const res = await app.inject({ url: '/x' });
    await app.close();
    expect(res.headers['retry-after']).toBe('5');
  });

  it('answers 400 to a value PostgreSQL refuses, and 500 to anything else', async () => {
    for (const code of ['22P02', '22003', '22021', '22P05', '54000']) {
      expect(await answerTo(withCode('invalid input', code))).toEqual({ status: 400, body: { status: 'error', message: 'Requête invalide.' } });
    }
    for (const code of ['23505', '23503', '42P01', '42703', 'XX000']) {
      expect(await answerTo(withCode('duplicate key, missing table or column, internal error', code))).toEqual({ status: 500, body: { status: 'error', message: 'Une erreur est survenue.' } });
    }
  });
});

describe('requests refused before any route', () => {
  let ctx: Awaited<ReturnType<typeof createTestApp>>;
  beforeAll(async () => {
    ctx = await createTestApp('pglite');
  });
  afterAll(() => ctx.close());

  it('answers a body over 2 MB with 413, another media type with 415 and broken JSON with 400, in French', async () => {
    const big = await ctx.app.inject({
      method: 'POST',
      url: '/api/login',
      headers: { 'content-type': 'application/json' },
      payload: JSON.stringify({ username: 'x'.repeat(2 * 1024 * 1024), password: 'y' }),
    });
    expect(big.statusCode).toBe(413);
    expect(big.json()).toEqual({ status: 'error', message: 'La requête est trop volumineuse.' });
    const text = await ctx.app.inject({ method: 'POST', url: '/api/login', headers: { 'content-type': 'application/xml' }, payload: '<login/>' });
    expect(text.statusCode).toBe(415);
    expect(text.json()).toEqual({ status: 'error', message: 'Type de contenu non pris en charge.' });
    const broken = await ctx.app.inject({ method: 'POST', url: '/api/login', headers: { 'content-type': 'application/json' }, payload: '{"username": "chef",' });
    expect(broken.statusCode).toBe(400);
    expect(broken.json()).toEqual({ status: 'error', message: 'Requête invalide.' });
  });
});

describe('security headers and caching', () => {
  const webDir = fs.mkdtempSync(path.join(os.tmpdir(), 'compost-web-'));
  fs.mkdirSync(path.join(webDir, 'assets'));
  fs.writeFileSync(path.join(webDir, 'index.html'), '<!doctype html><title>Compost</title>');
  fs.writeFileSync(path.join(webDir, 'assets', 'app-abc123.js'), 'console.log(1)');
  let http: Awaited<ReturnType<typeof createTestApp>>;
  let https: Awaited<ReturnType<typeof createTestApp>>;
  beforeAll(async () => {
    http = await createTestApp('pglite', { webDir });
    https = await createTestApp('pglite', { webDir, publicUrl: 'https://compost.exemple.fr', secureCookies: true });
  });
  afterAll(async () => {
    await http.close();
    await https.close();
    fs.rmSync(webDir, { recursive: true, force: true });
  });

  it('sends neither HSTS nor upgrade-insecure-requests over plain http', async () => {
    for (const url of ['/', '/login', '/assets/app-abc123.js', '/api/logged']) {
      const res = await http.app.inject({ url });
      expect(res.headers['strict-transport-security']).toBeUndefined();
      expect(String(res.headers['content-security-policy'])).not.toContain('upgrade-insecure-requests');
    }
    expect(String((await http.app.inject({ url: '/login' })).headers['content-security-policy'])).toContain("default-src 'self'");
  });

  it("lets pages show the map's tiles from their server (MAP_TILES_URL), and nothing else from outside", async () => {
    const csp = String((await http.app.inject({ url: '/admin/carte' })).headers['content-security-policy']);
    expect(csp).toContain("img-src 'self' data: blob: https://tile.openstreetmap.org;");
    expect(csp).toContain("script-src 'self';");
    expect(tileSource('https://{s}.tile.example.org/{z}/{x}/{y}.png')).toBe('https://*.tile.example.org');
    expect(tileSource('http://127.0.0.1:8080/tuiles/{z}/{x}/{y}.png')).toBe('http://127.0.0.1:8080');
    expect(tileSource('pas une url')).toBeNull();
  });

  it('sends the page protections on pages, assets and the web app fallback', async () => {
    for (const url of ['/', '/login', '/assets/app-abc123.js', '/page/inconnue']) {
      const res = await http.app.inject({ url });
      expect(res.headers).toMatchObject({
        'x-content-type-options': 'nosniff',
        'x-frame-options': 'SAMEORIGIN',
        'referrer-policy': 'no-referrer',
        'cross-origin-opener-policy': 'same-origin',
        'cross-origin-resource-policy': 'same-origin',
      });
      expect(String(res.headers['content-security-policy'])).toContain("object-src 'none'");
      expect(String(res.headers['content-security-policy'])).toContain("frame-ancestors 'self'");
    }
  });

  it('sends API answers and errors the protections that apply to data: no sniffing, no framing, no other origin, nothing loadable', async () => {
    for (const url of ['/api/logged', '/api/inconnu', '/api/app/info/get']) {
      const res = await http.app.inject({ url });
      expect(res.headers).toMatchObject({
        'cache-control': 'no-store',
        'x-content-type-options': 'nosniff',
        'x-frame-options': 'DENY',
        'referrer-policy': 'no-referrer',
        'cross-origin-resource-policy': 'same-origin',
        'content-security-policy': "default-src 'none'; frame-ancestors 'none'",
      });
    }
  });

  it('sends both when PUBLIC_URL is https, and HSTS on API answers too', async () => {
    const res = await https.app.inject({ url: '/login' });
    expect(res.headers['strict-transport-security']).toBe('max-age=15552000');
    expect(String(res.headers['content-security-policy'])).toContain('upgrade-insecure-requests');
    expect((await https.app.inject({ url: '/api/logged' })).headers['strict-transport-security']).toBe('max-age=15552000');
  });

  it('forbids caching of every API answer, errors included, and leaves the web app its own rules', async () => {
    for (const url of ['/api/logged', '/api/app/info/get', '/api/inconnu', '/api/admin/user/get/list/by/filters']) {
      expect((await http.app.inject({ url })).headers['cache-control']).toBe('no-store');
    }
    expect((await http.app.inject({ method: 'POST', url: '/api/login', payload: {} })).headers['cache-control']).toBe('no-store');
    expect((await http.app.inject({ url: '/assets/app-abc123.js' })).headers['cache-control']).toBe('public, max-age=31536000, immutable');
    expect((await http.app.inject({ url: '/login' })).headers['cache-control']).toBe('no-cache');
  });
});

describe('client address behind proxies (TRUST_PROXY)', () => {
  /** An app (not started) with one extra route that tells the address the limits would count. */
  async function ipSeenBy(trustProxy: typeof TEST_CONFIG.TRUST_PROXY, remoteAddress: string, forwardedFor?: string) {
    const app = await createApp({ db: (await dbHandle).db, mailer: createMemoryMailer(), config: { ...TEST_CONFIG, TRUST_PROXY: trustProxy } });
    app.get('/whoami', async (request) => ({ ip: request.ip }));
    const res = await app.inject({ url: '/whoami', remoteAddress, headers: forwardedFor ? { 'x-forwarded-for': forwardedFor } : {} });
    await app.close();
    return res.json().ip as string;
  }
  const dbHandle = openTestDatabase('pglite', { migrated: false });
  afterAll(async () => (await dbHandle).close());

  it('ignores X-Forwarded-For by default', async () => {
    expect(await ipSeenBy(undefined, '198.51.100.7', '203.0.113.1')).toBe('198.51.100.7');
    expect(await ipSeenBy(false, '198.51.100.7', '203.0.113.1')).toBe('198.51.100.7');
  });

  it('believes it only from the listed proxies', async () => {
    expect(await ipSeenBy(['10.0.0.0/8', '127.0.0.1'], '10.1.2.3', '203.0.113.1')).toBe('203.0.113.1');
    expect(await ipSeenBy(['10.0.0.0/8', '127.0.0.1'], '127.0.0.1', '198.51.100.9, 203.0.113.1')).toBe('203.0.113.1');
    expect(await ipSeenBy(['10.0.0.0/8'], '198.51.100.7', '203.0.113.1')).toBe('198.51.100.7');
  });

  it('takes the address the given number of proxies saw', async () => {
    expect(await ipSeenBy(1, '10.1.2.3', '198.51.100.9, 203.0.113.1')).toBe('203.0.113.1');
    expect(await ipSeenBy(2, '10.1.2.3', '198.51.100.9, 203.0.113.1')).toBe('198.51.100.9');
    expect(await ipSeenBy(1, '10.1.2.3')).toBe('10.1.2.3');
  });
});
