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
export class NotFoundError extends HttpError {
  constructor(message = 'Ressource introuvable.') {
    super(404, message);
  }
}
export class ConflictError extends HttpError {
  constructor(message: string) {
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

// What a lost or refused database connection looks like, whichever layer reports it:
// PostgreSQL's own codes (administrator shutdown, crash, starting up, connection exceptions,
// too many connections), the socket's errno, and node-postgres' own messages (terminated
// connection, pool timeout, client no longer queryable).
const CONNECTION_CODES = new Set([
  '57P01',
  '57P02',
  '57P03',
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

/** True for an error that says the database cannot be reached or dropped the connection. */
export function isDatabaseUnavailable(e: unknown): boolean {
  return someError(
    e,
    (err) =>
      (typeof err.code === 'string' && CONNECTION_CODES.has(err.code)) ||
      (typeof err.message === 'string' && CONNECTION_MESSAGES.some((re) => re.test(err.message as string))),
  );
}

/** True for PostgreSQL refusing a value it was given (a request that should have been a 400). */
export function isDatabaseDataError(e: unknown): boolean {
  return someError(e, (err) => typeof err.code === 'string' && DATA_CODES.has(err.code));
}
