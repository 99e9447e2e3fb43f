// Errors thrown by routes and services; plugins/errors.ts maps each to its HTTP answer.
import type { FieldError } from '../shared/errors.js';

export class HttpError extends Error {
  constructor(
    public readonly statusCode: number,
    message: string,
  ) {
    super(message);
  }
}

/** 400 with per-field errors: {status:'error', errors:[{key, error}], message}. */
export class ValidationError extends HttpError {
  constructor(
    public readonly errors: FieldError[],
    message = 'Veuillez renseigner les champs obligatoires',
  ) {
    super(400, message);
  }
}

export class UnauthorizedError extends HttpError {
  constructor(message = 'Vous devez être connecté.') {
    super(401, message);
  }
}
export class ForbiddenError extends HttpError {
  constructor(message = 'Accès non authorisé.') {
    super(403, message);
  }
}
/**
 * 404 and 409 may name each item of a selection they refuse (`errors`, as a 400's field
 * errors): a bulk change refused as a whole lists every item that stopped it, at once.
 */
export class NotFoundError extends HttpError {
  constructor(
    message = 'Ressource introuvable.',
    public readonly errors: FieldError[] = [],
  ) {
    super(404, message);
  }
}
export class ConflictError extends HttpError {
  constructor(
    message: string,
    public readonly errors: FieldError[] = [],
  ) {
    super(409, message);
  }
}
export class TooManyRequestsError extends HttpError {
  constructor(
    public readonly retryAfterSeconds: number,
    message = 'Trop de tentatives. Veuillez réessayer dans quelques minutes.',
  ) {
    super(429, message);
  }
}

export const UNAVAILABLE_MESSAGE = 'Service momentanément indisponible, réessayez dans un instant.';

/** 503: the database (or another resource the answer needs) is out of reach for now. */
export class ServiceUnavailableError extends HttpError {
  constructor(message = UNAVAILABLE_MESSAGE) {
    super(503, message);
  }
}

/** Code of the error a statement fails with when PostgreSQL did not answer within the client's own limit. */
export const NO_ANSWER_CODE = 'COMPOST_DB_NO_ANSWER';

/**
 * A statement that got no answer at all in time (db/postgres-pool.ts): the network went silent, or
 * the server hangs. Its connection is closed; the server rolls back whatever it had started.
 */
export class DatabaseNoAnswerError extends Error {
  readonly code = NO_ANSWER_CODE;
  constructor(ms: number) {
    super(`PostgreSQL did not answer within ${ms} ms: connection closed`);
  }
}

// What a lost or unreachable database connection looks like, whichever layer reports it:
// PostgreSQL's own codes (administrator shutdown, crash, starting up or shutting down,
// connection exceptions, too many connections, idle session ended), the socket's errno, and
// node-postgres' own messages (terminated connection, pool timeout, client no longer
// queryable). These pass by themselves: a start waits for them, and a read that meets one on
// a stale pooled connection runs again on another.
const CONNECTION_CODES = new Set([
  '57P01',
  '57P02',
  '57P03',
  '57P05',
  '08000',
  '08001',
  '08003',
  '08004',
  '08006',
  '08007',
  '53300',
  'ECONNREFUSED',
  'ECONNRESET',
  'ECONNABORTED',
  'EPIPE',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENOTFOUND',
  'EAI_AGAIN',
]);
const CONNECTION_MESSAGES = [
  /connection terminated/i,
  /timeout exceeded when trying to connect/i,
  /is not queryable/i,
  /cannot use a pool after calling end/i,
  /connection ended/i,
  /server closed the connection unexpectedly/i,
];

// The server answers but refuses to serve: the database is gone (dropped, renamed) or no longer
// accepts connections (ALLOW_CONNECTIONS false: 55000), the
// credentials no longer open it (password changed, role dropped or not allowed to log in),
// or it lacks resources (disk full, out of memory, connection slots). An operator fixes these;
// for the phone they are an outage like any other, so its outbox waits and sends again
// instead of setting the entry aside as refused. A start does not wait for them (they do
// not fix themselves): it stops with the reason.
const REFUSAL_CODES = new Set(['3D000', '57P04', '55000', '28000', '28P01']);
// Class 53, insufficient resources: 53000, 53100 disk full, 53200 out of memory, 53300 too
// many connections, 53400 configuration limit exceeded.
const REFUSAL_CLASSES = ['53'];

// A statement that did not finish in time or had to give way, and was rolled back whole:
// cancelled by the statement time limit (or by an operator), a lock not obtained within
// lock_timeout, an idle transaction ended by the server, a serialisation failure or a
// deadlock victim, or no answer at all within the client's own limit (a silent network cut).
// Sending the same request again later is the cure.
const INTERRUPTED_CODES = new Set(['57014', '55P03', '25P03', '40001', '40P01', NO_ANSWER_CODE]);

// PostgreSQL refusing a value (text that is no number, out of range, NUL byte, bad
// encoding, row too large): the schemas should have stopped it, this keeps it a 400.
const DATA_CODES = new Set(['22P02', '22003', '22021', '22P05', '54000']);

function someError(e: unknown, test: (err: { code?: unknown; message?: unknown }) => boolean, depth = 0): boolean {
  if (!e || typeof e !== 'object' || depth > 4) return false;
  const err = e as { code?: unknown; message?: unknown; cause?: unknown; errors?: unknown };
  if (test(err)) return true;
  if (err.cause && someError(err.cause, test, depth + 1)) return true;
  // Node reports a refused connection to every address of a host as an AggregateError.
  return Array.isArray(err.errors) && err.errors.some((x) => someError(x, test, depth + 1));
}

/**
 * True for an error that says the database cannot be reached or dropped the connection: a
 * passing condition, waited for at start and retried on another connection for a read.
 */
export function isDatabaseUnavailable(e: unknown): boolean {
  return someError(
    e,
    (err) =>
      (typeof err.code === 'string' && CONNECTION_CODES.has(err.code)) ||
      (typeof err.message === 'string' && CONNECTION_MESSAGES.some((re) => re.test(err.message as string))),
  );
}

/** True for a server that answers but will not serve this connection (database gone, credentials refused, resources exhausted). */
export function isDatabaseRefusal(e: unknown): boolean {
  return someError(e, (err) => typeof err.code === 'string' && (REFUSAL_CODES.has(err.code) || REFUSAL_CLASSES.includes(err.code.slice(0, 2))));
}

/** True for a statement cancelled, timed out or rolled back to let another go through: nothing of it stays. */
export function isDatabaseInterrupted(e: unknown): boolean {
  return someError(e, (err) => typeof err.code === 'string' && INTERRUPTED_CODES.has(err.code));
}

/**
 * Whether a failure is the database's and not the request's: the answer is 503 with
 * Retry-After (the phone's outbox then waits and sends again), never 500.
 */
export function isDatabaseOutage(e: unknown): boolean {
  return isDatabaseUnavailable(e) || isDatabaseRefusal(e) || isDatabaseInterrupted(e);
}

/** True for PostgreSQL refusing a value it was given (a request that should have been a 400). */
export function isDatabaseDataError(e: unknown): boolean {
  return someError(e, (err) => typeof err.code === 'string' && DATA_CODES.has(err.code));
}
