// SQL of the field entry: the site and cells an entry is recorded on, the action catalogue and
// request rules it is checked against, and the idempotent submission write. The interventions
// administration reads the site, its cells and the catalogue through this repository too (the
// tables' SQL is in interventions/intervention-list.ts). Write helpers take the
// transaction they run in.
import { sql, type RawBuilder } from 'kysely';
import type { Db } from '../../db/client.js';
import type { Row } from '../../db/schema.js';
import type { TypeAction } from '../../../shared/schemas/reference.js';
import { rulesJson, type Rule } from '../requests/public.js';

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

/** A site as the entry reads it, and whether the account is one of its referents. */
export type SiteFound = Pick<Row<'site'>, 'id' | 'code' | 'nom' | 'numero' | 'adresse' | 'cp' | 'ville'> & { idStatut: number; typeSite: string; isReferent: boolean };

export type SiteCell = Pick<Row<'site_composteur'>, 'id' | 'numero' | 'actif'> & { typeBac: number; libelleTypeBac: string; volume: number };

/** The columns of SiteFound, on `site s` joined to `type_site ts`. */
const siteColumns = (accountId: number) => sql`s.id, s.code, s.nom, s.numero, s.adresse, s.cp, s.ville, s.statut_id AS "idStatut", ts.libelle AS "typeSite",
  EXISTS (SELECT FROM site_referent sr WHERE sr.site_id = s.id AND sr.account_id = ${accountId}) AS "isReferent"`;

/** The cells of a site as a JSON array of SiteCell, by number. */
const cellsOf = (siteId: RawBuilder<unknown>) => sql`(
  SELECT coalesce(json_agg(json_build_object('id', sc.id, 'numero', sc.numero, 'typeBac', sc.type_bac_id, 'libelleTypeBac', tb.libelle,
                                             'volume', tc.volume, 'actif', sc.actif) ORDER BY sc.numero, sc.id), '[]'::json)
  FROM site_composteur sc JOIN type_bac tb ON tb.id = sc.type_bac_id JOIN type_composteur tc ON tc.id = sc.type_composteur_id
  WHERE sc.site_id = ${siteId})`;

export function createFieldEntryRepository(db: Db) {
  return {
    /** Runs fn in one transaction; build a repository on the given connection to use it. */
    transaction<T>(fn: (tx: Db) => Promise<T>): Promise<T> {
      return db.transaction().execute((tx) => fn(tx));
    },

    /** The site, and whether the account is one of its referents. */
    async findSite(id: number, accountId = 0): Promise<SiteFound | undefined> {
      const { rows } = await sql<SiteFound>`SELECT ${siteColumns(accountId)} FROM site s JOIN type_site ts ON ts.id = s.type_site_id WHERE s.id = ${id}`.execute(db);
      return rows[0];
    },

    /** Every cell of the site, inactive ones included so that a stale phone gets a precise error. */
    async siteCells(siteId: number): Promise<SiteCell[]> {
      const { rows } = await sql<{ cells: SiteCell[] }>`SELECT ${cellsOf(sql`${siteId}::int`)} AS cells`.execute(db);
      return rows[0].cells;
    },

    /**
     * The first statement of an entry's transaction: takes the clientId (false when another post
     * already holds it; on PostgreSQL a concurrent transaction holding the same id makes this
     * wait for its end), and reads what the entry is checked against: the site as findSite does,
     * its cells as siteCells does, and the request rules of the entry's actions.
     */
    async claimAndRead(row: { client_id: string; account_id: number; payload_hash: string }, siteId: number, actionIds: number[]) {
      const { rows } = await sql<{ claimed: boolean; cells: SiteCell[] | null; rules: Rule[] } & SiteFound>`
        WITH claim AS (
          INSERT INTO intervention_submission (client_id, account_id, payload_hash, result)
          VALUES (${row.client_id}, ${row.account_id}, ${row.payload_hash}, 'null')
          ON CONFLICT (client_id) DO NOTHING RETURNING client_id)
        SELECT EXISTS (SELECT FROM claim) AS claimed, ${siteColumns(row.account_id)},
          ${cellsOf(sql`s.id`)} AS cells, ${rulesJson(actionIds)} AS rules
        FROM (VALUES (1)) one (x)
        LEFT JOIN site s ON s.id = ${siteId}
        LEFT JOIN type_site ts ON ts.id = s.type_site_id`.execute(db);
      const { claimed, cells, rules, ...site } = rows[0];
      return { claimed, site: site.id === null ? undefined : site, cells: cells ?? [], rules };
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

    async setSubmissionResult(clientId: string, result: unknown) {
      await db.updateTable('intervention_submission').set({ result: JSON.stringify(result) }).where('client_id', '=', clientId).execute();
    },

    /**
     * The entry's rows, and in the same statement the submission's stored answer: `answer` with
     * their ids as `interventions`. The rows' summaries are locked from this statement to the
     * commit, so the answer is not a statement of its own in between. Ids come back in the order
     * of the rows given (one statement numbers its rows in order).
     */
    async insertInterventions(rows: NewIntervention[], clientId: string, answer: object): Promise<number[]> {
      const stored = await db
        .with('inserted', (w) => w.insertInto('intervention').values(rows).returning('id'))
        .updateTable('intervention_submission')
        .set({ result: sql<string>`jsonb_set(${JSON.stringify(answer)}::jsonb, '{interventions}', (SELECT jsonb_agg(id ORDER BY id) FROM inserted))` })
        .where('client_id', '=', clientId)
        .returning(sql<number[]>`(SELECT array_agg(id ORDER BY id) FROM inserted)`.as('ids'))
        .executeTakeFirstOrThrow();
      return stored.ids;
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
