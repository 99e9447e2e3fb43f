// Screens of the public side of the sites, mounted among the public screens by app/router.tsx:
// - /s/{code}, the page a site's label opens, for anyone (the server answers it with its own
//   light entry, public-site-main.tsx; this route serves it inside the app's shell, where a
//   phone's service worker sends it);
// - /admin/signalements, the reports of the sites (ROLE_ADMIN, referents), behind a login.
import type { RouteObject } from 'react-router';
import { RequireLogin } from '../../components/require-login';

export const publicSitesRoutes: RouteObject[] = [
  { path: '/s/:code', lazy: async () => ({ Component: (await import('./public-site-route')).PublicSiteRoute }) },
  { element: <RequireLogin />, children: [{ path: '/admin/signalements', lazy: async () => ({ Component: (await import('./reports-page')).ReportsPage }) }] },
];
