// Routes of the recorded interventions: the administrators' lists, one intervention, its
// correction and deletion, the export, and the public per-site table (read-only, built on the
// same list SQL). The tables (lists, search, export) are interventions-tables.service.ts;
// correction and deletion interventions-admin.service.ts. Recording them (the phone's site sheet
// data and the add) is the field entry's: field-entry/field-entry.routes.ts.
import { z } from 'zod';
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import type { AppDeps } from '../../deps.js';
import { idParamsSchema } from '../../../shared/schemas/common.js';
import { siteInterventionListQuerySchema } from '../../../shared/schemas/interventions.js';
import {
  interventionAdminListQuerySchema,
  interventionAdminPageQuerySchema,
  interventionAdminTableSchema,
  interventionDeletedSchema,
  interventionDetailSchema,
  interventionUpdatedSchema,
  interventionUpdateSchema,
  publicSiteInterventionListSchema,
} from '../../../shared/schemas/interventions-admin.js';
import { sendCsvBody } from '../../csv.js';
import { createInterventionsAdminService } from './interventions-admin.service.js';
import { createInterventionTablesService } from './interventions-tables.service.js';

const siteIdParams = idParamsSchema;

export default async function interventionsRoutes(fastify: FastifyInstance, deps: AppDeps) {
  const app = fastify.withTypeProvider<ZodTypeProvider>();
  const admin = createInterventionsAdminService(deps.db);
  const tables = createInterventionTablesService(deps.db);
  // Checked before the payload: a caller without the role learns nothing about the schema.
  const canList = app.guard('intervention.list');

  // Public: anyone holding a site's link (the QR label on a bin) may see what was done there;
  // names and free text only for who may record on the site (interventions-tables.service.ts).
  app.get(
    '/intervention/get/list/by/site/:id',
    { schema: { params: siteIdParams, querystring: siteInterventionListQuerySchema, response: { 200: publicSiteInterventionListSchema } } },
    (request) => tables.publicList(request.user, request.params.id, request.query),
  );

  app.get(
    '/admin/intervention/get/list/by/filters',
    { onRequest: canList, schema: { querystring: interventionAdminPageQuerySchema, response: { 200: interventionAdminTableSchema } } },
    (request) => tables.adminList(request.query),
  );

  app.get('/admin/intervention/export', { onRequest: canList, schema: { querystring: interventionAdminListQuerySchema, response: { 200: z.string().meta({ description: 'Fichier CSV export.csv (UTF-8 avec BOM, « ; »), colonnes du tableau' }) } } }, async (request, reply) =>
    sendCsvBody(reply, 'export.csv', await tables.exportCsv(request.query)),
  );

  app.get(
    '/admin/intervention/get/:id',
    { onRequest: canList, schema: { params: idParamsSchema, response: { 200: interventionDetailSchema } } },
    (request) => admin.get(request.params.id),
  );

  app.put(
    '/admin/intervention/update/:id',
    {
      onRequest: app.guard('intervention.update'),
      schema: { params: idParamsSchema, body: interventionUpdateSchema, response: { 200: interventionUpdatedSchema } },
    },
    (request) => admin.update(request.user!, request.params.id, request.body),
  );

  app.put(
    '/admin/intervention/delete/:id',
    { onRequest: app.guard('intervention.delete'), schema: { params: idParamsSchema, response: { 200: interventionDeletedSchema } } },
    (request) => admin.delete(request.user!, request.params.id),
  );
}
