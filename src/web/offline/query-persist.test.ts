import { afterEach, describe, expect, it, vi } from 'vitest';
import { persistQueryClientRestore, persistQueryClientSave } from '@tanstack/react-query-persist-client';
import type { QueryClient, QueryKey } from '@tanstack/react-query';
import { createQueryClient } from '../lib/query-client';
import { QUERY_CACHE_KEY, forgetOnLogout, persistOptions, queryCacheStorage, settleOwner, unfreezeForTests } from './query-persist';

const HOUR = 3600_000;
const board: QueryKey = ['requests', 'pending', 0, null];
const boardSites: QueryKey = ['requests', 'sites'];
const historyPage: QueryKey = ['requests', 'history', 'page=0&rowsPerPage=20'];
const siteChoice: QueryKey = ['sites', 'active', 7];
const siteSheet: QueryKey = ['interventions', 'siteInfos', 3];
const actions: QueryKey = ['reference', 'typeActions'];
const usersList: QueryKey = ['users', 'list', 'page=0'];
const rules: QueryKey = ['requestRules'];
const session: QueryKey = ['session', 'logged'];

const BOARD = { count: 1, demandesInterventions: [{ id: 12, site: 'Jardin des Capucins' }] };

/** What the phone shows after a reload: a new client, restored from what was saved. */
async function reloaded(): Promise<QueryClient> {
  const client = createQueryClient();
  await persistQueryClientRestore({ queryClient: client, ...persistOptions() });
  return client;
}

function filled(updatedAt: number) {
  const client = createQueryClient();
  for (const key of [board, boardSites, historyPage, siteChoice, siteSheet, actions, usersList, rules, session]) {
    client.setQueryData(key, key === board ? BOARD : { key: key.join('/') }, { updatedAt });
  }
  return client;
}

afterEach(async () => {
  vi.useRealTimers();
  unfreezeForTests();
  localStorage.clear();
  await queryCacheStorage.removeItem(QUERY_CACHE_KEY);
});

describe('field screens kept on the phone', () => {
  it('keeps the board, history pages, site choice, site sheets and reference lists, and none of the admin lists', async () => {
    const updatedAt = Date.now() - 3 * HOUR;
    await persistQueryClientSave({ queryClient: filled(updatedAt), ...persistOptions() });
    const client = await reloaded();
    expect(client.getQueryData(board)).toEqual(BOARD);
    for (const key of [boardSites, historyPage, siteChoice, siteSheet, actions]) expect(client.getQueryData(key)).toEqual({ key: key.join('/') });
    // The stamp shows when the data was received, not when it was restored.
    expect(client.getQueryState(board)?.dataUpdatedAt).toBe(updatedAt);
    for (const key of [usersList, rules, session]) expect(client.getQueryData(key)).toBeUndefined();
    const saved = (await queryCacheStorage.getItem(QUERY_CACHE_KEY))!;
    expect(saved).not.toContain('users/list');
  });

  it('keeps a query whose refresh failed without network as the data it last had, not as an error', async () => {
    const updatedAt = Date.now() - HOUR;
    const client = filled(updatedAt);
    await client.prefetchQuery({ queryKey: board, queryFn: () => Promise.reject(new TypeError('Failed to fetch')), retry: false });
    expect(client.getQueryState(board)?.status).toBe('error');
    await persistQueryClientSave({ queryClient: client, ...persistOptions() });
    const state = (await reloaded()).getQueryState(board)!;
    expect(state.status).toBe('success');
    expect(state.error).toBeNull();
    expect(state.data).toEqual(BOARD);
    expect(state.dataUpdatedAt).toBe(updatedAt);
  });

  it('restores nothing saved by another build of the app, or more than a week ago', async () => {
    await persistQueryClientSave({ queryClient: filled(Date.now()), ...persistOptions(), buster: '/assets/index-ancien.js' });
    expect((await reloaded()).getQueryData(board)).toBeUndefined();
    expect(await queryCacheStorage.getItem(QUERY_CACHE_KEY)).toBeNull();

    await persistQueryClientSave({ queryClient: filled(Date.now()), ...persistOptions() });
    expect((await reloaded()).getQueryData(board)).toEqual(BOARD);
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(Date.now() + 8 * 24 * HOUR);
    expect((await reloaded()).getQueryData(board)).toBeUndefined();
  });

  it('forgets one person’s field data when someone else logs in on the phone, keeping the reference lists', async () => {
    const client = filled(Date.now());
    settleOwner(client, 7);
    await persistQueryClientSave({ queryClient: client, ...persistOptions() });
    // The same person again (a reload): everything stays.
    settleOwner(client, 7);
    expect(client.getQueryData(board)).toEqual(BOARD);

    settleOwner(client, 8);
    for (const key of [board, boardSites, historyPage, siteChoice, siteSheet]) expect(client.getQueryData(key)).toBeUndefined();
    expect(client.getQueryData(actions)).toEqual({ key: 'reference/typeActions' });
    await vi.waitFor(async () => expect(await queryCacheStorage.getItem(QUERY_CACHE_KEY)).toBeNull());
    expect((await reloaded()).getQueryData(board)).toBeUndefined();
  });

  it('forgets the data of a person found logged out (a session ended elsewhere)', async () => {
    const client = filled(Date.now());
    settleOwner(client, 7);
    settleOwner(client, null);
    expect(client.getQueryData(historyPage)).toBeUndefined();
  });

  it('forgets everything of the person at logout, and saves nothing more before the page is left', async () => {
    const client = filled(Date.now());
    settleOwner(client, 7);
    await persistQueryClientSave({ queryClient: client, ...persistOptions() });
    await forgetOnLogout(client);
    expect(client.getQueryData(board)).toBeUndefined();
    client.setQueryData(board, BOARD);
    await persistQueryClientSave({ queryClient: client, ...persistOptions() });
    expect(await queryCacheStorage.getItem(QUERY_CACHE_KEY)).toBeNull();
    // The next person on this phone starts from nothing of it.
    unfreezeForTests();
    const next = await reloaded();
    settleOwner(next, 9);
    expect(next.getQueryData(siteChoice)).toBeUndefined();
  });

  it('keeps a field screen’s data in memory while it is kept on the phone, and lets the admin lists go', () => {
    vi.useFakeTimers();
    const client = filled(Date.now());
    // Half a day on other screens.
    vi.advanceTimersByTime(12 * HOUR);
    expect(client.getQueryData(board)).toEqual(BOARD);
    expect(client.getQueryData(siteSheet)).toBeDefined();
    expect(client.getQueryData(usersList)).toBeUndefined();
  });
});
