// The app's only IndexedDB database (Dexie), kept across reloads, browser restarts and logouts.
//
//   outbox     one row per intervention submission not yet confirmed by the server, keyed by
//              its clientId (the UUID made on the phone). Rows leave only after the server said
//              200, or when the user discards them after a confirmation. See outbox.ts.
//              Version 2 (issue 9) adds `failures` (server errors counted against the entry,
//              which drive its own backoff) and the 'error' state; nextAttemptAt is now that
//              per-entry backoff only (a network outage holds the queue, not the entries).
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

/**
 * pending: waits to be sent (maybe until nextAttemptAt); sending: on its way; failed: refused by
 * the server (400, 403, 404, 409...), for the user to correct or discard; auth: met a 401, holds
 * the queue until a login; error: 'Erreur serveur', the server failed on it too many times, it
 * waits for the user's 'Renvoyer'.
 */
export type OutboxState = 'pending' | 'sending' | 'failed' | 'auth' | 'error';

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
  }
}

let instance: CompostOfflineDb | null = null;

/** The app's database, opened lazily so that importing this module costs nothing. */
export function offlineDb(): CompostOfflineDb {
  instance ??= new CompostOfflineDb();
  return instance;
}
