// Everything every screen relies on: Mantine (green, French dates), toasts, modals and the
// query client. The router is given as children so tests can use a memory router.
import type { ReactNode } from 'react';
import { createTheme, MantineProvider } from '@mantine/core';
import { DatesProvider } from '@mantine/dates';
import { ModalsProvider } from '@mantine/modals';
import { Notifications } from '@mantine/notifications';
import { QueryClientProvider, type QueryClient } from '@tanstack/react-query';
import dayjs from 'dayjs';
import 'dayjs/locale/fr';
import { queryClient as appQueryClient } from '../lib/query-client';
import { UpdatePrompt } from './update-prompt';

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
          <ModalsProvider labels={{ confirm: 'Oui', cancel: 'Non' }}>
            <Notifications position="top-right" />
            {children}
            <UpdatePrompt />
          </ModalsProvider>
        </QueryClientProvider>
      </DatesProvider>
    </MantineProvider>
  );
}
