// Signup, e-mail confirmation and password reset (spec.md section 7 "Account").
// Every route is braked per client address and per address/account it targets.
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { AppDeps } from '../../deps.js';
import { passwordRequestSchema, passwordUpdateSchema, signupSchema } from '../../../shared/schemas/account.js';
import { createLimiter, type Limiter } from '../../rate-limit.js';
import { hashToken } from '../../tokens.js';
import { createAccountService } from './account.service.js';

const success = z.object({ status: z.literal('success') });
const tokenParams = z.object({ token: z.string() });
const HOUR = 3600_000;
const QUARTER = 15 * 60_000;

export default async function accountRoutes(fastify: FastifyInstance, deps: AppDeps) {
  const app = fastify.withTypeProvider<ZodTypeProvider>();
  const service = createAccountService(deps, app.log);
  app.addHook('onClose', () => service.flush());

  const signupPerAddress = createLimiter({ max: 20, windowMs: HOUR });
  const signupPerEmail = createLimiter({ max: 5, windowMs: HOUR });
  const resetRequestPerAddress = createLimiter({ max: 20, windowMs: QUARTER });
  // Also spares a mailbox from being flooded with reset links by someone else.
  const resetRequestPerEmail = createLimiter({ max: 5, windowMs: HOUR });
  const tokenPerAddress = createLimiter({ max: 30, windowMs: QUARTER });
  const tokenPerToken = createLimiter({ max: 10, windowMs: QUARTER });

  /** Runs before validation, so that invalid submissions count as attempts too. */
  const limit =
    (perAddress: Limiter, perKey: Limiter, keyOf: (request: FastifyRequest) => string | null) =>
    async (request: FastifyRequest) => {
      perAddress.hit(request.ip);
      const key = keyOf(request);
      if (key) perKey.hit(key);
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
