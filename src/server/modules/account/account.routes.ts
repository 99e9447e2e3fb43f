// Signup, e-mail confirmation and password reset.
// Every route is braked per client address and per e-mail address or token it targets.
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { AppDeps } from '../../deps.js';
import { passwordRequestSchema, passwordUpdateSchema, signupSchema } from '../../../shared/schemas/account.js';
import { addressKey, createDbLimiter, type DbLimiter } from '../../rate-limit.js';
import { hashToken } from '../../tokens.js';
import { createAccountService } from './account.service.js';

const success = z.object({ status: z.literal('success') });
const tokenParams = z.object({ token: z.string() });
const HOUR = 3600_000;
const QUARTER = 15 * 60_000;

/**
 * Requests allowed per window (every request counts, valid or not): signups 20 an hour per
 * client address and 5 an hour per e-mail address; reset-link requests 20 per quarter hour
 * per client address and 5 an hour per e-mail address; uses of a link (confirmation,
 * reset check, new password) 30 per quarter hour per client address and 10 per quarter
 * hour per token. A client address is an IPv4 address or an IPv6 /64.
 */
export const ACCOUNT_LIMITS = {
  signupPerAddress: { max: 20, windowMs: HOUR },
  signupPerEmail: { max: 5, windowMs: HOUR },
  resetRequestPerAddress: { max: 20, windowMs: QUARTER },
  resetRequestPerEmail: { max: 5, windowMs: HOUR },
  tokenPerAddress: { max: 30, windowMs: QUARTER },
  tokenPerToken: { max: 10, windowMs: QUARTER },
} as const;

export default async function accountRoutes(fastify: FastifyInstance, deps: AppDeps) {
  const app = fastify.withTypeProvider<ZodTypeProvider>();
  const service = createAccountService(deps, app.log);
  app.addHook('onClose', () => service.flush());

  const limiter = (kind: string, limit: { max: number; windowMs: number }) => createDbLimiter(deps.db, { kind, ...limit });
  const signupPerAddress = limiter('signup-address', ACCOUNT_LIMITS.signupPerAddress);
  const signupPerEmail = limiter('signup-email', ACCOUNT_LIMITS.signupPerEmail);
  const resetRequestPerAddress = limiter('reset-address', ACCOUNT_LIMITS.resetRequestPerAddress);
  // Also spares a mailbox from being flooded with reset links by someone else.
  const resetRequestPerEmail = limiter('reset-email', ACCOUNT_LIMITS.resetRequestPerEmail);
  const tokenPerAddress = limiter('token-address', ACCOUNT_LIMITS.tokenPerAddress);
  const tokenPerToken = limiter('token', ACCOUNT_LIMITS.tokenPerToken);

  /** Runs before validation, so that invalid submissions count as attempts too. */
  const limit =
    (perAddress: DbLimiter, perKey: DbLimiter, keyOf: (request: FastifyRequest) => string | null) =>
    async (request: FastifyRequest) => {
      await perAddress.hit(addressKey(request.ip));
      const key = keyOf(request);
      if (key) await perKey.hit(key);
    };
  const bodyField = (field: string) => (request: FastifyRequest) => {
    const value = (request.body as Record<string, unknown> | undefined)?.[field];
    return typeof value === 'string' ? value.trim().toLowerCase() : null;
  };
  const tokenKey = (request: FastifyRequest) => hashToken(String((request.params as { token?: unknown }).token ?? ''));
  const tokenLimit = limit(tokenPerAddress, tokenPerToken, tokenKey);

  app.post(
    '/signup',
    { preValidation: limit(signupPerAddress, signupPerEmail, bodyField('email')), schema: { body: signupSchema, response: { 200: success } } },
    async (request) => {
      await service.signup(request.body);
      return { status: 'success' as const };
    },
  );

  app.put('/confirmation/:token', { preValidation: tokenLimit, schema: { params: tokenParams, response: { 200: success } } }, async (request) => {
    await service.confirm(request.params.token);
    return { status: 'success' as const };
  });

  app.put(
    '/password',
    { preValidation: limit(resetRequestPerAddress, resetRequestPerEmail, bodyField('mail')), schema: { body: passwordRequestSchema, response: { 200: success } } },
    async (request) => {
      await service.requestReset(request.body.mail);
      return { status: 'success' as const };
    },
  );

  app.get('/password/reset/:token', { preValidation: tokenLimit, schema: { params: tokenParams, response: { 200: success } } }, async (request) => {
    await service.checkReset(request.params.token);
    return { status: 'success' as const };
  });

  app.put(
    '/password/update/:token',
    { preValidation: tokenLimit, schema: { params: tokenParams, body: passwordUpdateSchema, response: { 200: success } } },
    async (request) => {
      await service.updatePassword(request.params.token, request.body);
      return { status: 'success' as const };
    },
  );
}
