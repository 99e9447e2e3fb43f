// Every /api route module, in one place: app.ts mounts this plugin under /api, and the
// route x role matrix and fuzz tests find each route through the app that registers them.
import type { FastifyInstance } from 'fastify';
import type { AppDeps } from './deps.js';
import referenceRoutes from './modules/reference/reference.routes.js';
import accountRoutes from './modules/account/account.routes.js';
import sessionRoutes from './modules/account/session.routes.js';
import usersRoutes from './modules/users/users.routes.js';
import rolesRoutes from './modules/roles/roles.routes.js';
import compostersRoutes from './modules/composters/composters.routes.js';
import siteTypesRoutes from './modules/site-types/site-types.routes.js';
import sitesRoutes from './modules/sites/sites.routes.js';
import siteChoiceRoutes from './modules/sites/site-choice.routes.js';
import fieldEntryRoutes from './modules/field-entry/field-entry.routes.js';
import interventionsRoutes from './modules/interventions/interventions.routes.js';
import requestsRoutes from './modules/requests/requests.routes.js';
import statisticsRoutes from './modules/statistics/statistics.routes.js';
import healthRoutes from './modules/health/health.routes.js';
import alertsRoutes from './modules/alerts/alerts.routes.js';
import yearlyReportRoutes from './modules/yearly-report/yearly-report.routes.js';
import photosRoutes from './modules/photos/photos.routes.js';
import publicSitesRoutes from './modules/public-sites/public-sites.routes.js';
import backupRoutes from './modules/backup/backup.routes.js';
import importsRoutes from './modules/imports/imports.routes.js';
import mapRoutes from './modules/map/map.routes.js';
import permanencesRoutes from './modules/permanences/permanences.routes.js';
import householdsRoutes from './modules/households/households.routes.js';

export default async function apiRoutes(api: FastifyInstance, opts: AppDeps & { prefix?: string }) {
  // The prefix is this plugin's own; the modules get the dependencies only.
  const deps: AppDeps = { db: opts.db, mailer: opts.mailer, config: opts.config, poolStats: opts.poolStats };
  await api.register(referenceRoutes, deps);
  await api.register(sessionRoutes, deps);
  await api.register(accountRoutes, deps);
  await api.register(usersRoutes, deps);
  await api.register(rolesRoutes, deps);
  await api.register(compostersRoutes, deps);
  await api.register(siteTypesRoutes, deps);
  await api.register(siteChoiceRoutes, deps);
  await api.register(sitesRoutes, deps);
  await api.register(fieldEntryRoutes, deps);
  await api.register(interventionsRoutes, deps);
  await api.register(requestsRoutes, deps);
  await api.register(statisticsRoutes, deps);
  await api.register(healthRoutes, deps);
  await api.register(alertsRoutes, deps);
  await api.register(yearlyReportRoutes, deps);
  await api.register(photosRoutes, deps);
  await api.register(publicSitesRoutes, deps);
  await api.register(backupRoutes, deps);
  await api.register(importsRoutes, deps);
  await api.register(mapRoutes, deps);
  await api.register(permanencesRoutes, deps);
  await api.register(householdsRoutes, deps);
}
