// Routes of the permanences: scheduling, moving and cancelling a site's openings and their list
// (ROLE_ADMIN, ROLE_ADMIN_SITE, a referent on their own sites), signing up as opener and the
// tally recorded after an opening (from the phone, through the outbox), and the public calendar
// feed of a site's openings (no login, no personal data).
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { AppDeps } from '../../deps.js';
import { errorBodySchema } from '../../../shared/errors.js';
import { idParamsSchema } from '../../../shared/schemas/common.js';
import { publicSiteParamsSchema, SIGNALEMENT_MESSAGES } from '../../../shared/schemas/public-sites.js';
import {
  PERMANENCE_MESSAGES,
  bilanSavedSchema,
  bilanSchema,
  permanenceAddSchema,
  permanenceAddedSchema,
  permanenceAnnulerSchema,
  permanenceDoneSchema,
  permanenceListQuerySchema,
  permanenceListSchema,
  permanenceSiteParamsSchema,
  permanenceUpdateSchema,
} from '../../../shared/schemas/permanences.js';
import { NotFoundError } from '../../errors.js';
import { createPermanencesService } from './permanences.service.js';
import { createPermanencesRepository } from './permanences.repository.js';
import { ICS_CONTENT_TYPE, permanencesCalendar } from './permanences.ics.js';
import { DAY_MS } from '../../../shared/paris-time.js';

/** The feed covers openings from this many days back to FEED_DAYS_AHEAD days ahead. */
const FEED_DAYS_BACK = 30;
const FEED_DAYS_AHEAD = 366;

const calendarSchema = z.string().meta({ description: 'Calendrier iCalendar (RFC 5545)' });

export default async function permanencesRoutes(fastify: FastifyInstance, deps: AppDeps) {
  const app = fastify.withTypeProvider<ZodTypeProvider>();
  const service = createPermanencesService(deps, app.log);
  const repo = createPermanencesRepository(deps.db);
  const manage = app.guard('permanence.manage');
  const refusals = { 404: errorBodySchema, 409: errorBodySchema };

  app.get(
    '/admin/permanence/get/list/by/site/:id',
    { onRequest: manage, schema: { params: permanenceSiteParamsSchema, querystring: permanenceListQuerySchema, response: { 200: permanenceListSchema, 404: errorBodySchema } } },
    (request) => service.list(request.user!, request.params.id, request.query.periode, new Date()),
  );

  app.post('/admin/permanence/add', { onRequest: manage, schema: { body: permanenceAddSchema, response: { 200: permanenceAddedSchema } } }, async (request) => {
    const ids = await service.add(request.user!, request.body, new Date());
    return { status: 'success' as const, message: PERMANENCE_MESSAGES.added, count: ids.length, ids };
  });

  app.put(
    '/admin/permanence/update/:id',
    { onRequest: manage, schema: { params: idParamsSchema, body: permanenceUpdateSchema, response: { 200: permanenceDoneSchema, ...refusals } } },
    async (request) => {
      await service.update(request.user!, request.params.id, request.body, new Date());
      return { status: 'success' as const, message: PERMANENCE_MESSAGES.updated };
    },
  );

  app.put(
    '/admin/permanence/annuler/:id',
    { onRequest: manage, schema: { params: idParamsSchema, body: permanenceAnnulerSchema, response: { 200: permanenceDoneSchema, ...refusals } } },
    async (request) => {
      await service.cancel(request.user!, request.params.id, request.body.motif, new Date());
      return { status: 'success' as const, message: PERMANENCE_MESSAGES.cancelledDone };
    },
  );

  app.post('/permanence/:id/ouvreur', { onRequest: manage, schema: { params: idParamsSchema, response: { 200: permanenceDoneSchema, ...refusals } } }, async (request) => {
    await service.signUp(request.user!, request.params.id, new Date());
    return { status: 'success' as const, message: PERMANENCE_MESSAGES.signedUp };
  });

  app.delete('/permanence/:id/ouvreur', { onRequest: manage, schema: { params: idParamsSchema, response: { 200: permanenceDoneSchema, 404: errorBodySchema } } }, async (request) => {
    await service.withdraw(request.user!, request.params.id);
    return { status: 'success' as const, message: PERMANENCE_MESSAGES.withdrawn };
  });

  app.put(
    '/permanence/:id/bilan',
    { onRequest: manage, schema: { params: idParamsSchema, body: bilanSchema, response: { 200: bilanSavedSchema, ...refusals } } },
    async (request) => {
      const bilan = await service.bilan(request.user!, request.params.id, request.body, new Date());
      return { status: 'success' as const, message: PERMANENCE_MESSAGES.bilanSaved, bilan };
    },
  );

  app.get(
    '/public/site/:code/permanences.ics',
    { schema: { params: publicSiteParamsSchema, response: { 200: calendarSchema, 404: errorBodySchema } } },
    async (request, reply) => {
      const site = await repo.publicSiteByCode(request.params.code.toUpperCase());
      if (!site) throw new NotFoundError(SIGNALEMENT_MESSAGES.siteNotFound);
      const now = new Date();
      const permanences = await repo.between(site.id, new Date(now.getTime() - FEED_DAYS_BACK * DAY_MS), new Date(now.getTime() + FEED_DAYS_AHEAD * DAY_MS));
      const ics = permanencesCalendar({ appName: deps.config.APP_NAME, publicUrl: deps.config.publicUrl, site, permanences, now, withMessage: false });
      return reply.type(ICS_CONTENT_TYPE).header('content-disposition', `inline; filename="permanences-${site.code.toLowerCase()}.ics"`).send(ics);
    },
  );
}
