// Active sites for the site choice: everyone allowed to see all sites gets all active
// ones; anybody else only the active sites they are a referent of.
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { AppDeps } from '../../deps.js';
import { activeSiteSchema } from '../../../shared/schemas/site-choice.js';
import { idParamsOf } from '../../../shared/schemas/common.js';
import { can } from '../../../shared/permissions.js';
import { ForbiddenError } from '../../errors.js';
import type { Db } from '../../db/client.js';

export function activeSites(db: Db, opts: { referentId?: number }) {
  let q = db
    .selectFrom('site')
    .where('site.statut_id', '=', 1)
    .select(['site.id', 'site.code', 'site.nom', 'site.adresse', 'site.numero', 'site.ville', 'site.cp'])
    .orderBy('site.ville')
    .orderBy('site.code');
  if (opts.referentId !== undefined) {
    const id = opts.referentId;
    q = q.where('site.id', 'in', db.selectFrom('site_referent').select('site_id').where('account_id', '=', id));
  }
  return q.execute();
}

export default async function siteChoiceRoutes(fastify: FastifyInstance, deps: AppDeps) {
  const app = fastify.withTypeProvider<ZodTypeProvider>();
  app.get('/admin/site/get/all/actif', { preHandler: app.guard(), schema: { response: { 200: z.array(activeSiteSchema) } } }, async (request) => {
    const user = request.user!;
    return activeSites(deps.db, can(user.roles, 'site.chooseAll') ? {} : { referentId: user.id });
  });
  app.get(
    '/admin/site/get/by/user/:userId',
    { preHandler: app.guard(), schema: { params: idParamsOf('userId'), response: { 200: z.array(activeSiteSchema) } } },
    async (request) => {
      const user = request.user!;
      const { userId } = request.params;
      // Anyone may ask for their own sites; another user's sites are for site and user managers.
      if (userId !== user.id && !can(user.roles, 'site.manage') && !can(user.roles, 'user.manage')) throw new ForbiddenError();
      return activeSites(deps.db, { referentId: userId });
    },
  );
}
