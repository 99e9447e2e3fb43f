// SQL of a request's life beside its triggers (request-lifecycle.service.ts): the rules an
// entry matches, the pending request of a cell and scheduled action, the later entries that
// called for it (demande_signalement, migration 019), and the moves, cancellations and
// deletions that keep a request in step with its triggers. Every function runs in the
// caller's transaction; the locks it takes last until that transaction ends.
import { sql } from 'kysely';
import type { Db } from '../../db/client.js';
import { PENDING_STATUTS, STATUT_ANNULEE, STATUT_EN_ATTENTE } from '../../../shared/schemas/requests.js';

const PENDING = sql.join(PENDING_STATUTS.map((s) => sql.lit(s)));

/** A request an intervention called for: as its trigger (`first`) or as a later entry. */
export interface SignalRow {
  id: number;
  statut: number;
  cell: number;
  programmee: number;
  /** The request's due date. */
  due: Date;
  first: boolean;
  /** The due date this entry alone gave (later entries only). */
  signalDue: Date | null;
}

/** A request named by a block that processes it, with what the block must match. */
export interface ProcessedRow {
  id: number;
  siteId: number;
  statut: number;
  cell: number;
  numero: number;
  programmee: number;
  actionProgrammee: string;
  /** Destination of the triggering transfer, where processing is prefilled (and may be recorded). */
  destination: number | null;
  destinationNumero: number | null;
}

/** A rule as the lifecycle applies it: `action` with `constante` (any when null) calls for `programmee` within `delai` days. */
export interface Rule {
  action: number;
  constante: number | null;
  programmee: number;
  delai: number;
}

/**
 * The rules for these triggering actions, oldest first, as an expression giving a JSON array of
 * Rule: a caller may read them within a statement of its own (one round trip fewer).
 */
export function rulesJson(actionIds: number[]) {
  const ids = actionIds.length === 0 ? sql`NULL` : sql.join([...new Set(actionIds)].map((id) => sql`${id}::int`));
  return sql<Rule[]>`(
    SELECT coalesce(json_agg(json_build_object('action', type_action_declenchante_id, 'constante', id_constante,
                                               'programmee', type_action_programmee_id, 'delai', delai_jours) ORDER BY id), '[]'::json)
    FROM demande_rule WHERE type_action_declenchante_id IN (${ids}))`;
}

export function createRequestLifecycleRepository(db: Db) {
  return {
    /** The rules for these triggering actions, oldest first. */
    async rulesFor(actionIds: number[]): Promise<Rule[]> {
      if (actionIds.length === 0) return [];
      return (await sql<{ rules: Rule[] }>`SELECT ${rulesJson(actionIds)} AS rules`.execute(db)).rows[0].rules;
    },

    /**
     * Serialises the writers of these cells' requests: two entries on one bin cannot both find
     * no pending request and raise one each. NO KEY UPDATE does not block the foreign key
     * checks of interventions inserted on the cell meanwhile.
     */
    async lockCells(ids: number[]) {
      if (ids.length === 0) return;
      await sql`SELECT id FROM site_composteur WHERE id IN (${sql.join(ids)}) ORDER BY id FOR NO KEY UPDATE`.execute(db);
    },

    /** Requests named by blocks that process them, locked. */
    async lockProcessed(ids: number[]): Promise<ProcessedRow[]> {
      if (ids.length === 0) return [];
      const { rows } = await sql<ProcessedRow>`
        SELECT d.id, d.site_id AS "siteId", d.statut_id AS statut, d.site_composteur_id AS cell, sc.numero,
          d.type_action_programmee_id AS programmee, ta.libelle AS "actionProgrammee",
          i.bac_destination_id AS destination, dest.numero AS "destinationNumero"
        FROM demande_intervention d
        JOIN site_composteur sc ON sc.id = d.site_composteur_id
        JOIN type_action ta ON ta.id = d.type_action_programmee_id
        LEFT JOIN intervention i ON i.id = d.intervention_declenchante_id
        LEFT JOIN site_composteur dest ON dest.id = i.bac_destination_id
        WHERE d.id IN (${sql.join(ids)})
        ORDER BY d.id
        FOR UPDATE OF d`.execute(db);
      return rows;
    },

    /** The pending request of a cell and scheduled action (the earliest due when older data holds several), locked. */
    async findPending(cell: number, programmee: number) {
      const { rows } = await sql<{ id: number; trigger: number | null }>`
        SELECT id, intervention_declenchante_id AS trigger FROM demande_intervention
        WHERE site_composteur_id = ${cell} AND type_action_programmee_id = ${programmee} AND statut_id IN (${PENDING})
        ORDER BY date_echeance, id LIMIT 1
        FOR UPDATE`.execute(db);
      return rows[0];
    },

    async insertRequest(row: { site: number; cell: number; programmee: number; trigger: number; due: Date }) {
      const inserted = await db
        .insertInto('demande_intervention')
        .values({
          site_id: row.site,
          site_composteur_id: row.cell,
          statut_id: STATUT_EN_ATTENTE,
          type_action_programmee_id: row.programmee,
          intervention_declenchante_id: row.trigger,
          date_echeance: row.due,
        })
        .returning('id')
        .executeTakeFirstOrThrow();
      return inserted.id;
    },

    /** A later entry calling for a pending request (once per entry). */
    async addSignal(demandeId: number, interventionId: number, due: Date) {
      await sql`INSERT INTO demande_signalement (demande_intervention_id, intervention_id, date_echeance)
        VALUES (${demandeId}, ${interventionId}, ${due}) ON CONFLICT DO NOTHING`.execute(db);
    },

    /** Every request this intervention called for, whatever its status, locked. */
    async signalsOf(interventionId: number): Promise<SignalRow[]> {
      const { rows } = await sql<SignalRow>`
        SELECT d.id, d.statut_id AS statut, d.site_composteur_id AS cell, d.type_action_programmee_id AS programmee,
          d.date_echeance AS due, d.intervention_declenchante_id IS NOT DISTINCT FROM ${interventionId} AS first,
          ds.date_echeance AS "signalDue"
        FROM demande_intervention d
        LEFT JOIN demande_signalement ds ON ds.demande_intervention_id = d.id AND ds.intervention_id = ${interventionId}
        WHERE d.intervention_declenchante_id = ${interventionId}
          OR d.id IN (SELECT s.demande_intervention_id FROM demande_signalement s WHERE s.intervention_id = ${interventionId})
        ORDER BY d.id
        FOR UPDATE OF d`.execute(db);
      return rows.map((r) => ({ ...r, due: new Date(r.due), signalDue: r.signalDue === null ? null : new Date(r.signalDue) }));
    },

    /** The earliest later entry of a request (by its date), which takes the trigger's place when that one goes. */
    async earliestSignal(demandeId: number) {
      const { rows } = await sql<{ interventionId: number; due: Date }>`
        SELECT ds.intervention_id AS "interventionId", ds.date_echeance AS due
        FROM demande_signalement ds JOIN intervention i ON i.id = ds.intervention_id
        WHERE ds.demande_intervention_id = ${demandeId}
        ORDER BY i.date, i.id LIMIT 1`.execute(db);
      return rows[0];
    },

    async hasSignals(demandeId: number) {
      const { rows } = await sql<{ n: number }>`SELECT count(*)::int AS n FROM demande_signalement WHERE demande_intervention_id = ${demandeId}`.execute(db);
      return rows[0].n > 0;
    },

    async removeSignal(demandeId: number, interventionId: number) {
      await sql`DELETE FROM demande_signalement WHERE demande_intervention_id = ${demandeId} AND intervention_id = ${interventionId}`.execute(db);
    },

    /** The later entry becomes the request's trigger, with the due date it gave. */
    async promote(demandeId: number, interventionId: number, due: Date) {
      await sql`DELETE FROM demande_signalement WHERE demande_intervention_id = ${demandeId} AND intervention_id = ${interventionId}`.execute(db);
      await db.updateTable('demande_intervention').set({ intervention_declenchante_id: interventionId, date_echeance: due }).where('id', '=', demandeId).execute();
    },

    async setDue(demandeId: number, due: Date) {
      await db.updateTable('demande_intervention').set({ date_echeance: due }).where('id', '=', demandeId).execute();
    },

    async setSignalDue(demandeId: number, interventionId: number, due: Date) {
      await sql`UPDATE demande_signalement SET date_echeance = ${due} WHERE demande_intervention_id = ${demandeId} AND intervention_id = ${interventionId}`.execute(db);
    },

    /** The request follows its trigger to another cell (of the same site). */
    async move(demandeId: number, cell: number, due: Date) {
      await db.updateTable('demande_intervention').set({ site_composteur_id: cell, date_echeance: due }).where('id', '=', demandeId).execute();
    },

    async cancel(ids: number[], accountId: number) {
      if (ids.length === 0) return;
      await db
        .updateTable('demande_intervention')
        .set({ statut_id: STATUT_ANNULEE, date_annulation: sql<Date>`now()`, annulee_par_id: accountId })
        .where('id', 'in', ids)
        .execute();
    },

    async deleteRequest(id: number) {
      await db.deleteFrom('demande_intervention').where('id', '=', id).execute();
    },
  };
}

export type RequestLifecycleRepository = ReturnType<typeof createRequestLifecycleRepository>;
