// Screens of moving in, mounted by app/router.tsx: /admin/import (ROLE_ADMIN).
import type { RouteObject } from 'react-router';

export const importsRoutes: RouteObject[] = [{ path: '/admin/import', lazy: async () => ({ Component: (await import('./import-page')).ImportPage }) }];
