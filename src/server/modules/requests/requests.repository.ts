// SQL of the intervention requests: the pending board, the history, the status changes
// (cancel, schedule) and the request rules table. The board and the history page on the
// requests alone (ids in the page's order, requests-pagers.ts), then read the page's cards.
import { sql, type Kysely, type RawBuilder, type SqlBool } from 'kysely';
import type { Database } from '../../db/schema.js';
import type { Db } from '../../db/client.js';
import { intArray } from '../../db/list.js';
import { planOnce } from '../../db/plan-once.js';
import { PENDING_STATUTS, STATUT_ANNULEE, STATUT_PROGRAMMEE, type DemandeRuleInput, type HistoryQuery, type PendingListQuery } from '../../../shared/schemas/requests.js';
import { boardPage, historyPage, type PagerOptions, type RequestPage } from './requests-pagers.js';

const PARIS_TODAY = sql<string>`to_char((now() AT TIME ZONE 'Europe/Paris')::date, 'YYYY-MM-DD')`;

/** Name of an account as the tables show it: 'NOM Prénom'. */
const personName = (alias: string) => sql<string | null>`trim(${sql.ref(`${alias}.nom`)} || ' ' || coalesce(${sql.ref(`${alias}.prenom`)}, ''))`;

export interface LinkedRecord {
  id: number;
  date: Date | string;
  intervenant: string;
  idAction: number;
  typeAction: string;
  valeurNombre: string | number | null;
  constante: string | null;
  valeurTexte: string | null;
  destinationNumeroBac: number | null;
  observations: string | null;
}

/** Everything a card (and a history row) shows of a request. */
export interface CardRecord {
  id: number;
  idStatut: number;
  statut: string;
  dateEcheance: Date | string;
  dateProgrammee: Date | string | null;
  programmationKind: 'user' | 'agent' | null;
  programmation: string | null;
  idInterventionDeclenchante: number | null;
  dateDeclenchement: Date | string | null;
  idAction: number | null;
  actionDeclenchante: string | null;
  intervenantKind: 'user' | 'agent' | null;
  intervenant: string | null;
  idActionProgrammee: number;
  actionProgrammee: string;
  idSite: number;
  site: string;
  adresse: string;
  valeurNombre: string | number | null;
  constante: string | null;
  valeurTexte: string | null;
  destinationNumeroBac: number | null;
  destinationIdBac: number | null;
  idBac: number;
  numero: number;
  nbSignalements: number;
  idDernierSignalement: number | null;
  /** The later entries that called for it again (demande_signalement), by date. */
  idSignalementsSuivants: number[];
  delaiJours: number;
  dateCreation: Date | string;
  dateAnnulation: Date | string | null;
  annuleePar: string | null;
  motifAnnulation: string | null;
  idRealisee: number | null;
}

/**
 * The cards of these requests, in the order of `ids`. Signals: the trigger, if still there,
 * and the later entries of demande_signalement; the latest is the one with the latest date.
 * The delay is the one the request was raised with (its due date minus its trigger's date).
 */
function cardsQuery(ids: number[]) {
  // Four relations joined, every other label read by a scalar subquery on its primary key: with
  // a dozen joined tables PostgreSQL spent 50-60 ms choosing a join order for a 20-row page whose
  // execution takes 2 ms (each label is one index lookup per row either way).
  const label = (table: string, column: string, key: RawBuilder<unknown>) =>
    sql`(SELECT ${sql.ref(`l.${column}`)} FROM ${sql.table(table)} l WHERE l.id = ${key})`;
  const person = (key: RawBuilder<unknown>) => sql<string | null>`(SELECT ${personName('l')} FROM account l WHERE l.id = ${key})`;
  // One text for any page (the ids as one array), planned once per connection: see plan-once.ts.
  return planOnce(sql<CardRecord>`SELECT d.id, d.statut_id AS "idStatut", ${label('statut', 'libelle', sql`d.statut_id`)} AS statut, d.date_echeance AS "dateEcheance",
      d.date_programmee AS "dateProgrammee", ${label('account', 'kind', sql`d.programme_par_id`)} AS "programmationKind", ${person(sql`d.programme_par_id`)} AS programmation,
      i.id AS "idInterventionDeclenchante", i.date AS "dateDeclenchement", i.type_action_id AS "idAction", ${label('type_action', 'libelle', sql`i.type_action_id`)} AS "actionDeclenchante",
      ${label('account', 'kind', sql`i.intervenant_id`)} AS "intervenantKind", ${person(sql`i.intervenant_id`)} AS intervenant,
      d.type_action_programmee_id AS "idActionProgrammee", ${label('type_action', 'libelle', sql`d.type_action_programmee_id`)} AS "actionProgrammee",
      d.site_id AS "idSite", coalesce(nullif(s.nom, ''), s.code) AS site,
      trim(coalesce(s.numero || ' ', '') || s.adresse || ', ' || s.cp || ' ' || s.ville) AS adresse,
      i.valeur_nombre AS "valeurNombre",
      (SELECT c.constante FROM type_action_constante c WHERE c.id_action = i.type_action_id AND c.id_constante = i.valeur_constante) AS constante,
      i.valeur_texte AS "valeurTexte",
      ${label('site_composteur', 'numero', sql`i.bac_destination_id`)} AS "destinationNumeroBac", i.bac_destination_id AS "destinationIdBac",
      d.site_composteur_id AS "idBac", ${label('site_composteur', 'numero', sql`d.site_composteur_id`)} AS numero,
      (i.id IS NOT NULL)::int + (SELECT count(*)::int FROM demande_signalement ds WHERE ds.demande_intervention_id = d.id) AS "nbSignalements",
      (SELECT x.id FROM (
          SELECT i.id, i.date WHERE i.id IS NOT NULL
          UNION ALL
          SELECT li.id, li.date FROM demande_signalement ds JOIN intervention li ON li.id = ds.intervention_id WHERE ds.demande_intervention_id = d.id
        ) x ORDER BY x.date DESC, x.id DESC LIMIT 1) AS "idDernierSignalement",
      ARRAY(SELECT li.id FROM demande_signalement ds JOIN intervention li ON li.id = ds.intervention_id WHERE ds.demande_intervention_id = d.id
        ORDER BY li.date, li.id) AS "idSignalementsSuivants",
      greatest(1, round(extract(epoch FROM d.date_echeance - coalesce(i.date, d.date_creation)) / 86400))::int AS "delaiJours",
      d.date_creation AS "dateCreation", d.date_annulation AS "dateAnnulation", ${person(sql`d.annulee_par_id`)} AS "annuleePar",
      d.motif_annulation AS "motifAnnulation", d.intervention_realisee_id AS "idRealisee"
    FROM unnest(${intArray(ids)}) WITH ORDINALITY AS p(id, n)
    JOIN demande_intervention d ON d.id = p.id
    JOIN site s ON s.id = d.site_id
    LEFT JOIN intervention i ON i.id = d.intervention_declenchante_id
    ORDER BY p.n`);
}

export function createRequestsRepository(db: Db | Kysely<Database>) {
  async function cards(ids: number[]) {
    if (ids.length === 0) return [];
    return (await cardsQuery(ids).execute(db)).rows;
  }

  async function withCards(page: RequestPage) {
    const [count, rows] = await Promise.all([page.count, page.ids.then(cards)]);
    return { count, rows };
  }

  return {
    cards,

    /** A page of the board, or of the history (requests-pagers.ts), with its cards: read while the count still runs. */
    async pendingList(q: PendingListQuery, opts?: PagerOptions) {
      return withCards(boardPage(db, q, opts));
    },

    async history(q: HistoryQuery, opts?: PagerOptions) {
      return withCards(historyPage(db, q, opts));
    },

    /** Sites with at least one pending request, by name in natural order. */
    pendingSites() {
      return db
        .selectFrom('demande_intervention as d')
        .innerJoin('site as s', 's.id', 'd.site_id')
        .where('d.statut_id', 'in', [...PENDING_STATUTS])
        .groupBy(['s.id', 's.nom', 's.code', 's.ville', sql`s.nom_tri`])
        .select(['s.id', sql<string>`coalesce(nullif(s.nom, ''), s.code)`.as('site'), 's.ville', sql<number>`count(*)::int`.as('count')])
        .orderBy(sql`s.nom_tri`)
        .orderBy('s.id')
        .execute();
    },

    /** The interventions linked to a page of cards or history rows, by id (planned once: plan-once.ts). */
    async linkedInterventions(ids: number[]): Promise<LinkedRecord[]> {
      if (ids.length === 0) return [];
      const { rows } = await planOnce(sql<LinkedRecord>`SELECT i.id, i.date, ${personName('a')} AS intervenant, i.type_action_id AS "idAction",
          t.libelle AS "typeAction", i.valeur_nombre AS "valeurNombre", c.constante, i.valeur_texte AS "valeurTexte",
          dest.numero AS "destinationNumeroBac", i.observations
        FROM intervention i
        JOIN type_action t ON t.id = i.type_action_id
        JOIN account a ON a.id = i.intervenant_id
        LEFT JOIN type_action_constante c ON c.id_action = i.type_action_id AND c.id_constante = i.valeur_constante
        LEFT JOIN site_composteur dest ON dest.id = i.bac_destination_id
        WHERE i.id = ANY(${intArray(ids)})`).execute(db);
      return rows;
    },

    /**
     * The named requests, locked until the transaction ends: two people acting on one request
     * are served one after the other, the second sees what the first did. With the Paris day
     * of the due date and today's, for the scheduling bounds.
     */
    async lockForChange(ids: number[]) {
      const { rows } = await sql<{ id: number; siteId: number; idStatut: number; dueDay: string; today: string; delaiJours: number }>`
        SELECT d.id, d.site_id AS "siteId", d.statut_id AS "idStatut",
          to_char((d.date_echeance AT TIME ZONE 'Europe/Paris')::date, 'YYYY-MM-DD') AS "dueDay", ${PARIS_TODAY} AS today,
          greatest(1, round(extract(epoch FROM d.date_echeance - coalesce(
            (SELECT i.date FROM intervention i WHERE i.id = d.intervention_declenchante_id), d.date_creation)) / 86400))::int AS "delaiJours"
        FROM demande_intervention d WHERE d.id IN (${sql.join(ids)})
        ORDER BY d.id
        FOR UPDATE OF d`.execute(db);
      return rows;
    },

    /**
     * Whether what a screen showed of a request (its due date, its scheduled action's id or
     * label) is no longer the stored request. Instants compare to the millisecond (what a
     * JavaScript date carries), a plain day to the due day in Paris; absent values match.
     */
    async differsFrom(id: number, dateEcheance: string | null, actionProgrammee: number | string | null) {
      if (dateEcheance === null && actionProgrammee === null) return false;
      const parts: RawBuilder<SqlBool>[] = [];
      if (dateEcheance !== null) {
        parts.push(
          /^\d{4}-\d{2}-\d{2}$/.test(dateEcheance)
            ? sql<SqlBool>`to_char((d.date_echeance AT TIME ZONE 'Europe/Paris')::date, 'YYYY-MM-DD') = ${dateEcheance}`
            : sql<SqlBool>`date_trunc('milliseconds', d.date_echeance) = date_trunc('milliseconds', ${dateEcheance}::timestamptz)`,
        );
      }
      if (typeof actionProgrammee === 'number') parts.push(sql<SqlBool>`d.type_action_programmee_id = ${actionProgrammee}`);
      else if (actionProgrammee !== null) parts.push(sql<SqlBool>`t.libelle = ${actionProgrammee.trim()}`);
      const { rows } = await sql<{ same: boolean }>`SELECT (${sql.join(parts, sql` AND `)}) AS same
        FROM demande_intervention d JOIN type_action t ON t.id = d.type_action_programmee_id WHERE d.id = ${id}`.execute(db);
      return rows[0]?.same !== true;
    },

    /** Cancels these requests with one reason (null: none given); says how many rows changed. */
    async cancel(ids: number[], accountId: number, motif: string | null) {
      const r = await db
        .updateTable('demande_intervention')
        .set({ statut_id: STATUT_ANNULEE, date_annulation: sql<Date>`now()`, annulee_par_id: accountId, motif_annulation: motif })
        .where('id', 'in', ids)
        .executeTakeFirst();
      return Number(r.numUpdatedRows);
    },

    async schedule(id: number, day: string, accountId: number) {
      await db
        .updateTable('demande_intervention')
        .set({
          statut_id: STATUT_PROGRAMMEE,
          // Midnight of that day in Paris: shown back as the same day whatever the reader's zone.
          date_programmee: sql<Date>`(${day}::date)::timestamp AT TIME ZONE 'Europe/Paris'`,
          programme_par_id: accountId,
        })
        .where('id', '=', id)
        .execute();
    },

    // ---- Rules ----

    rules() {
      return db
        .selectFrom('demande_rule as r')
        .innerJoin('type_action as td', 'td.id', 'r.type_action_declenchante_id')
        .innerJoin('type_action as tp', 'tp.id', 'r.type_action_programmee_id')
        .leftJoin('type_action_constante as c', (j) => j.onRef('c.id_action', '=', 'r.type_action_declenchante_id').onRef('c.id_constante', '=', 'r.id_constante'))
        .select([
          'r.id',
          'r.type_action_declenchante_id as idActionDeclenchante',
          'td.libelle as actionDeclenchante',
          'r.id_constante as idConstante',
          'c.constante',
          'r.type_action_programmee_id as idActionProgrammee',
          'tp.libelle as actionProgrammee',
          'r.delai_jours as delaiJours',
        ])
        .orderBy('r.type_action_declenchante_id')
        .orderBy('r.id_constante')
        .orderBy('r.id')
        .execute();
    },

    findRule(id: number) {
      return db.selectFrom('demande_rule').where('id', '=', id).select(['id']).executeTakeFirst();
    },

    /** Rule changes one at a time: the duplicate and loop checks see every other rule. */
    async lockRules() {
      await sql`LOCK TABLE demande_rule IN SHARE ROW EXCLUSIVE MODE`.execute(db);
    },

    /** Cell types each action is allowed on, and the constants of each action. */
    async catalogue() {
      const [actions, cells, constantes] = await Promise.all([
        db.selectFrom('type_action').select(['id', 'libelle']).execute(),
        db.selectFrom('type_action_type_bac').select(['type_action_id as action', 'type_bac_id as typeBac']).execute(),
        db.selectFrom('type_action_constante').select(['id_constante as idConstante', 'id_action as idAction']).execute(),
      ]);
      return { actions, cells, constantes };
    },

    async addRule(input: DemandeRuleInput) {
      const row = await db
        .insertInto('demande_rule')
        .values({
          type_action_declenchante_id: input.actionDeclenchante,
          id_constante: input.constante,
          type_action_programmee_id: input.actionProgrammee,
          delai_jours: input.delaiJours,
        })
        .returning('id')
        .executeTakeFirstOrThrow();
      return row.id;
    },

    async updateRule(id: number, input: DemandeRuleInput) {
      const r = await db
        .updateTable('demande_rule')
        .set({
          type_action_declenchante_id: input.actionDeclenchante,
          id_constante: input.constante,
          type_action_programmee_id: input.actionProgrammee,
          delai_jours: input.delaiJours,
        })
        .where('id', '=', id)
        .executeTakeFirst();
      return Number(r.numUpdatedRows) > 0;
    },

    async deleteRule(id: number) {
      const r = await db.deleteFrom('demande_rule').where('id', '=', id).executeTakeFirst();
      return Number(r.numDeletedRows) > 0;
    },

    transaction<T>(fn: (tx: Kysely<Database>) => Promise<T>) {
      return db.transaction().execute(fn);
    },
  };
}

export type RequestsRepository = ReturnType<typeof createRequestsRepository>;
