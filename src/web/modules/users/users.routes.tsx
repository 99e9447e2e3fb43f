// Screens of the users domain, mounted by app/router.tsx. The administration screen is its
// own chunk, so the field screens never load it.
import type { RouteObject } from 'react-router';

export const usersRoutes: RouteObject[] = [{ path: '/admin/user', lazy: async () => ({ Component: (await import('./users-page')).UsersPage }) }];
