// Login and current user. Logout is GET /logout (app.ts), a browser navigation.
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import type { AppDeps } from '../../deps.js';
import { LOGIN_MESSAGES, loggedSchema, loginResponseSchema, loginSchema } from '../../../shared/schemas/account.js';
import { HttpError } from '../../errors.js';
import { addressKey, createDbLimiter } from '../../rate-limit.js';
import { verifyPassword } from '../../passwords.js';
import type { CurrentUser } from '../../plugins/auth.js';
import { createAccountRepository } from './account.repository.js';
import { createSessionsRepository } from '../../plugins/sessions.repository.js';

/**
 * Failed logins allowed per window. Per address: 30 failures in 15 minutes from one client
 * address (an IPv6 /64), whatever accounts they name. Per account and address: 10 failures
 * in 15 minutes on one account from one address. Nothing counts an account's failures from
 * every address together: a correct password from an address that has not failed is never
 * refused, so nobody can lock an administrator out by failing on purpose.
 */
export const LOGIN_LIMITS = {
  perAddress: { max: 30, windowMs: 15 * 60_000 },
  perAccountAndAddress: { max: 10, windowMs: 15 * 60_000 },
} as const;

export default async function sessionRoutes(fastify: FastifyInstance, deps: AppDeps) {
  const app = fastify.withTypeProvider<ZodTypeProvider>();
  const repo = createAccountRepository(deps.db);
  // Only failed attempts use up the allowance (a success refunds its attempt), so a whole
  // team logging in behind one address is never stopped.
  const perAddress = createDbLimiter(deps.db, { kind: 'login-address', ...LOGIN_LIMITS.perAddress });
  const perAccountAndAddress = createDbLimiter(deps.db, { kind: 'login-account-address', ...LOGIN_LIMITS.perAccountAndAddress });

  // Every screen of every phone asks this, and the answer only changes with the session: it is
  // checked against its schema and serialized once per session user (kept by the session cache,
  // whose user objects live as long as the cached session) rather than on each call.
  const loggedOut = JSON.stringify(loggedSchema.parse({ logged: false, user: null }));
  const answers = new WeakMap<CurrentUser, string>();
  const answerFor = (u: CurrentUser) => {
    let body = answers.get(u);
    if (body === undefined) {
      body = JSON.stringify(loggedSchema.parse({ logged: true, user: { id: u.id, username: u.username, nom: u.nom, prenom: u.prenom, roles: u.roles } }));
      answers.set(u, body);
    }
    return body;
  };
  fastify.get('/logged', { schema: { response: { 200: loggedSchema } } }, (request, reply) => {
    const u = request.user;
    void reply.type('application/json; charset=utf-8').send(u ? answerFor(u) : loggedOut);
  });

  app.post('/login', { schema: { body: loginSchema, response: { 200: loginResponseSchema } } }, async (request, reply) => {
    const { username, password } = request.body;
    const account = await repo.findForLogin(username);
    // One counter per account whichever login names it (identifiant or e-mail).
    const accountKey = account ? `account:${account.id}` : `login:${username.toLowerCase()}`;
    const address = addressKey(request.ip);
    const pairKey = `${accountKey} from ${address}`;
    // Counted before the (slow) check so that parallel guesses cannot slip under the limit.
    await perAddress.hit(address);
    await perAccountAndAddress.hit(pairKey);
    const ok = await verifyPassword(account?.password_hash ?? null, password);
    if (!account || !ok) throw new HttpError(400, LOGIN_MESSAGES.invalid);
    await perAddress.refund(address);
    await perAccountAndAddress.reset(pairKey);
    // The password is right: now it is safe to say why the account cannot log in.
    if (!account.email_valide) throw new HttpError(400, LOGIN_MESSAGES.emailNotValidated);
    if (!account.actif) throw new HttpError(400, LOGIN_MESSAGES.inactive);
    // A new session id at every login; any session the browser had is ended.
    if (request.sessionHash) await repo.deleteSession(request.sessionHash);
    await app.startSession(reply, account.id);
    const roles = await createSessionsRepository(deps.db).roles(account.id);
    return {
      status: 'success' as const,
      user: {
        id: account.id,
        username: account.kind === 'agent' && account.identifiant ? account.identifiant : account.email,
        nom: account.nom,
        prenom: account.prenom,
        roles,
      },
    };
  });
}
