// SQL of the roles domain: the role catalogue and which agents (accounts of kind 'agent')
// hold each role. Roles are read per request by plugins/auth.ts, so a change here applies to
// the agent's next request.
import { sql } from 'kysely';
import type { Db } from '../../db/client.js';
import { ilikeUnaccent, pageOf } from '../../db/list.js';
import type { roleListQuerySchema } from '../../../shared/schemas/roles.js';
import { AGENT_SEARCH_LIMIT } from '../../../shared/schemas/roles.js';
import type { z } from 'zod';

type RoleListQuery = z.output<typeof roleListQuerySchema>;

export function createRolesRepository(db: Db) {
  return {
    async list(q: RoleListQuery) {
      let base = db.selectFrom('role');
      if (q.filter.libelle) base = base.where(ilikeUnaccent(sql.ref('role.libelle'), q.filter.libelle));
      if (q.search) base = base.where(ilikeUnaccent(sql.ref('role.libelle'), q.search));
      const { limit, offset } = pageOf(q);
      const [countRow, roles] = await Promise.all([
        base.select(sql<number>`count(*)::int`.as('count')).executeTakeFirstOrThrow(),
        base.select(['role.id', 'role.libelle']).orderBy('role.libelle', q.sort.direction).orderBy('role.id', q.sort.direction).limit(limit).offset(offset).execute(),
      ]);
      return { count: countRow.count, roles };
    },

    find: (id: number, trx: Db = db) => trx.selectFrom('role').where('id', '=', id).select(['id', 'code', 'libelle']).executeTakeFirst(),

    agentsOf: (roleId: number) =>
      db
        .selectFrom('account_role')
        .innerJoin('account', 'account.id', 'account_role.account_id')
        .where('account_role.role_id', '=', roleId)
        .where('account.kind', '=', 'agent')
        .select(['account.id', 'account.prenom', 'account.nom', 'account.photo'])
        .orderBy('account.nom')
        .orderBy('account.prenom')
        .orderBy('account.id')
        .execute(),

    /** The subset of `ids` that are agents, and which of them are active. */
    async agentsAmong(trx: Db, ids: number[]) {
      if (ids.length === 0) return [];
      return trx.selectFrom('account').where('id', 'in', ids).where('kind', '=', 'agent').select(['id', 'actif']).execute();
    },

    /** Replaces the agents holding a role; external users' roles are left alone. */
    async replaceAgents(trx: Db, roleId: number, agentIds: number[]) {
      await trx
        .deleteFrom('account_role')
        .where('role_id', '=', roleId)
        .where('account_id', 'in', trx.selectFrom('account').select('id').where('kind', '=', 'agent'))
        .execute();
      if (agentIds.length > 0) await trx.insertInto('account_role').values(agentIds.map((account_id) => ({ account_id, role_id: roleId }))).execute();
    },

    /** Serialises concurrent changes of one role's holders (two admins saving at once). */
    lockRole: (trx: Db, roleId: number) => trx.selectFrom('role').where('id', '=', roleId).select('id').forUpdate().executeTakeFirst(),

    /** Agents whose first and last names contain every word typed, accents and case ignored. */
    searchAgents(name: string) {
      let q = db.selectFrom('account').where('kind', '=', 'agent');
      for (const word of name.split(/\s+/).filter(Boolean)) {
        q = q.where((eb) => eb.or([ilikeUnaccent(sql.ref('account.nom'), word), ilikeUnaccent(sql`coalesce(account.prenom, '')`, word)]));
      }
      return q.select(['id', 'prenom', 'nom', 'photo']).orderBy('nom').orderBy('prenom').orderBy('id').limit(AGENT_SEARCH_LIMIT).execute();
    },
  };
}
