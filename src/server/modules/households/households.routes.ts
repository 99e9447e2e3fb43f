// Routes of the households (foyers) of a site: 'Je composte ici' from the public page (no
// account), the referents' list, confirmation and refusal, the site's news ('foyer.manage',
// scoped to the sites of a referent), and the household's own links (no login): leaving the
// site, and the one-click unsubscribe of RFC 8058.
import { z } from 'zod';
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import type { AppDeps } from '../../deps.js';
import { errorBodySchema } from '../../../shared/errors.js';
import { idParamsSchema } from '../../../shared/schemas/common.js';
import { publicSiteParamsSchema } from '../../../shared/schemas/public-sites.js';
import {
  FOYER_MESSAGES,
  foyerDoneSchema,
  foyerInputSchema,
  foyerJetonSchema,
  foyerListSchema,
  nouvelleSchema,
  nouvelleSentSchema,
} from '../../../shared/schemas/households.js';
import { escapeHtml } from '../../html.js';
import { NotFoundError } from '../../errors.js';
import { createHouseholdsService } from './households.service.js';

const htmlPageSchema = z.string().meta({ description: 'Page HTML en français' });

/** A small French page: what a browser shows on the unsubscribe link, before and after the POST. */
function page(appName: string, title: string, line: string, button?: string): string {
  const form = button
    ? // No action: the form posts back to the link itself, its token included.
      `<form method="post">\n<input type="hidden" name="List-Unsubscribe" value="One-Click">\n<button type="submit">${escapeHtml(button)}</button>\n</form>\n`
    : '';
  return `<!doctype html>\n<html lang="fr"><head><meta charset="utf-8"><title>${escapeHtml(`${title} - ${appName}`)}</title></head><body>\n<h1>${escapeHtml(title)}</h1>\n<p>${escapeHtml(line)}</p>\n${form}</body></html>\n`;
}

export default async function householdsRoutes(fastify: FastifyInstance, deps: AppDeps) {
  const app = fastify.withTypeProvider<ZodTypeProvider>();
  const service = createHouseholdsService(deps, app.log);
  const manage = app.guard('foyer.manage');
  const done = (message: string) => ({ status: 'success' as const, message });

  app.post(
    '/public/site/:code/foyer',
    { schema: { params: publicSiteParamsSchema, body: foyerInputSchema, response: { 201: foyerDoneSchema, 404: errorBodySchema, 429: errorBodySchema } } },
    async (request, reply) => {
      await service.register(request.params.code, request.body, request.ip);
      return reply.code(201).send(done(FOYER_MESSAGES.sent));
    },
  );

  app.get(
    '/admin/foyer/get/list/by/site/:id',
    { onRequest: manage, schema: { params: idParamsSchema, response: { 200: foyerListSchema, 404: errorBodySchema } } },
    (request) => service.list(request.user!, request.params.id),
  );

  const decision = { params: idParamsSchema, response: { 200: foyerDoneSchema, 404: errorBodySchema, 409: errorBodySchema } };
  app.put('/admin/foyer/valider/:id', { onRequest: manage, schema: decision }, async (request) => {
    await service.confirm(request.user!, request.params.id);
    return done(FOYER_MESSAGES.confirmed);
  });
  app.put('/admin/foyer/refuser/:id', { onRequest: manage, schema: decision }, async (request) => {
    await service.refuse(request.user!, request.params.id);
    return done(FOYER_MESSAGES.refused);
  });

  app.post(
    '/admin/foyer/nouvelle',
    { onRequest: manage, schema: { body: nouvelleSchema, response: { 200: nouvelleSentSchema, 404: errorBodySchema, 409: errorBodySchema } } },
    async (request) => {
      const destinataires = await service.news(request.user!, request.body);
      return { status: 'success' as const, message: FOYER_MESSAGES.newsSent(destinataires), destinataires };
    },
  );

  app.post('/public/foyer/quitter', { schema: { body: foyerJetonSchema, response: { 200: foyerDoneSchema, 404: errorBodySchema } } }, async (request) => {
    await service.leave(request.body.jeton);
    return done(FOYER_MESSAGES.left);
  });

  // RFC 8058: the mail provider POSTs 'List-Unsubscribe=One-Click' form-encoded (or as
  // multipart), without a cookie; the body says nothing the link does not, so it is read as
  // text and left aside, whatever its type (a JSON body is parsed as usual and ignored too).
  app.addContentTypeParser(['application/x-www-form-urlencoded', 'multipart/form-data'], { parseAs: 'string', bodyLimit: 4096 }, (_request, body, done) => done(null, body));
  const unsubscribeSchema = { querystring: foyerJetonSchema, response: { 200: z.union([htmlPageSchema, foyerDoneSchema]), 404: z.union([htmlPageSchema, errorBodySchema]) } };
  const invalid = () => page(deps.config.APP_NAME, FOYER_MESSAGES.linkInvalid, 'Ce lien ne correspond à aucun foyer inscrit.');
  // A browser (the button of the GET page) gets a page back; a mail provider, JSON.
  const wantsHtml = (accept: string | undefined) => !!accept && accept.includes('text/html');

  // A GET changes nothing (link scanners and previews open links): it asks for the click.
  app.get('/public/foyer/desabonner', { schema: unsubscribeSchema }, async (request, reply) => {
    const known = await service.unsubscribeLinkValid(request.query.jeton);
    const html = known ? page(deps.config.APP_NAME, 'Ne plus recevoir les nouvelles du site', 'Vous ne recevrez plus les nouvelles de ce site de compostage par e-mail.', 'Confirmer') : invalid();
    return reply.code(known ? 200 : 404).type('text/html; charset=utf-8').send(html);
  });

  app.post('/public/foyer/desabonner', { schema: unsubscribeSchema }, async (request, reply) => {
    const html = wantsHtml(request.headers.accept);
    try {
      await service.unsubscribe(request.query.jeton);
    } catch (e) {
      if (html && e instanceof NotFoundError) return reply.code(404).type('text/html; charset=utf-8').send(invalid());
      throw e;
    }
    if (html) return reply.type('text/html; charset=utf-8').send(page(deps.config.APP_NAME, 'Désabonnement enregistré', FOYER_MESSAGES.unsubscribed));
    return done(FOYER_MESSAGES.unsubscribed);
  });
}
