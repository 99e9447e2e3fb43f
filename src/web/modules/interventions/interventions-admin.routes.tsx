// The interventions administration screen, mounted by app/router.tsx. Its own lazy chunk, so
// the field screens never load it.
import type { RouteObject } from 'react-router';

export const interventionsAdminRoutes: RouteObject[] = [
  { path: '/admin/interventions', lazy: async () => ({ Component: (await import('./interventions-admin-page')).InterventionsAdminPage }) },
];
