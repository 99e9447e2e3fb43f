// Slow clients against a real listening server: a body trickled a byte at a time, headers that
// never end and an idle kept-alive connection are answered 408 or closed within their limits,
// and hundreds of such sockets give their file descriptors back once cut. The limits are short
// here; the production ones are checked against the same bounds.
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HTTP_TIMEOUTS, createApp, type App } from './app.js';
import type { DatabaseHandle } from './db/client.js';
import { createMemoryMailer } from './mailer.js';
import { TEST_CONFIG, openTestDatabase } from '../../tests/helpers/test-app.js';

const SHORT = { headersTimeout: 800, requestTimeout: 1500, connectionsCheckingInterval: 100, keepAliveTimeout: 500, connectionTimeout: 60_000 };

/** Resolves when `check` holds, polling; fails after `ms`. */
async function until(check: () => boolean, ms: number, what: string) {
  const deadline = Date.now() + ms;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`not within ${ms} ms: ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

/** A raw connection that records what the server answers and when it closed. */
function rawSocket(port: number) {
  const socket = net.connect(port, '127.0.0.1');
  const state = { answer: '', closedAt: 0, socket };
  socket.on('data', (d) => (state.answer += d.toString('latin1')));
  socket.on('error', () => undefined);
  socket.on('close', () => (state.closedAt = Date.now()));
  return state;
}

/** Writes one byte every `everyMs` until the socket closes. */
function trickle(socket: net.Socket, everyMs: number) {
  const timer = setInterval(() => socket.writable && socket.write('a'), everyMs);
  socket.on('close', () => clearInterval(timer));
}

const fdCount = () => fs.readdirSync('/proc/self/fd').length;

describe('slow clients', () => {
  let handle: DatabaseHandle;
  let app: App;
  let port: number;
  beforeAll(async () => {
    handle = await openTestDatabase('pglite', { migrated: false });
    app = await createApp({ db: handle.db, mailer: createMemoryMailer(), config: TEST_CONFIG }, {}, SHORT);
    await app.listen({ port: 0, host: '127.0.0.1' });
    port = (app.server.address() as net.AddressInfo).port;
  });
  afterAll(async () => {
    await app?.close();
    await handle?.close();
  });

  it('answers 408 and closes a connection whose body trickles in, once the request limit is past', async () => {
    const started = Date.now();
    const c = rawSocket(port);
    c.socket.write('POST /api/login HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{');
    trickle(c.socket, 100);
    await until(() => c.closedAt > 0, SHORT.requestTimeout + 2000, 'connection closed');
    expect(c.answer).toMatch(/^HTTP\/1\.1 408 /);
    expect(c.closedAt - started).toBeGreaterThanOrEqual(SHORT.requestTimeout - 50);
    expect(c.closedAt - started).toBeLessThanOrEqual(SHORT.requestTimeout + SHORT.connectionsCheckingInterval + 500);
  });

  it('answers 408 and closes a connection whose headers never end, once the headers limit is past', async () => {
    const started = Date.now();
    const c = rawSocket(port);
    c.socket.write('GET /api/health HTTP/1.1\r\nHost: x\r\n');
    const timer = setInterval(() => c.socket.writable && c.socket.write('X-A: b\r\n'), 100);
    c.socket.on('close', () => clearInterval(timer));
    await until(() => c.closedAt > 0, SHORT.headersTimeout + 2000, 'connection closed');
    expect(c.answer).toMatch(/^HTTP\/1\.1 408 /);
    expect(c.closedAt - started).toBeLessThanOrEqual(SHORT.headersTimeout + SHORT.connectionsCheckingInterval + 500);
  });

  it('closes a kept-alive connection left idle after its answer', async () => {
    const c = rawSocket(port);
    c.socket.write('GET /api/health HTTP/1.1\r\nHost: x\r\n\r\n');
    await until(() => c.answer.includes('{"status":"ok"}'), 5000, 'answer');
    const answeredAt = Date.now();
    expect(c.answer).toMatch(/^HTTP\/1\.1 200 /);
    await until(() => c.closedAt > 0, SHORT.keepAliveTimeout + 2000, 'connection closed');
    // Node closes an idle kept-alive socket up to a second after the limit it announces.
    expect(c.closedAt - answeredAt).toBeLessThanOrEqual(SHORT.keepAliveTimeout + 1500);
  });

  it('gives back the file descriptors of 1,000 trickling connections once they are cut', async () => {
    const baseline = fdCount();
    const sockets = Array.from({ length: 1000 }, () => rawSocket(port));
    for (const c of sockets) {
      c.socket.write('POST /api/login HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{');
      trickle(c.socket, 200);
    }
    // Both ends of each connection live in this process: well over 1,000 descriptors while they last.
    await until(() => fdCount() >= baseline + 1000, 20000, 'sockets open');
    await until(() => sockets.every((c) => c.closedAt > 0), SHORT.requestTimeout + 15000, 'every connection cut');
    expect(sockets.filter((c) => !/^HTTP\/1\.1 408 /.test(c.answer))).toEqual([]);
    await until(() => fdCount() <= baseline + 5, 15000, `descriptors back near ${baseline}`);
  });
});

describe('production limits', () => {
  it('cut a trickling request within 30 s, and are the ones the server is built with', async () => {
    // Node checks the two request limits every connectionsCheckingInterval: the worst case adds it.
    expect(HTTP_TIMEOUTS.requestTimeout + HTTP_TIMEOUTS.connectionsCheckingInterval).toBeLessThanOrEqual(30_000);
    expect(HTTP_TIMEOUTS.headersTimeout).toBeLessThanOrEqual(HTTP_TIMEOUTS.requestTimeout);
    expect(HTTP_TIMEOUTS.keepAliveTimeout).toBeLessThanOrEqual(30_000);
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'compost-tls-'));
    const [cert, key] = [path.join(dir, 'cert.pem'), path.join(dir, 'key.pem')];
    const made = spawnSync('openssl', ['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-subj', '/CN=localhost', '-days', '1', '-keyout', key, '-out', cert]);
    expect(made.status).toBe(0);
    const handle = await openTestDatabase('pglite', { migrated: false });
    try {
      // Over plain http, and over https (TLS_CERT, TLS_KEY), where node's server is another one.
      for (const options of [{}, { https: { cert: fs.readFileSync(cert), key: fs.readFileSync(key) } }]) {
        const app = await createApp({ db: handle.db, mailer: createMemoryMailer(), config: TEST_CONFIG }, options);
        try {
          const server = app.server as import('node:http').Server;
          expect([server.requestTimeout, server.headersTimeout, server.keepAliveTimeout, server.timeout]).toEqual([
            HTTP_TIMEOUTS.requestTimeout,
            HTTP_TIMEOUTS.headersTimeout,
            HTTP_TIMEOUTS.keepAliveTimeout,
            HTTP_TIMEOUTS.connectionTimeout,
          ]);
        } finally {
          await app.close();
        }
      }
    } finally {
      await handle.close();
      fs.rmSync(dir, { recursive: true, force: true });
    }
  }, 120_000);
});
