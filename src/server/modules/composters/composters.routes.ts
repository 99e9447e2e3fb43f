// Routes of the composter types catalogue.
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import type { AppDeps } from '../../deps.js';
import {
  COMPOSTER_MESSAGES,
  composterAddResponseSchema,
  composterAddSchema,
  composterListQuerySchema,
  composterListSchema,
} from '../../../shared/schemas/composters.js';
import { createCompostersRepository } from './composters.repository.js';

export default async function compostersRoutes(fastify: FastifyInstance, deps: AppDeps) {
  const app = fastify.withTypeProvider<ZodTypeProvider>();
  const repo = createCompostersRepository(deps.db);
  const manage = app.guard('composter.manage');

  app.get(
    '/admin/typeComposteur/get/list/by/filters',
    { onRequest: manage, schema: { querystring: composterListQuerySchema, response: { 200: composterListSchema } } },
    (request) => repo.list(request.query),
  );

  app.post(
    '/admin/typeComposteur/add',
    { onRequest: manage, schema: { body: composterAddSchema, response: { 200: composterAddResponseSchema } } },
    async (request) => {
      const { id } = await repo.add(request.body);
      return { status: 'success' as const, message: COMPOSTER_MESSAGES.added, id };
    },
  );
}
