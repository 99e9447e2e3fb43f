// When the outbox and the photo queue try again. Both follow the same rules:
// - an item the server failed on (a 500) waits its own growing, jittered delay, and after
//   MAX_FAILURES such failures stops being retried by itself ('Erreur serveur');
// - a drain in which nothing answered (no network, the whole server down) holds the whole
//   queue, longer after each such drain, without counting a try against any item;
// - one operation at a time per queue in this page, so states never interleave.
// The hold is a property of this page's connection, not of the items: it is kept in memory
// (after a reload the app tries at once anyway). `drain` is the send loop both queues run with
// these rules; each queue says which item is next, how to send it and what a stored one leaves.
import type { FieldError } from '../../shared/errors';

/** What one send attempt came to, from the outbox's point of view. */
export type SendResult =
  /** 2xx with the API's answer, kept in `body` (the ids the server gave). */
  | { kind: 'sent'; body?: unknown }
  /** 400: the payload is wrong; the user must correct it. */
  | { kind: 'invalid'; errors: FieldError[]; message: string }
  /** Any other refusal that a retry will not fix (403, 404, 409...). */
  | { kind: 'rejected'; message: string }
  /** 401: the session is gone. */
  | { kind: 'auth' }
  /** The server answered and failed on this request (500...): counted against the entry. */
  | { kind: 'error'; message: string }
  /**
   * No usable answer (no network, timeout, 502/503/504, 408, 429, a page that is not the API):
   * counted against the entry only if the server answers another entry after it.
   */
  | { kind: 'retry'; message: string };

export interface DrainReport {
  sent: string[];
  /** Refused (400, 403, 404, 409...): for the user to correct or discard. */
  failed: string[];
  /** Failed on the server's side (500...): backing off on their own, or now 'Erreur serveur'. */
  serverErrors: string[];
  /** Stopped because nothing answered (network or server down); the queue waits. */
  retryLater: boolean;
  /** Stopped on a 401. */
  authRequired: boolean;
}

export const SESSION_EXPIRED_MESSAGE = 'Session expirée : reconnectez-vous pour envoyer vos saisies';
export const NETWORK_ERROR_MESSAGE = 'Pas de réseau : nouvel essai automatique';
/**
 * Items in a row that may go without any answer before a drain concludes that the network
 * (or the whole server) is down and stops: more than one, so that an item the server chokes on
 * (a timeout of its own) is told apart from an outage by the items after it.
 */
const UNANSWERED_LIMIT = 3;

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

/** What a drain needs of an item. */
interface Queued {
  clientId: string;
  attempts: number;
  failures?: number;
}

/** What differs between the queues' drains. */
export interface DrainSteps<T extends Queued> {
  /** The next due item not tried yet, or null to stop; it may settle items itself (a photo without its data). */
  next: (tried: Set<string>, report: DrainReport) => Promise<T | null>;
  send: (item: T) => Promise<SendResult>;
  update: (clientId: string, changes: Record<string, unknown>) => Promise<unknown>;
  /** The server stored it: true once it left the queue, false when it stays to be sent again. */
  stored: (item: T, body: unknown) => Promise<boolean>;
  /** Kept on a refused item besides the server's reason (an entry's field errors). */
  refused?: (result: Extract<SendResult, { kind: 'invalid' | 'rejected' }>) => Record<string, unknown>;
}

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
  /**
   * Sends the due items one at a time, each at most once, by the rules above: the report says
   * what was sent, refused, failed on the server, and whether the queue now waits (an outage or
   * a 401). Without `force`, nothing is sent while the queue waits out an outage.
   */
  async drain<T extends Queued>(force: boolean, steps: DrainSteps<T>): Promise<DrainReport> {
    const report: DrainReport = { sent: [], failed: [], serverErrors: [], retryLater: false, authRequired: false };
    if (!force && this.held()) {
      report.retryLater = true;
      return report;
    }
    const countFailure = async (item: T, message: string) => {
      await steps.update(item.clientId, this.afterFailure(item.failures, message));
      report.serverErrors.push(item.clientId);
    };
    const tried = new Set<string>();
    // Sent since the server last answered, without an answer: an outage or their own fault,
    // which only an answer to a later item tells apart.
    let unanswered: { item: T; message: string }[] = [];
    for (let next = await steps.next(tried, report); next; next = await steps.next(tried, report)) {
      tried.add(next.clientId);
      await steps.update(next.clientId, { state: 'sending', attempts: next.attempts + 1 });
      let result: SendResult;
      try {
        result = await steps.send(next);
      } catch (error) {
        // Not only Error: a timeout may be a DOMException, which some runtimes do not derive from it.
        const detail = (error as { message?: unknown } | null)?.message;
        result = { kind: 'retry', message: typeof detail === 'string' && detail ? `${NETWORK_ERROR_MESSAGE} (${detail})` : NETWORK_ERROR_MESSAGE };
      }
      if (result.kind === 'retry') {
        await steps.update(next.clientId, { state: 'pending', lastError: result.message });
        unanswered.push({ item: next, message: result.message });
        if (unanswered.length >= UNANSWERED_LIMIT) break;
        continue;
      }
      // The server answered: the items that went unanswered before had a problem of their own.
      for (const u of unanswered) await countFailure(u.item, u.message);
      unanswered = [];
      this.answered();
      switch (result.kind) {
        case 'sent':
          if (await steps.stored(next, result.body)) report.sent.push(next.clientId);
          break;
        case 'invalid':
        case 'rejected':
          await steps.update(next.clientId, { state: 'failed', lastError: result.message, ...steps.refused?.(result) });
          report.failed.push(next.clientId);
          break;
        case 'error':
          await countFailure(next, result.message);
          break;
        case 'auth':
          await steps.update(next.clientId, { state: 'auth', lastError: SESSION_EXPIRED_MESSAGE });
          report.authRequired = true;
          return report;
      }
    }
    if (unanswered.length > 0) {
      // Nothing answered since: the network (or the whole server) is down, not these items.
      // The queue waits, longer after each such drain; no item's try is counted.
      this.unanswered();
      report.retryLater = true;
    }
    return report;
  }
}
