// Sessions stored in the database behind an HttpOnly cookie, request.user, role guards
// and the cross-origin refusal of state-changing requests.
//
// Guards run as soon as the session is known, before the body is parsed and validated: a
// caller without the right gets 401/403, never a list of field errors. Routes declare them
// where they run (`onRequest: app.guard(...)`); a guard given as preValidation or preHandler
// is refused when the route is registered. The SQL of the sessions is in
// sessions.repository.ts beside this file: the account module (login, logout) uses it through here.
import fp from 'fastify-plugin';
import cookie from '@fastify/cookie';
import type { FastifyReply, FastifyRequest, RouteOptions, onRequestAsyncHookHandler } from 'fastify';
import type { Db } from '../db/client.js';
import { can, type Permission } from '../../shared/permissions.js';
import { ForbiddenError, HttpError, UnauthorizedError } from '../errors.js';
import { hashToken, newToken } from '../tokens.js';
import { MESSAGES } from '../../shared/errors.js';
import type { AuthChangeFeed } from '../db/auth-changes.js';
import { createSessionsRepository } from './sessions.repository.js';
import { SessionCache, type CachedSession, type CurrentUser } from './session-cache.js';

export type { CurrentUser };

export const SESSION_COOKIE = 'compost_sid';
/** A phone used weekly in the field stays logged in: each use pushes the expiry 60 days on. */
export const SESSION_TTL_MS = 60 * 24 * 3600 * 1000;
/**
 * However much it is used, a session ends 180 days after its login and the password is asked
 * again: a phone lost, passed on or shared without the account being closed does not stay
 * logged in for ever, and two logins a year cost a provider little (the outbox keeps what was
 * entered offline until the login).
 */
export const SESSION_MAX_AGE_MS = 180 * 24 * 3600 * 1000;
/** Expiry is pushed at most once an hour, so most requests do not write. */
const TOUCH_AFTER_MS = 3600 * 1000;


declare module 'fastify' {
  interface FastifyContextConfig {
    /**
     * The route never reads the session, whatever cookie comes with the request: the health
     * probes, which must answer while the database (where sessions live) refuses.
     */
    withoutSession?: true;
  }
  interface FastifyRequest {
    user: CurrentUser | null;
    sessionHash: string | null;
  }
  interface FastifyInstance {
    /**
     * The route's `onRequest` hook (declared anywhere else, the route is refused at
     * registration): 401 when not logged in, 403 when holding none of the roles of the
     * permissions (any of them will do). Without a permission: any role at all.
     */
    guard(...permissions: Permission[]): GuardHook;
    /** Every route with its guard, for the test that checks no /api/admin route is left open. */
    readonly routeGuards: RouteGuardInfo[];
    startSession(reply: FastifyReply, accountId: number): Promise<void>;
    endSession(request: FastifyRequest, reply: FastifyReply): Promise<void>;
  }
}

export interface RouteGuardInfo {
  method: string;
  url: string;
  /** null: no guard from app.guard(); 'any-role': app.guard() without a permission. */
  permissions: Permission[] | 'any-role' | null;
}

const GUARD = Symbol('compost.guard');
/** What app.guard() returns: an onRequest hook that carries the permissions it checks. */
export type GuardHook = onRequestAsyncHookHandler & { readonly [GUARD]: Permission[] | 'any-role' };

function hookList<T>(value: T | T[] | undefined): T[] {
  if (value === undefined) return [];
  return Array.isArray(value) ? value : [value];
}

const isGuard = (hook: unknown): hook is GuardHook => typeof hook === 'function' && GUARD in hook;

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/** A request whose session expiry was pushed: its answer renews the cookie. */
type RefreshingRequest = FastifyRequest & { refreshCookie?: { token: string; maxAge: number } };

/**
 * A state-changing request must come from the app's own pages. Browsers send Sec-Fetch-Site
 * and Origin; clients that send neither (curl, tests, old browsers) are not a browser being
 * tricked by another site, so they pass. The origin may match the Host the request reached
 * (X-Forwarded-Host behind a trusted proxy) or PUBLIC_URL, for a proxy that rewrites Host.
 */
export function sameOriginRequest(request: FastifyRequest, publicOrigin: string | null): boolean {
  const site = request.headers['sec-fetch-site'];
  if (site && site !== 'same-origin' && site !== 'none') return false;
  const origin = request.headers.origin;
  if (origin === undefined) return true;
  if (origin === 'null') return false;
  let parsed: URL;
  try {
    parsed = new URL(origin);
  } catch {
    return false;
  }
  return parsed.host === request.host || parsed.origin === publicOrigin;
}

export default fp<{ db: Db; secureCookies: boolean; publicUrl?: string; changes?: AuthChangeFeed }>(async (app, opts) => {
  const sessions = createSessionsRepository(opts.db);
  // Sessions kept in memory between requests, dropped on every change to sessions, accounts
  // or roles (db/auth-changes.ts); without a feed of those changes, none are kept.
  const cache = opts.changes ? new SessionCache(opts.changes) : null;
  if (cache) app.addHook('onClose', async () => cache.close());
  await app.register(cookie);
  app.decorateRequest('user', null);
  app.decorateRequest('sessionHash', null);

  const cookieOptions = {
    path: '/',
    httpOnly: true,
    sameSite: 'lax' as const,
    secure: opts.secureCookies,
    maxAge: Math.floor(SESSION_TTL_MS / 1000),
  };

  const publicOrigin = opts.publicUrl ? new URL(opts.publicUrl).origin : null;

  // Callback-style hooks: a request without session cookie (public pages, assets), or with a
  // session known in memory and seen within the hour, goes through without a promise being
  // created and awaited, which Fastify does for every async hook.
  app.addHook('onRequest', (request, _reply, done) => {
    if (!SAFE_METHODS.has(request.method) && !sameOriginRequest(request, publicOrigin)) return done(new HttpError(403, MESSAGES.crossOrigin));
    if (request.routeOptions.config.withoutSession) return done();
    // Every /api/admin call needs a session, whatever its own guard says.
    const check = () => done(request.url.startsWith('/api/admin/') && !request.user ? new UnauthorizedError() : undefined);
    const token = request.cookies[SESSION_COOKIE];
    if (!token) return check();
    // Kept by the cookie's own value, so that a known session costs not even its hash.
    const cached = cache?.get(token);
    if (cached && Date.now() - cached.lastSeenAt <= TOUCH_AFTER_MS) {
      request.sessionHash = cached.idHash;
      request.user = cached.user;
      return check();
    }
    loadSession(request, token, cached).then(check, done);
  });

  async function loadSession(request: FastifyRequest, token: string, cached: CachedSession | undefined) {
    if (cached) {
      await touch(request, cached.idHash, token, cached.user.id, cached);
      request.sessionHash = cached.idHash;
      request.user = cached.user;
      return;
    }
    const idHash = hashToken(token);
    const generation = cache?.generation;
    // One round trip: the session, its account and the account's role codes. A logout, a
    // deactivation or a role change drops the cached copies at once (see SessionCache).
    const row = await sessions.findUsable(idHash, SESSION_MAX_AGE_MS);
    if (!row) {
      // Expired (idle for too long, or past its absolute lifetime), or its account was
      // deactivated: the row goes now, whoever changed the account.
      await sessions.deleteUnusable(idHash);
      return;
    }
    const user: CurrentUser = Object.freeze({
      id: row.id,
      kind: row.kind,
      username: row.kind === 'agent' && row.identifiant ? row.identifiant : row.email,
      nom: row.nom,
      prenom: row.prenom,
      roles: Object.freeze([...row.roles]) as string[],
    });
    const entry = { idHash, user, lastSeenAt: new Date(row.last_seen_at).getTime(), expiresAt: new Date(row.expires_at).getTime() };
    if (Date.now() - entry.lastSeenAt > TOUCH_AFTER_MS) await touch(request, idHash, token, row.id, entry);
    cache?.set(token, entry, generation!);
    request.sessionHash = idHash;
    request.user = user;
  }

  /**
   * Pushes the expiry of a session last seen over an hour ago, never past its absolute
   * lifetime, and renews its cookie for as long.
   */
  async function touch(request: FastifyRequest, idHash: string, token: string, accountId: number, entry: { lastSeenAt: number; expiresAt: number }) {
    const now = Date.now();
    const pushedTo = await sessions.touch(idHash, now, SESSION_TTL_MS, SESSION_MAX_AGE_MS);
    const expiresAt = pushedTo ? new Date(pushedTo).getTime() : now;
    entry.lastSeenAt = now;
    entry.expiresAt = expiresAt;
    request.server.log.debug({ account: accountId }, 'Session prolongée');
    (request as RefreshingRequest).refreshCookie = { token, maxAge: Math.max(0, Math.floor((expiresAt - now) / 1000)) };
  }

  app.addHook('onSend', (request, reply, payload, done) => {
    const refresh = (request as RefreshingRequest).refreshCookie;
    if (refresh && !reply.hasHeader('set-cookie')) reply.setCookie(SESSION_COOKIE, refresh.token, { ...cookieOptions, maxAge: refresh.maxAge });
    done(null, payload);
  });

  app.decorate('guard', (...permissions: Permission[]): GuardHook => {
    const check = async (request: FastifyRequest) => {
      if (!request.user) throw new UnauthorizedError();
      const roles = request.user.roles;
      const allowed = permissions.length === 0 ? roles.length > 0 : permissions.some((p) => can(roles, p));
      if (!allowed) throw new ForbiddenError();
    };
    return Object.assign(check, { [GUARD]: permissions.length === 0 ? ('any-role' as const) : permissions });
  });

  const routeGuards: RouteGuardInfo[] = [];
  app.decorate('routeGuards', routeGuards);
  app.addHook('onRoute', (route: RouteOptions) => {
    const methods = hookList(route.method);
    const where = `${methods.join(',')} ${route.url}`;
    // A guard later than onRequest would let the body be parsed and validated first: a caller
    // without the right would get the schema's field errors instead of 401/403.
    for (const [name, hooks] of [['preValidation', route.preValidation], ['preHandler', route.preHandler]] as const) {
      if (hookList<unknown>(hooks).some(isGuard)) throw new Error(`${where}: app.guard() is an onRequest hook, declare it as \`onRequest\`, not \`${name}\``);
    }
    const guards = hookList<unknown>(route.onRequest).filter(isGuard);
    if (guards.length > 1) throw new Error(`${where}: one app.guard() per route (give it every permission that may pass)`);
    const permissions = guards[0]?.[GUARD] ?? null;
    for (const method of methods) routeGuards.push({ method, url: route.url, permissions });
  });

  app.decorate('startSession', async (reply: FastifyReply, accountId: number) => {
    const token = newToken();
    await sessions.insert(hashToken(token), accountId, new Date(Date.now() + SESSION_TTL_MS));
    // Opportunistic clean-up of expired sessions.
    await sessions.deleteExpired();
    reply.setCookie(SESSION_COOKIE, token, cookieOptions);
  });

  app.decorate('endSession', async (request: FastifyRequest, reply: FastifyReply) => {
    if (request.sessionHash) await sessions.delete(request.sessionHash);
    reply.clearCookie(SESSION_COOKIE, { path: '/' });
    request.user = null;
    request.sessionHash = null;
  });
});
