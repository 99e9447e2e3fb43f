// The outbox: every intervention submission and every tally of a permanence, online or not, is
// written here first and sent from here (an entry's `target` says where; none: the intervention
// add). Plain TypeScript over a Dexie table, with the sender, the clock and the lock
// injected, so the same code runs in the browser, in unit tests (fake-indexeddb) and in the
// benchmark (node).
//
// Rules: an entry leaves only after the server confirmed it (200, a replay
// included, since the clientId makes a resend harmless); a 400 keeps the field errors on the
// entry for the user to correct; another refusal (403, 404, 409...) keeps the server's message;
// a 401 parks the entry and holds the whole queue, in order, until the user logs in again.
// Entries are otherwise independent: one the server fails on (500) backs off on its own
// (exponential, with jitter, persisted on the entry) and after MAX_FAILURES such failures
// waits as 'Erreur serveur' for the user's 'Renvoyer', while the entries behind it go on.
// When nothing answers at all (no network, a timeout, 502/503/504), the outage is the
// network's or the whole server's, not the entry's: the queue waits, no entry's try is counted.
// Order is kept only where it matters (see blockerOf). Nothing expires and nothing is dropped
// without the user asking.
import type { Table } from 'dexie';
import type { BilanMeta, OutboxEntry, OutboxTarget } from './db';
import type { InterventionSubmission } from '../../shared/schemas/interventions';
import type { BilanInput } from '../../shared/schemas/permanences';
import { RetrySchedule, type BackoffPolicy, type DrainReport, type SendResult } from './retry-schedule';

export type { DrainReport, SendResult };

export const SERVER_ERROR_MESSAGE = 'Le serveur ne répond pas correctement : nouvel essai automatique';
/** The network answered for a server that is down (502, 503, 504) or busy (408, 429). */
export const SERVER_UNAVAILABLE_MESSAGE = 'Serveur indisponible : nouvel essai automatique';

/** Sends one entry's payload where the entry says (its `target`, else the intervention add). */
/** What the app's outbox sends: an intervention, or a permanence's tally (an entry with `bilan`). */
export type OutboxPayload = InterventionSubmission | BilanInput;
export type BilanEntry = OutboxEntry<BilanInput> & { bilan: BilanMeta; target: OutboxTarget };
/** An entry of the app's outbox, told apart by isBilanEntry. */
export type AnyOutboxEntry = (OutboxEntry<InterventionSubmission> & { bilan?: undefined }) | BilanEntry;

/** Whether an entry (or a receipt) is a permanence's tally rather than an intervention. */
export function isBilanEntry<E extends { bilan?: BilanMeta }>(entry: E): entry is E & { bilan: BilanMeta } {
  return entry.bilan !== undefined && entry.bilan !== null;
}

export type Sender<P> = (payload: P, entry: OutboxEntry<P>) => Promise<SendResult>;

export { backoffDelay, jitteredDelay, DEFAULT_BACKOFF, MAX_FAILURES, NETWORK_ERROR_MESSAGE, SESSION_EXPIRED_MESSAGE, type BackoffPolicy } from './retry-schedule';

/** The requests (demandeIntervention) an entry's blocks process. */
function requestIds(payload: unknown): number[] {
  const values = (payload as { values?: unknown } | null)?.values;
  if (!Array.isArray(values)) return [];
  return values.map((b) => (b as { demandeIntervention?: unknown } | null)?.demandeIntervention).filter((id): id is number => typeof id === 'number');
}

type Ordered = Pick<OutboxEntry, 'clientId' | 'payload'>;

/**
 * The earlier entry `entry` must wait for, if any. `ordered` is the whole outbox, oldest first.
 *
 * What counts as a dependency: an earlier entry still on the phone (any account, any state:
 * waiting, backing off, refused, 'Erreur serveur', parked by a 401) that processes a request
 * this entry processes too (a block with the same demandeIntervention). The server lets a
 * request be processed once, so the entry recorded first must be heard first; sent the other
 * way round, the later one would close the request and the earlier one be refused. It waits
 * until that entry is acknowledged or discarded.
 * Nothing else orders the entries: a request id always comes from the server (a phone cannot
 * name a request that one of its unsent entries will raise), and interventions carry their own
 * dates, so the server stores the same rows whatever order independent entries arrive in.
 */
export function blockerOf<E extends Ordered>(entry: E, ordered: readonly E[]): E | undefined {
  const mine = requestIds(entry.payload);
  if (mine.length === 0) return undefined;
  for (const other of ordered) {
    if (other.clientId === entry.clientId) return undefined;
    if (requestIds(other.payload).some((id) => mine.includes(id))) return other;
  }
  return undefined;
}

export interface OutboxOptions<P> {
  table: Table<OutboxEntry, string>;
  send: Sender<P>;
  now?: () => number;
  backoff?: BackoffPolicy;
  /** Server errors before an entry waits for the user (MAX_FAILURES). */
  maxFailures?: number;
  /** The jitter's random source, in [0, 1). */
  random?: () => number;
  /** Runs the drain exclusively (e.g. navigator.locks across tabs); in-process exclusion is always on. */
  lock?: <T>(fn: () => Promise<T>) => Promise<T>;
  /**
   * Called with the server's answer once an entry is confirmed, before it leaves the table (its
   * photos learn their interventions' ids). If it throws, the entry stays and is sent again:
   * the server answers a resend with the same ids.
   */
  onSent?: (entry: OutboxEntry<P>, body: unknown) => Promise<void>;
}

export interface DrainOptions {
  /** Only this account's entries are sent: the session is theirs. */
  ownerId: number;
  /** Ignore the wait after a network outage (the network came back, the app came to the front...). */
  force?: boolean;
  /** Also send entries waiting for their own backoff ('Envoyer maintenant'). */
  ignoreBackoff?: boolean;
  /** Also retry entries parked by a 401 (after a login, on app start, from the buttons). */
  includeAuth?: boolean;
}


export interface AddMeta {
  ownerId: number;
  ownerName: string;
  siteLabel: string;
}

/** Where an entry goes and what it is, for the entries that are not interventions. */
export type EntryKind = Pick<OutboxEntry, 'target' | 'bilan'>;

/** A submission as the outbox first stores it: waiting, never tried, due at once. */
export function newOutboxEntry<P extends { clientId: string }>(payload: P, meta: AddMeta, createdAt: number, kind: EntryKind = {}): OutboxEntry<P> {
  return {
    clientId: payload.clientId,
    payload,
    ...(kind.target ? { target: kind.target } : {}),
    ...(kind.bilan ? { bilan: kind.bilan } : {}),
    createdAt,
    ownerId: meta.ownerId,
    ownerName: meta.ownerName,
    siteLabel: meta.siteLabel,
    state: 'pending',
    attempts: 0,
    failures: 0,
    nextAttemptAt: createdAt,
    lastError: null,
    fieldErrors: [],
  };
}

export interface OutboxCounts {
  pending: number;
  failed: number;
}

/** States the drain sends (an interrupted 'sending' is resent: the clientId makes it harmless). */
const isWaiting = (e: OutboxEntry, includeAuth: boolean) => e.state === 'pending' || e.state === 'sending' || (includeAuth && e.state === 'auth');

export class Outbox<P extends { clientId: string }> {
  private readonly table: Table<OutboxEntry, string>;
  private readonly send: Sender<P>;
  private readonly now: () => number;
  private readonly lock: <T>(fn: () => Promise<T>) => Promise<T>;
  private readonly onSent?: (entry: OutboxEntry<P>, body: unknown) => Promise<void>;
  /** Backoff, the hold after drains that met an outage, one operation at a time. */
  private readonly retry: RetrySchedule;

  constructor(options: OutboxOptions<P>) {
    this.table = options.table;
    this.send = options.send;
    this.retry = new RetrySchedule(options);
    this.now = this.retry.now;
    this.lock = options.lock ?? ((fn) => fn());
    this.onSent = options.onSent;
  }

  /** Queues a new submission (to `kind.target`, else the intervention add); it is due at once. */
  async add(payload: P, meta: AddMeta, kind: EntryKind = {}): Promise<OutboxEntry<P>> {
    const entry = newOutboxEntry(payload, meta, this.now(), kind);
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
    const all = await this.entries();
    const mine = all.filter((e) => e.ownerId === ownerId);
    // A queue parked by a 401 waits for a login, and an entry behind another one waits for that
    // one to leave (a drain goes on by itself then): no timer for them.
    if (mine.some((e) => e.state === 'auth')) return null;
    const due = mine.filter((e) => isWaiting(e, false) && !blockerOf(e, all)).map((e) => e.nextAttemptAt);
    return due.length === 0 ? null : this.retry.notBefore(Math.min(...due));
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
      await this.table.update(clientId, { payload, state: 'pending', failures: 0, nextAttemptAt: this.now(), lastError: null, fieldErrors: [] });
    });
  }

  /** 'Renvoyer': puts an entry back in line, due at once, with its count of server errors reset. */
  async resend(clientId: string): Promise<void> {
    await this.exclusive(async () => {
      const entry = await this.table.get(clientId);
      if (!entry || entry.state === 'sending') return;
      await this.table.update(clientId, { state: 'pending', failures: 0, nextAttemptAt: this.now() });
    });
  }

  /**
   * Takes back an entry that waits for its first answer (pending, never refused): true when it
   * was deleted, false when it is on its way or already gone.
   */
  async withdraw(clientId: string): Promise<boolean> {
    return this.exclusive(async () => {
      const entry = await this.table.get(clientId);
      if (!entry || entry.state !== 'pending') return false;
      await this.table.delete(clientId);
      return true;
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

  /** Sends the due entries of `ownerId`, oldest first, one at a time, each at most once. */
  drain(options: DrainOptions): Promise<DrainReport> {
    return this.exclusive(() => this.lock(() => this.drainLocked(options)));
  }

  private drainLocked({ ownerId, force = false, ignoreBackoff = false, includeAuth = false }: DrainOptions): Promise<DrainReport> {
    return this.retry.drain<OutboxEntry<P>>(force, {
      next: async (tried) => {
        // Read again each time: another tab may have added, corrected or discarded entries.
        const all = await this.entries();
        const mine = all.filter((e) => e.ownerId === ownerId);
        // A 401 holds the whole queue: newer entries would only meet the same 401, or overtake it.
        if (!includeAuth && mine.some((e) => e.state === 'auth')) return null;
        const now = this.now();
        return mine.find((e) => !tried.has(e.clientId) && isWaiting(e, includeAuth) && (ignoreBackoff || e.state === 'auth' || e.nextAttemptAt <= now) && !blockerOf(e, all)) ?? null;
      },
      send: (entry) => this.send(entry.payload, entry),
      update: (clientId, changes) => this.table.update(clientId, changes as Partial<OutboxEntry>),
      stored: async (entry, body) => {
        try {
          await this.onSent?.(entry, body);
        } catch {
          // The phone could not record what the answer said: keep the entry, resend it later.
          await this.table.update(entry.clientId, { state: 'pending' });
          return false;
        }
        await this.table.delete(entry.clientId);
        return true;
      },
      refused: (result) => ({ fieldErrors: result.kind === 'invalid' ? result.errors : [] }),
    });
  }

  /** One outbox operation at a time in this page, so states never interleave. */
  private exclusive<T>(fn: () => Promise<T>): Promise<T> {
    return this.retry.exclusive(fn);
  }
}

/** 'N en attente' / 'N en échec': refused entries and 'Erreur serveur' both wait for the user. */
export function countEntries(entries: readonly Pick<OutboxEntry, 'state'>[]): OutboxCounts {
  let pending = 0;
  let failed = 0;
  for (const e of entries) {
    if (e.state === 'failed' || e.state === 'error') failed++;
    else pending++;
  }
  return { pending, failed };
}
