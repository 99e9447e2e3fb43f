// Routes of the households module (filled in next).
import type { FastifyInstance } from 'fastify';
import type { AppDeps } from '../../deps.js';

export default async function householdsRoutes(_fastify: FastifyInstance, _deps: AppDeps) {}
