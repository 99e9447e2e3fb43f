// Routes of the sites domain, all behind the site.manage guard.
// The site choice routes live in site-choice.routes.ts; the site info for the intervention
// form belongs to the interventions module.
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { AppDeps } from '../../deps.js';
import { successBodySchema } from '../../../shared/errors.js';
import { idParamsSchema as idParams } from '../../../shared/schemas/common.js';
import {
  requesterSchema,
  requesterUpdateSchema,
  siteAddSchema,
  siteAddedSchema,
  cellSchema,
  cellsAddSchema,
  cellUpdateSchema,
  siteDetailSchema,
  siteListPageQuerySchema,
  siteListQuerySchema,
  siteListSchema,
  siteReferentsSchema,
  siteUpdateSchema,
  SITE_MESSAGES,
  type SiteRow,
} from '../../../shared/schemas/sites.js';
import { NotFoundError } from '../../errors.js';
import { sendCsv, type CsvColumn } from '../../csv.js';
import { createSitesRepository } from './sites.repository.js';
import { createSiteListRepository, type SiteRecord } from './sites-list.repository.js';
import { createSitesService } from './sites.service.js';

const iso = (d: Date | null) => (d ? d.toISOString() : null);

function toRow(r: SiteRecord): SiteRow {
  return { ...r, dateConvention: iso(r.dateConvention), dateImplantation: iso(r.dateImplantation), dateInauguration: iso(r.dateInauguration) };
}

/** The export has the table's columns, in the table's order. */
const EXPORT_COLUMNS: CsvColumn<SiteRecord>[] = [
  { header: 'Nom / Code', value: (r) => (r.nom ? `${r.nom} / ${r.code}` : r.code) },
  { header: 'Ville', value: (r) => r.ville },
  { header: 'Adresse', value: (r) => (r.numero ? `${r.numero} ${r.adresse}` : r.adresse) },
  { header: 'Précisions', value: (r) => r.complement },
  { header: 'Type', value: (r) => r.typeSite },
  { header: 'Référent(s)', value: (r) => r.referent },
  { header: 'Volume total', value: (r) => r.volume },
  { header: 'nb Composteurs', value: (r) => r.nbComposteurs },
  { header: 'Cadena', value: (r) => r.cadena },
  { header: 'Observations', value: (r) => r.observations },
  { header: 'Statut', value: (r) => r.statut },
  { header: 'Date Convention', value: (r) => r.dateConvention },
  { header: 'Date Implantation', value: (r) => r.dateImplantation },
  { header: 'Date inauguration', value: (r) => r.dateInauguration },
];

export default async function sitesRoutes(fastify: FastifyInstance, deps: AppDeps) {
  const app = fastify.withTypeProvider<ZodTypeProvider>();
  const repo = createSitesRepository(deps.db);
  const list = createSiteListRepository(deps.db);
  const service = createSitesService(deps.db);
  // Checked before the payload: a caller without the role learns nothing about the schema.
  const guard = app.guard('site.manage');

  app.get(
    '/admin/site/get/list/by/filters',
    { onRequest: guard, schema: { querystring: siteListPageQuerySchema, response: { 200: siteListSchema } } },
    async (request) => {
      const { count, sites } = await list.list(request.query);
      return { count, sites: sites.map(toRow) };
    },
  );

  // A file, streamed as it is read: the answer is described for the API documentation only.
  const exportAnswer = z.string().meta({ description: 'Fichier CSV exportSites.csv (UTF-8 avec BOM, « ; »), colonnes du tableau' });
  // The first rows are read before the answer starts: a failure there (the statement limit, a
  // lost connection) is still an error status, never a 200 whose file stops after its header.
  app.get('/admin/site/export', { onRequest: guard, schema: { querystring: siteListQuerySchema, response: { 200: exportAnswer } } }, async (request, reply) =>
    sendCsv(reply, 'exportSites.csv', EXPORT_COLUMNS, await list.batches(request.query)),
  );

  app.post('/admin/site/add', { onRequest: guard, schema: { body: siteAddSchema, response: { 200: siteAddedSchema } } }, async (request) => {
    const { id, code } = await service.create(request.body);
    return { status: 'success' as const, id, code };
  });

  app.get('/admin/site/get/:id', { onRequest: guard, schema: { params: idParams, response: { 200: siteDetailSchema } } }, async (request) => {
    const { row, conventions, referents, publicColumns: p } = await service.detail(request.params.id);
    return {
      ...toRow(row),
      dateConventions: conventions.map((d) => d.toISOString()),
      referents,
      horaires: p.horaires,
      consignes: p.consignes,
      latitude: p.latitude,
      longitude: p.longitude,
      coordonneesSource: p.coordonnees_source,
      openData: p.open_data,
    };
  });

  app.put(
    '/admin/site/update/:id',
    { onRequest: guard, schema: { params: idParams, body: siteUpdateSchema, response: { 200: successBodySchema } } },
    async (request) => {
      await service.update(request.params.id, request.body);
      return { status: 'success' as const };
    },
  );

  app.put(
    '/admin/site/update/user/:id',
    { onRequest: guard, schema: { params: idParams, body: siteReferentsSchema, response: { 200: successBodySchema } } },
    async (request) => {
      await service.setReferents(request.params.id, request.body.user);
      return { status: 'success' as const };
    },
  );

  app.get(
    '/admin/siteComposteurs/get/by/site/:id',
    { onRequest: guard, schema: { params: idParams, response: { 200: z.array(cellSchema) } } },
    (request) => service.cellsOfSite(request.params.id),
  );

  app.get('/admin/siteComposteur/get/:id', { onRequest: guard, schema: { params: idParams, response: { 200: cellSchema } } }, (request) =>
    service.cell(request.params.id),
  );

  app.put(
    '/admin/siteComposteur/update/:id',
    { onRequest: guard, schema: { params: idParams, body: cellUpdateSchema, response: { 200: successBodySchema } } },
    async (request) => {
      await service.updateCell(request.params.id, request.body);
      return { status: 'success' as const };
    },
  );

  app.put(
    '/admin/site/add/composteur/:id',
    { onRequest: guard, schema: { params: idParams, body: cellsAddSchema, response: { 200: successBodySchema } } },
    async (request) => {
      await service.addCells(request.params.id, request.body.composteurs);
      return { status: 'success' as const };
    },
  );

  app.get('/admin/demandeur/get/:id', { onRequest: guard, schema: { params: idParams, response: { 200: requesterSchema } } }, async (request) => {
    const d = await repo.demandeur(request.params.id);
    if (!d) throw new NotFoundError(SITE_MESSAGES.demandeurNotFound);
    return { ...d, date: iso(d.date) };
  });

  app.put(
    '/admin/demandeur/update/:id',
    { onRequest: guard, schema: { params: idParams, body: requesterUpdateSchema, response: { 200: successBodySchema } } },
    async (request) => {
      const b = request.body;
      const res = await repo.updateRequester(request.params.id, {
        fonction: b.fonction,
        precisions: b.precisions,
        telephone: b.telephone,
        telephone2: b.telephone2,
        email: b.email,
        periode_implantation: b.periodeImplantation,
        annee_implantation: b.anneeImplantation,
      });
      if (!res.numUpdatedRows) throw new NotFoundError(SITE_MESSAGES.demandeurNotFound);
      return { status: 'success' as const };
    },
  );
}
