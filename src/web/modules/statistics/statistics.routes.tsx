// Screens of the statistics domain, mounted by app/router.tsx. The dashboard and its chart
// library are their own lazy chunk, so the field screens never load them.
import type { RouteObject } from 'react-router';

export const statisticsRoutes: RouteObject[] = [
  { path: '/admin/stats', lazy: async () => ({ Component: (await import('./statistics-page')).StatisticsPage }) },
];
