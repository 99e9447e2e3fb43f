import type { FastifyInstance } from 'fastify';
import type { AppDeps } from '../../deps.js';

export default async function alertsRoutes(_app: FastifyInstance, _deps: AppDeps) {}
