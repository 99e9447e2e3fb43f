// Screens of the households of a site, mounted by app/router.tsx:
// - /admin/fiche/site/{id}/foyers, the 'Foyers' screen (the site's referents, administrators);
// - /foyer/quitter?jeton=…, the page behind the leave link of a household's e-mails, for anyone.
//   It is a screen of the app (served by the shell like the account links), not of the light
//   public entry of /s/{code}, which the server answers for that path alone.
import type { RouteObject } from 'react-router';

export const householdsRoutes: RouteObject[] = [{ path: '/admin/fiche/site/:id/foyers', lazy: async () => ({ Component: (await import('./households-page')).HouseholdsPage }) }];

export const householdsPublicRoutes: RouteObject[] = [{ path: '/foyer/quitter', lazy: async () => ({ Component: (await import('./leave-page')).LeavePage }) }];
