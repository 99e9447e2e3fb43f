// The reference data of the field screens, kept in IndexedDB (db.ts `reference`) so that the
// site choice and the site sheet open and validate with no network, also after the browser
// restarted. Every answer the network gives is stored; the stored copy is served only when
// the request never reached the server (never on a 4xx: a refusal is an answer).
import { HTTPError } from 'ky';
import { quietApi, readFailure } from '../lib/api';
import type { Logged } from '../../shared/schemas/account';
import type { AppInfo, TypeAction, TypeActionConstante } from '../../shared/schemas/reference';
import type { ActiveSite } from '../../shared/schemas/site-choice';
import { openOfflineDb } from './store';

export const referenceKeys = {
  appInfo: 'appInfo',
  typeActions: 'typeActions',
  constantes: 'constantes',
  activeSites: (userId: number) => `activeSites:${userId}`,
  siteInfos: (siteId: number) => `siteInfos:${siteId}`,
  /** Time of the last refresh that brought every site of this user onto the phone. */
  syncedAt: (userId: number) => `syncedAt:${userId}`,
};

/** API path (under /api) of each cached answer. */
export const referencePaths = {
  logged: 'logged',
  appInfo: 'app/info/get',
  typeActions: 'typeAction/get/all',
  constantes: 'typeActionConstante/get/all',
  activeSites: 'admin/site/get/all/actif',
  siteInfos: (siteId: number) => `admin/site/get/infos/pour/intervention/${siteId}`,
};

export interface Cached<T> {
  data: T;
  /** Served from the phone because the server could not be reached. */
  offline: boolean;
  fetchedAt: number;
}

export async function readReference<T>(key: string): Promise<Cached<T> | undefined> {
  try {
    const row = await (await openOfflineDb()).reference.get(key);
    return row ? { data: row.value as T, offline: true, fetchedAt: row.fetchedAt } : undefined;
  } catch {
    // IndexedDB unavailable (private mode on some browsers): behave as an empty cache.
    return undefined;
  }
}

export async function writeReference(key: string, value: unknown, fetchedAt = Date.now()): Promise<void> {
  try {
    await (await openOfflineDb()).reference.put({ key, value, fetchedAt });
  } catch {
    /* the screen still works online; it just will not reopen offline */
  }
}

/** True when the failure means "no answer" (offline, DNS, timeout) or a server-side breakdown. */
export async function isUnreachable(error: unknown): Promise<boolean> {
  if (error instanceof HTTPError) return error.response.status >= 500;
  return (await readFailure(error)).network;
}

/** Network first; the stored copy when the server cannot be reached. */
export async function networkOrCache<T>(key: string, fetcher: () => Promise<T>): Promise<Cached<T>> {
  try {
    const data = await fetcher();
    const fetchedAt = Date.now();
    await writeReference(key, data, fetchedAt);
    return { data, offline: false, fetchedAt };
  } catch (error) {
    if (!(await isUnreachable(error))) throw error;
    const cached = await readReference<T>(key);
    if (!cached) throw error;
    return cached;
  }
}

/** Drops what belongs to the person leaving: their list of sites and the receipts of what they sent. */
export async function forgetSession(): Promise<void> {
  try {
    const db = await openOfflineDb();
    await db.reference.where('key').startsWith('activeSites:').delete();
    await db.reference.where('key').startsWith('syncedAt:').delete();
    await db.sent.clear();
  } catch {
    /* nothing stored */
  }
}

const SITE_INFOS_FRESH_MS = 15 * 60_000;
const SITE_INFOS_PARALLEL = 4;

let refreshing: Promise<void> | null = null;

/**
 * Refreshes everything the field screens need, in the background (app start, network back):
 * the session, app info, action types and constants, the user's sites and each site's cells.
 * Site infos fetched less than 15 minutes ago are kept unless `force`.
 */
export function refreshReferenceCache(userId: number, options: { force?: boolean } = {}): Promise<void> {
  refreshing ??= doRefresh(userId, options.force ?? false).finally(() => {
    refreshing = null;
  });
  return refreshing;
}

async function doRefresh(userId: number, force: boolean): Promise<void> {
  const get = <T>(path: string) => quietApi.get(path).json<T>();
  let complete = true;
  const store = async <T>(key: string, path: string): Promise<T | undefined> => {
    try {
      const data = await get<T>(path);
      await writeReference(key, data);
      return data;
    } catch {
      complete = false;
      return undefined;
    }
  };
  let logged: Logged;
  try {
    logged = await get<Logged>(referencePaths.logged);
  } catch {
    return;
  }
  // Someone else's session (or none): nothing of this user may be refreshed with it.
  if (!logged.logged || logged.user?.id !== userId) return;
  await Promise.all([
    store<AppInfo>(referenceKeys.appInfo, referencePaths.appInfo),
    store<TypeAction[]>(referenceKeys.typeActions, referencePaths.typeActions),
    store<TypeActionConstante[]>(referenceKeys.constantes, referencePaths.constantes),
  ]);
  const sites = await store<ActiveSite[]>(referenceKeys.activeSites(userId), referencePaths.activeSites);
  if (!sites) return;

  const now = Date.now();
  const db = await openOfflineDb();
  const todo: number[] = [];
  for (const site of sites) {
    const row = await db.reference.get(referenceKeys.siteInfos(site.id));
    if (force || !row || now - row.fetchedAt > SITE_INFOS_FRESH_MS) todo.push(site.id);
  }
  let next = 0;
  const worker = async () => {
    while (next < todo.length) {
      const id = todo[next++];
      await store(referenceKeys.siteInfos(id), referencePaths.siteInfos(id));
    }
  };
  await Promise.all(Array.from({ length: Math.min(SITE_INFOS_PARALLEL, todo.length) }, worker));

  // Sites this user no longer reaches must not stay openable offline.
  const keep = new Set(sites.map((s) => referenceKeys.siteInfos(s.id)));
  await db.reference
    .where('key')
    .startsWith('siteInfos:')
    .filter((row) => !keep.has(row.key))
    .delete();
  if (complete) await writeReference(referenceKeys.syncedAt(userId), now);
}
