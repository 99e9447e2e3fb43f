// The shape of the route tree, independent of which domains fill it (router.tsx gives the
// real route arrays; component tests give their own):
//   root: session gate + layout (top bar, drawer)
//     public screens, then the logged-in screens under RequireLogin, then 'Page introuvable'.
// The drawer only links to paths some route mounts (route-paths.ts).
import type { RouteObject } from 'react-router';
import { FullScreenLoader } from '../components/full-screen-loader';
import { AdminHome } from './admin-home';
import { AppLayout } from './app-layout';
import { BootstrapGate } from './bootstrap-gate';
import { NotFoundPage } from './not-found-page';
import { RequireLogin } from '../components/require-login';
import { RouteError } from './route-error';
import { collectPaths } from './route-paths';

export interface RouteGroups {
  /** Screens anyone may open. */
  publicRoutes: RouteObject[];
  /** Screens for logged-in users; a visitor is sent to /login. */
  loggedRoutes: RouteObject[];
}

export function buildRoutes({ publicRoutes, loggedRoutes }: RouteGroups): RouteObject[] {
  const mountedPaths = collectPaths([...publicRoutes, ...loggedRoutes]);
  return [
    {
      element: (
        <BootstrapGate>
          <AppLayout mountedPaths={mountedPaths} />
        </BootstrapGate>
      ),
      errorElement: <RouteError />,
      // While the code of the first screen (a lazy route) is still loading.
      hydrateFallbackElement: <FullScreenLoader />,
      children: [
        {
          // Inside the layout, so a broken screen keeps the top bar and the drawer.
          errorElement: <RouteError />,
          children: [
            ...publicRoutes,
            { element: <RequireLogin />, children: [{ path: '/admin', element: <AdminHome /> }, ...loggedRoutes] },
            { path: '*', element: <NotFoundPage /> },
          ],
        },
      ],
    },
  ];
}
