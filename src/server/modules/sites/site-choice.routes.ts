// Active sites for the site choice: everyone allowed to see all sites gets all active
// ones; anybody else only the active sites they are a referent of (the SQL is in
// sites.repository.ts).
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { AppDeps } from '../../deps.js';
import { activeSiteSchema } from '../../../shared/schemas/site-choice.js';
import { idParamsOf } from '../../../shared/schemas/common.js';
import { can } from '../../../shared/permissions.js';
import { ForbiddenError } from '../../errors.js';
import { createSitesRepository } from './sites.repository.js';

export default async function siteChoiceRoutes(fastify: FastifyInstance, deps: AppDeps) {
  const app = fastify.withTypeProvider<ZodTypeProvider>();
  const repo = createSitesRepository(deps.db);
  app.get('/admin/site/get/all/actif', { onRequest: app.guard(), schema: { response: { 200: z.array(activeSiteSchema) } } }, async (request) => {
    const user = request.user!;
    return repo.activeSites(can(user.roles, 'site.chooseAll') ? {} : { referentId: user.id });
  });
  app.get(
    '/admin/site/get/by/user/:userId',
    { onRequest: app.guard(), schema: { params: idParamsOf('userId'), response: { 200: z.array(activeSiteSchema) } } },
    async (request) => {
      const user = request.user!;
      const { userId } = request.params;
      // Anyone may ask for their own sites; another user's sites are for site and user managers.
      if (userId !== user.id && !can(user.roles, 'site.manage') && !can(user.roles, 'user.manage')) throw new ForbiddenError();
      return repo.activeSites({ referentId: userId });
    },
  );
}
