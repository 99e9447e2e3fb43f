import type { FastifyInstance } from 'fastify';
import type { AppDeps } from '../../deps.js';

export default async function photosRoutes(_app: FastifyInstance, _deps: AppDeps) {}
