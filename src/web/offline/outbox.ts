// The outbox: every intervention submission, online or not, is written here first and sent
// from here. Plain TypeScript over a Dexie table, with the sender, the clock and the lock
// injected, so the same code runs in the browser, in unit tests (fake-indexeddb) and in the
// benchmark (node).
//
// Rules (issue 5): oldest first, one at a time; an entry leaves only after the server
// confirmed it (200, a replay included, since the clientId makes a resend harmless); a 400
// keeps the field errors on the entry for the user to correct; another refusal (403, 404,
// 409...) keeps the server's message; a 401 parks the entry until the user logs in again and
// stops the queue; a 5xx, a timeout or no network retries later with exponential backoff.
// Nothing expires and nothing is dropped without the user asking.
import type { Table } from 'dexie';
import type { FieldError } from '../../shared/errors';
import type { OutboxEntry, OutboxState } from './db';

export const SESSION_EXPIRED_MESSAGE = 'Session expirée : reconnectez-vous pour envoyer vos saisies';
export const NETWORK_ERROR_MESSAGE = 'Pas de réseau : nouvel essai automatique';
export const SERVER_ERROR_MESSAGE = 'Le serveur ne répond pas correctement : nouvel essai automatique';

/** What one send attempt came to, from the outbox's point of view. */
export type SendResult =
  | { kind: 'sent' }
  /** 400: the payload is wrong; the user must correct it. */
  | { kind: 'invalid'; errors: FieldError[]; message: string }
  /** Any other refusal that a retry will not fix (403, 404, 409...). */
  | { kind: 'rejected'; message: string }
  /** 401: the session is gone. */
  | { kind: 'auth' }
  /** 5xx, timeout, no network: try again later. */
  | { kind: 'retry'; message: string };

export type Sender<P> = (payload: P) => Promise<SendResult>;

export interface BackoffPolicy {
  baseMs: number;
  capMs: number;
}

export const DEFAULT_BACKOFF: BackoffPolicy = { baseMs: 5_000, capMs: 5 * 60_000 };

/** Delay before the next try after `attempts` tries: base, 2×base, 4×base... capped. */
export function backoffDelay(attempts: number, policy: BackoffPolicy = DEFAULT_BACKOFF): number {
  const exponent = Math.max(0, attempts - 1);
  // 2^30 already exceeds any cap; stop there so the number stays finite.
  return Math.min(policy.capMs, policy.baseMs * 2 ** Math.min(exponent, 30));
}

export interface OutboxOptions<P> {
  table: Table<OutboxEntry, string>;
  send: Sender<P>;
  now?: () => number;
  backoff?: BackoffPolicy;
  /** Runs the drain exclusively (e.g. navigator.locks across tabs); in-process exclusion is always on. */
  lock?: <T>(fn: () => Promise<T>) => Promise<T>;
}

export interface DrainOptions {
  /** Only this account's entries are sent: the session is theirs. */
  ownerId: number;
  /** Ignore the backoff delay (the network came back, the user pressed the button). */
  force?: boolean;
  /** Also retry entries parked by a 401 (after a login, on app start, from the button). */
  includeAuth?: boolean;
}

export interface DrainReport {
  sent: string[];
  failed: string[];
  /** Stopped because the server could not be reached; the rest waits for the backoff. */
  retryLater: boolean;
  /** Stopped on a 401. */
  authRequired: boolean;
}

export interface AddMeta {
  ownerId: number;
  ownerName: string;
  siteLabel: string;
}

export interface OutboxCounts {
  pending: number;
  failed: number;
}

export class Outbox<P extends { clientId: string }> {
  private readonly table: Table<OutboxEntry, string>;
  private readonly send: Sender<P>;
  private readonly now: () => number;
  private readonly backoff: BackoffPolicy;
  private readonly lock: <T>(fn: () => Promise<T>) => Promise<T>;
  private running: Promise<unknown> = Promise.resolve();

  constructor(options: OutboxOptions<P>) {
    this.table = options.table;
    this.send = options.send;
    this.now = options.now ?? Date.now;
    this.backoff = options.backoff ?? DEFAULT_BACKOFF;
    this.lock = options.lock ?? ((fn) => fn());
  }

  /** Queues a new submission; it is due at once. */
  async add(payload: P, meta: AddMeta): Promise<OutboxEntry<P>> {
    const createdAt = this.now();
    const entry: OutboxEntry<P> = {
      clientId: payload.clientId,
      payload,
      createdAt,
      ownerId: meta.ownerId,
      ownerName: meta.ownerName,
      siteLabel: meta.siteLabel,
      state: 'pending',
      attempts: 0,
      nextAttemptAt: createdAt,
      lastError: null,
      fieldErrors: [],
    };
    // add, not put: a clientId is never reused for another entry.
    await this.table.add(entry as OutboxEntry);
    return entry;
  }

  /** Every entry, oldest first. */
  async entries(): Promise<OutboxEntry<P>[]> {
    return (await this.table.orderBy('createdAt').toArray()) as OutboxEntry<P>[];
  }

  async get(clientId: string): Promise<OutboxEntry<P> | undefined> {
    return (await this.table.get(clientId)) as OutboxEntry<P> | undefined;
  }

  async counts(): Promise<OutboxCounts> {
    return countEntries(await this.table.toArray());
  }

  /** Earliest time the timer should try again, or null when nothing waits for it. */
  async nextDueAt(ownerId: number): Promise<number | null> {
    const waiting = (await this.entries()).filter((e) => e.ownerId === ownerId && (e.state === 'pending' || e.state === 'sending'));
    return waiting.length === 0 ? null : Math.min(...waiting.map((e) => e.nextAttemptAt));
  }

  /**
   * Replaces the content of an entry the server refused (the user corrected it). The clientId
   * is kept: the server stored nothing for a refused entry, and if it somehow had, answering
   * 409 tells the truth instead of creating a duplicate. The entry keeps its place in line.
   */
  async correct(clientId: string, payload: P): Promise<void> {
    if (payload.clientId !== clientId) throw new Error('A corrected entry keeps its clientId');
    await this.exclusive(async () => {
      const entry = await this.table.get(clientId);
      if (!entry) throw new Error(`No outbox entry ${clientId}`);
      if (entry.state === 'sending') throw new Error('Entry is being sent');
      await this.table.update(clientId, { payload, state: 'pending', nextAttemptAt: this.now(), lastError: null, fieldErrors: [] });
    });
  }

  /** Puts a failed or parked entry back in line, due at once. */
  async resend(clientId: string): Promise<void> {
    await this.exclusive(async () => {
      const entry = await this.table.get(clientId);
      if (!entry || entry.state === 'sending') return;
      await this.table.update(clientId, { state: 'pending', nextAttemptAt: this.now() });
    });
  }

  /** Deletes an entry; only ever called after the user confirmed. */
  async discard(clientId: string): Promise<void> {
    await this.exclusive(() => this.table.delete(clientId));
  }

  /** After a crash or a closed tab mid-send: the send may or may not have landed; resending is safe. */
  async recover(): Promise<void> {
    await this.exclusive(() => this.table.where('state').equals('sending').modify({ state: 'pending' }));
  }

  /** Sends due entries of `ownerId`, oldest first, one at a time. */
  drain(options: DrainOptions): Promise<DrainReport> {
    return this.exclusive(() => this.lock(() => this.drainLocked(options)));
  }

  private async drainLocked({ ownerId, force = false, includeAuth = false }: DrainOptions): Promise<DrainReport> {
    const report: DrainReport = { sent: [], failed: [], retryLater: false, authRequired: false };
    const inLine: OutboxState[] = ['pending', 'sending', 'auth'];
    for (;;) {
      const next = (await this.entries()).find((e) => e.ownerId === ownerId && inLine.includes(e.state));
      if (!next) return report;
      // Strict order: an entry parked by a 401 holds back the newer ones until a login (or the
      // button) sends it; they would only meet the same 401, or overtake it.
      if (next.state === 'auth' && !includeAuth) return report;
      // Strict order: an entry waiting for its backoff holds back the newer ones.
      if (!force && next.state !== 'auth' && next.nextAttemptAt > this.now()) {
        report.retryLater = true;
        return report;
      }
      const attempts = next.attempts + 1;
      await this.table.update(next.clientId, { state: 'sending', attempts });
      let result: SendResult;
      try {
        result = await this.send(next.payload);
      } catch (error) {
        result = { kind: 'retry', message: error instanceof Error && error.message ? `${NETWORK_ERROR_MESSAGE} (${error.message})` : NETWORK_ERROR_MESSAGE };
      }
      switch (result.kind) {
        case 'sent':
          await this.table.delete(next.clientId);
          report.sent.push(next.clientId);
          break;
        case 'invalid':
          await this.table.update(next.clientId, { state: 'failed', lastError: result.message, fieldErrors: result.errors });
          report.failed.push(next.clientId);
          break;
        case 'rejected':
          await this.table.update(next.clientId, { state: 'failed', lastError: result.message, fieldErrors: [] });
          report.failed.push(next.clientId);
          break;
        case 'auth':
          await this.table.update(next.clientId, { state: 'auth', lastError: SESSION_EXPIRED_MESSAGE });
          report.authRequired = true;
          return report;
        case 'retry':
          await this.table.update(next.clientId, {
            state: 'pending',
            lastError: result.message,
            nextAttemptAt: this.now() + backoffDelay(attempts, this.backoff),
          });
          report.retryLater = true;
          return report;
      }
    }
  }

  /** One outbox operation at a time in this page, so states never interleave. */
  private exclusive<T>(fn: () => Promise<T>): Promise<T> {
    const run = this.running.then(fn, fn);
    this.running = run.catch(() => undefined);
    return run;
  }
}

export function countEntries(entries: readonly Pick<OutboxEntry, 'state'>[]): OutboxCounts {
  let pending = 0;
  let failed = 0;
  for (const e of entries) {
    if (e.state === 'failed') failed++;
    else pending++;
  }
  return { pending, failed };
}
