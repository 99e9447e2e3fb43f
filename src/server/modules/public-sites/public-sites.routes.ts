// The neighbourhood's routes: the public page of a site and its anonymous reports (no account),
// the reports' handling (ROLE_ADMIN, referents on their sites), and the open-data files
// (open-data.routes.ts).
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import type { AppDeps } from '../../deps.js';
import { errorBodySchema } from '../../../shared/errors.js';
import { idParamsSchema } from '../../../shared/schemas/common.js';
import {
  SIGNALEMENT_MESSAGES,
  bulkClosedMessage,
  bulkMergedMessage,
  bulkTransformedMessage,
  publicSiteParamsSchema,
  publicSiteSchema,
  signalementClasserLotSchema,
  signalementClasserSchema,
  signalementFusionnerSchema,
  signalementHandledSchema,
  signalementInputSchema,
  signalementListQuerySchema,
  signalementListSchema,
  signalementLotSchema,
  signalementSentSchema,
  signalementTransformSchema,
  signalementTransformedLotSchema,
  signalementTransformerLotSchema,
} from '../../../shared/schemas/public-sites.js';
import { createPublicSitesService } from './public-sites.service.js';
import openDataRoutes from './open-data.routes.js';

export default async function publicSitesRoutes(fastify: FastifyInstance, deps: AppDeps) {
  const app = fastify.withTypeProvider<ZodTypeProvider>();
  const service = createPublicSitesService(deps, app.log);
  const handle = app.guard('signalement.handle');
  const refusals = { 404: errorBodySchema, 409: errorBodySchema };

  app.get('/public/site/:code', { schema: { params: publicSiteParamsSchema, response: { 200: publicSiteSchema, 404: errorBodySchema } } }, (request) =>
    service.publicSite(request.params.code),
  );

  app.post(
    '/public/site/:code/signalement',
    { schema: { params: publicSiteParamsSchema, body: signalementInputSchema, response: { 200: signalementSentSchema, 404: errorBodySchema, 429: errorBodySchema } } },
    async (request) => {
      await service.report(request.params.code, request.body, request.ip);
      return { status: 'success' as const, message: SIGNALEMENT_MESSAGES.sent };
    },
  );

  app.get(
    '/admin/signalement/get/list',
    { onRequest: handle, schema: { querystring: signalementListQuerySchema, response: { 200: signalementListSchema } } },
    (request) => service.list(request.user!, request.query),
  );

  app.put(
    '/admin/signalement/transformer/:id',
    { onRequest: handle, schema: { params: idParamsSchema, body: signalementTransformSchema, response: { 200: signalementHandledSchema, ...refusals } } },
    async (request) => {
      const idDemande = await service.transform(request.user!, request.params.id, request.body);
      return { status: 'success' as const, message: SIGNALEMENT_MESSAGES.transformed, idDemande };
    },
  );

  app.put(
    '/admin/signalement/classer/:id',
    { onRequest: handle, schema: { params: idParamsSchema, body: signalementClasserSchema, response: { 200: signalementHandledSchema, ...refusals } } },
    async (request) => {
      await service.file(request.user!, [request.params.id], request.body.motif);
      return { status: 'success' as const, message: SIGNALEMENT_MESSAGES.filed, idDemande: null };
    },
  );

  const lot = { 200: signalementLotSchema, ...refusals };
  app.put('/admin/signalement/classer', { onRequest: handle, schema: { body: signalementClasserLotSchema, response: lot } }, async (request) => {
    const count = await service.file(request.user!, request.body.ids, request.body.motif);
    return { status: 'success' as const, message: bulkClosedMessage(count), count };
  });

  app.put(
    '/admin/signalement/transformer',
    { onRequest: handle, schema: { body: signalementTransformerLotSchema, response: { 200: signalementTransformedLotSchema, ...refusals } } },
    async (request) => {
      const idDemande = await service.transformMany(request.user!, request.body.ids, request.body);
      const count = request.body.ids.length;
      return { status: 'success' as const, message: bulkTransformedMessage(count), count, idDemande };
    },
  );

  app.put('/admin/signalement/fusionner', { onRequest: handle, schema: { body: signalementFusionnerSchema, response: lot } }, async (request) => {
    const count = await service.merge(request.user!, request.body.idConserve, request.body.ids);
    return { status: 'success' as const, message: bulkMergedMessage(count, request.body.idConserve), count };
  });

  await app.register(openDataRoutes, deps);
}
