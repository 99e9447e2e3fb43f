// createApp({db, mailer, config}) builds the whole HTTP application without listening,
// so tests drive it with inject() and main.ts serves it.
import path from 'node:path';
import qs from 'qs';
import Fastify, { type FastifyInstance, type FastifyReply, type FastifyServerOptions } from 'fastify';
import { serializerCompiler, validatorCompiler, type ZodTypeProvider } from 'fastify-type-provider-zod';
import type { AppConfig, AppDeps } from './deps.js';
import { DEFAULT_TILES_URL } from './config.js';
import errorsPlugin from './plugins/errors.js';
import authPlugin from './plugins/auth.js';
import webPlugin from './plugins/web.js';
import apiRoutes from './routes.js';
import metricsPlugin from './modules/metrics/metrics.plugin.js';
import openapiPlugin from './plugins/openapi.js';
import { RequestLogController } from './logging.js';

export type { AppConfig, AppDeps } from './deps.js';

export type App = FastifyInstance;

/**
 * Fastify's trustProxy for TRUST_PROXY: a hop count trusts that many addresses from the
 * socket's end of the chain (Fastify itself ignores a number, on purpose: it is only safe
 * when nobody can reach the server except through those proxies, as the README says).
 */
export function trustProxyOption(value: AppConfig['TRUST_PROXY']): FastifyServerOptions['trustProxy'] {
  if (typeof value === 'number') return (_address: string, hop: number) => hop < value;
  return value ?? false;
}

/**
 * Where the map's tiles come from (MAP_TILES_URL), as a CSP source: its origin, a '{s}'
 * subdomain placeholder as a wildcard ('https://*.tile.example.org'); null when unusable.
 */
export function tileSource(tilesUrl: string | undefined): string | null {
  if (!tilesUrl) return null;
  try {
    const url = new URL(tilesUrl.replace(/\{s\}/g, 'sous-domaine').replace(/\{[a-z]+\}/g, '0'));
    if (url.protocol !== 'https:' && url.protocol !== 'http:') return null;
    return `${url.protocol}//${url.host.replace(/^sous-domaine\./, '*.')}`;
  } catch {
    return null;
  }
}

const CSP = [
  "default-src 'self'",
  "base-uri 'self'",
  "font-src 'self' https: data:",
  "form-action 'self'",
  "frame-ancestors 'self'",
  "img-src 'self' data: blob:",
  "object-src 'none'",
  "script-src 'self'",
  "script-src-attr 'none'",
  "style-src 'self' 'unsafe-inline'",
  "connect-src 'self'",
  "worker-src 'self'",
  "manifest-src 'self'",
];

/**
 * The headers of pages, assets and every answer outside /api. Over https (PUBLIC_URL) browsers
 * are also told to stay on https (HSTS, upgrade-insecure-requests); over plain http (a phone on
 * the LAN) those would send them to an https server that does not exist.
 */
export function securityHeaders(https: boolean, tiles: string | null = null): Record<string, string> {
  // The map's images come from its tile server too.
  const csp = tiles ? CSP.map((d) => (d.startsWith('img-src ') ? `${d} ${tiles}` : d)) : CSP;
  return {
    'content-security-policy': (https ? [...csp, 'upgrade-insecure-requests'] : csp).join(';'),
    'cross-origin-opener-policy': 'same-origin',
    'cross-origin-resource-policy': 'same-origin',
    'origin-agent-cluster': '?1',
    'referrer-policy': 'no-referrer',
    ...(https ? { 'strict-transport-security': 'max-age=15552000' } : {}),
    'x-content-type-options': 'nosniff',
    'x-dns-prefetch-control': 'off',
    'x-download-options': 'noopen',
    'x-frame-options': 'SAMEORIGIN',
    'x-permitted-cross-domain-policies': 'none',
    'x-xss-protection': '0',
  };
}

/**
 * The headers of /api answers: JSON or CSV that no browser renders as a page, so the
 * document policies (scripts, styles, fonts, opener, XSS filter...) have nothing to act on.
 * What still matters for data (the usual set for HTTP APIs): never cached, never sniffed into
 * something else, never framed, never read by another origin's page, no referrer, https kept.
 * Half the headers of a page, and a CSP of two directives instead of fourteen: each answer
 * costs less to send (the small JSON routes answered 20% more requests a second).
 */
export function apiSecurityHeaders(https: boolean): Record<string, string> {
  return {
    'cache-control': 'no-store',
    'content-security-policy': "default-src 'none'; frame-ancestors 'none'",
    'cross-origin-resource-policy': 'same-origin',
    'referrer-policy': 'no-referrer',
    ...(https ? { 'strict-transport-security': 'max-age=15552000' } : {}),
    'x-content-type-options': 'nosniff',
    'x-frame-options': 'DENY',
  };
}

/**
 * How long a client may take over a request, so that slow clients (a body trickled a byte at a
 * time, headers that never end, an idle connection) cannot hold sockets and file descriptors:
 * a request not fully received within `requestTimeout` (its headers within `headersTimeout`)
 * answers 408 and its connection closes, node checking every `connectionsCheckingInterval`, so
 * within 22 s at most. A connection stays open `keepAliveTimeout` after an answer for the
 * next request; `connectionTimeout` closes one silent both ways for 5 minutes (longer than any
 * statement is let run, so a slow answer is never cut).
 */
export const HTTP_TIMEOUTS = {
  headersTimeout: 10_000,
  requestTimeout: 20_000,
  connectionsCheckingInterval: 2_000,
  keepAliveTimeout: 10_000,
  connectionTimeout: 300_000,
};

/**
 * Fastify's options as main.ts and the tests pass them: the logger, a request log with another
 * slow-request threshold, and the certificate and key when the server speaks HTTPS itself
 * (TLS_CERT, TLS_KEY).
 */
export type AppServerOptions = FastifyServerOptions & { https?: { cert: Buffer; key: Buffer } };

export async function createApp(deps: AppDeps, fastifyOptions: AppServerOptions = {}, timeouts: Partial<typeof HTTP_TIMEOUTS> = {}): Promise<FastifyInstance> {
  const { headersTimeout, requestTimeout, connectionsCheckingInterval, keepAliveTimeout, connectionTimeout } = { ...HTTP_TIMEOUTS, ...timeouts };
  // Node's own server options: Fastify passes `http` to http.createServer, the https options
  // to https.createServer.
  const serverTimeouts = { headersTimeout, requestTimeout, connectionsCheckingInterval };
  // Over https (PUBLIC_URL), browsers are told to stay on https; over plain http (a phone on
  // the LAN) these headers would send them to an https server that does not exist.
  const https = deps.config.publicUrl.startsWith('https://');
  const trustProxy = trustProxyOption(deps.config.TRUST_PROXY);
  const app = Fastify({
    logger: false,
    // X-Forwarded-For is believed only from the proxies TRUST_PROXY names: from anyone else it
    // would let a client pick the address the per-address limits count.
    trustProxy,
    bodyLimit: 2 * 1024 * 1024,
    // Bracket-style arrays and objects: filter[ville][]=A, sort[name]=nom.
    routerOptions: { querystringParser: (str: string) => qs.parse(str, { depth: 3, arrayLimit: 200, parameterLimit: 500 }) as Record<string, unknown> },
    // The router's own refusals (malformed URL, a path parameter over 100 characters) answer
    // in the shape and language of every other error.
    frameworkErrors: (_error, _request, reply) => {
      void (reply as FastifyReply).code(400).send({ status: 'error', message: 'Requête invalide.' });
    },
    // No line per ordinary request at info: one per slow or failed request (logging.ts).
    logController: new RequestLogController(),
    requestTimeout,
    keepAliveTimeout,
    connectionTimeout,
    http: serverTimeouts,
    ...fastifyOptions,
    ...(fastifyOptions.https ? { https: { ...serverTimeouts, ...fastifyOptions.https } } : {}),
  }).withTypeProvider<ZodTypeProvider>();
  app.setValidatorCompiler(validatorCompiler);
  app.setSerializerCompiler(serializerCompiler);

  // Security headers, fixed for the process: computed once here rather than by a middleware
  // chain on every request (they were @fastify/helmet's defaults with this CSP; the hook costs a
  // fraction of helmet's per-request work on the small JSON routes).
  const headers = securityHeaders(https, tileSource(deps.config.MAP_TILES_URL ?? DEFAULT_TILES_URL));
  const apiHeaders = apiSecurityHeaders(https);
  app.addHook('onRequest', (request, reply, done) => {
    // API answers carry personal data (user lists, e-mails, phones) and change with every
    // write: no browser or proxy cache may keep them.
    const url = request.url;
    const api = url.startsWith('/api') && (url.length === 4 || url[4] === '/' || url[4] === '?');
    reply.headers(api ? apiHeaders : headers);
    done();
  });
  await app.register(errorsPlugin, { spaIndex: deps.config.webDir ? path.join(deps.config.webDir, 'index.html') : undefined });
  await app.register(authPlugin, { db: deps.db, changes: deps.authChanges, secureCookies: deps.config.secureCookies, publicUrl: deps.config.publicUrl });

  // Before the routes: it documents each route as it is added.
  await app.register(openapiPlugin);
  // Before the routes: its hooks time every request.
  await app.register(metricsPlugin, deps);
  await app.register(apiRoutes, { prefix: '/api', ...deps });

  // GET /logout is a browser navigation (as the contract has it): end the session, back to /login.
  // Another site linking here must not log the user out: only the app's own pages (or an
  // address typed by the user) end the session.
  app.get('/logout', async (request, reply) => {
    const site = request.headers['sec-fetch-site'];
    if (!site || site === 'same-origin' || site === 'none') await app.endSession(request, reply);
    return reply.redirect('/login');
  });

  if (deps.config.webDir) await app.register(webPlugin, { root: deps.config.webDir });
  return app;
}
