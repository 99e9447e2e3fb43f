// The service worker: precaches the app shell (the list is injected at build time by
// vite-plugin-pwa) and answers every navigation with the precached index.html so any screen
// reopens offline. Nothing else is cached: API answers always come from the network (the
// offline module keeps its own data in IndexedDB). A new version waits for the page to ask
// ({type: 'SKIP_WAITING'}, sent by the 'Mettre à jour' button).
/// <reference lib="webworker" />
import { clientsClaim } from 'workbox-core';
import { cleanupOutdatedCaches, createHandlerBoundToURL, precacheAndRoute, type PrecacheEntry } from 'workbox-precaching';
import { NavigationRoute, registerRoute } from 'workbox-routing';

declare let self: ServiceWorkerGlobalScope & { __WB_MANIFEST: Array<PrecacheEntry | string> };

precacheAndRoute(self.__WB_MANIFEST);
cleanupOutdatedCaches();

registerRoute(
  new NavigationRoute(createHandlerBoundToURL('index.html'), {
    // Server routes reached by navigation: the API, the logout redirect and the light public
    // site page (/s/{code}), which the server writes with its data.
    denylist: [/^\/api(\/|$)/, /^\/logout(\/|$|\?)/, /^\/s\//],
  }),
);

self.addEventListener('message', (event) => {
  if ((event.data as { type?: string } | null)?.type === 'SKIP_WAITING') void self.skipWaiting();
});

// The first install controls the open page at once, so it works offline without a reload.
clientsClaim();
