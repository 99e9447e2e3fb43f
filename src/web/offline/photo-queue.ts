// The photos of the outbox's entries (db.ts `photos` and `photoData`). A photo travels with
// its entry and is sent after it: the server must have stored the intervention first, and
// only its answer says which intervention each block became. Then each photo goes in its own
// request under its own clientId, so that a resend after a lost answer never stores it twice.
// The rules are the entries' (outbox.ts): a photo leaves only once the server stored it; a
// refusal (400, 403, 404, 413, 415...) keeps it with the server's reason for the user to
// discard; a 401 holds every photo until a new login; a photo the server fails on (500)
// backs off on its own and, after MAX_FAILURES, waits as 'Erreur serveur' for 'Renvoyer';
// when nothing answers, the queue waits without counting anything against a photo. The
// photos never hold the entries: the runner sends every due entry before any photo.
import type { Table } from 'dexie';
import type { OutboxEntry, OutboxPhoto, OutboxState, PhotoData } from './db';
import type { DrainOptions, DrainReport, SendResult } from './outbox';
import { RetrySchedule, type BackoffPolicy } from './retry-schedule';

export const PHOTO_WITHOUT_INTERVENTION = 'Le serveur n’a pas indiqué l’intervention de cette photo : elle ne peut pas être envoyée.';
export const PHOTO_DATA_MISSING = 'L’image de cette photo n’est plus sur le téléphone.';

/** A photo of a new entry, as the site sheet hands it over. */
export interface NewPhoto {
  clientId: string;
  /** Index of the block of the entry. */
  block: number;
  type: string;
  data: ArrayBuffer;
}

export type PhotoSender = (photo: OutboxPhoto, data: ArrayBuffer) => Promise<SendResult>;

export interface PhotoQueueOptions {
  photos: Table<OutboxPhoto, string>;
  data: Table<PhotoData, string>;
  /** The entries' table: a photo waiting for an entry that is gone was discarded with it. */
  entries: Table<OutboxEntry, string>;
  send: PhotoSender;
  now?: () => number;
  backoff?: BackoffPolicy;
  maxFailures?: number;
  random?: () => number;
  lock?: <T>(fn: () => Promise<T>) => Promise<T>;
}

export type PhotoDrainReport = DrainReport;

const isWaiting = (p: OutboxPhoto, includeAuth: boolean) =>
  p.interventionId !== null && (p.state === 'pending' || p.state === 'sending' || (includeAuth && p.state === 'auth'));

/** 'N en attente' / 'N en échec' of the photos, as countEntries does for the entries. */
export function countPhotos(photos: readonly Pick<OutboxPhoto, 'state'>[]): { pending: number; failed: number } {
  let pending = 0;
  let failed = 0;
  for (const p of photos) {
    if (p.state === 'failed' || p.state === 'error') failed++;
    else pending++;
  }
  return { pending, failed };
}

export class PhotoQueue {
  private readonly photos: Table<OutboxPhoto, string>;
  private readonly data: Table<PhotoData, string>;
  private readonly entries: Table<OutboxEntry, string>;
  private readonly send: PhotoSender;
  private readonly now: () => number;
  private readonly lock: <T>(fn: () => Promise<T>) => Promise<T>;
  /** The outbox's retry rules (retry-schedule.ts), with their own hold and exclusion. */
  private readonly retry: RetrySchedule;

  constructor(options: PhotoQueueOptions) {
    this.photos = options.photos;
    this.data = options.data;
    this.entries = options.entries;
    this.send = options.send;
    this.retry = new RetrySchedule(options);
    this.now = this.retry.now;
    this.lock = options.lock ?? ((fn) => fn());
  }

  /**
   * Writes the photos of an entry, waiting for it. Call it in the transaction that writes the
   * entry (db.transaction('rw', outbox, photos, photoData, ...)): both are kept, or neither.
   */
  async put(entryId: string, ownerId: number, photos: readonly NewPhoto[]): Promise<void> {
    if (photos.length === 0) return;
    const createdAt = this.now();
    await this.photos.bulkAdd(
      // One millisecond apart: the photos go in the order they were taken.
      photos.map((p, i) => ({
        clientId: p.clientId,
        entryId,
        block: p.block,
        ownerId,
        type: p.type,
        size: p.data.byteLength,
        createdAt: createdAt + i,
        interventionId: null,
        state: 'pending' as OutboxState,
        attempts: 0,
        failures: 0,
        nextAttemptAt: createdAt + i,
        lastError: null,
      })),
    );
    await this.data.bulkAdd(photos.map((p) => ({ clientId: p.clientId, data: p.data })));
  }

  /**
   * The photos of an entry the user corrected: those kept stay as they are, the others go, the
   * new ones are added. Only for an entry the server refused, so none of them was sent.
   */
  async replaceForEntry(entryId: string, ownerId: number, photos: readonly NewPhoto[]): Promise<void> {
    await this.exclusive(async () => {
      const current = await this.photos.where('entryId').equals(entryId).toArray();
      const wanted = new Map(photos.map((p) => [p.clientId, p]));
      const gone = current.filter((p) => !wanted.has(p.clientId)).map((p) => p.clientId);
      await this.photos.bulkDelete(gone);
      await this.data.bulkDelete(gone);
      for (const p of current) {
        const again = wanted.get(p.clientId);
        if (again && again.block !== p.block) await this.photos.update(p.clientId, { block: again.block });
      }
      const known = new Set(current.map((p) => p.clientId));
      await this.put(
        entryId,
        ownerId,
        photos.filter((p) => !known.has(p.clientId)),
      );
    });
  }

  /**
   * The entry was confirmed: each photo learns its block's intervention from the server's
   * answer ({interventions: [id per block]}) and becomes due.
   */
  async link(entryId: string, body: unknown): Promise<void> {
    const ids = (body as { interventions?: unknown } | null)?.interventions;
    const interventions = Array.isArray(ids) ? ids : [];
    const now = this.now();
    const photos = await this.photos.where('entryId').equals(entryId).toArray();
    for (const p of photos) {
      const id: unknown = interventions[p.block];
      await this.photos.update(
        p.clientId,
        typeof id === 'number' && Number.isInteger(id) && id > 0
          ? { interventionId: id, state: 'pending', nextAttemptAt: now }
          : { state: 'failed', lastError: PHOTO_WITHOUT_INTERVENTION },
      );
    }
  }

  /** Every photo, oldest first (the outbox page). */
  async all(): Promise<OutboxPhoto[]> {
    return this.photos.orderBy('createdAt').toArray();
  }

  async forEntry(entryId: string): Promise<OutboxPhoto[]> {
    return (await this.photos.where('entryId').equals(entryId).toArray()).sort((a, b) => a.block - b.block || a.createdAt - b.createdAt);
  }

  async dataOf(clientId: string): Promise<ArrayBuffer | undefined> {
    return (await this.data.get(clientId))?.data;
  }

  /** Deletes one photo; only after the user confirmed. */
  async discard(clientId: string): Promise<void> {
    await this.exclusive(async () => {
      await this.photos.delete(clientId);
      await this.data.delete(clientId);
    });
  }

  /** Deletes the photos of an entry the user discarded. */
  async discardForEntry(entryId: string): Promise<void> {
    await this.exclusive(async () => {
      const ids = (await this.photos.where('entryId').equals(entryId).primaryKeys()) as string[];
      await this.photos.bulkDelete(ids);
      await this.data.bulkDelete(ids);
    });
  }

  /** 'Renvoyer': back in line, due at once, its count of server errors reset. */
  async resend(clientId: string): Promise<void> {
    await this.exclusive(async () => {
      const photo = await this.photos.get(clientId);
      if (!photo || photo.state === 'sending' || photo.interventionId === null) return;
      await this.photos.update(clientId, { state: 'pending', failures: 0, nextAttemptAt: this.now() });
    });
  }

  /**
   * After a crash mid-send, and for photos left behind: a photo still waiting for an entry that
   * is no longer on the phone went with it (the entry is linked before it leaves, so a sent
   * entry's photos never wait).
   */
  async recover(): Promise<void> {
    await this.exclusive(async () => {
      await this.photos.where('state').equals('sending').modify({ state: 'pending' });
      const waiting = await this.photos.filter((p) => p.interventionId === null).toArray();
      const orphans: string[] = [];
      for (const p of waiting) if ((await this.entries.get(p.entryId)) === undefined) orphans.push(p.clientId);
      await this.photos.bulkDelete(orphans);
      await this.data.bulkDelete(orphans);
    });
  }

  /** Earliest time the timer should try again, or null when no photo of this account waits for it. */
  async nextDueAt(ownerId: number): Promise<number | null> {
    const mine = await this.photos.where('ownerId').equals(ownerId).toArray();
    if (mine.some((p) => p.state === 'auth')) return null;
    const due = mine.filter((p) => isWaiting(p, false)).map((p) => p.nextAttemptAt);
    return due.length === 0 ? null : this.retry.notBefore(Math.min(...due));
  }

  /** Sends the due photos of `ownerId` whose intervention is stored, oldest first, one at a time. */
  drain(options: DrainOptions): Promise<PhotoDrainReport> {
    return this.exclusive(() => this.lock(() => this.drainLocked(options)));
  }

  private drainLocked({ ownerId, force = false, ignoreBackoff = false, includeAuth = false }: DrainOptions): Promise<PhotoDrainReport> {
    let data: ArrayBuffer | undefined;
    return this.retry.drain<OutboxPhoto>(force, {
      next: async (tried, report) => {
        for (;;) {
          const mine = (await this.photos.where('ownerId').equals(ownerId).toArray()).sort((a, b) => a.createdAt - b.createdAt);
          if (!includeAuth && mine.some((p) => p.state === 'auth')) return null;
          const now = this.now();
          const next = mine.find((p) => !tried.has(p.clientId) && isWaiting(p, includeAuth) && (ignoreBackoff || p.state === 'auth' || p.nextAttemptAt <= now));
          if (!next) return null;
          data = await this.dataOf(next.clientId);
          if (data) return next;
          tried.add(next.clientId);
          await this.photos.update(next.clientId, { state: 'failed', lastError: PHOTO_DATA_MISSING });
          report.failed.push(next.clientId);
        }
      },
      send: (photo) => this.send(photo, data!),
      update: (clientId, changes) => this.photos.update(clientId, changes),
      stored: async (photo) => {
        await this.photos.delete(photo.clientId);
        await this.data.delete(photo.clientId);
        return true;
      },
    });
  }

  private exclusive<T>(fn: () => Promise<T>): Promise<T> {
    return this.retry.exclusive(fn);
  }
}
