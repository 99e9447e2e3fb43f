// SQL of the composter types catalogue.
import { sql } from 'kysely';
import type { Db } from '../../db/client.js';
import { ilikeUnaccent, pageOf } from '../../db/list.js';
import type { composterListQuerySchema } from '../../../shared/schemas/composters.js';
import type { z } from 'zod';

type ComposterListQuery = z.output<typeof composterListQuerySchema>;

export function createCompostersRepository(db: Db) {
  return {
    async list(q: ComposterListQuery) {
      let base = db.selectFrom('type_composteur');
      if (q.filter.volume !== undefined) base = base.where('volume', '=', q.filter.volume);
      if (q.search) {
        const search = q.search;
        // A whole number may also be a volume: compared as a number so that both arms of the
        // OR use an index (trigram on precisions, btree on volume).
        const volume = /^\d{1,9}$/.test(search) ? Number(search) : null;
        base = base.where((eb) => (volume === null ? ilikeUnaccent(sql.ref('precisions'), search) : eb.or([ilikeUnaccent(sql.ref('precisions'), search), eb('volume', '=', volume)])));
      }
      const { limit, offset } = pageOf(q);
      const sortColumn = q.sort.name === 'precisions' ? sql`f_unaccent(lower(precisions))` : sql`volume`;
      const [countRow, composteurs] = await Promise.all([
        base.select(sql<number>`count(*)::int`.as('count')).executeTakeFirstOrThrow(),
        base
          .select(['id', 'volume', 'precisions'])
          .orderBy(sortColumn, q.sort.direction)
          .orderBy('id', q.sort.direction)
          .limit(limit)
          .offset(offset)
          .execute(),
      ]);
      return { count: countRow.count, composteurs };
    },

    add: (v: { volume: number; precisions: string }) =>
      db.insertInto('type_composteur').values(v).returning('id').executeTakeFirstOrThrow(),
  };
}
