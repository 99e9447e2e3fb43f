// Screens of the alerts, mounted by app/router.tsx: the open alerts, the thresholds
// (ROLE_ADMIN) and the person's e-mail preferences. Each is its own chunk.
import type { RouteObject } from 'react-router';

export const alertsRoutes: RouteObject[] = [
  { path: '/admin/alertes', lazy: async () => ({ Component: (await import('./alerts-page')).AlertsPage }) },
  { path: '/admin/alertes/seuils', lazy: async () => ({ Component: (await import('./settings-page')).SettingsPage }) },
  { path: '/admin/alertes/preferences', lazy: async () => ({ Component: (await import('./preferences-page')).PreferencesPage }) },
];
