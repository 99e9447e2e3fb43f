// React views of the outbox, live: they update when any tab changes the table (Dexie
// liveQuery observes IndexedDB writes).
import { useEffect, useState } from 'react';
import type { OutboxEntry } from './db';
import { referenceKeys } from './reference-cache';
import { watchQuery } from './store';
import { countEntries, type OutboxCounts } from './outbox';
import type { InterventionSubmission } from '../../shared/schemas/interventions';

export type InterventionOutboxEntry = OutboxEntry<InterventionSubmission>;

function useLiveEntries(): InterventionOutboxEntry[] | undefined {
  const [entries, setEntries] = useState<InterventionOutboxEntry[] | undefined>(undefined);
  useEffect(() => {
    return watchQuery(
      (db) => db.outbox.orderBy('createdAt').toArray(),
      (rows) => setEntries(rows as InterventionOutboxEntry[]),
      // IndexedDB unavailable: show an empty outbox rather than a spinner forever.
      () => setEntries([]),
    );
  }, []);
  return entries;
}

/** Every entry on the phone, oldest first; undefined while loading. */
export function useOutboxEntries(): InterventionOutboxEntry[] | undefined {
  return useLiveEntries();
}

/** '3 en attente' / '1 en échec' counters (every account's entries: nothing is hidden). */
export function useOutboxCounts(): OutboxCounts & { auth: boolean } {
  const entries = useLiveEntries() ?? [];
  return { ...countEntries(entries), auth: entries.some((e) => e.state === 'auth') };
}

/** One entry, for the correction of a refused submission; null once it is gone. */
export function useOutboxEntry(clientId: string | null): InterventionOutboxEntry | null | undefined {
  const [entry, setEntry] = useState<InterventionOutboxEntry | null | undefined>(clientId ? undefined : null);
  useEffect(() => {
    if (!clientId) {
      setEntry(null);
      return;
    }
    return watchQuery(
      (db) => db.outbox.get(clientId),
      (row) => setEntry((row as InterventionOutboxEntry | undefined) ?? null),
      () => setEntry(null),
    );
  }, [clientId]);
  return entry;
}

/** When all of this user's sites were last copied onto the phone (null: not yet). */
export function useOfflineSyncedAt(userId: number | null): number | null {
  const [syncedAt, setSyncedAt] = useState<number | null>(null);
  useEffect(() => {
    if (userId === null) return;
    return watchQuery(
      (db) => db.reference.get(referenceKeys.syncedAt(userId)),
      (row) => setSyncedAt(typeof row?.value === 'number' ? row.value : null),
      () => setSyncedAt(null),
    );
  }, [userId]);
  return syncedAt;
}
