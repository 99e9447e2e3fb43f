// SQL of the site types catalogue.
import { sql } from 'kysely';
import type { Db } from '../../db/client.js';
import { ilikeUnaccent, pageOf } from '../../db/list.js';
import type { siteTypeListQuerySchema } from '../../../shared/schemas/site-types.js';
import type { z } from 'zod';

type SiteTypeListQuery = z.output<typeof siteTypeListQuerySchema>;

export function createSiteTypesRepository(db: Db) {
  return {
    async list(q: SiteTypeListQuery) {
      let base = db.selectFrom('type_site');
      if (q.filter.libelle) base = base.where(ilikeUnaccent(sql.ref('libelle'), q.filter.libelle));
      if (q.search) {
        const search = q.search;
        base = base.where((eb) => eb.or([ilikeUnaccent(sql.ref('libelle'), search), ilikeUnaccent(sql.ref('code'), search)]));
      }
      const { limit, offset } = pageOf(q);
      const sortColumn = q.sort.name === 'code' ? sql`code` : sql`f_unaccent(lower(libelle))`;
      const [countRow, typeSites] = await Promise.all([
        base.select(sql<number>`count(*)::int`.as('count')).executeTakeFirstOrThrow(),
        base.select(['id', 'libelle', 'code']).orderBy(sortColumn, q.sort.direction).orderBy('id', q.sort.direction).limit(limit).offset(offset).execute(),
      ]);
      return { count: countRow.count, typeSites };
    },

    codeTaken: async (code: string) => !!(await db.selectFrom('type_site').select('id').where('code', '=', code).executeTakeFirst()),

    add: (v: { libelle: string; code: string }) => db.insertInto('type_site').values(v).returning('id').executeTakeFirstOrThrow(),
  };
}
