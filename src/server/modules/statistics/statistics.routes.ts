// Routes of the statistics dashboard, all behind the
// stats.view guard (every ROLE_ADMIN* role). The guard runs before validation, so a caller
// without the role learns nothing about the parameters.
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { AppDeps } from '../../deps.js';
import { sendCsv, type CsvColumn } from '../../csv.js';
import { ValidationError } from '../../errors.js';
import {
  EXPORT_KINDS,
  exportQuerySchema,
  foyersMoisRowSchema,
  kgMoisRowSchema,
  MOIS_NOMS,
  prestataireSchema,
  STATS_MESSAGES,
  STATS_SERIES,
  statsMoisRowSchema,
  statsQuerySchema,
  temperatureRowSchema,
  type StatsQuery,
  type ExportKind,
} from '../../../shared/schemas/statistics.js';
import { createStatisticsRepository, type SiteExportRow } from './statistics.repository.js';

const capitalize = (s: string) => s.charAt(0).toUpperCase() + s.slice(1);

/** One row per site: code, name, city, the twelve months and the year's total. */
function exportColumns(kind: ExportKind): CsvColumn<SiteExportRow>[] {
  const unit = kind === 'all' ? '' : ' (L)';
  return [
    { header: 'Code', value: (r) => r.code },
    { header: 'Nom', value: (r) => r.nom },
    { header: 'Ville', value: (r) => r.ville },
    ...MOIS_NOMS.map((m, i): CsvColumn<SiteExportRow> => ({ header: `${capitalize(m)}${unit}`, value: (r) => r.months[i] })),
    { header: `Total${unit}`, value: (r) => r.total },
  ];
}

export default async function statisticsRoutes(fastify: FastifyInstance, deps: AppDeps) {
  const app = fastify.withTypeProvider<ZodTypeProvider>();
  const repo = createStatisticsRepository(deps.db);
  const guard = app.guard('stats.view');
  const monthly = { onRequest: guard, schema: { querystring: statsQuerySchema, response: { 200: z.array(statsMoisRowSchema) } } };

  for (const series of STATS_SERIES) {
    app.get(`/admin/${series}/get/by/mois`, monthly, (request) => repo.monthly(series, request.query));
  }
  app.get('/admin/intervention/get/all/by/mois', monthly, (request) => repo.monthly('all', request.query));

  // Households and kilos are nobody's work: a provider filter would silently be ignored, so it is refused.
  const withoutProvider = (q: StatsQuery) => {
    if (q.prestataire !== undefined) throw new ValidationError([{ key: 'prestataire', error: STATS_MESSAGES.prestataireNonApplicable }]);
    return { annee: q.annee, ...(q.site === undefined ? {} : { site: q.site }) };
  };
  app.get('/admin/foyers/get/by/mois', { onRequest: guard, schema: { querystring: statsQuerySchema, response: { 200: z.array(foyersMoisRowSchema) } } }, async (request) =>
    repo.households(withoutProvider(request.query), new Date()),
  );
  app.get('/admin/kgDetournes/get/by/mois', { onRequest: guard, schema: { querystring: statsQuerySchema, response: { 200: z.array(kgMoisRowSchema) } } }, async (request) =>
    repo.kilos(withoutProvider(request.query)),
  );

  app.get(
    '/admin/temperature/get/by/mois',
    { onRequest: guard, schema: { querystring: statsQuerySchema, response: { 200: z.array(temperatureRowSchema) } } },
    async (request) => {
      const { site } = request.query;
      // Readings of the whole network would be every thermometer of every site: one site only.
      if (site === undefined) throw new ValidationError([{ key: 'site', error: STATS_MESSAGES.siteRequired }]);
      return repo.temperatures({ ...request.query, site });
    },
  );

  app.get('/admin/stats/prestataire/get/all', { onRequest: guard, schema: { response: { 200: z.array(prestataireSchema) } } }, () => repo.prestataires());

  for (const kind of EXPORT_KINDS) {
    app.get(`/admin/intervention/export/${kind}/by/site`, { onRequest: guard, schema: { querystring: exportQuerySchema, response: { 200: z.string().meta({ description: `Fichier CSV export_${kind}_par_site_{année}.csv (UTF-8 avec BOM, « ; »)` }) } } }, async (request, reply) => {
      const { annee, prestataire } = request.query;
      return sendCsv(reply, `export_${kind}_par_site_${annee}.csv`, exportColumns(kind), repo.exportBatches(kind, annee, { prestataire }));
    });
  }
}
