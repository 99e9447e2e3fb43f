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
