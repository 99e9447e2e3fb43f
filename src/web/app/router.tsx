// The screen map. Each domain exports its route arrays from
// modules/<domain>/<domain>.routes.tsx (lazy routes: a screen's code loads when opened):
//   <domain>Routes        logged-in screens, mounted under RequireLogin
//   <domain>PublicRoutes  screens a visitor may open without logging in
import { createBrowserRouter } from 'react-router';
import { accountRoutes } from '../modules/account/account.routes';
import { compostersRoutes } from '../modules/composters/composters.routes';
import { fieldEntryPublicRoutes, fieldEntryRoutes } from '../modules/field-entry/field-entry.routes';
import { interventionsAdminRoutes } from '../modules/interventions/interventions-admin.routes';
import { requestsRoutes } from '../modules/requests/requests.routes';
import { statisticsRoutes } from '../modules/statistics/statistics.routes';
import { rolesRoutes } from '../modules/roles/roles.routes';
import { siteTypesRoutes } from '../modules/site-types/site-types.routes';
import { sitesRoutes } from '../modules/sites/sites.routes';
import { usersRoutes } from '../modules/users/users.routes';
import { alertsRoutes } from '../modules/alerts/alerts.routes';
import { yearlyReportRoutes } from '../modules/yearly-report/yearly-report.routes';
import { publicSitesRoutes } from '../modules/public-sites/public-sites.routes';
import { importsRoutes } from '../modules/imports/imports.routes';
import { mapRoutes } from '../modules/map/map.routes';
import { permanencesRoutes } from '../modules/permanences/permanences.routes';
import { householdsPublicRoutes, householdsRoutes } from '../modules/households/households.routes';
import { buildRoutes, type RouteGroups } from './build-routes';

export const ROUTE_GROUPS: RouteGroups = {
  // The public interventions list comes first: the contract checks it before the others.
  publicRoutes: [...fieldEntryPublicRoutes, ...accountRoutes, ...publicSitesRoutes, ...householdsPublicRoutes],
  loggedRoutes: [...usersRoutes, ...rolesRoutes, ...compostersRoutes, ...siteTypesRoutes, ...sitesRoutes, ...fieldEntryRoutes, ...interventionsAdminRoutes, ...requestsRoutes, ...statisticsRoutes, ...alertsRoutes, ...yearlyReportRoutes, ...importsRoutes, ...mapRoutes, ...permanencesRoutes, ...householdsRoutes],
};

export function createAppRouter() {
  return createBrowserRouter(buildRoutes(ROUTE_GROUPS));
}
