import type { FastifyInstance } from 'fastify';
import type { AppDeps } from '../../deps.js';

export default async function publicSitesRoutes(_app: FastifyInstance, _deps: AppDeps) {}
