// The outbox's IndexedDB database (the query cache of the field screens has its own, offline/query-persist.ts) (Dexie), kept across reloads, browser restarts and logouts.
//
//   outbox     one row per submission not yet confirmed by the server, keyed by its clientId
//              (the UUID made on the phone). Rows leave only after the server said 200, or when
//              the user discards them after a confirmation. See outbox.ts. Most rows are
//              interventions (POST /api/admin/intervention/add); a row with a `target` goes
//              there instead (a permanence's tally, which also carries `bilan` to be shown and
//              corrected). Those fields are not indexed: no schema version was needed for them.
//              Version 2 adds `failures` (server errors counted against the entry,
//              which drive its own backoff) and the 'error' state; nextAttemptAt is now that
//              per-entry backoff only (a network outage holds the queue, not the entries).
//   photos     (version 3) the photos of the queued entries, one row per photo keyed by its own
//              clientId, beside the entry they belong to (entryId, block): what the queue and
//              the counters read, without the image. A photo waits for its entry: when the
//              server confirms the entry, each photo gets the id of its block's intervention
//              and is sent on its own (photo-queue.ts). It is written in the same transaction
//              as its entry, and leaves after the server stored it, with its entry when the
//              user discards that entry, or when the user discards it.
//   photoData  (version 3) the image of each photo, keyed by the same clientId, apart so that
//              the queue walks and counts photos without loading megabytes. Kept as an
//              ArrayBuffer with its type, not a Blob: every browser stores and gives back an
//              ArrayBuffer alike (Blobs in IndexedDB were long broken on iOS).
//   reference  the data the field screens need without network, keyed by name:
//                'appInfo'                GET /api/app/info/get
//                'typeActions'            GET /api/typeAction/get/all
//                'constantes'             GET /api/typeActionConstante/get/all
//                'activeSites:{userId}'   GET /api/admin/site/get/all/actif, per user
//                'siteInfos:{siteId}'     GET /api/admin/site/get/infos/pour/intervention/{id}
//                'syncedAt:{userId}'      when every site of that user was last brought onto the phone
//              each with the time it was fetched. Refreshed whenever the network answers.
//   sent       (version 4) a receipt of the last entries the server confirmed, for the outbox
//              page's 'Envoyées' list: the entry as it was sent and when. At most SENT_KEPT per
//              account (outbox-runner.ts prunes on each write); never read to send anything.
//
// Nothing else in the web app touches IndexedDB (conventions.md: offline/ is the only place).
// The app reaches this module through store.ts, which loads it (and Dexie) on first use.
import { Dexie, type Table } from 'dexie';
import type { FieldError } from '../../shared/errors';

export { liveQuery } from 'dexie';

/**
 * pending: waits to be sent (maybe until nextAttemptAt); sending: on its way; failed: refused by
 * the server (400, 403, 404, 409...), for the user to correct or discard; auth: met a 401, holds
 * the queue until a login; error: 'Erreur serveur', the server failed on it too many times, it
 * waits for the user's 'Renvoyer'.
 */
export type OutboxState = 'pending' | 'sending' | 'failed' | 'auth' | 'error';

/**
 * Where an entry goes, under /api. Absent: POST admin/intervention/add, as every entry written
 * before the tallies of permanences (entries already on phones keep being sent there).
 */
export interface OutboxTarget {
  method: 'PUT';
  /** Relative to /api ('permanence/12/bilan'). */
  path: string;
}

/** What the outbox page and the permanences screen need to show a queued tally without network. */
export interface BilanMeta {
  site: number;
  permanence: number;
  /** The permanence's ISO instants. */
  debut: string;
  fin: string;
}

/** A queued submission: plain data, so it survives a reload and can be sent by any tab. */
export interface OutboxEntry<P = unknown> {
  clientId: string;
  payload: P;
  /** Where it is sent; absent: the intervention add. */
  target?: OutboxTarget;
  /** Set on the tally of a permanence. */
  bilan?: BilanMeta;
  /** ms since epoch; the queue is sent in this order. */
  createdAt: number;
  /** Account that recorded it: only this account's session may send it. */
  ownerId: number;
  ownerName: string;
  /** Human summary kept for the outbox page ('QUA012 - 3 rue de Siam (Jardin)'). */
  siteLabel: string;
  state: OutboxState;
  /** Sends tried, whatever came of them. */
  attempts: number;
  /**
   * Server errors counted against this entry since it was last queued, corrected or resent:
   * they drive its backoff and, at the limit, the 'error' state. A network outage never counts.
   * Absent reads as 0 (rows of version 1 before their upgrade, rows written by hand in tests).
   */
  failures?: number;
  /** ms since epoch before which the timer does not retry this entry (its own backoff). */
  nextAttemptAt: number;
  lastError: string | null;
  /** Per-field errors of a 400 answer, keyed like the server (values0.valeur). */
  fieldErrors: FieldError[];
}

/**
 * A queued photo. state follows the entry's states; a photo whose interventionId is null waits
 * for its entry to be confirmed and is never sent before.
 */
export interface OutboxPhoto {
  /** The photo's own UUID: the server stores a photo once per clientId. */
  clientId: string;
  /** clientId of the outbox entry the photo belongs to. */
  entryId: string;
  /** Index of the entry's block (payload.values) the photo shows. */
  block: number;
  ownerId: number;
  /** Type of the image (photoData), as the phone encoded it: image/jpeg or image/webp. */
  type: string;
  /** Bytes of the image. */
  size: number;
  createdAt: number;
  /** The block's intervention, once the server confirmed the entry; null until then. */
  interventionId: number | null;
  state: OutboxState;
  attempts: number;
  failures: number;
  nextAttemptAt: number;
  lastError: string | null;
}

/** The image of a queued photo (same clientId). */
export interface PhotoData {
  clientId: string;
  data: ArrayBuffer;
}

/** A receipt of an entry the server confirmed (the outbox page lists the last ones). */
export interface SentEntry<P = unknown> {
  clientId: string;
  ownerId: number;
  siteLabel: string;
  payload: P;
  /** Set on the receipt of a permanence's tally. */
  bilan?: BilanMeta;
  /** ms since epoch, when the server confirmed it. */
  sentAt: number;
}

export interface ReferenceRow {
  key: string;
  value: unknown;
  fetchedAt: number;
}

export class CompostOfflineDb extends Dexie {
  outbox!: Table<OutboxEntry, string>;
  reference!: Table<ReferenceRow, string>;
  photos!: Table<OutboxPhoto, string>;
  photoData!: Table<PhotoData, string>;
  sent!: Table<SentEntry, string>;

  constructor(name = 'compost-offline') {
    super(name);
    this.version(1).stores({
      outbox: 'clientId, createdAt, ownerId, state',
      reference: 'key',
    });
    // Same indexes; the rows gain `failures`. A version 1 delay may have come from a network
    // outage, which no longer delays an entry by itself: every waiting entry becomes due.
    this.version(2)
      .stores({ outbox: 'clientId, createdAt, ownerId, state', reference: 'key' })
      .upgrade((tx) =>
        tx
          .table('outbox')
          .toCollection()
          .modify((row: Partial<OutboxEntry>) => {
            row.failures ??= 0;
            if (row.state === 'pending' || row.state === 'sending') row.nextAttemptAt = row.createdAt ?? 0;
          }),
      );
    // The photos of the entries, beside them.
    this.version(3).stores({
      outbox: 'clientId, createdAt, ownerId, state',
      reference: 'key',
      photos: 'clientId, entryId, createdAt, ownerId, state',
      photoData: 'clientId',
    });
    // Receipts of the entries sent, for the outbox page.
    this.version(4).stores({
      outbox: 'clientId, createdAt, ownerId, state',
      reference: 'key',
      photos: 'clientId, entryId, createdAt, ownerId, state',
      photoData: 'clientId',
      sent: 'clientId, sentAt, ownerId',
    });
  }
}

let instance: CompostOfflineDb | null = null;

/** The app's database, opened lazily so that importing this module costs nothing. */
export function offlineDb(): CompostOfflineDb {
  instance ??= new CompostOfflineDb();
  return instance;
}
