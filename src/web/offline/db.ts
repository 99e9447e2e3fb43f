// The app's only IndexedDB database (Dexie), kept across reloads, browser restarts and logouts.
//
//   outbox     one row per intervention submission not yet confirmed by the server, keyed by
//              its clientId (the UUID made on the phone). Rows leave only after the server said
//              200, or when the user discards them after a confirmation. See outbox.ts.
//   reference  the data the field screens need without network, keyed by name:
//                'appInfo'                GET /api/app/info/get
//                'typeActions'            GET /api/typeAction/get/all
//                'constantes'             GET /api/typeActionConstante/get/all
//                'activeSites:{userId}'   GET /api/admin/site/get/all/actif, per user
//                'siteInfos:{siteId}'     GET /api/admin/site/get/infos/pour/intervention/{id}
//                'syncedAt:{userId}'      when every site of that user was last brought onto the phone
//              each with the time it was fetched. Refreshed whenever the network answers.
//
// Nothing else in the web app touches IndexedDB (conventions.md: offline/ is the only place).
// The app reaches this module through store.ts, which loads it (and Dexie) on first use.
import { Dexie, type Table } from 'dexie';
import type { FieldError } from '../../shared/errors';

export { liveQuery } from 'dexie';

export type OutboxState = 'pending' | 'sending' | 'failed' | 'auth';

/** A queued submission: plain data, so it survives a reload and can be sent by any tab. */
export interface OutboxEntry<P = unknown> {
  clientId: string;
  payload: P;
  /** ms since epoch; the queue is sent in this order. */
  createdAt: number;
  /** Account that recorded it: only this account's session may send it. */
  ownerId: number;
  ownerName: string;
  /** Human summary kept for the outbox page ('QUA012 - 3 rue de Siam (Jardin)'). */
  siteLabel: string;
  state: OutboxState;
  attempts: number;
  /** ms since epoch before which the timer does not retry this entry (backoff). */
  nextAttemptAt: number;
  lastError: string | null;
  /** Per-field errors of a 400 answer, keyed like the server (values0.valeur). */
  fieldErrors: FieldError[];
}

export interface ReferenceRow {
  key: string;
  value: unknown;
  fetchedAt: number;
}

export class CompostOfflineDb extends Dexie {
  outbox!: Table<OutboxEntry, string>;
  reference!: Table<ReferenceRow, string>;

  constructor(name = 'compost-offline') {
    super(name);
    this.version(1).stores({
      outbox: 'clientId, createdAt, ownerId, state',
      reference: 'key',
    });
  }
}

let instance: CompostOfflineDb | null = null;

/** The app's database, opened lazily so that importing this module costs nothing. */
export function offlineDb(): CompostOfflineDb {
  instance ??= new CompostOfflineDb();
  return instance;
}
