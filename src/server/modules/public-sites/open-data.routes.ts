// GET /api/open/sites.geojson and /api/open/sites.csv: the active, published sites for data
// portals. Public and cacheable for an hour (the handler's Cache-Control replaces the no-store
// every /api answer starts with), readable from any origin, with an ETag so that a harvester
// asking again gets a 304 while nothing changed.
import crypto from 'node:crypto';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { z } from 'zod';
import type { AppDeps } from '../../deps.js';
import { createPublicSitesRepository } from './public-sites.repository.js';
import { toCsv, toGeoJson, type OpenDataPublisher } from './open-data.js';

/** config.ts's defaults, for an app built without them (tests). */
const DEFAULT_PUBLISHER = { name: 'Brest Métropole', siret: '24290031400012' };

/** Whether If-None-Match names this ETag (a list, weak forms and '*' included). */
export function etagMatches(header: string | undefined, etag: string): boolean {
  if (!header) return false;
  if (header.trim() === '*') return true;
  return header.split(',').some((t) => t.trim().replace(/^W\//, '') === etag);
}

function send(request: FastifyRequest, reply: FastifyReply, body: string, type: string, filename: string) {
  const etag = `"${crypto.createHash('sha256').update(body).digest('base64url').slice(0, 32)}"`;
  reply
    .header('cache-control', 'public, max-age=3600')
    .header('etag', etag)
    .header('access-control-allow-origin', '*')
    .header('cross-origin-resource-policy', 'cross-origin');
  if (etagMatches(request.headers['if-none-match'], etag)) return reply.code(304).send();
  return reply.header('content-type', type).header('content-disposition', `inline; filename="${filename}"`).send(body);
}

export default async function openDataRoutes(app: FastifyInstance, deps: AppDeps) {
  const repo = createPublicSitesRepository(deps.db);
  const publisher: OpenDataPublisher = {
    name: deps.config.OPEN_DATA_NAME ?? DEFAULT_PUBLISHER.name,
    siret: deps.config.OPEN_DATA_SIRET ?? DEFAULT_PUBLISHER.siret,
    publicUrl: deps.config.publicUrl,
  };

  // The files are text: their answers are described for the API documentation, never re-serialised.
  const geojson = { response: { 200: z.string().meta({ description: 'FeatureCollection GeoJSON (RFC 7946) des sites actifs publiés' }) } };
  const csv = { response: { 200: z.string().meta({ description: 'Fichier CSV (UTF-8 sans BOM, virgules) des sites actifs publiés' }) } };

  app.get('/open/sites.geojson', { schema: geojson }, async (request, reply) =>
    send(request, reply, JSON.stringify(toGeoJson(await repo.openDataSites(), publisher)), 'application/geo+json; charset=utf-8', 'sites-compostage.geojson'),
  );

  app.get('/open/sites.csv', { schema: csv }, async (request, reply) =>
    send(request, reply, toCsv(await repo.openDataSites(), publisher), 'text/csv; charset=utf-8; header=present', 'sites-compostage.csv'),
  );
}
