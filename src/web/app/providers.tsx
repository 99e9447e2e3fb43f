// Everything every screen relies on: Mantine (green, French dates), toasts, modals and the
// query client (the toast and modal hosts load just after the first screen). The router is
// given as children so tests can use a memory router.
//
// The app's own query client is restored from what the phone kept before any query runs, and
// saved as it changes (offline/query-persist.ts, loaded just after the first render to keep it
// out of the field screen's first load): the field screens reopen without network. The kept
// data belongs to whoever is logged in: it is dropped as soon as the session says someone
// else, or nobody, is.
import { lazy, Suspense, useEffect, useState, type ReactNode } from 'react';
import { MantineProvider } from '@mantine/core';
import { DatesProvider } from '@mantine/dates';
import { IsRestoringProvider, QueryClientProvider, type QueryClient } from '@tanstack/react-query';
import dayjs from 'dayjs';
import 'dayjs/locale/fr';
import { queryClient as appQueryClient } from '../lib/query-client';
import { useSessionStore, type SessionState } from '../session/session-store';
import './modal-events';
import { theme } from './theme';
import { UpdatePrompt } from './update-prompt';

// Modals and toasts hosts: after the first screen (deferred-hosts.tsx says why nothing is lost).
const DeferredHosts = lazy(() => import('./deferred-hosts'));

dayjs.locale('fr');

export interface AppProvidersProps {
  children: ReactNode;
  queryClient?: QueryClient;
  /** 'test' turns Mantine transitions and portals off (component tests). */
  env?: 'default' | 'test';
}

/** Who the session says is using the app, once it is known: null for nobody. */
const sessionOwner = (s: SessionState) => (!s.fetched ? undefined : s.logged ? s.id : null);

/**
 * While true, queries wait (TanStack Query's IsRestoring): the kept cache is being read back.
 * Then the kept queries are saved as they change, and kept to their owner: Zustand calls the
 * owner check synchronously as the session is set, before React renders a screen with it.
 */
function usePersistence(client: QueryClient, enabled: boolean): boolean {
  const [restoring, setRestoring] = useState(enabled);
  useEffect(() => {
    if (!enabled) return;
    let stopped = false;
    const stops: (() => void)[] = [];
    import('../offline/query-persist')
      .then(async (m) => {
        const stopSaving = await m.startPersisting(client);
        if (stopped) return stopSaving();
        stops.push(stopSaving);
        const settle = (owner: number | null | undefined) => {
          if (owner !== undefined) m.settleOwner(client, owner);
        };
        settle(sessionOwner(useSessionStore.getState()));
        stops.push(
          useSessionStore.subscribe((state, previous) => {
            const owner = sessionOwner(state);
            if (owner !== sessionOwner(previous)) settle(owner);
          }),
        );
      })
      // Without the module (an old build's chunk gone) the app works as before, from the network.
      .catch((error: unknown) => console.error('query cache not restored', error))
      .finally(() => {
        if (!stopped) setRestoring(false);
      });
    return () => {
      stopped = true;
      stops.forEach((stop) => stop());
    };
  }, [client, enabled]);
  return restoring;
}

export function AppProviders({ children, queryClient = appQueryClient, env = 'default' }: AppProvidersProps) {
  // Tests give their own client: nothing of theirs is kept on the phone.
  const restoring = usePersistence(queryClient, queryClient === appQueryClient && typeof indexedDB !== 'undefined');
  return (
    <MantineProvider theme={theme} env={env}>
      <DatesProvider settings={{ locale: 'fr', firstDayOfWeek: 1 }}>
        <QueryClientProvider client={queryClient}>
          <IsRestoringProvider value={restoring}>
            {children}
            <UpdatePrompt />
            <Suspense fallback={null}>
              <DeferredHosts />
            </Suspense>
          </IsRestoringProvider>
        </QueryClientProvider>
      </DatesProvider>
    </MantineProvider>
  );
}
