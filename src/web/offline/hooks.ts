// React views of the outbox, live: they update when any tab changes the table (Dexie
// liveQuery observes IndexedDB writes).
import { useEffect, useState } from 'react';
import type { OutboxEntry, OutboxPhoto, SentEntry } from './db';
import { referenceKeys } from './reference-cache';
import { openOfflineDb, watchQuery } from './store';
import { countEntries, isBilanEntry, type AnyOutboxEntry, type OutboxCounts, type OutboxPayload } from './outbox';
import { countPhotos } from './photo-queue';
import type { InterventionSubmission } from '../../shared/schemas/interventions';

export type InterventionOutboxEntry = OutboxEntry<InterventionSubmission>;
export type { AnyOutboxEntry };
/** The receipt of an intervention, or of a permanence's tally (with `bilan`, see isBilanEntry). */
export type SentReceipt = (SentEntry<InterventionSubmission> & { bilan?: undefined }) | (SentEntry<OutboxPayload> & { bilan: NonNullable<SentEntry['bilan']> });

function useLiveEntries(): AnyOutboxEntry[] | undefined {
  const [entries, setEntries] = useState<AnyOutboxEntry[] | undefined>(undefined);
  useEffect(() => {
    return watchQuery(
      (db) => db.outbox.orderBy('createdAt').toArray(),
      (rows) => setEntries(rows as AnyOutboxEntry[]),
      // IndexedDB unavailable: show an empty outbox rather than a spinner forever.
      () => setEntries([]),
    );
  }, []);
  return entries;
}

/** Every entry on the phone (interventions and tallies), oldest first; undefined while loading. */
export function useOutboxEntries(): AnyOutboxEntry[] | undefined {
  return useLiveEntries();
}

/** The receipts of this account's entries the server confirmed, newest first; undefined while loading. */
export function useSentEntries(ownerId: number | null): SentReceipt[] | undefined {
  const [sent, setSent] = useState<SentReceipt[] | undefined>(undefined);
  useEffect(() => {
    if (ownerId === null) {
      setSent([]);
      return;
    }
    return watchQuery(
      async (db) => (await db.sent.where('ownerId').equals(ownerId).sortBy('sentAt')).reverse(),
      (rows) => setSent(rows as SentReceipt[]),
      () => setSent([]),
    );
  }, [ownerId]);
  return sent;
}

/** What this account has not sent yet: its entries and its photos still on the phone. */
export async function countUnsent(ownerId: number): Promise<{ entries: number; photos: number }> {
  const db = await openOfflineDb();
  const [entries, photos] = await Promise.all([db.outbox.where('ownerId').equals(ownerId).count(), db.photos.where('ownerId').equals(ownerId).count()]);
  return { entries, photos };
}

/** The queued photos, without their images (db.ts `photos`), oldest first; undefined while loading. */
export function useOutboxPhotos(): OutboxPhoto[] | undefined {
  const [photos, setPhotos] = useState<OutboxPhoto[] | undefined>(undefined);
  useEffect(() => {
    return watchQuery(
      (db) => db.photos.orderBy('createdAt').toArray(),
      (rows) => setPhotos(rows),
      () => setPhotos([]),
    );
  }, []);
  return photos;
}

/**
 * '3 en attente' / '1 en échec' counters (every account's entries and photos: nothing is
 * hidden); `photos` says how many of them are photos.
 */
export function useOutboxCounts(): OutboxCounts & { auth: boolean; photos: OutboxCounts } {
  const entries = useLiveEntries() ?? [];
  const photos = useOutboxPhotos() ?? [];
  const e = countEntries(entries);
  const p = countPhotos(photos);
  return {
    pending: e.pending + p.pending,
    failed: e.failed + p.failed,
    auth: entries.some((x) => x.state === 'auth') || photos.some((x) => x.state === 'auth'),
    photos: p,
  };
}

/** Object URLs of queued photos' images (thumbnails of the outbox page), released when they go. */
export function useQueuedPhotoUrls(photos: readonly Pick<OutboxPhoto, 'clientId' | 'type'>[]): Map<string, string> {
  const key = photos.map((p) => `${p.clientId}:${p.type}`).join(',');
  const [urls, setUrls] = useState(new Map<string, string>());
  useEffect(() => {
    let cancelled = false;
    const made = new Map<string, string>();
    const wanted = key === '' ? [] : key.split(',').map((k) => k.split(':') as [string, string]);
    void (async () => {
      try {
        const db = await openOfflineDb();
        for (const [clientId, type] of wanted) {
          const row = await db.photoData.get(clientId);
          if (cancelled) return;
          if (row) made.set(clientId, URL.createObjectURL(new Blob([row.data], { type })));
        }
        if (!cancelled) setUrls(new Map(made));
      } catch {
        /* IndexedDB unavailable: no thumbnails, the list still says what waits */
      }
    })();
    return () => {
      cancelled = true;
      for (const url of made.values()) URL.revokeObjectURL(url);
    };
  }, [key]);
  return urls;
}

/** A queued photo with its image, as the site sheet reopens it to correct its entry. */
export interface StoredPhoto {
  clientId: string;
  block: number;
  type: string;
  data: ArrayBuffer;
}

/** The photos of one entry with their images (correcting a refused entry); undefined while loading. */
export function useEntryPhotos(entryId: string | null): StoredPhoto[] | undefined {
  const [photos, setPhotos] = useState<StoredPhoto[] | undefined>(entryId ? undefined : []);
  useEffect(() => {
    if (!entryId) {
      setPhotos([]);
      return;
    }
    let cancelled = false;
    void (async () => {
      try {
        const db = await openOfflineDb();
        const rows = await db.photos.where('entryId').equals(entryId).toArray();
        rows.sort((a, b) => a.block - b.block || a.createdAt - b.createdAt);
        const out: StoredPhoto[] = [];
        for (const r of rows) {
          const data = (await db.photoData.get(r.clientId))?.data;
          if (data) out.push({ clientId: r.clientId, block: r.block, type: r.type, data });
        }
        if (!cancelled) setPhotos(out);
      } catch {
        if (!cancelled) setPhotos([]);
      }
    })();
    return () => {
      cancelled = true;
    };
  }, [entryId]);
  return photos;
}

/** One intervention entry, for the correction of a refused submission; null once it is gone (or when it is a tally). */
export function useOutboxEntry(clientId: string | null): InterventionOutboxEntry | null | undefined {
  const [entry, setEntry] = useState<InterventionOutboxEntry | null | undefined>(clientId ? undefined : null);
  useEffect(() => {
    if (!clientId) {
      setEntry(null);
      return;
    }
    return watchQuery(
      (db) => db.outbox.get(clientId),
      // A tally is corrected on its permanence's screen, never in the site sheet.
      (row) => setEntry(row && !isBilanEntry(row) ? (row as InterventionOutboxEntry) : null),
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
