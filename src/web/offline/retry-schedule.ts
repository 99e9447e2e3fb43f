// When the outbox and the photo queue try again. Both follow the same rules:
// - an item the server failed on (a 500) waits its own growing, jittered delay, and after
//   MAX_FAILURES such failures stops being retried by itself ('Erreur serveur');
// - a drain in which nothing answered (no network, the whole server down) holds the whole
//   queue, longer after each such drain, without counting a try against any item;
// - one operation at a time per queue in this page, so states never interleave.
// The hold is a property of this page's connection, not of the items: it is kept in memory
// (after a reload the app tries at once anyway).

export interface BackoffPolicy {
  baseMs: number;
  capMs: number;
}

export const DEFAULT_BACKOFF: BackoffPolicy = { baseMs: 5_000, capMs: 5 * 60_000 };

/** Server errors after which an entry stops being retried by itself ('Erreur serveur'). */
export const MAX_FAILURES = 5;

/** Delay before the next try after `attempts` tries: base, 2×base, 4×base... capped. */
export function backoffDelay(attempts: number, policy: BackoffPolicy = DEFAULT_BACKOFF): number {
  const exponent = Math.max(0, attempts - 1);
  // 2^30 already exceeds any cap; stop there so the number stays finite.
  return Math.min(policy.capMs, policy.baseMs * 2 ** Math.min(exponent, 30));
}

/**
 * The delay actually waited: between half and all of backoffDelay ("equal jitter"), so that
 * phones that met the same outage do not all come back in the same second.
 */
export function jitteredDelay(attempts: number, random: () => number, policy: BackoffPolicy = DEFAULT_BACKOFF): number {
  const full = backoffDelay(attempts, policy);
  return Math.round(full / 2 + (random() * full) / 2);
}

export interface RetryOptions {
  now?: () => number;
  backoff?: BackoffPolicy;
  maxFailures?: number;
  /** The jitter's random source, in [0, 1). */
  random?: () => number;
}

/** What an item's stored state becomes after one more server error. */
export type FailureUpdate =
  | { state: 'error'; failures: number; lastError: string }
  | { state: 'pending'; failures: number; lastError: string; nextAttemptAt: number };

export class RetrySchedule {
  readonly now: () => number;
  private readonly backoff: BackoffPolicy;
  private readonly maxFailures: number;
  private readonly random: () => number;
  private running: Promise<unknown> = Promise.resolve();
  private outages = 0;
  private holdUntil = 0;

  constructor(options: RetryOptions = {}) {
    this.now = options.now ?? Date.now;
    this.backoff = options.backoff ?? DEFAULT_BACKOFF;
    this.maxFailures = options.maxFailures ?? MAX_FAILURES;
    this.random = options.random ?? Math.random;
  }

  /** Runs fn after every operation started before it has ended. */
  exclusive<T>(fn: () => Promise<T>): Promise<T> {
    const run = this.running.then(fn, fn);
    this.running = run.catch(() => undefined);
    return run;
  }

  /** Whether the queue is waiting out an outage now. */
  held(): boolean {
    return this.holdUntil > this.now();
  }

  /** The earliest time a due item may go: its own time, or the end of the outage's hold. */
  notBefore(due: number): number {
    return Math.max(this.holdUntil, due);
  }

  /** The server answered: the outage, if any, is over. */
  answered(): void {
    this.outages = 0;
    this.holdUntil = 0;
  }

  /** Nothing answered in this drain: hold the queue, longer after each such drain. */
  unanswered(): void {
    this.outages++;
    this.holdUntil = this.now() + jitteredDelay(this.outages, this.random, this.backoff);
  }

  /** One more server error for an item that had `failures`: its own backoff, or 'error' at the limit. */
  afterFailure(failures: number | undefined, message: string): FailureUpdate {
    const count = (failures ?? 0) + 1;
    return count >= this.maxFailures
      ? { state: 'error', failures: count, lastError: message }
      : { state: 'pending', failures: count, lastError: message, nextAttemptAt: this.now() + jitteredDelay(count, this.random, this.backoff) };
  }
}
