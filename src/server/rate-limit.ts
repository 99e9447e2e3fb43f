// Fixed-window counters kept in memory: a brute-force brake per address and per account.
// Several server processes each keep their own counters, which only makes the limit looser.
import { TooManyRequestsError } from './errors.js';

export interface Limiter {
  /** Counts one attempt for key; throws 429 when over the limit. */
  hit(key: string): void;
  /**
   * Gives back one attempt counted by hit(). Attempts are counted before the (slow) check so
   * that parallel guesses cannot slip under the limit; a success then refunds its attempt.
   */
  refund(key: string): void;
  reset(key: string): void;
}

export function createLimiter(opts: { max: number; windowMs: number; now?: () => number }): Limiter {
  const now = opts.now ?? Date.now;
  const buckets = new Map<string, { count: number; resetAt: number }>();
  return {
    hit(key) {
      const t = now();
      if (buckets.size > 10_000) {
        for (const [k, b] of buckets) if (b.resetAt <= t) buckets.delete(k);
      }
      let b = buckets.get(key);
      if (!b || b.resetAt <= t) {
        b = { count: 0, resetAt: t + opts.windowMs };
        buckets.set(key, b);
      }
      b.count++;
      if (b.count > opts.max) throw new TooManyRequestsError(Math.ceil((b.resetAt - t) / 1000));
    },
    refund(key) {
      const b = buckets.get(key);
      if (b && b.count > 0) b.count--;
    },
    reset(key) {
      buckets.delete(key);
    },
  };
}
