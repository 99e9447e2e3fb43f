// Screens of the permanences (the openings of a site), mounted by app/router.tsx. Each is its
// own chunk; the service worker precaches it, so it opens without network at the bin.
import type { RouteObject } from 'react-router';

export const permanencesRoutes: RouteObject[] = [
  { path: '/admin/fiche/site/:id/permanences', lazy: async () => ({ Component: (await import('./permanences-page')).PermanencesPage }) },
];
