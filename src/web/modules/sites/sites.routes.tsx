// Screens of the sites domain, mounted by app/router.tsx. The administration screen is its
// own chunk, so the field screens never load it.
import type { RouteObject } from 'react-router';

export const sitesRoutes: RouteObject[] = [{ path: '/admin/site', lazy: async () => ({ Component: (await import('./sites-page')).SitesPage }) }];
