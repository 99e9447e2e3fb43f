// Screens of the roles domain, mounted by app/router.tsx. The administration screen is its
// own chunk, so the field screens never load it.
import type { RouteObject } from 'react-router';

export const rolesRoutes: RouteObject[] = [{ path: '/admin/role', lazy: async () => ({ Component: (await import('./roles-page')).RolesPage }) }];
