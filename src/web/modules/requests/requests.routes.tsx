// Screens of the requests domain, mounted by app/router.tsx: the pending board (providers and
// ROLE_ADMIN) and the request rules (ROLE_ADMIN). Each is its own chunk.
import type { RouteObject } from 'react-router';

export const requestsRoutes: RouteObject[] = [
  { path: '/admin/demande/intervention/list', lazy: async () => ({ Component: (await import('./requests-page')).RequestsPage }) },
  { path: '/admin/demande/regles', lazy: async () => ({ Component: (await import('./rules-page')).RulesPage }) },
];
