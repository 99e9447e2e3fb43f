import type { FastifyInstance } from 'fastify';
import type { AppDeps } from '../../deps.js';

export default async function requestsRoutes(_fastify: FastifyInstance, _deps: AppDeps) {}
