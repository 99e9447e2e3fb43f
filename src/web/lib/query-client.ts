// The one TanStack Query client of the web app. Lists reload explicitly after each change
// (the behaviour every admin table shares), so no refetch on window focus; a client error (4xx) is
// an answer, not a hiccup, so only network failures and 5xx are retried.
//
// The field screens' queries are also kept on the phone (offline/query-persist.ts): they stay
// in memory as long as they are kept there, so that a screen left for another one an hour ago
// is still saved at the next change, and still shown after a reload without network.
import { onlineManager, QueryClient } from '@tanstack/react-query';
import { HTTPError } from 'ky';
import { PERSISTED_ROOTS, PERSIST_MAX_AGE_MS } from '../offline/query-persist-keys';

export function shouldRetry(failureCount: number, error: unknown): boolean {
  if (error instanceof HTTPError && error.response.status < 500) return false;
  return failureCount < 2;
}

export function createQueryClient(): QueryClient {
  const client = new QueryClient({
    defaultOptions: {
      queries: { retry: shouldRetry, refetchOnWindowFocus: false, staleTime: 30_000 },
      mutations: { retry: false },
    },
  });
  for (const root of PERSISTED_ROOTS) client.setQueryDefaults(root, { gcTime: PERSIST_MAX_AGE_MS });
  return client;
}

// TanStack Query assumes a network until the browser says 'offline'; a page opened with no
// network (a reload in the field) would then try every query, fail, and show errors over the
// data kept on the phone. It starts from what the browser knows instead: queries wait for the
// network and the kept data stays on screen; the 'online' event lets them run.
if (typeof navigator !== 'undefined' && navigator.onLine === false) onlineManager.setOnline(false);

export const queryClient = createQueryClient();
