// SQL of the administration of one intervention: its row as the tables show it, the locks of a
// correction or deletion, the writes and the audit trail. The tables themselves (walk, search,
// export) are intervention-list.ts, intervention-search.ts and intervention-export.ts.
import { sql } from 'kysely';
import type { Db } from '../../db/client.js';
import type { Row } from '../../db/schema.js';
import { rowsByIdsQuery, type InterventionListRecord } from './intervention-rows.js';

export function createInterventionsAdminRepository(db: Db) {
  return {
    /** One intervention as a table row (whatever filter), or undefined. */
    async findRow(id: number): Promise<InterventionListRecord | undefined> {
      return (await rowsByIdsQuery([id]).execute(db)).rows[0];
    },

    /** The stored row, locked for the change, with what the locks need. */
    async lockIntervention(id: number) {
      const { rows } = await sql<Omit<Row<'intervention'>, 'client_id' | 'created_at'>>`SELECT id, date, site_id, site_composteur_id, type_action_id, valeur_nombre, valeur_constante, valeur_texte, bac_destination_id,
          observations, intervenant_id, demande_intervention_id, modification_agent_id, modified_at
        FROM intervention WHERE id = ${id} FOR UPDATE`.execute(db);
      return rows[0];
    },

    /** Requests this intervention raised or processed, locked. */
    linkedDemandes(id: number) {
      return db
        .selectFrom('demande_intervention')
        .where((eb) => eb.or([eb('intervention_declenchante_id', '=', id), eb('intervention_realisee_id', '=', id)]))
        .select(['id', 'statut_id', 'type_action_programmee_id', 'intervention_declenchante_id', 'intervention_realisee_id'])
        .orderBy('id')
        .forUpdate()
        .execute();
    },

    async updateIntervention(
      id: number,
      values: Pick<Row<'intervention'>, 'date' | 'site_composteur_id' | 'type_action_id' | 'valeur_nombre' | 'valeur_constante' | 'valeur_texte' | 'bac_destination_id' | 'observations'> & {
        modification_agent_id: number;
      },
    ) {
      await db
        .updateTable('intervention')
        .set({ ...values, modified_at: sql<Date>`now()` })
        .where('id', '=', id)
        .execute();
    },

    async deleteIntervention(id: number) {
      await db.deleteFrom('intervention').where('id', '=', id).execute();
    },

    async audit(row: { intervention_id: number; action: 'update' | 'delete'; agent_id: number; agent_nom: string; before: unknown; after: unknown }) {
      await db
        .insertInto('intervention_audit')
        .values({ ...row, before: JSON.stringify(row.before), after: row.after === null ? null : JSON.stringify(row.after) })
        .execute();
    },

    async lastChange(interventionId: number) {
      return db
        .selectFrom('intervention_audit')
        .where('intervention_id', '=', interventionId)
        .select(['agent_nom', 'at', 'action'])
        .orderBy('id', 'desc')
        .limit(1)
        .executeTakeFirst();
    },
  };
}
