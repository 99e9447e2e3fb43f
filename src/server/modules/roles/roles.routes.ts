// Routes of the roles domain: the role list, one role
// with its agents, the replacement of a role's agents and the agent search.
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { AppDeps } from '../../deps.js';
import { ConflictError, NotFoundError, ValidationError } from '../../errors.js';
import { EXTERNAL_ROLES, type Role } from '../../../shared/permissions.js';
import { successBodySchema } from '../../../shared/errors.js';
import {
  ROLE_MESSAGES,
  agentSchema,
  agentSearchQuerySchema,
  roleDetailSchema,
  roleIdParamsSchema,
  roleListQuerySchema,
  roleListSchema,
  roleUpdateSchema,
} from '../../../shared/schemas/roles.js';
import { createRolesRepository } from './roles.repository.js';

export default async function rolesRoutes(fastify: FastifyInstance, deps: AppDeps) {
  const app = fastify.withTypeProvider<ZodTypeProvider>();
  const { db } = deps;
  const repo = createRolesRepository(db);
  const manage = app.guard('role.manage');

  app.get(
    '/admin/role/get/list/by/filters',
    { onRequest: manage, schema: { querystring: roleListQuerySchema, response: { 200: roleListSchema } } },
    (request) => repo.list(request.query),
  );

  app.get('/admin/role/get/:id', { onRequest: manage, schema: { params: roleIdParamsSchema, response: { 200: roleDetailSchema } } }, async (request) => {
    const role = await repo.find(request.params.id);
    if (!role) throw new NotFoundError(ROLE_MESSAGES.notFound);
    return { id: role.id, libelle: role.libelle, agents: await repo.agentsOf(role.id) };
  });

  app.put(
    '/admin/role/update/:id',
    { onRequest: manage, schema: { params: roleIdParamsSchema, body: roleUpdateSchema, response: { 200: successBodySchema } } },
    async (request) => {
      const ids = [...new Set(request.body.agents)];
      await db.transaction().execute(async (trx) => {
        const role = await repo.find(request.params.id, trx);
        if (!role) throw new NotFoundError(ROLE_MESSAGES.notFound);
        if ((EXTERNAL_ROLES as readonly string[]).includes(role.code as Role)) throw new ValidationError([{ key: 'agents', error: ROLE_MESSAGES.externalRole }], ROLE_MESSAGES.externalRole);
        await repo.lockRole(trx, role.id);
        const agents = await repo.agentsAmong(trx, ids);
        if (agents.length !== ids.length) throw new ValidationError([{ key: 'agents', error: ROLE_MESSAGES.agentUnknown }]);
        // Someone must still be able to log in as administrator afterwards.
        // A conflict with the state of the programme, not a field to correct: 409.
        if (role.code === 'ROLE_ADMIN' && !agents.some((a) => a.actif)) throw new ConflictError(ROLE_MESSAGES.lastAdmin);
        await repo.replaceAgents(trx, role.id, ids);
      });
      return { status: 'success' as const, message: ROLE_MESSAGES.saved };
    },
  );

  app.get(
    '/admin/agent/get/by/name',
    { onRequest: manage, schema: { querystring: agentSearchQuerySchema, response: { 200: z.array(agentSchema) } } },
    (request) => repo.searchAgents(request.query.name),
  );
}
