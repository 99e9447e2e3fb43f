// The one TanStack Query client of the web app. Lists reload explicitly after each change
// (spec.md "Common table behaviour"), so no refetch on window focus; a client error (4xx) is
// an answer, not a hiccup, so only network failures and 5xx are retried.
import { QueryClient } from '@tanstack/react-query';
import { HTTPError } from 'ky';

export function shouldRetry(failureCount: number, error: unknown): boolean {
  if (error instanceof HTTPError && error.response.status < 500) return false;
  return failureCount < 2;
}

export function createQueryClient(): QueryClient {
  return new QueryClient({
    defaultOptions: {
      queries: { retry: shouldRetry, refetchOnWindowFocus: false, staleTime: 30_000 },
      mutations: { retry: false },
    },
  });
}

export const queryClient = createQueryClient();
