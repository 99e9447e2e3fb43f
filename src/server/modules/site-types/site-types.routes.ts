// Routes of the site types catalogue.
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import type { AppDeps } from '../../deps.js';
import { ValidationError } from '../../errors.js';
import {
  SITE_TYPE_MESSAGES,
  siteTypeAddResponseSchema,
  siteTypeAddSchema,
  siteTypeListQuerySchema,
  siteTypeListSchema,
} from '../../../shared/schemas/site-types.js';
import { createSiteTypesRepository } from './site-types.repository.js';

const UNIQUE_VIOLATION = '23505';

export default async function siteTypesRoutes(fastify: FastifyInstance, deps: AppDeps) {
  const app = fastify.withTypeProvider<ZodTypeProvider>();
  const repo = createSiteTypesRepository(deps.db);
  const manage = app.guard('siteType.manage');
  const codeTaken = () => new ValidationError([{ key: 'code', error: SITE_TYPE_MESSAGES.codeTaken }]);

  app.get(
    '/admin/typeSite/get/list/by/filters',
    { onRequest: manage, schema: { querystring: siteTypeListQuerySchema, response: { 200: siteTypeListSchema } } },
    (request) => repo.list(request.query),
  );

  app.post('/admin/typeSite/add', { onRequest: manage, schema: { body: siteTypeAddSchema, response: { 200: siteTypeAddResponseSchema } } }, async (request) => {
    if (await repo.codeTaken(request.body.code)) throw codeTaken();
    try {
      const { id } = await repo.add(request.body);
      return { status: 'success' as const, message: SITE_TYPE_MESSAGES.added, id };
    } catch (e) {
      // Two admins adding the same code at once: the unique index decides.
      if ((e as { code?: string }).code === UNIQUE_VIOLATION) throw codeTaken();
      throw e;
    }
  });
}
