import crypto from 'node:crypto';

/** 256 random bits, URL-safe. */
export function newToken(): string {
  return crypto.randomBytes(32).toString('base64url');
}

/** Tokens and session ids are stored hashed: a database leak gives no usable secret. */
export function hashToken(token: string): string {
  return crypto.createHash('sha256').update(token).digest('hex');
}
