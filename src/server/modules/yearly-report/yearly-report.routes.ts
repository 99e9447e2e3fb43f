// Routes of the yearly report (ROLE_ADMIN, ROLE_ADMIN_SITE): the figures of a year for the
// programme or one site, and the same figures as CSV (one row for the whole, one per site).
import { z } from 'zod';
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import type { AppDeps } from '../../deps.js';
import { sendCsv, type CsvColumn } from '../../csv.js';
import { errorBodySchema } from '../../../shared/errors.js';
import { REPORT_LITRES, REPORT_LITRES_LABELS, reportQuerySchema, yearlyReportSchema, type ReportFigures, type YearlyReport } from '../../../shared/schemas/yearly-report.js';
import { createYearlyReportService } from './yearly-report.service.js';

interface CsvRow {
  code: string;
  nom: string | null;
  ville: string;
  dateImplantation: Date | null;
  figures: ReportFigures;
}

const number = new Intl.NumberFormat('fr-FR', { maximumFractionDigits: 1 });

/** One column per figure; the actions are those of the catalogue, in id order. */
export function reportColumns(report: YearlyReport, actions: { id: number; libelle: string }[]): CsvColumn<CsvRow>[] {
  const min = number.format(report.temperatureMin);
  const max = number.format(report.temperatureMax);
  return [
    { header: 'Code', value: (r) => r.code },
    { header: 'Nom', value: (r) => r.nom },
    { header: 'Ville', value: (r) => r.ville },
    { header: "Date d'implantation", value: (r) => r.dateImplantation },
    { header: 'Interventions', value: (r) => r.figures.interventions },
    ...actions.map((a): CsvColumn<CsvRow> => ({ header: `Interventions : ${a.libelle}`, value: (r) => r.figures.parAction.find((p) => p.idAction === a.id)?.nb ?? 0 })),
    ...REPORT_LITRES.map((s): CsvColumn<CsvRow> => ({ header: `${REPORT_LITRES_LABELS[s]} (L)`, value: (r) => r.figures.litres[s] })),
    { header: "Biodéchets détournés estimés d'après les transferts (kg)", value: (r) => r.figures.kgTransferes },
    { header: 'Foyers participants', value: (r) => r.figures.foyers },
    { header: 'Personnes des foyers', value: (r) => r.figures.personnes },
    { header: 'Permanences tenues', value: (r) => r.figures.permanences },
    { header: 'Permanences annulées', value: (r) => r.figures.permanencesAnnulees },
    { header: 'Biodéchets détournés aux permanences (kg)', value: (r) => r.figures.kgDetournes },
    { header: 'Biodéchets détournés aux permanences, dont estimés (kg)', value: (r) => r.figures.kgEstimes },
    { header: 'Relevés de température', value: (r) => r.figures.temperatures.releves },
    { header: `Relevés au-dessus de ${max} °C`, value: (r) => r.figures.temperatures.auDessus },
    { header: `Relevés au-dessous de ${min} °C`, value: (r) => r.figures.temperatures.auDessous },
    { header: 'Demandes créées', value: (r) => r.figures.demandes.creees },
    { header: 'Demandes réalisées', value: (r) => r.figures.demandes.realisees },
    { header: 'Demandes annulées', value: (r) => r.figures.demandes.annulees },
    { header: 'Demandes en attente', value: (r) => r.figures.demandes.enAttente },
    { header: 'Demandes en retard', value: (r) => r.figures.demandes.enRetard },
    { header: 'Délai médian de réalisation (jours)', value: (r) => r.figures.demandes.delaiMedianJours },
    { header: 'Sites actifs', value: (r) => r.figures.sitesActifs },
    { header: 'Sites avec interventions', value: (r) => r.figures.sitesAvecInterventions },
    { header: 'Référents', value: (r) => r.figures.referents },
    { header: 'Signalements du public', value: (r) => r.figures.signalements },
  ];
}

export default async function yearlyReportRoutes(fastify: FastifyInstance, deps: AppDeps) {
  const app = fastify.withTypeProvider<ZodTypeProvider>();
  const service = createYearlyReportService(deps.db);
  const guard = app.guard('report.yearly');

  app.get('/admin/rapport/get/by/annee', { onRequest: guard, schema: { querystring: reportQuerySchema, response: { 200: yearlyReportSchema, 404: errorBodySchema } } }, (request) =>
    service.report(request.query, new Date()),
  );

  app.get('/admin/rapport/export', { onRequest: guard, schema: { querystring: reportQuerySchema, response: { 200: z.string().meta({ description: 'Fichier CSV du rapport annuel (UTF-8 avec BOM, « ; »)' }), 404: errorBodySchema } } }, async (request, reply) => {
    const report = await service.report(request.query, new Date());
    const actions = await service.catalogue();
    const whole: CsvRow = report.site
      ? { code: report.site.code, nom: report.site.nom, ville: report.sites[0]?.ville ?? '', dateImplantation: null, figures: report.ensemble }
      : { code: 'Programme', nom: deps.config.APP_NAME, ville: '', dateImplantation: null, figures: report.ensemble };
    // With a site chosen, its page is the whole: one row.
    const rows: CsvRow[] = report.site
      ? [{ ...whole, dateImplantation: report.sites[0]?.dateImplantation ? new Date(report.sites[0].dateImplantation) : null }]
      : [whole, ...report.sites.map((s) => ({ code: s.code, nom: s.nom, ville: s.ville, dateImplantation: s.dateImplantation ? new Date(s.dateImplantation) : null, figures: s.figures }))];
    const filename = report.site ? `rapport_annuel_${report.annee}_${report.site.code}.csv` : `rapport_annuel_${report.annee}.csv`;
    return sendCsv(reply, filename, reportColumns(report, actions), (async function* () {
      yield rows;
    })());
  });
}
