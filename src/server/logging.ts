// What the server writes to its console. At the default level (info) a person watching it reads
// one line per start, per error and per slow request, never one per ordinary request; every
// request gets its line at LOG_LEVEL=debug. Messages are in French, like the application.
import pino from 'pino';
import pretty from 'pino-pretty';
import { LogController, type FastifyReply, type FastifyRequest } from 'fastify';

/** A request that takes longer than this (milliseconds) writes a warning line. */
export const SLOW_REQUEST_MS = 1000;

/** Levels at which a terminal also shows each line's details (fields, stacks) under it. */
const DETAILED_LEVELS = new Set(['debug', 'trace']);

/** Fields of the request lines that their message already says (a terminal shows the message only). */
const REQUEST_FIELDS = ['reqId', 'method', 'url', 'statusCode', 'responseTime'];

/**
 * The server's logger: one JSON object a line when the output goes to a file, a pipe or a log
 * collector (every field, an error's stack included); one readable line per entry when it is a
 * terminal: the message, an error's reason after it, other fields inline. At debug and trace a
 * terminal shows the fields and stacks under the line instead.
 */
export function createLogger(level: string, opts: { pretty?: boolean; destination?: NodeJS.WritableStream } = {}): pino.Logger {
  const readable = opts.pretty ?? process.stdout.isTTY === true;
  if (!readable) return opts.destination ? pino({ level }, opts.destination) : pino({ level });
  const detailed = DETAILED_LEVELS.has(level);
  return pino(
    { level },
    pretty({
      colorize: !opts.destination,
      translateTime: 'SYS:HH:MM:ss',
      ignore: ['pid', 'hostname', ...REQUEST_FIELDS, ...(detailed ? [] : ['err'])].join(','),
      singleLine: !detailed,
      messageFormat: (log, messageKey) => {
        const message = String(log[messageKey] ?? '');
        const reason = (log.err as { message?: unknown } | undefined)?.message;
        return typeof reason === 'string' && reason && !message.includes(reason) ? `${message} : ${reason}` : message;
      },
      // In this thread and synchronous, so that the last lines before an exit are not lost.
      sync: true,
      destination: opts.destination ?? 1,
    }),
  );
}

const MAX_PATH = 200;

/**
 * The path of a request as its log lines show it: the route with its parameters filled in,
 * except those that are secrets (a token in a confirmation or password link stays ':token'),
 * and never the query string (search terms, e-mail addresses).
 */
export function requestPath(request: FastifyRequest): string {
  const route = request.routeOptions?.url;
  let path: string;
  if (route && !route.includes('*')) {
    const params = (request.params ?? {}) as Record<string, unknown>;
    path = route.replace(/:(\w+)/g, (whole, name: string) => (/token/i.test(name) || params[name] === undefined ? whole : encodeURIComponent(String(params[name]))));
  } else {
    path = request.url.split('?')[0];
  }
  return path.length > MAX_PATH ? `${path.slice(0, MAX_PATH)}…` : path;
}

function requestFields(request: FastifyRequest, reply: FastifyReply) {
  return { method: request.method, url: requestPath(request), statusCode: reply.statusCode, responseTime: Math.round(reply.elapsedTime) };
}

const enabled = (log: FastifyRequest['log'], level: pino.Level) => (log as pino.Logger).isLevelEnabled?.(level) ?? true;

/**
 * Fastify's own request lines, replaced: an ordinary request writes its line at debug only, a
 * slow one (over `slowMs`) a warning, a failed response an error. The application's error
 * handler (plugins/errors.ts) writes the line of a request that failed in a route.
 */
export class RequestLogController extends LogController {
  readonly slowMs: number;

  constructor(opts: { slowMs?: number } = {}) {
    super();
    this.slowMs = opts.slowMs ?? SLOW_REQUEST_MS;
  }

  incomingRequest(request: FastifyRequest) {
    if (enabled(request.log, 'trace')) request.log.trace({ method: request.method, url: requestPath(request) }, `Requête reçue : ${request.method} ${requestPath(request)}`);
  }

  requestCompleted(error: Error | null | undefined, request: FastifyRequest, reply: FastifyReply) {
    if (error) {
      const f = requestFields(request, reply);
      reply.log.error({ ...f, err: error }, `Réponse interrompue par une erreur : ${f.method} ${f.url}`);
    } else if (reply.elapsedTime > this.slowMs) {
      const f = requestFields(request, reply);
      reply.log.warn(f, `Requête lente (${f.responseTime} ms) : ${f.method} ${f.url} → ${f.statusCode}`);
    } else if (enabled(reply.log, 'debug')) {
      const f = requestFields(request, reply);
      reply.log.debug(f, `${f.method} ${f.url} → ${f.statusCode} (${f.responseTime} ms)`);
    }
  }

  defaultErrorLog(error: Error, request: FastifyRequest, reply: FastifyReply) {
    const f = requestFields(request, reply);
    if (reply.statusCode >= 500) reply.log.error({ ...f, err: error }, `Erreur inattendue sur ${f.method} ${f.url}`);
    else reply.log.debug({ ...f, err: error }, `Requête refusée : ${f.method} ${f.url} → ${f.statusCode}`);
  }

  streamError(error: Error & { code?: string }, request: FastifyRequest, reply: FastifyReply) {
    const f = requestFields(request, reply);
    // The client went away before the end of the answer (a phone losing the network): nothing to fix.
    if (error.code === 'ERR_STREAM_PREMATURE_CLOSE') reply.log.debug(f, `Réponse abandonnée par le client : ${f.method} ${f.url}`);
    else reply.log.warn({ ...f, err: error }, `Réponse coupée par une erreur après son début : ${f.method} ${f.url}`);
  }

  routeNotFound(request: FastifyRequest) {
    request.log.debug(`Route inconnue : ${request.method} ${requestPath(request)}`);
  }

  writeHeadError(error: Error, request: FastifyRequest, reply: FastifyReply) {
    const f = requestFields(request, reply);
    reply.log.warn({ ...f, err: error }, `En-têtes de réponse impossibles à écrire : ${f.method} ${f.url}`);
  }

  serializerError(error: Error, request: FastifyRequest, reply: FastifyReply, metadata: { statusCode: number }) {
    const f = requestFields(request, reply);
    reply.log.error({ ...f, err: error }, `Réponse ${metadata.statusCode} impossible à sérialiser : ${f.method} ${f.url}`);
  }

  serviceUnavailable(logger: FastifyRequest['log']) {
    logger.debug('Requête refusée : le serveur s’arrête');
  }
}
