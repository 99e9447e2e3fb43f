// Routes of the intervention requests: the pending
// board and its site filter, the history, cancelling, scheduling (providers and ROLE_ADMIN),
// and the request rules (ROLE_ADMIN). Processing goes through POST /api/admin/intervention/add.
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { AppDeps } from '../../deps.js';
import { errorBodySchema } from '../../../shared/errors.js';
import { idParamsSchema } from '../../../shared/schemas/common.js';
import {
  cancelBodySchema,
  demandeRuleInputSchema,
  demandeRuleSchema,
  historyListSchema,
  historyQuerySchema,
  pendingListQuerySchema,
  pendingListSchema,
  pendingSiteSchema,
  requestSaveResponseSchema,
  ruleSaveResponseSchema,
  scheduleBodySchema,
  type ScheduleBody,
} from '../../../shared/schemas/requests.js';
import { createRequestsService } from './requests.service.js';

export default async function requestsRoutes(fastify: FastifyInstance, deps: AppDeps) {
  const app = fastify.withTypeProvider<ZodTypeProvider>();
  const service = createRequestsService(deps.db);
  const manage = app.guard('request.manage');
  const rules = app.guard('request.rules');
  const refusals = { 404: errorBodySchema, 409: errorBodySchema };

  app.get(
    '/admin/demande/intervention/get/list',
    { onRequest: manage, schema: { querystring: pendingListQuerySchema, response: { 200: pendingListSchema } } },
    (request) => service.pendingList(request.query),
  );

  app.get('/admin/demande/intervention/get/sites', { onRequest: manage, schema: { response: { 200: z.array(pendingSiteSchema) } } }, () =>
    service.pendingSites(),
  );

  app.get(
    '/admin/demande/intervention/get/all/by/filters',
    { onRequest: manage, schema: { querystring: historyQuerySchema, response: { 200: historyListSchema } } },
    (request) => service.history(request.query),
  );

  app.put(
    '/admin/demande/intervention/delete',
    { onRequest: manage, schema: { body: cancelBodySchema, response: { 200: requestSaveResponseSchema, ...refusals } } },
    (request) => service.cancel(request.user!, request.body),
  );

  app.post(
    '/admin/demande/intervention/programmer',
    { onRequest: manage, schema: { body: scheduleBodySchema, response: { 200: requestSaveResponseSchema, ...refusals } } },
    (request) => service.schedule(request.user!, request.body as ScheduleBody),
  );

  app.get('/admin/demande/regle/get/all', { onRequest: rules, schema: { response: { 200: z.array(demandeRuleSchema) } } }, () => service.rules());

  app.post(
    '/admin/demande/regle/add',
    { onRequest: rules, schema: { body: demandeRuleInputSchema, response: { 200: ruleSaveResponseSchema, 409: errorBodySchema } } },
    (request) => service.addRule(request.body),
  );

  app.put(
    '/admin/demande/regle/update/:id',
    { onRequest: rules, schema: { params: idParamsSchema, body: demandeRuleInputSchema, response: { 200: ruleSaveResponseSchema, ...refusals } } },
    (request) => service.updateRule(request.params.id, request.body),
  );

  app.put(
    '/admin/demande/regle/delete/:id',
    { onRequest: rules, schema: { params: idParamsSchema, response: { 200: ruleSaveResponseSchema, 404: errorBodySchema } } },
    (request) => service.deleteRule(request.params.id),
  );
}
