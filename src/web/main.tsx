// Entry point: global styles, providers, the router and the service worker. Chart and
// data-table styles are imported by the screens that use them, to keep field screens light.
import '@mantine/core/styles.css';
import '@mantine/dates/styles.css';
import '@mantine/notifications/styles.css';
import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { RouterProvider } from 'react-router';
import { AppProviders } from './app/providers';
import { registerServiceWorker } from './app/pwa';
import { createAppRouter } from './app/router';

const router = createAppRouter();

createRoot(document.getElementById('root')!).render(
  <StrictMode>
    <AppProviders>
      <RouterProvider router={router} />
    </AppProviders>
  </StrictMode>,
);

void registerServiceWorker().catch((error: unknown) => console.error('service worker registration failed', error));
