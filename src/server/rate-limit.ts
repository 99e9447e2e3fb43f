// Fixed-window attempt counters, the brute-force brakes of the login and account routes:
// createDbLimiter keeps them in the database (table login_attempt, migration 006) so that
// every server process counts against one allowance.
import crypto from 'node:crypto';
import net from 'node:net';
import { sql } from 'kysely';
import type { Db } from './db/client.js';
import { TooManyRequestsError } from './errors.js';

/**
 * Counts attempts per key, shared by every process through the database. Attempts are counted
 * before the (slow) check so that parallel guesses cannot slip under the limit; a success then
 * refunds its attempt.
 */
export interface DbLimiter {
  hit(key: string): Promise<void>;
  refund(key: string): Promise<void>;
  reset(key: string): Promise<void>;
}

/** Finished windows are deleted at most this often, by whichever process counts next. */
const CLEANUP_EVERY_MS = 10 * 60_000;

/**
 * A limiter whose counters are rows of login_attempt, one per (kind, key). Counting is one
 * atomic upsert, so parallel attempts from several processes cannot slip under the limit.
 * Keys are stored hashed: no e-mail address or client address is kept in clear.
 */
export function createDbLimiter(db: Db, opts: { kind: string; max: number; windowMs: number; now?: () => number }): DbLimiter {
  const now = opts.now ?? Date.now;
  const { kind } = opts;
  let lastCleanup = 0;
  const hashed = (key: string) => crypto.createHash('sha256').update(key).digest('base64url');

  async function cleanup(t: number) {
    if (t - lastCleanup < CLEANUP_EVERY_MS) return;
    lastCleanup = t;
    await db
      .deleteFrom('login_attempt')
      .where('kind', '=', kind)
      .where('window_start', '<=', new Date(t - opts.windowMs))
      .execute();
  }

  return {
    async hit(key) {
      const t = now();
      await cleanup(t);
      const start = new Date(t).toISOString();
      const expired = new Date(t - opts.windowMs).toISOString();
      // A window over (or none yet) starts afresh at this attempt; otherwise one more is counted.
      const r = await sql<{ count: number; window_start: Date }>`
        INSERT INTO login_attempt AS a (kind, key, window_start, count)
        VALUES (${kind}, ${hashed(key)}, ${start}::timestamptz, 1)
        ON CONFLICT (kind, key) DO UPDATE SET
          window_start = CASE WHEN a.window_start <= ${expired}::timestamptz THEN EXCLUDED.window_start ELSE a.window_start END,
          count = CASE WHEN a.window_start <= ${expired}::timestamptz THEN 1 ELSE a.count + 1 END
        RETURNING a.count::int AS count, a.window_start`.execute(db);
      const row = r.rows[0];
      if (row.count > opts.max) {
        const resetAt = new Date(row.window_start).getTime() + opts.windowMs;
        throw new TooManyRequestsError(Math.max(1, Math.ceil((resetAt - t) / 1000)));
      }
    },
    async refund(key) {
      await db
        .updateTable('login_attempt')
        .set({ count: sql<number>`count - 1` })
        .where('kind', '=', kind)
        .where('key', '=', hashed(key))
        .where('count', '>', 0)
        .execute();
    },
    async reset(key) {
      await db.deleteFrom('login_attempt').where('kind', '=', kind).where('key', '=', hashed(key)).execute();
    },
  };
}

/**
 * The client address as the per-address limits count it: an IPv4 address as is, an IPv6
 * address by its /64 network (one subscriber line gets a whole /64, and could otherwise
 * rotate through it to get a fresh allowance at each try).
 */
export function addressKey(ip: string): string {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(ip);
  if (mapped) return mapped[1];
  if (net.isIPv6(ip)) {
    const [head, tail = ''] = ip.split('::');
    const left = head ? head.split(':') : [];
    const right = tail ? tail.split(':') : [];
    const groups = ip.includes('::') ? [...left, ...Array<string>(8 - left.length - right.length).fill('0'), ...right] : left;
    return `${groups
      .slice(0, 4)
      .map((g) => parseInt(g, 16).toString(16))
      .join(':')}::/64`;
  }
  return ip;
}
