// Routes of the site follow-up alerts: the open alerts a person follows (administrators: all;
// providers: requests; referents: their sites), acknowledging one and the thresholds
// (ROLE_ADMIN), running the job now (ROLE_ADMIN, 'Lancer maintenant'), each person's choice of
// the alerts they receive by e-mail, and the digests' one-click unsubscribe link (no login).
import { z } from 'zod';
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
import { PREFERENCES_PATH } from './alerts.mails.js';
import { UNSUBSCRIBE_TOKEN, unsubscribePage } from './alerts.unsubscribe.js';

const INVALID_LINK = 'Lien de désabonnement invalide';
const unsubscribeParamsSchema = z.strictObject({ token: z.string().regex(UNSUBSCRIBE_TOKEN, { error: INVALID_LINK }) }, { error: 'Paramètre inconnu' });
const htmlPageSchema = z.string().meta({ description: 'Page HTML en français' });

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

  // RFC 8058: the mail provider POSTs 'List-Unsubscribe=One-Click' form-encoded (or as
  // multipart); the body says nothing the link does not, so it is read as text and left aside.
  app.addContentTypeParser(['application/x-www-form-urlencoded', 'multipart/form-data'], { parseAs: 'string', bodyLimit: 4096 }, (_request, body, done) => done(null, body));
  const page = (title: string, lines: string[], extra: Omit<Parameters<typeof unsubscribePage>[0], 'appName' | 'title' | 'lines'> = {}) =>
    unsubscribePage({ appName: deps.config.APP_NAME, title, lines, ...extra });
  const invalid = page(INVALID_LINK, ['Ce lien ne correspond à aucun abonnement. Vous pouvez choisir les alertes reçues par e-mail dans vos préférences.'], {
    link: { href: `${deps.config.publicUrl}${PREFERENCES_PATH}`, label: 'Mes préférences d’alertes' },
  });
  const unsubscribeSchema = { params: unsubscribeParamsSchema, response: { 200: htmlPageSchema, 404: htmlPageSchema } };

  // A GET changes nothing (link scanners and previews open links): it asks for the click.
  app.get('/alerte/desabonnement/:token', { schema: unsubscribeSchema }, async (request, reply) => {
    const known = (await service.unsubscribeAccount(request.params.token)) !== null;
    const html = known
      ? page('Ne plus recevoir le résumé des alertes', ['Vous ne recevrez plus le résumé quotidien des alertes par e-mail. Les alertes restent visibles sur la page Alertes.'], {
          form: { button: 'Confirmer le désabonnement' },
        })
      : invalid;
    return reply.code(known ? 200 : 404).type('text/html; charset=utf-8').send(html);
  });

  app.post('/alerte/desabonnement/:token', { schema: unsubscribeSchema }, async (request, reply) => {
    const accountId = await service.unsubscribeAccount(request.params.token);
    if (accountId !== null) await service.unsubscribe(accountId);
    const html =
      accountId === null
        ? invalid
        : page('Désabonnement enregistré', ['Vous ne recevrez plus le résumé quotidien des alertes par e-mail.'], {
            link: { href: `${deps.config.publicUrl}${PREFERENCES_PATH}`, label: 'Choisir à nouveau les alertes reçues par e-mail' },
          });
    return reply.code(accountId === null ? 404 : 200).type('text/html; charset=utf-8').send(html);
  });

  app.get('/alerte/preferences', { onRequest: view, schema: { response: { 200: alertPreferencesSchema } } }, (request) => service.preferences(request.user!));

  app.put('/alerte/preferences', { onRequest: view, schema: { body: alertPreferencesInputSchema, response: { 200: alertPreferencesResponseSchema } } }, (request) =>
    service.savePreferences(request.user!, request.body.desactivees),
  );
}
