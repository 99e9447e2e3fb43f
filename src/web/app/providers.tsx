// Everything every screen relies on: Mantine (green, French dates), toasts, modals and the
// query client (the toast and modal hosts load just after the first screen). The router is
// given as children so tests can use a memory router.
import { lazy, Suspense, type ReactNode } from 'react';
import { createTheme, MantineProvider } from '@mantine/core';
import { DatesProvider } from '@mantine/dates';
import { QueryClientProvider, type QueryClient } from '@tanstack/react-query';
import dayjs from 'dayjs';
import 'dayjs/locale/fr';
import { queryClient as appQueryClient } from '../lib/query-client';
import './modal-events';
import { UpdatePrompt } from './update-prompt';

// Modals and toasts hosts: after the first screen (deferred-hosts.tsx says why nothing is lost).
const DeferredHosts = lazy(() => import('./deferred-hosts'));

dayjs.locale('fr');

export const theme = createTheme({ primaryColor: 'green' });

export interface AppProvidersProps {
  children: ReactNode;
  queryClient?: QueryClient;
  /** 'test' turns Mantine transitions and portals off (component tests). */
  env?: 'default' | 'test';
}

export function AppProviders({ children, queryClient = appQueryClient, env = 'default' }: AppProvidersProps) {
  return (
    <MantineProvider theme={theme} env={env}>
      <DatesProvider settings={{ locale: 'fr', firstDayOfWeek: 1 }}>
        <QueryClientProvider client={queryClient}>
          {children}
          <UpdatePrompt />
          <Suspense fallback={null}>
            <DeferredHosts />
          </Suspense>
        </QueryClientProvider>
      </DatesProvider>
    </MantineProvider>
  );
}
