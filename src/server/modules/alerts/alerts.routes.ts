// Routes of the site follow-up alerts: the open alerts a person follows (administrators: all;
// providers: requests; referents: their sites), acknowledging one and the thresholds
// (ROLE_ADMIN), running the job now (ROLE_ADMIN, 'Lancer maintenant'), and each person's
// choice of the alerts they receive by e-mail.
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import type { AppDeps } from '../../deps.js';
import { errorBodySchema } from '../../../shared/errors.js';
import { idParamsSchema } from '../../../shared/schemas/common.js';
import {
  ALERT_MESSAGES,
  alertAckResponseSchema,
  alertListQuerySchema,
  alertListSchema,
  alertPreferencesInputSchema,
  alertPreferencesResponseSchema,
  alertPreferencesSchema,
  alertRunResultSchema,
  alertSettingsResponseSchema,
  alertSettingsSchema,
  alertSettingsValuesSchema,
  type AlertListQuery,
} from '../../../shared/schemas/alerts.js';
import { ConflictError } from '../../errors.js';
import { createAlertsJob, createAlertsService } from './alerts.service.js';

export default async function alertsRoutes(fastify: FastifyInstance, deps: AppDeps) {
  const app = fastify.withTypeProvider<ZodTypeProvider>();
  const service = createAlertsService(deps.db);
  const job = createAlertsJob({ db: deps.db, mailer: deps.mailer, config: deps.config, log: fastify.log });
  const view = app.guard('alert.view');
  // Acknowledging, like the thresholds and the run, is the administrators' part.
  const admin = app.guard('alert.settings');

  app.get('/admin/alerte/get/list/by/filters', { onRequest: view, schema: { querystring: alertListQuerySchema, response: { 200: alertListSchema } } }, (request) =>
    service.list(request.user!, request.query as AlertListQuery),
  );

  app.put(
    '/admin/alerte/ack/:id',
    { onRequest: admin, schema: { params: idParamsSchema, response: { 200: alertAckResponseSchema, 404: errorBodySchema, 409: errorBodySchema } } },
    (request) => service.acknowledge(request.user!, request.params.id, new Date()),
  );

  app.get('/admin/alerte/settings', { onRequest: admin, schema: { response: { 200: alertSettingsValuesSchema } } }, () => service.settings());

  app.put('/admin/alerte/settings', { onRequest: admin, schema: { body: alertSettingsSchema, response: { 200: alertSettingsResponseSchema } } }, (request) =>
    service.saveSettings(request.user!, request.body, new Date()),
  );

  app.post('/admin/alerte/run', { onRequest: admin, schema: { response: { 200: alertRunResultSchema, 409: errorBodySchema } } }, async () => {
    const outcome = await job.run({ trigger: 'manual', now: new Date() });
    if (outcome.status === 'busy') throw new ConflictError(ALERT_MESSAGES.busy);
    const { ouvertes, fermees, mails } = outcome;
    const plural = (n: number, one: string, many: string) => `${n} ${n > 1 ? many : one}`;
    return {
      status: 'success' as const,
      message: `Alertes calculées : ${plural(ouvertes, 'ouverte', 'ouvertes')}, ${plural(fermees, 'fermée', 'fermées')}, ${plural(mails, 'e-mail envoyé', 'e-mails envoyés')}`,
      ouvertes,
      fermees,
      mails,
    };
  });

  app.get('/alerte/preferences', { onRequest: view, schema: { response: { 200: alertPreferencesSchema } } }, (request) => service.preferences(request.user!));

  app.put('/alerte/preferences', { onRequest: view, schema: { body: alertPreferencesInputSchema, response: { 200: alertPreferencesResponseSchema } } }, (request) =>
    service.savePreferences(request.user!, request.body.desactivees),
  );
}
