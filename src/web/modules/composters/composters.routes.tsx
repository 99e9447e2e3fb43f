// Screens of the composters domain, mounted by app/router.tsx. The administration screen is
// its own chunk, so the field screens never load it.
import type { RouteObject } from 'react-router';

export const compostersRoutes: RouteObject[] = [
  { path: '/admin/composteur', lazy: async () => ({ Component: (await import('./composters-page')).CompostersPage }) },
];
