// Routes of the field entry, called by the phone's site sheet: the site's sheet data (header and
// active cells) and the idempotent add of a submission. Whoever may record interventions calls
// them (referents on their sites, providers, site administrators); the administration of what
// was recorded is interventions.routes.ts.
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import type { AppDeps } from '../../deps.js';
import { errorBodySchema } from '../../../shared/errors.js';
import { idParamsSchema } from '../../../shared/schemas/common.js';
import { interventionAddResponseSchema, interventionSubmissionSchema, siteInfosSchema } from '../../../shared/schemas/interventions.js';
import { createFieldEntryService } from './field-entry.service.js';
import { markReplayed } from './replays.js';

const siteIdParams = idParamsSchema;

export default async function fieldEntryRoutes(fastify: FastifyInstance, deps: AppDeps) {
  const app = fastify.withTypeProvider<ZodTypeProvider>();
  const service = createFieldEntryService(deps.db);

  app.get(
    '/admin/site/get/infos/pour/intervention/:id',
    { onRequest: app.guard('intervention.add'), schema: { params: siteIdParams, response: { 200: siteInfosSchema } } },
    (request) => service.siteInfos(request.user!, request.params.id),
  );

  app.post(
    '/admin/intervention/add',
    {
      onRequest: app.guard('intervention.add'),
      schema: { body: interventionSubmissionSchema, response: { 200: interventionAddResponseSchema, 409: errorBodySchema } },
    },
    (request) => service.add(request.user!, request.body, () => markReplayed(request)),
  );
}
