// The only error handler: every failure leaves as {status:'error', errors?, message}.
import fs from 'node:fs';
import path from 'node:path';
import fp from 'fastify-plugin';
import { hasZodFastifySchemaValidationErrors } from 'fastify-type-provider-zod';
import { MESSAGES, refusalMessage, type FieldError } from '../../shared/errors.js';
import { ConflictError, HttpError, NotFoundError, TooManyRequestsError, UNAVAILABLE_MESSAGE, ValidationError, isDatabaseDataError, isDatabaseOutage } from '../errors.js';
import { requestPath } from '../logging.js';

/** Seconds a client is asked to wait before retrying after a 503. */
export const UNAVAILABLE_RETRY_AFTER_SECONDS = 5;

/** Fastify's own refusals of a request, before any route runs. */
const CLIENT_ERROR_MESSAGES: Record<number, string> = {
  413: 'La requête est trop volumineuse.',
  415: 'Type de contenu non pris en charge.',
};

function instancePathToKey(instancePath: string, prefix: string | undefined): string {
  let key = '';
  for (const part of instancePath.split('/').filter(Boolean)) {
    if (/^\d+$/.test(part)) key += part;
    else key += (key ? '.' : '') + part;
  }
  // A failure on a whole query string or body (no path) names the part itself.
  return key || prefix || '';
}

export default fp<{ spaIndex?: string }>(async (app, opts) => {
  app.setErrorHandler((error, request, reply) => {
    if (hasZodFastifySchemaValidationErrors(error)) {
      const seen = new Set<string>();
      const errors: FieldError[] = [];
      for (const v of error.validation) {
        const key = instancePathToKey(v.instancePath, error.validationContext);
        if (seen.has(key)) continue;
        seen.add(key);
        errors.push({ key, error: v.message ?? 'Valeur invalide' });
      }
      const part = error.validationContext;
      const input = part === 'querystring' ? request.query : part ? request[part] : undefined;
      return reply.status(400).send({ status: 'error', errors, message: refusalMessage(errors, [input]) });
    }
    if (error instanceof ValidationError) {
      const message = refusalMessage(error.errors, [request.body, request.query, request.params], error.message);
      return reply.status(400).send({ status: 'error', errors: error.errors, message });
    }
    if (error instanceof TooManyRequestsError) {
      reply.header('retry-after', String(error.retryAfterSeconds));
    }
    if (error instanceof NotFoundError || error instanceof ConflictError) {
      // A refused selection names each item that stopped it.
      const errors = error.errors.length > 0 ? { errors: error.errors } : {};
      return reply.status(error.statusCode).send({ status: 'error', ...errors, message: error.message });
    }
    if (error instanceof HttpError) {
      return reply.status(error.statusCode).send({ status: 'error', message: error.message });
    }
    const status = (error as { statusCode?: number }).statusCode;
    if (status && status >= 400 && status < 500) {
      // Fastify's own client errors (bad JSON, body too large, unsupported media type).
      return reply.status(status).send({ status: 'error', message: CLIENT_ERROR_MESSAGES[status] ?? 'Requête invalide.' });
    }
    if (isDatabaseOutage(error)) {
      // A restart, failover, network cut, refused connection or statement out of time: the
      // pool gets a fresh connection for the next request, this one is told to try again
      // (the phone's outbox does so by itself). Nothing of it was kept: a statement that
      // fails rolls its transaction back.
      request.log.warn({ err: error }, `Base de données indisponible : ${request.method} ${requestPath(request)} → 503`);
      reply.header('retry-after', String(UNAVAILABLE_RETRY_AFTER_SECONDS));
      return reply.status(503).send({ status: 'error', message: UNAVAILABLE_MESSAGE });
    }
    if (isDatabaseDataError(error)) {
      // A value the input schemas should have refused; still the client's mistake, not a crash.
      request.log.warn({ err: error }, `Valeur refusée par la base de données : ${request.method} ${requestPath(request)} → 400`);
      return reply.status(400).send({ status: 'error', message: 'Requête invalide.' });
    }
    request.log.error({ err: error }, `Erreur inattendue : ${request.method} ${requestPath(request)} → 500`);
    return reply.status(500).send({ status: 'error', message: MESSAGES.generic });
  });

  app.setNotFoundHandler((request, reply) => {
    const url = request.url.split('?')[0];
    // Client-side routes of the PWA get its shell; the app shows 'Page introuvable' itself.
    if (opts.spaIndex && request.method === 'GET' && !url.startsWith('/api/') && path.extname(url) === '') {
      reply.header('cache-control', 'no-cache');
      return reply.type('text/html; charset=utf-8').send(fs.createReadStream(opts.spaIndex));
    }
    return reply.status(404).send({ status: 'error', message: 'Ressource introuvable.' });
  });
});
