// What the field screens showed last, kept on the phone so that they reopen without network
// after a reload or a restart of the phone: TanStack Query's cache, saved by its async storage
// persister into an IndexedDB database of its own.
//
//   IndexedDB 'compost-query-cache', object store 'entries', one row:
//     'field-screens'   the persisted client (JSON text): the queries query-persist-keys.ts lists
//                       that hold data, each with the time it was last received (dataUpdatedAt, which
//                       the 'Données du …' stamp shows), the build it was saved by (buster)
//                       and when it was saved.
//   localStorage 'compost.queryCache.owner'   the account those queries were loaded for.
//
// Only what the field needs is kept: the requests board (each page and filter loaded), its site
// filter, the history pages loaded, the site choice, the site sheets' site infos, the
// permanences of the sites opened (to record a tally at the bin) and the reference lists.
// Nothing of the administration screens (users, roles, sites lists...).
// Everything of one person goes when they log out or someone else logs in on the phone.
//
// Why IndexedDB and not localStorage: the async persister is the one whose version matches
// TanStack Query here; a separate database, because the outbox's (db.ts) has its own schema and
// upgrade path, and because this one must be opened before the first query, without Dexie.
// This module is loaded by the providers right after the first render (app/providers.tsx):
// queries wait for its restore, and it stays out of the field screen's first load.
import { dehydrate, type Query, type QueryClient } from '@tanstack/react-query';
import { createAsyncStoragePersister } from '@tanstack/query-async-storage-persister';
import {
  persistQueryClientRestore,
  persistQueryClientSubscribe,
  type PersistedClient,
  type PersistQueryClientOptions,
} from '@tanstack/react-query-persist-client';
import { PERSIST_MAX_AGE_MS, isPersistedQuery, isPersonalFieldQuery } from './query-persist-keys';

export const QUERY_CACHE_DB = 'compost-query-cache';
const STORE = 'entries';
export const QUERY_CACHE_KEY = 'field-screens';
const OWNER_KEY = 'compost.queryCache.owner';

// --- IndexedDB key-value store: three calls, no library --------------------------------------

let opening: Promise<IDBDatabase> | null = null;

function openDb(): Promise<IDBDatabase> {
  opening ??= new Promise<IDBDatabase>((resolve, reject) => {
    const request = indexedDB.open(QUERY_CACHE_DB, 1);
    request.onupgradeneeded = () => request.result.createObjectStore(STORE);
    request.onsuccess = () => {
      const db = request.result;
      // Another tab upgrading (a future version) must not be blocked by this one.
      db.onversionchange = () => {
        db.close();
        opening = null;
      };
      resolve(db);
    };
    request.onerror = () => {
      opening = null;
      reject(request.error ?? new Error('IndexedDB unavailable'));
    };
  });
  return opening;
}

async function run<T>(mode: IDBTransactionMode, work: (store: IDBObjectStore) => IDBRequest<T>): Promise<T> {
  const db = await openDb();
  return new Promise<T>((resolve, reject) => {
    const tx = db.transaction(STORE, mode);
    const request = work(tx.objectStore(STORE));
    tx.oncomplete = () => resolve(request.result);
    tx.onerror = tx.onabort = () => reject(tx.error ?? request.error ?? new Error('IndexedDB transaction failed'));
  });
}

/** Set while the person leaves: a save still on its way must not write their data back. */
let frozen = false;

export const queryCacheStorage = {
  async getItem(key: string): Promise<string | null> {
    try {
      const value = await run<unknown>('readonly', (s) => s.get(key));
      return typeof value === 'string' ? value : null;
    } catch {
      // IndexedDB unavailable (some private modes): nothing kept, the screens need the network.
      return null;
    }
  },
  async setItem(key: string, value: string): Promise<void> {
    if (frozen) return;
    await run('readwrite', (s) => s.put(value, key));
  },
  async removeItem(key: string): Promise<void> {
    try {
      await run('readwrite', (s) => s.delete(key));
    } catch {
      /* nothing stored */
    }
  },
};

// --- What is saved ---------------------------------------------------------------------------

/**
 * A query whose last refresh failed (no network, server down) still holds the data it had: it
 * is saved as that data, received when it was, so the next start shows it with its stamp
 * instead of an error.
 */
export function serializeClient(client: PersistedClient): string {
  const queries = client.clientState.queries.map((q) =>
    q.state.status === 'error' && q.state.data !== undefined
      ? { ...q, state: { ...q.state, status: 'success' as const, error: null, fetchStatus: 'idle' as const, fetchFailureCount: 0, fetchFailureReason: null } }
      : q,
  );
  return JSON.stringify({ ...client, clientState: { ...client.clientState, queries } });
}

const persister = createAsyncStoragePersister({
  storage: typeof indexedDB === 'undefined' ? undefined : queryCacheStorage,
  key: QUERY_CACHE_KEY,
  throttleTime: 1000,
  serialize: serializeClient,
});

/**
 * The build the page runs (its entry script is named after its content): a cache saved by
 * another build may hold answers of another shape, so it is not restored.
 */
export function currentBuild(): string {
  if (typeof document === 'undefined') return 'none';
  return document.querySelector('script[type="module"][src]')?.getAttribute('src') ?? 'dev';
}

export function persistOptions(): Omit<PersistQueryClientOptions, 'queryClient'> {
  return {
    persister,
    maxAge: PERSIST_MAX_AGE_MS,
    buster: currentBuild(),
    dehydrateOptions: {
      // Successful queries, and failed ones that still hold their last data; no mutation.
      shouldDehydrateQuery: (query: Query) => query.state.data !== undefined && isPersistedQuery(query.queryKey),
      shouldDehydrateMutation: () => false,
    },
  };
}

/**
 * Restores what the phone kept into `client` (nothing when it is too old, of another build or
 * unreadable), then saves the kept queries as they change; resolves with the function that
 * stops saving.
 */
export async function startPersisting(client: QueryClient): Promise<() => void> {
  const options = { ...persistOptions(), queryClient: client };
  // A cache that cannot be read is dropped by the restore itself: the screens then need the network.
  await persistQueryClientRestore(options).catch(() => undefined);
  const stop = persistQueryClientSubscribe(options);
  persisted = client;
  return () => {
    persisted = null;
    stop();
  };
}

let persisted: QueryClient | null = null;

/**
 * Saves `client` at once, when it is the one being kept: the throttled save of the subscription
 * could land after a reload, which would then show what the phone knew before the change.
 */
export async function saveNow(client: QueryClient): Promise<void> {
  if (persisted !== client) return;
  const { buster = '', dehydrateOptions } = persistOptions();
  await queryCacheStorage.setItem(QUERY_CACHE_KEY, serializeClient({ timestamp: Date.now(), buster, clientState: dehydrate(client, dehydrateOptions) }));
}

// --- Whose data it is ------------------------------------------------------------------------

/** Storage disabled: the owner is unknown, so whatever is kept is treated as someone else's. */
const UNKNOWN_OWNER = '?';

function readOwner(): string | null {
  try {
    return localStorage.getItem(OWNER_KEY);
  } catch {
    return UNKNOWN_OWNER;
  }
}

function writeOwner(owner: number | null) {
  try {
    if (owner === null) localStorage.removeItem(OWNER_KEY);
    else localStorage.setItem(OWNER_KEY, String(owner));
  } catch {
    /* storage disabled: the owner reads as unknown and the kept data is dropped, which is safe */
  }
}

/** Drops one person's field data from memory and from the phone. */
export async function forgetPersonalQueries(client: QueryClient): Promise<void> {
  client.removeQueries({ predicate: (q) => isPersonalFieldQuery(q.queryKey) });
  await persister.removeClient();
}

/**
 * Called whenever the session is known (after the restore, at each login and logout): when the
 * person differs from the one the kept data was loaded for, or nobody is logged in, their data
 * goes before any screen can show it.
 */
export function settleOwner(client: QueryClient, userId: number | null): void {
  const owner = readOwner();
  const current = userId === null ? null : String(userId);
  if (owner === current) return;
  if (owner !== null || current === null) void forgetPersonalQueries(client);
  writeOwner(userId);
}

/** Logout: nothing of this person stays, and nothing is saved any more until the next page load. */
export async function forgetOnLogout(client: QueryClient): Promise<void> {
  frozen = true;
  writeOwner(null);
  await forgetPersonalQueries(client);
}

/** For tests: lets saves through again. */
export function unfreezeForTests() {
  frozen = false;
}
