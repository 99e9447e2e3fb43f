// SQL of the interventions domain: the site and cells an entry is recorded on, the action
// catalogue and request rules it is checked against, the idempotent submission write, and the
// per-site and administrators' lists. Write helpers take the transaction they run in.
import { sql, type RawBuilder } from 'kysely';
import type { Db } from '../../db/client.js';
import { ilikeUnaccent, pageOf } from '../../db/list.js';
import type { AdminInterventionListQuery, SiteInterventionListQuery } from '../../../shared/schemas/interventions.js';
import type { TypeAction } from '../../../shared/schemas/reference.js';

export const STATUT_SITE_ACTIF = 1;
export const STATUT_EN_ATTENTE = 3;
export const STATUT_PROGRAMMEE = 4;
export const STATUT_REALISEE = 5;

export interface NewIntervention {
  client_id: string;
  date: Date;
  site_id: number;
  site_composteur_id: number;
  type_action_id: number;
  valeur_nombre: number | null;
  valeur_constante: number | null;
  valeur_texte: string | null;
  bac_destination_id: number | null;
  observations: string | null;
  intervenant_id: number;
  demande_intervention_id: number | null;
}

export interface NewDemande {
  site_id: number;
  site_composteur_id: number;
  type_action_programmee_id: number;
  intervention_declenchante_id: number;
  date_echeance: Date;
}

/** A stored intervention with everything its displayed value and table rows need. */
export interface InterventionRecord {
  id: number;
  date: Date;
  idAction: number;
  typeAction: string;
  typeBac: string;
  idTypeBac: number;
  numeroBac: number;
  valeurNombre: number | null;
  constante: string | null;
  valeurTexte: string | null;
  destinationNumeroBac: number | null;
  observations: string | null;
}

export interface AdminInterventionRecord extends InterventionRecord {
  intervenant: string;
  idSite: number;
  site: string;
}

/** The dd/MM/yyyy HH:mm text users see (Europe/Paris), which the date filter matches. */
const DATE_TEXT = sql<string>`to_char(i.date AT TIME ZONE 'Europe/Paris', 'DD/MM/YYYY HH24:MI')`;

const SORT_EXPR = {
  date: sql`i.date`,
  action: sql`f_unaccent(lower(ta.libelle))`,
  typeBac: sql`f_unaccent(lower(tb.libelle))`,
  numeroBac: sql`sc.numero`,
  site: sql`f_unaccent(lower(coalesce(nullif(s.nom, ''), s.code)))`,
  intervenant: sql`f_unaccent(lower(a.nom || ' ' || coalesce(a.prenom, '')))`,
} satisfies Record<string, RawBuilder<unknown>>;

type Sortable = keyof typeof SORT_EXPR;

export function createInterventionsRepository(db: Db) {
  /**
   * Interventions joined with what their rows show: action, cell, constant label, destination,
   * site and author. Public rows simply do not select the author's columns.
   */
  function baseRows() {
    return db
      .selectFrom('intervention as i')
      .innerJoin('type_action as ta', 'ta.id', 'i.type_action_id')
      .innerJoin('site_composteur as sc', 'sc.id', 'i.site_composteur_id')
      .innerJoin('type_bac as tb', 'tb.id', 'sc.type_bac_id')
      .innerJoin('site as s', 's.id', 'i.site_id')
      .innerJoin('account as a', 'a.id', 'i.intervenant_id')
      .leftJoin('type_action_constante as tac', (j) => j.onRef('tac.id_action', '=', 'i.type_action_id').onRef('tac.id_constante', '=', 'i.valeur_constante'))
      .leftJoin('site_composteur as dest', 'dest.id', 'i.bac_destination_id');
  }

  const RECORD_COLUMNS = [
    'i.id',
    'i.date',
    'i.type_action_id as idAction',
    'ta.libelle as typeAction',
    'tb.libelle as typeBac',
    'tb.id as idTypeBac',
    'sc.numero as numeroBac',
    'i.valeur_nombre as valeurNombre',
    'tac.constante as constante',
    'i.valeur_texte as valeurTexte',
    'dest.numero as destinationNumeroBac',
    'i.observations',
  ] as const;

  /** Ties broken by date then id so paging is stable. */
  function orderBy(sort: { name: Sortable; direction: 'asc' | 'desc' }) {
    const dir = sort.direction === 'desc' ? sql`DESC` : sql`ASC`;
    return sql`${SORT_EXPR[sort.name]} ${dir} NULLS LAST, i.date ${dir}, i.id ${dir}`;
  }

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

    rulesFor(actionIds: number[]) {
      if (actionIds.length === 0) return Promise.resolve([]);
      return db
        .selectFrom('demande_rule')
        .where('type_action_declenchante_id', 'in', actionIds)
        .select(['type_action_declenchante_id as action', 'id_constante as constante', 'type_action_programmee_id as programmee', 'delai_jours as delai'])
        .orderBy('id')
        .execute();
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

    /** Requests named by the blocks, locked so that two entries cannot process the same one. */
    lockDemandes(ids: number[]) {
      return db
        .selectFrom('demande_intervention')
        .where('id', 'in', ids)
        .select(['id', 'site_id as siteId', 'statut_id as idStatut'])
        .forUpdate()
        .execute();
    },

    /** One multi-row insert; ids come back in the order of the rows given. */
    async insertInterventions(rows: NewIntervention[]): Promise<number[]> {
      const inserted = await db.insertInto('intervention').values(rows).returning('id').execute();
      return inserted.map((r) => r.id);
    },

    async insertDemandes(rows: NewDemande[]): Promise<number[]> {
      if (rows.length === 0) return [];
      const inserted = await db
        .insertInto('demande_intervention')
        .values(rows.map((r) => ({ ...r, statut_id: STATUT_EN_ATTENTE })))
        .returning('id')
        .execute();
      return inserted.map((r) => r.id);
    },

    async markDemandeDone(demandeId: number, interventionId: number) {
      await db
        .updateTable('demande_intervention')
        .set({ statut_id: STATUT_REALISEE, intervention_realisee_id: interventionId })
        .where('id', '=', demandeId)
        .execute();
    },

    async listBySite(siteId: number, query: SiteInterventionListQuery): Promise<{ count: number; rows: InterventionRecord[] }> {
      let q = baseRows().where('i.site_id', '=', siteId);
      const f = query.filter;
      if (f.date) q = q.where(ilikeUnaccent(DATE_TEXT, f.date));
      if (f.action !== undefined) q = q.where('i.type_action_id', '=', f.action);
      if (f.typeBac !== undefined) q = q.where('sc.type_bac_id', '=', f.typeBac);
      if (f.numeroBac !== undefined) q = q.where('sc.numero', '=', f.numeroBac);
      const { limit, offset } = pageOf(query);
      const [count, rows] = await Promise.all([
        q.select(sql<number>`count(*)::int`.as('count')).executeTakeFirstOrThrow(),
        q.select(RECORD_COLUMNS).orderBy(orderBy(query.sort)).limit(limit).offset(offset).execute(),
      ]);
      return { count: count.count, rows };
    },

    async adminList(query: AdminInterventionListQuery): Promise<{ count: number; rows: AdminInterventionRecord[] }> {
      let q = baseRows();
      const f = query.filter;
      if (query.id !== undefined) q = q.where('i.site_id', '=', query.id);
      if (f.site !== undefined) q = q.where('i.site_id', '=', f.site);
      if (f.date) q = q.where(ilikeUnaccent(DATE_TEXT, f.date));
      if (f.action !== undefined) q = q.where('i.type_action_id', '=', f.action);
      const { limit, offset } = pageOf(query);
      const [count, rows] = await Promise.all([
        q.select(sql<number>`count(*)::int`.as('count')).executeTakeFirstOrThrow(),
        q
          .select(RECORD_COLUMNS)
          .select([
            sql<string>`trim(a.nom || ' ' || coalesce(a.prenom, ''))`.as('intervenant'),
            's.id as idSite',
            sql<string>`coalesce(nullif(s.nom, ''), s.code)`.as('site'),
          ])
          .orderBy(orderBy(query.sort))
          .limit(limit)
          .offset(offset)
          .execute(),
      ]);
      return { count: count.count, rows };
    },
  };
}

export type InterventionsRepository = ReturnType<typeof createInterventionsRepository>;
