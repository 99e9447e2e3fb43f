// Routes of the external users domain.
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { AppDeps } from '../../deps.js';
import { successBodySchema } from '../../../shared/errors.js';
import { idParamsSchema as siteParamsSchema } from '../../../shared/schemas/common.js';
import {
  USER_MESSAGES,
  activeUserSchema,
  referentSchema,
  siteOptionSchema,
  userIdAltParamsSchema,
  userIdParamsSchema,
  userListQuerySchema,
  userListSchema,
  userSitesSchema,
  userSitesUpdateSchema,
  userTypeUpdateSchema,
} from '../../../shared/schemas/users.js';
import { NotFoundError } from '../../errors.js';
import { createUsersService } from './users.service.js';
import { createSitesRepository } from '../sites/public.js';
import { SITE_MESSAGES } from '../../../shared/schemas/sites.js';

export default async function usersRoutes(fastify: FastifyInstance, deps: AppDeps) {
  const app = fastify.withTypeProvider<ZodTypeProvider>();
  const service = createUsersService(deps);
  const { repo } = service;
  const sites = createSitesRepository(deps.db);
  const manage = app.guard('user.manage');

  app.get(
    '/admin/user/get/list/by/filters',
    { onRequest: manage, schema: { querystring: userListQuerySchema, response: { 200: userListSchema } } },
    (request) => repo.list(request.query),
  );

  app.put('/admin/user/active/:id', { onRequest: manage, schema: { params: userIdParamsSchema, response: { 200: successBodySchema } } }, async (request) => {
    await service.activate(request.params.id);
    return { status: 'success' as const, message: USER_MESSAGES.activated };
  });

  app.put('/admin/user/refuse/:id', { onRequest: manage, schema: { params: userIdParamsSchema, response: { 200: successBodySchema } } }, async (request) => {
    await service.refuse(request.params.id);
    return { status: 'success' as const, message: USER_MESSAGES.deactivated };
  });

  app.put(
    '/admin/user/update/site/:userId',
    { onRequest: manage, schema: { params: userIdAltParamsSchema, body: userSitesUpdateSchema, response: { 200: successBodySchema } } },
    async (request) => {
      await service.updateSites(request.params.userId, request.body.site);
      return { status: 'success' as const, message: USER_MESSAGES.sitesUpdated };
    },
  );

  app.put(
    '/admin/user/update/typeUser/:id',
    { onRequest: manage, schema: { params: userIdParamsSchema, body: userTypeUpdateSchema, response: { 200: successBodySchema } } },
    async (request) => {
      await service.updateType(request.params.id, request.body.type);
      return { status: 'success' as const, message: USER_MESSAGES.typeUpdated };
    },
  );

  app.put('/admin/user/delete/:id', { onRequest: manage, schema: { params: userIdParamsSchema, response: { 200: successBodySchema } } }, async (request) => {
    await service.delete(request.params.id);
    return { status: 'success' as const, message: USER_MESSAGES.deleted };
  });

  /** Current sites of one user (the 'Site' dialog). */
  app.get(
    '/admin/user/get/sites/:id',
    { onRequest: manage, schema: { params: userIdParamsSchema, response: { 200: userSitesSchema } } },
    async (request) => {
      if (!(await repo.find(request.params.id))) throw new NotFoundError(USER_MESSAGES.notFound);
      return repo.sitesOf(request.params.id);
    },
  );

  /** Every site, for the multi-select of the 'Site' dialog. */
  app.get('/admin/user/get/all/sites', { onRequest: manage, schema: { response: { 200: z.array(siteOptionSchema) } } }, () => repo.allSites());

  app.get(
    '/admin/user/get/by/site/:id',
    { onRequest: app.guard('site.manage', 'user.manage'), schema: { params: siteParamsSchema, response: { 200: z.array(referentSchema) } } },
    async (request) => {
      if (!(await sites.siteHeader(request.params.id))) throw new NotFoundError(SITE_MESSAGES.siteNotFound);
      return sites.referents(request.params.id);
    },
  );

  app.get(
    '/admin/user/get/all/actif',
    { onRequest: app.guard('site.manage', 'user.manage'), schema: { response: { 200: z.array(activeUserSchema) } } },
    () => repo.activeUsers(),
  );
}
