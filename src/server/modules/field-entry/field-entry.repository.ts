// SQL of the field entry: the site and cells an entry is recorded on, the action catalogue and
// request rules it is checked against, and the idempotent submission write. The interventions
// administration reads the site, its cells and the catalogue through this repository too (the
// tables' SQL is in interventions/intervention-list.ts). Write helpers take the
// transaction they run in.
import type { Db } from '../../db/client.js';
import type { Row } from '../../db/schema.js';
import type { TypeAction } from '../../../shared/schemas/reference.js';

import { STATUT_REALISEE } from '../../../shared/domain.js';

/** An entry from the phone: always with the id the phone gave it. */
export type NewIntervention = Pick<
  Row<'intervention'>,
  | 'date'
  | 'site_id'
  | 'site_composteur_id'
  | 'type_action_id'
  | 'valeur_nombre'
  | 'valeur_constante'
  | 'valeur_texte'
  | 'bac_destination_id'
  | 'observations'
  | 'intervenant_id'
  | 'demande_intervention_id'
> & { client_id: string };

export function createFieldEntryRepository(db: Db) {
  return {
    /** Runs fn in one transaction; build a repository on the given connection to use it. */
    transaction<T>(fn: (tx: Db) => Promise<T>): Promise<T> {
      return db.transaction().execute((tx) => fn(tx));
    },

    /** The site, and whether the account is one of its referents (one round trip on the add path). */
    findSite(id: number, accountId = 0) {
      return db
        .selectFrom('site as s')
        .innerJoin('type_site as ts', 'ts.id', 's.type_site_id')
        .where('s.id', '=', id)
        .select((eb) => [
          's.id',
          's.code',
          's.nom',
          's.numero',
          's.adresse',
          's.cp',
          's.ville',
          's.statut_id as idStatut',
          'ts.libelle as typeSite',
          eb
            .exists(eb.selectFrom('site_referent as sr').whereRef('sr.site_id', '=', 's.id').where('sr.account_id', '=', accountId).select('sr.site_id'))
            .as('isReferent'),
        ])
        .executeTakeFirst();
    },

    /** Every cell of the site, inactive ones included so that a stale phone gets a precise error. */
    siteCells(siteId: number) {
      return db
        .selectFrom('site_composteur as sc')
        .innerJoin('type_bac as tb', 'tb.id', 'sc.type_bac_id')
        .innerJoin('type_composteur as tc', 'tc.id', 'sc.type_composteur_id')
        .where('sc.site_id', '=', siteId)
        .select(['sc.id', 'sc.numero', 'sc.type_bac_id as typeBac', 'tb.libelle as libelleTypeBac', 'tc.volume', 'sc.actif'])
        .orderBy('sc.numero')
        .orderBy('sc.id')
        .execute();
    },

    async actionCatalogue(): Promise<Pick<TypeAction, 'id' | 'valueKind' | 'typeBac'>[]> {
      const [actions, bacs] = await Promise.all([
        db.selectFrom('type_action').select(['id', 'value_kind']).orderBy('id').execute(),
        db.selectFrom('type_action_type_bac').select(['type_action_id', 'type_bac_id']).execute(),
      ]);
      return actions.map((a) => ({
        id: a.id,
        valueKind: a.value_kind as TypeAction['valueKind'],
        typeBac: bacs.filter((b) => b.type_action_id === a.id).map((b) => b.type_bac_id),
      }));
    },

    allConstantes() {
      return db.selectFrom('type_action_constante').select(['id_constante as idConstante', 'id_action as idAction']).execute();
    },

    findSubmission(clientId: string) {
      return db.selectFrom('intervention_submission').where('client_id', '=', clientId).select(['account_id', 'payload_hash', 'result']).executeTakeFirst();
    },

    /**
     * Takes the clientId for this transaction; false when another post already holds it. On
     * PostgreSQL a concurrent transaction holding the same id makes this wait for its end.
     */
    async claimSubmission(row: { client_id: string; account_id: number; payload_hash: string }): Promise<boolean> {
      const inserted = await db
        .insertInto('intervention_submission')
        .values({ ...row, result: 'null' })
        .onConflict((oc) => oc.column('client_id').doNothing())
        .returning('client_id')
        .executeTakeFirst();
      return inserted !== undefined;
    },

    async setSubmissionResult(clientId: string, result: unknown) {
      await db.updateTable('intervention_submission').set({ result: JSON.stringify(result) }).where('client_id', '=', clientId).execute();
    },

    /** One multi-row insert; ids come back in the order of the rows given. */
    async insertInterventions(rows: NewIntervention[]): Promise<number[]> {
      const inserted = await db.insertInto('intervention').values(rows).returning('id').execute();
      return inserted.map((r) => r.id);
    },

    async markDemandeDone(demandeId: number, interventionId: number) {
      await db
        .updateTable('demande_intervention')
        .set({ statut_id: STATUT_REALISEE, intervention_realisee_id: interventionId })
        .where('id', '=', demandeId)
        .execute();
    },

  };
}

export type FieldEntryRepository = ReturnType<typeof createFieldEntryRepository>;
