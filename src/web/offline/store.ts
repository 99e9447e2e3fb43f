// Entry point to the IndexedDB layer (db.ts) for the app. Dexie is about 30 KB gzip: it is
// loaded on first use rather than with the first screen, so a screen renders without waiting
// for it (the outbox runner asks for it right after start, so it is there a moment later).
import type { CompostOfflineDb } from './db';

type DbModule = typeof import('./db');

let loading: Promise<DbModule> | null = null;

function dbModule(): Promise<DbModule> {
  loading ??= import('./db');
  return loading;
}

export async function openOfflineDb(): Promise<CompostOfflineDb> {
  return (await dbModule()).offlineDb();
}

/** Runs `query` now and again whenever the tables it read change (any tab); returns the unsubscribe. */
export function watchQuery<T>(query: (db: CompostOfflineDb) => Promise<T>, onNext: (value: T) => void, onError: () => void): () => void {
  let cancelled = false;
  let unsubscribe = () => {};
  dbModule().then(
    (m) => {
      if (cancelled) return;
      const db = m.offlineDb();
      const subscription = m.liveQuery(() => query(db)).subscribe({ next: onNext, error: onError });
      unsubscribe = () => subscription.unsubscribe();
    },
    () => {
      if (!cancelled) onError();
    },
  );
  return () => {
    cancelled = true;
    unsubscribe();
  };
}
