import fp from 'fastify-plugin';
import type { FastifyInstance } from 'fastify';

async function openapi(_app: FastifyInstance) {}

export default fp(openapi, { name: 'openapi' });
