// What the app loads before showing any screen (the current user, the
// action types and, for everyone but a plain referent, the active sites) and the app info of
// the top bar. Query keys are stable so other modules reuse the cache:
//   useQuery(typeActionsQuery())   useQuery(activeSitesQuery(userId))
//
// The field app must reopen without network: each answer is kept as the last known copy in
// localStorage and served when the server cannot be reached (never on an HTTP error). The
// field entry module may register a richer source (its IndexedDB cache) with registerOfflineSource;
// it is asked first.
import { queryOptions, type QueryClient } from '@tanstack/react-query';
import { quietApi, api, readFailure } from '../lib/api';
import type { CurrentUser, Logged } from '../../shared/schemas/account';
import type { AppInfo, TypeAction } from '../../shared/schemas/reference';
import type { ActiveSite } from '../../shared/schemas/site-choice';
import { useSessionStore } from './session-store';

export const bootstrapKeys = {
  appInfo: ['app', 'info'] as const,
  logged: ['session', 'logged'] as const,
  typeActions: ['reference', 'typeActions'] as const,
  activeSites: (userId: number) => ['sites', 'active', userId] as const,
};

export interface OfflineSources {
  appInfo: () => Promise<AppInfo | undefined>;
  logged: () => Promise<Logged | undefined>;
  typeActions: () => Promise<TypeAction[] | undefined>;
  activeSites: (userId: number) => Promise<ActiveSite[] | undefined>;
}

const sources: Partial<OfflineSources> = {};

/** Lets the field entry module answer a bootstrap query from the phone's copy when the network fails. */
export function registerOfflineSource<K extends keyof OfflineSources>(name: K, source: OfflineSources[K]): () => void {
  sources[name] = source;
  return () => {
    if (sources[name] === source) delete sources[name];
  };
}

const SNAPSHOT_PREFIX = 'compost.last.';

function saveSnapshot(name: string, data: unknown) {
  try {
    localStorage.setItem(SNAPSHOT_PREFIX + name, JSON.stringify(data));
  } catch {
    /* storage full or disabled: the app simply needs the network next time */
  }
}

function readSnapshot<T>(name: string): T | undefined {
  try {
    const raw = localStorage.getItem(SNAPSHOT_PREFIX + name);
    return raw === null ? undefined : (JSON.parse(raw) as T);
  } catch {
    return undefined;
  }
}

/** Forgets what belongs to the person leaving (their session and their sites). */
export function clearSessionSnapshots() {
  try {
    for (const key of Object.keys(localStorage)) {
      if (key === SNAPSHOT_PREFIX + 'logged' || key.startsWith(SNAPSHOT_PREFIX + 'activeSites.')) localStorage.removeItem(key);
    }
  } catch {
    /* nothing stored */
  }
}

/** The server's answer, or the last known one when the request never reached the server. */
async function withFallback<T>(snapshot: string, fetcher: () => Promise<T>, source?: () => Promise<T | undefined>): Promise<{ data: T; offline: boolean }> {
  try {
    const data = await fetcher();
    saveSnapshot(snapshot, data);
    return { data, offline: false };
  } catch (error) {
    if (!(await readFailure(error)).network) throw error;
    const fromSource = source ? await source().catch(() => undefined) : undefined;
    const fallback = fromSource ?? readSnapshot<T>(snapshot);
    if (fallback === undefined) throw error;
    return { data: fallback, offline: true };
  }
}

export const appInfoQuery = () =>
  queryOptions({
    queryKey: bootstrapKeys.appInfo,
    queryFn: async () => (await withFallback('appInfo', () => api.get('app/info/get').json<AppInfo>(), sources.appInfo)).data,
    staleTime: Infinity,
    networkMode: 'always',
  });

const LOGGED_OUT: Logged = { logged: false, user: null };

/** Also fills the session store, so the store is up to date as soon as the query resolves. */
export const loggedQuery = () =>
  queryOptions({
    queryKey: bootstrapKeys.logged,
    queryFn: async (): Promise<Logged> => {
      try {
        const { data, offline } = await withFallback('logged', () => quietApi.get('logged').json<Logged>(), sources.logged);
        useSessionStore.getState().applyLogged(data, { offline });
        return data;
      } catch (error) {
        // Offline with no known session: the visitor can still use the public screens.
        if ((await readFailure(error)).network) {
          useSessionStore.getState().applyLogged(LOGGED_OUT, { offline: true });
          return LOGGED_OUT;
        }
        useSessionStore.getState().setError('Impossible de vérifier votre session.');
        throw error;
      }
    },
    staleTime: Infinity,
    networkMode: 'always',
    retry: false,
    // A session read from the last known copy is checked again as soon as the network is back.
    refetchOnReconnect: 'always',
  });

export const typeActionsQuery = () =>
  queryOptions({
    queryKey: bootstrapKeys.typeActions,
    queryFn: async () => (await withFallback('typeActions', () => api.get('typeAction/get/all').json<TypeAction[]>(), sources.typeActions)).data,
    staleTime: 5 * 60_000,
    networkMode: 'always',
  });

export const activeSitesQuery = (userId: number) =>
  queryOptions({
    queryKey: bootstrapKeys.activeSites(userId),
    queryFn: async () =>
      (
        await withFallback(
          `activeSites.${userId}`,
          () => api.get('admin/site/get/all/actif').json<ActiveSite[]>(),
          sources.activeSites ? () => sources.activeSites!(userId) : undefined,
        )
      ).data,
    staleTime: 60_000,
    networkMode: 'always',
  });

/** After a login: the session is known without asking the server again. */
export function setLoggedUser(client: QueryClient, user: CurrentUser) {
  const logged: Logged = { logged: true, user };
  saveSnapshot('logged', logged);
  client.setQueryData(bootstrapKeys.logged, logged);
  useSessionStore.getState().applyLogged(logged);
}
