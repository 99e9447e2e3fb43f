// Routes of the permanences module (filled in next).
import type { FastifyInstance } from 'fastify';
import type { AppDeps } from '../../deps.js';

export default async function permanencesRoutes(_fastify: FastifyInstance, _deps: AppDeps) {}
