// Routes of the map of the sites (map.view) and of the day's route through the planned
// requests (route.view): the route itself, its order set by hand and the user's start point.
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import type { AppDeps } from '../../deps.js';
import { errorBodySchema } from '../../../shared/errors.js';
import { carteSchema, tourneeDepartBodySchema, tourneeOrdreBodySchema, tourneeQuerySchema, tourneeSaveResponseSchema, tourneeSchema } from '../../../shared/schemas/map.js';
import { createMapService } from './map.service.js';

export default async function mapRoutes(fastify: FastifyInstance, deps: AppDeps) {
  const app = fastify.withTypeProvider<ZodTypeProvider>();
  const service = createMapService(deps.db, { url: deps.config.MAP_TILES_URL, attribution: deps.config.MAP_TILES_ATTRIBUTION });
  const route = app.guard('route.view');

  app.get('/admin/site/get/carte', { onRequest: app.guard('map.view'), schema: { response: { 200: carteSchema } } }, () => service.carte());

  app.get('/admin/tournee', { onRequest: route, schema: { querystring: tourneeQuerySchema, response: { 200: tourneeSchema } } }, (request) =>
    service.tournee(request.user!.id, request.query.date, request.query.depart),
  );

  app.put(
    '/admin/tournee/ordre',
    { onRequest: route, schema: { body: tourneeOrdreBodySchema, response: { 200: tourneeSaveResponseSchema, 400: errorBodySchema } } },
    (request) => service.saveOrder(request.user!.id, request.body),
  );

  app.put('/admin/tournee/depart', { onRequest: route, schema: { body: tourneeDepartBodySchema, response: { 200: tourneeSaveResponseSchema } } }, (request) =>
    service.saveDepart(request.user!.id, request.body),
  );
}
