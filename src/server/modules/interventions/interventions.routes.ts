// Routes of the interventions domain (spec.md section 7): the site sheet's site info, the
// idempotent add, the public per-site table and the administrators' lists.
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { AppDeps } from '../../deps.js';
import { errorBodySchema } from '../../../shared/errors.js';
import {
  adminInterventionListQuerySchema,
  adminInterventionListSchema,
  interventionAddResponseSchema,
  interventionSubmissionSchema,
  siteInfosSchema,
  siteInterventionListQuerySchema,
  siteInterventionListSchema,
} from '../../../shared/schemas/interventions.js';
import { createInterventionsService } from './interventions.service.js';

const siteIdParams = z.object({ id: z.coerce.number({ error: 'Identifiant invalide' }).int({ error: 'Identifiant invalide' }).positive({ error: 'Identifiant invalide' }) });

export default async function interventionsRoutes(fastify: FastifyInstance, deps: AppDeps) {
  const app = fastify.withTypeProvider<ZodTypeProvider>();
  const service = createInterventionsService(deps.db);

  app.get(
    '/admin/site/get/infos/pour/intervention/:id',
    { preHandler: app.guard('intervention.add'), schema: { params: siteIdParams, response: { 200: siteInfosSchema } } },
    (request) => service.siteInfos(request.user!, request.params.id),
  );

  app.post(
    '/admin/intervention/add',
    {
      preHandler: app.guard('intervention.add'),
      schema: { body: interventionSubmissionSchema, response: { 200: interventionAddResponseSchema, 409: errorBodySchema } },
    },
    (request) => service.add(request.user!, request.body),
  );

  // Public: anyone holding a site's link (the QR label on a bin) may see what was done there.
  app.get(
    '/intervention/get/list/by/site/:id',
    { schema: { params: siteIdParams, querystring: siteInterventionListQuerySchema, response: { 200: siteInterventionListSchema } } },
    (request) => service.listBySite(request.params.id, request.query),
  );

  app.get(
    '/admin/intervention/get/list/by/filters',
    { preHandler: app.guard('intervention.list'), schema: { querystring: adminInterventionListQuerySchema, response: { 200: adminInterventionListSchema } } },
    (request) => service.adminList(request.query),
  );
}
