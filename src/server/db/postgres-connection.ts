// What every connection this app opens to PostgreSQL shares, the pool's and the LISTEN one's:
// numbers parsed as numbers, the session settings, TCP keepalive, and how a lost connection is
// logged.
import pg from 'pg';

// int8 and numeric arrive as numbers, as PGlite gives them (see openPGlite's parsers).
pg.types.setTypeParser(20, (v) => Number(v));
pg.types.setTypeParser(1700, (v) => Number(v));

/** The part of a pino logger the database layer writes to. */
export interface DbLogger {
  warn(obj: object, msg: string): void;
}

/**
 * TCP keepalive of every connection: probes start after this much silence, one a second, ten
 * of them (what Node sets): a peer gone without a word is found out within about 20 s, while
 * the connection is idle in the pool or waiting for an answer the server already acknowledged.
 */
export const KEEPALIVE_IDLE_MS = 10_000;

export function errorSummary(e: unknown) {
  const err = e as { code?: string; message?: string };
  return { code: err.code, message: err.message };
}

/** Settings of every connection the app opens (see createPostgres). */
export const POSTGRES_SESSION_OPTIONS = '-c jit=off';

/** host:port/database of a PostgreSQL URL, without its user or password, for messages. */
export function describePostgresUrl(url: string): string {
  try {
    const u = new URL(url);
    return `${u.hostname}:${u.port || '5432'}${u.pathname}`;
  } catch {
    return 'adresse illisible';
  }
}

