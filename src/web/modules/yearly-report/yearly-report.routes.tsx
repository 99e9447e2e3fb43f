// Screens of the yearly report, mounted by app/router.tsx: its own chunk with the chart library.
import type { RouteObject } from 'react-router';

export const yearlyReportRoutes: RouteObject[] = [
  { path: '/admin/rapport', lazy: async () => ({ Component: (await import('./yearly-report-page')).YearlyReportPage }) },
];
