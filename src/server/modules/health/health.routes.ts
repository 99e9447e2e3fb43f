// Probes for a process manager or a load balancer (public, no session): /api/health says the
// process answers HTTP, /api/ready that the database answers too. Neither reads the session
// (whatever cookie a browser sends along): a probe must not fail because of what it does not need.
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { sql } from 'kysely';
import { z } from 'zod';
import type { AppDeps } from '../../deps.js';

/** A database slower than this to answer `select 1` counts as not ready. */
export const READY_TIMEOUT_MS = 2000;
export const NOT_READY_MESSAGE = 'Base de données indisponible.';

const okSchema = z.object({ status: z.literal('ok') });
const notReadySchema = z.object({ status: z.literal('error'), message: z.string() });

function withTimeout<T>(promise: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${ms} ms`)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

export default async function healthRoutes(fastify: FastifyInstance, deps: AppDeps) {
  const app = fastify.withTypeProvider<ZodTypeProvider>();

  // Liveness: never touches the database, so a database outage does not get the process restarted.
  app.get('/health', { config: { withoutSession: true }, schema: { response: { 200: okSchema } } }, async () => ({ status: 'ok' as const }));

  app.get('/ready', { config: { withoutSession: true }, schema: { response: { 200: okSchema, 503: notReadySchema } } }, async (request, reply) => {
    try {
      await withTimeout(sql`select 1`.execute(deps.db), READY_TIMEOUT_MS);
      return { status: 'ok' as const };
    } catch (err) {
      request.log.warn({ err }, 'Pas prêt : la base de données ne répond pas');
      return reply.status(503).send({ status: 'error' as const, message: NOT_READY_MESSAGE });
    }
  });
}
