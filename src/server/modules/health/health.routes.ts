import type { FastifyInstance } from 'fastify';
import type { AppDeps } from '../../deps.js';

export default async function healthRoutes(_fastify: FastifyInstance, _deps: AppDeps) {}
