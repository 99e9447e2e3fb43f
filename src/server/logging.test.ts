import { Writable } from 'node:stream';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TEST_CONFIG, openTestDatabase } from '../../tests/helpers/test-app.js';
import type { DatabaseHandle } from './db/client.js';
import { createApp } from './app.js';
import { createMemoryMailer } from './mailer.js';
import { SLOW_REQUEST_MS, RequestLogController, createLogger } from './logging.js';

/** A stream that keeps what is written to it, line by line. */
function capture() {
  const lines: string[] = [];
  let pending = '';
  const stream = new Writable({
    write(chunk, _encoding, done) {
      pending += String(chunk);
      for (let i = pending.indexOf('\n'); i >= 0; i = pending.indexOf('\n')) {
        lines.push(pending.slice(0, i));
        pending = pending.slice(i + 1);
      }
      done();
    },
  });
  return { stream, lines };
}

const ESC = String.fromCharCode(27);

describe('console logs of the server', () => {
  let h: DatabaseHandle;
  const apps: Awaited<ReturnType<typeof createApp>>[] = [];
  beforeAll(async () => {
    h = await openTestDatabase('pglite');
  });
  afterAll(async () => {
    for (const app of apps) await app.close();
    await h.close();
  });

  /** The application with a logger at `level` writing into `lines`, and two test routes: a slow one and a failing one. */
  async function appLogging(level: string, opts: { pretty?: boolean; slowMs?: number } = {}) {
    const out = capture();
    const log = createLogger(level, { pretty: opts.pretty ?? false, destination: out.stream });
    const app = await createApp(
      { db: h.db, mailer: createMemoryMailer(), config: TEST_CONFIG },
      { loggerInstance: log, ...(opts.slowMs === undefined ? {} : { logController: new RequestLogController({ slowMs: opts.slowMs }) }) },
    );
    app.get<{ Params: { ms: string } }>('/api/essai/lent/:ms', async (request) => {
      await sleep(Number(request.params.ms));
      return { ok: true };
    });
    app.get('/api/essai/panne', async () => {
      throw new Error('panne de test');
    });
    await app.ready();
    apps.push(app);
    /** The lines written while `fn` runs. */
    const during = async (fn: () => Promise<unknown>) => {
      const before = out.lines.length;
      await fn();
      return out.lines.slice(before);
    };
    return { app, during };
  }
  const json = (lines: string[]) => lines.map((l) => JSON.parse(l) as Record<string, unknown> & { msg: string; level: number });

  it('writes no line for ordinary requests at info, answered or refused', async () => {
    const { app, during } = await appLogging('info');
    const lines = await during(async () => {
      for (let i = 0; i < 5; i++) expect((await app.inject('/api/app/info/get')).statusCode).toBe(200);
      expect((await app.inject('/api/nulle/part')).statusCode).toBe(404);
      expect((await app.inject('/api/admin/site/get/all/actif')).statusCode).toBe(401);
      expect((await app.inject({ method: 'POST', url: '/api/login', headers: { 'content-type': 'application/json' }, payload: '{' })).statusCode).toBe(400);
    });
    expect(lines).toEqual([]);
  });

  it('writes one warning for a request slower than a second, with its route, status and duration', async () => {
    expect(SLOW_REQUEST_MS).toBe(1000);
    const { app, during } = await appLogging('info');
    const lines = json(await during(() => app.inject('/api/essai/lent/1100')));
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({ level: 40, method: 'GET', url: '/api/essai/lent/1100', statusCode: 200 });
    expect(lines[0].responseTime).toBeGreaterThanOrEqual(1000);
    expect(lines[0].msg).toBe(`Requête lente (${lines[0].responseTime} ms) : GET /api/essai/lent/1100 → 200`);
    // Just under the threshold: nothing.
    expect(await during(() => app.inject('/api/essai/lent/5'))).toEqual([]);
  });

  it('takes another threshold for slow requests', async () => {
    const { app, during } = await appLogging('info', { slowMs: 40 });
    expect(json(await during(() => app.inject('/api/essai/lent/80')))).toMatchObject([{ level: 40, url: '/api/essai/lent/80' }]);
    expect(await during(() => app.inject('/api/essai/lent/0'))).toEqual([]);
  });

  it('writes one error line for a failed request, with the stack in the JSON', async () => {
    const { app, during } = await appLogging('info');
    const lines = json(await during(() => app.inject('/api/essai/panne')));
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({ level: 50, msg: 'Erreur inattendue : GET /api/essai/panne → 500', err: { message: 'panne de test' } });
    expect((lines[0].err as { stack: string }).stack).toContain('logging.test.ts');
  });

  it('writes a line per request at debug, without query strings or tokens', async () => {
    const { app, during } = await appLogging('debug');
    const token = 'a'.repeat(43);
    const lines = json(
      await during(async () => {
        await app.inject('/api/app/info/get?email=jeanne@exemple.fr');
        await app.inject('/api/nulle/part');
        await app.inject(`/api/password/reset/${token}`);
      }),
    );
    const requests = lines.filter((l) => l.level === 20 && 'statusCode' in l);
    expect(requests.map((l) => l.msg)).toEqual([
      expect.stringMatching(/^GET \/api\/app\/info\/get → 200 \(\d+ ms\)$/),
      expect.stringMatching(/^GET \/api\/nulle\/part → 404 \(\d+ ms\)$/),
      expect.stringMatching(/^GET \/api\/password\/reset\/:token → \d{3} \(\d+ ms\)$/),
    ]);
    const all = lines.map((l) => JSON.stringify(l)).join('\n');
    expect(all).not.toContain(token);
    expect(all).not.toContain('jeanne@exemple.fr');
  });

  it('reads as one line per entry on a terminal, the reason of an error after its message', async () => {
    const { app, during } = await appLogging('info', { pretty: true, slowMs: 20 });
    const lines = await during(async () => {
      await app.inject('/api/app/info/get');
      await app.inject('/api/essai/lent/60');
      await app.inject('/api/essai/panne');
    });
    const plain = lines.map((l) => l.replace(new RegExp(`${ESC}\\[[0-9;]*m`, 'g'), ''));
    expect(plain).toEqual([
      expect.stringMatching(/^\[\d{2}:\d{2}:\d{2}\] WARN: Requête lente \(\d+ ms\) : GET \/api\/essai\/lent\/60 → 200$/),
      expect.stringMatching(/^\[\d{2}:\d{2}:\d{2}\] ERROR: Erreur inattendue : GET \/api\/essai\/panne → 500 : panne de test$/),
    ]);
  });

  it('shows each request and the stack of an error on a terminal at debug', async () => {
    const { app, during } = await appLogging('debug', { pretty: true });
    const text = (await during(() => app.inject('/api/essai/panne'))).join('\n');
    expect(text).toMatch(/DEBUG: GET \/api\/essai\/panne → 500 \(\d+ ms\)/);
    expect(text).toContain('ERROR: Erreur inattendue : GET /api/essai/panne → 500');
    expect(text).toContain('logging.test.ts');
  });
});
