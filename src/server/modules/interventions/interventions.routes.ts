// Routes of the interventions domain (spec.md section 7): the site sheet's site info, the
// idempotent add, the public per-site table, and the administration: lists, one
// intervention, correction, deletion and export.
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import type { AppDeps } from '../../deps.js';
import { errorBodySchema } from '../../../shared/errors.js';
import { idParamsSchema } from '../../../shared/schemas/common.js';
import { formatParisDateTime } from '../../../shared/dates.js';
import {
  interventionAddResponseSchema,
  interventionSubmissionSchema,
  siteInfosSchema,
  siteInterventionListQuerySchema,
  siteInterventionListSchema,
} from '../../../shared/schemas/interventions.js';
import {
  interventionAdminListQuerySchema,
  interventionAdminListSchema,
  interventionDeletedSchema,
  interventionDetailSchema,
  interventionUpdatedSchema,
  interventionUpdateSchema,
} from '../../../shared/schemas/interventions-admin.js';
import { sendCsv, type CsvColumn } from '../../csv.js';
import { createInterventionsService } from './interventions.service.js';
import { createInterventionsAdminService, toAdminRow } from './interventions-admin.service.js';
import type { InterventionListRecord } from './interventions-admin.repository.js';

const siteIdParams = idParamsSchema;

/** The export has the table's columns, in the table's order (spec.md "Interventions administration"). */
const EXPORT_COLUMNS: CsvColumn<InterventionListRecord>[] = [
  { header: 'Date', value: (r) => r.date, format: 'datetime' },
  { header: 'Site', value: (r) => r.site },
  { header: 'Intervenant', value: (r) => r.intervenant },
  { header: 'Type Cellule', value: (r) => r.typeBac },
  { header: 'N° Cellule', value: (r) => r.numeroBac },
  { header: 'Action', value: (r) => r.typeAction },
  { header: 'Valeur', value: (r) => toAdminRow(r).valeur },
  { header: 'Observations', value: (r) => r.observations },
  { header: 'Modifiée par', value: (r) => (r.modificationAgent ? `${r.modificationAgent} le ${formatParisDateTime(r.modifiedAt)}` : '') },
];

export default async function interventionsRoutes(fastify: FastifyInstance, deps: AppDeps) {
  const app = fastify.withTypeProvider<ZodTypeProvider>();
  const service = createInterventionsService(deps.db);
  const admin = createInterventionsAdminService(deps.db);
  // Checked before the payload: a caller without the role learns nothing about the schema.
  const canList = app.guard('intervention.list');

  app.get(
    '/admin/site/get/infos/pour/intervention/:id',
    { preHandler: app.guard('intervention.add'), schema: { params: siteIdParams, response: { 200: siteInfosSchema } } },
    (request) => service.siteInfos(request.user!, request.params.id),
  );

  app.post(
    '/admin/intervention/add',
    {
      preHandler: app.guard('intervention.add'),
      schema: { body: interventionSubmissionSchema, response: { 200: interventionAddResponseSchema, 409: errorBodySchema } },
    },
    (request) => service.add(request.user!, request.body),
  );

  // Public: anyone holding a site's link (the QR label on a bin) may see what was done there.
  app.get(
    '/intervention/get/list/by/site/:id',
    { schema: { params: siteIdParams, querystring: siteInterventionListQuerySchema, response: { 200: siteInterventionListSchema } } },
    (request) => service.listBySite(request.params.id, request.query),
  );

  app.get(
    '/admin/intervention/get/list/by/filters',
    { preValidation: canList, schema: { querystring: interventionAdminListQuerySchema, response: { 200: interventionAdminListSchema } } },
    (request) => admin.list(request.query),
  );

  app.get('/admin/intervention/export', { preValidation: canList, schema: { querystring: interventionAdminListQuerySchema } }, (request, reply) =>
    sendCsv(reply, 'export.csv', EXPORT_COLUMNS, admin.exportBatches(request.query)),
  );

  app.get(
    '/admin/intervention/get/:id',
    { preValidation: canList, schema: { params: idParamsSchema, response: { 200: interventionDetailSchema } } },
    (request) => admin.get(request.params.id),
  );

  app.put(
    '/admin/intervention/update/:id',
    {
      preValidation: app.guard('intervention.update'),
      schema: { params: idParamsSchema, body: interventionUpdateSchema, response: { 200: interventionUpdatedSchema } },
    },
    (request) => admin.update(request.user!, request.params.id, request.body),
  );

  app.put(
    '/admin/intervention/delete/:id',
    { preValidation: app.guard('intervention.delete'), schema: { params: idParamsSchema, response: { 200: interventionDeletedSchema } } },
    (request) => admin.delete(request.user!, request.params.id),
  );
}
