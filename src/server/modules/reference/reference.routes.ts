// Reference lists and application info.
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { AppDeps } from '../../deps.js';
import {
  anneeSchema,
  appInfoSchema,
  idLibelleSchema,
  rueSchema,
  typeActionConstanteSchema,
  typeActionSchema,
  composterTypeSchema,
  typeSiteSchema,
  villeSchema,
} from '../../../shared/schemas/reference.js';
import { plainString } from '../../../shared/schemas/common.js';
import { createReferenceRepository } from './reference.repository.js';

export default async function referenceRoutes(fastify: FastifyInstance, deps: AppDeps) {
  const app = fastify.withTypeProvider<ZodTypeProvider>();
  const repo = createReferenceRepository(deps.db);

  // Constant for the life of the process: checked against its schema and serialized once, at
  // start, rather than on each of the many calls every screen makes.
  const appInfo = JSON.stringify(appInfoSchema.parse({ appName: deps.config.APP_NAME, contact: deps.config.APP_CONTACT }));
  fastify.get('/app/info/get', { schema: { response: { 200: appInfoSchema } } }, (_request, reply) => {
    void reply.type('application/json; charset=utf-8').send(appInfo);
  });
  app.get('/typeUser/get/all', { schema: { response: { 200: z.array(idLibelleSchema) } } }, () => repo.typeUsers());
  app.get('/typeAction/get/all', { schema: { response: { 200: z.array(typeActionSchema) } } }, () => repo.typeActions());
  app.get('/typeActionConstante/get/all', { schema: { response: { 200: z.array(typeActionConstanteSchema) } } }, () => repo.typeActionConstantes());
  app.get('/admin/annee/get/all', { onRequest: app.guard('reference.read'), schema: { response: { 200: z.array(anneeSchema) } } }, () => repo.annees());
  app.get(
    '/admin/statut/get/all/demandes/interventions',
    { onRequest: app.guard('reference.read'), schema: { response: { 200: z.array(idLibelleSchema) } } },
    () => repo.statuts([3, 4, 5, 6]),
  );
  app.get('/admin/statut/get/all/sites', { onRequest: app.guard('reference.read'), schema: { response: { 200: z.array(idLibelleSchema) } } }, () =>
    repo.statuts([1, 2]),
  );
  app.get('/ville/get/all', { schema: { response: { 200: z.array(villeSchema) } } }, () => repo.villes());
  app.get(
    '/rues/get/all/:city',
    { schema: { params: z.object({ city: plainString({ error: 'Ville invalide' }).min(1, { error: 'Ville invalide' }).max(100, { error: 'Ville invalide' }) }), response: { 200: z.array(rueSchema) } } },
    (req) => repo.rues(req.params.city),
  );
  app.get('/typeSite/get/all', { schema: { response: { 200: z.array(typeSiteSchema) } } }, () => repo.typeSites());
  app.get('/typeComposteur/get/all', { schema: { response: { 200: z.array(composterTypeSchema) } } }, () => repo.typeComposteurs());
  app.get('/typeBac/get/all', { schema: { response: { 200: z.array(idLibelleSchema) } } }, () => repo.typeBacs());
}
