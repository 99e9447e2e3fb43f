// Screens of the site-types domain, mounted by app/router.tsx. The administration screen is
// its own chunk, so the field screens never load it.
import type { RouteObject } from 'react-router';

export const siteTypesRoutes: RouteObject[] = [
  { path: '/admin/typeSite', lazy: async () => ({ Component: (await import('./site-types-page')).SiteTypesPage }) },
];
