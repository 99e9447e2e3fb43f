// SQL of the intervention requests: the pending board, the history, the status changes
// (cancel, schedule) and the request rules table.
import { sql, type Kysely, type RawBuilder } from 'kysely';
import type { Database } from '../../db/schema.js';
import type { Db } from '../../db/client.js';
import { pageOf } from '../../db/list.js';
import { PENDING_STATUTS, STATUT_ANNULEE, STATUT_PROGRAMMEE, type DemandeRuleInput, type HistoryQuery, type PendingListQuery } from '../../../shared/schemas/requests.js';

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

export function createRequestsRepository(db: Db | Kysely<Database>) {
  /** Pending requests with everything a card shows. */
  function pendingRows() {
    return db
      .selectFrom('demande_intervention as d')
      .innerJoin('statut as st', 'st.id', 'd.statut_id')
      .innerJoin('site as s', 's.id', 'd.site_id')
      .innerJoin('site_composteur as sc', 'sc.id', 'd.site_composteur_id')
      .innerJoin('type_action as tp', 'tp.id', 'd.type_action_programmee_id')
      .leftJoin('account as pa', 'pa.id', 'd.programme_par_id')
      .leftJoin('intervention as i', 'i.id', 'd.intervention_declenchante_id')
      .leftJoin('type_action as ti', 'ti.id', 'i.type_action_id')
      .leftJoin('account as ia', 'ia.id', 'i.intervenant_id')
      .leftJoin('type_action_constante as c', (j) => j.onRef('c.id_action', '=', 'i.type_action_id').onRef('c.id_constante', '=', 'i.valeur_constante'))
      .leftJoin('site_composteur as dest', 'dest.id', 'i.bac_destination_id')
      .where('d.statut_id', 'in', [...PENDING_STATUTS]);
  }

  return {
    async pendingList(q: PendingListQuery) {
      // Count and page on the requests and their sites only, then read the 20 cards' details:
      // the joins of a card then run for one page, not for every pending request.
      let pendingOnly = db.selectFrom('demande_intervention as d').where('d.statut_id', 'in', [...PENDING_STATUTS]);
      if (q.filter.site !== undefined) pendingOnly = pendingOnly.where('d.site_id', '=', q.filter.site);
      const countRow = await pendingOnly.select(sql<number>`count(*)::int`.as('count')).executeTakeFirstOrThrow();
      const { limit, offset } = pageOf(q);
      const dir = q.sort.direction;
      let pageQuery = pendingOnly.innerJoin('site as s', 's.id', 'd.site_id').select('d.id');
      pageQuery =
        q.sort.name === 'dateEcheance'
          ? pageQuery.orderBy('d.date_echeance', dir).orderBy('d.id', dir)
          : pageQuery.orderBy(sql`lower(coalesce(nullif(s.nom, ''), s.code))`, dir).orderBy('d.site_id', dir).orderBy('d.date_echeance', 'asc').orderBy('d.id', 'asc');
      const ids = (await pageQuery.limit(limit).offset(offset).execute()).map((r) => r.id);
      if (ids.length === 0) return { count: countRow.count, rows: [] };
      const siteName = sql<string>`coalesce(nullif(s.nom, ''), s.code)`;
      const rows = await pendingRows()
        .where('d.id', 'in', ids)
        .select([
          'd.id',
          'd.statut_id as idStatut',
          'st.libelle as statut',
          'd.date_echeance as dateEcheance',
          'd.date_programmee as dateProgrammee',
          'pa.kind as programmationKind',
          personName('pa').as('programmation'),
          'i.id as idInterventionDeclenchante',
          'i.date as dateDeclenchement',
          'i.type_action_id as idAction',
          'ti.libelle as actionDeclenchante',
          'ia.kind as intervenantKind',
          personName('ia').as('intervenant'),
          'd.type_action_programmee_id as idActionProgrammee',
          'tp.libelle as actionProgrammee',
          'd.site_id as idSite',
          siteName.as('site'),
          sql<string>`trim(coalesce(s.numero || ' ', '') || s.adresse || ', ' || s.cp || ' ' || s.ville)`.as('adresse'),
          'i.valeur_nombre as valeurNombre',
          'c.constante as constante',
          'i.valeur_texte as valeurTexte',
          'dest.numero as destinationNumeroBac',
          'i.bac_destination_id as destinationIdBac',
          'd.site_composteur_id as idBac',
          'sc.numero as numero',
        ])
        .execute();
      const order = new Map(ids.map((id, i) => [id, i]));
      return { count: countRow.count, rows: rows.sort((a, b) => order.get(a.id)! - order.get(b.id)!) };
    },

    /** Sites with at least one pending request, by name. */
    pendingSites() {
      return db
        .selectFrom('demande_intervention as d')
        .innerJoin('site as s', 's.id', 'd.site_id')
        .where('d.statut_id', 'in', [...PENDING_STATUTS])
        .groupBy(['s.id', 's.nom', 's.code', 's.ville'])
        .select(['s.id', sql<string>`coalesce(nullif(s.nom, ''), s.code)`.as('site'), 's.ville', sql<number>`count(*)::int`.as('count')])
        .orderBy(sql`lower(coalesce(nullif(s.nom, ''), s.code))`)
        .orderBy('s.id')
        .execute();
    },

    async history(q: HistoryQuery) {
      // Filters are columns of the request itself: count and page without the joins, which
      // then run for the page's rows only (the sort by site or action label needs its join).
      let filtered = db.selectFrom('demande_intervention as d');
      const f = q.filter;
      if (f.site !== undefined) filtered = filtered.where('d.site_id', '=', f.site);
      if (f.statut !== undefined) filtered = filtered.where('d.statut_id', '=', f.statut);
      if (f.actionProgrammee !== undefined) filtered = filtered.where('d.type_action_programmee_id', '=', f.actionProgrammee);
      const countRow = await filtered.select(sql<number>`count(*)::int`.as('count')).executeTakeFirstOrThrow();
      const { limit, offset } = pageOf(q);
      const dir = q.sort.direction === 'asc' ? sql`ASC` : sql`DESC`;
      const nulls = sql`NULLS LAST`;
      const byId = q.sort.direction === 'asc' ? sql`d.id ASC` : sql`d.id DESC`;
      let pageIds: { id: number }[];
      if (q.sort.name === 'site' || q.sort.name === 'actionProgrammee') {
        // Group by group in label order (sites, or the programmed actions), each group's
        // requests by id from its (fk, id) index (migration 014), at most a page's depth from
        // each: the incremental sort stops at the group that fills the page instead of sorting
        // every request of the history.
        const groups =
          q.sort.name === 'site'
            ? sql`SELECT g.id AS gid, lower(coalesce(nullif(g.nom, ''), g.code)) AS k FROM site g`
            : sql`SELECT g.id AS gid, lower(g.libelle) AS k FROM type_action g`;
        const fk = q.sort.name === 'site' ? sql`d.site_id` : sql`d.type_action_programmee_id`;
        const where: RawBuilder<unknown>[] = [sql`${fk} = o.gid`];
        if (f.site !== undefined) where.push(sql`d.site_id = ${f.site}`);
        if (f.statut !== undefined) where.push(sql`d.statut_id = ${f.statut}`);
        if (f.actionProgrammee !== undefined) where.push(sql`d.type_action_programmee_id = ${f.actionProgrammee}`);
        const byIdOnly = q.sort.direction === 'asc' ? sql`ASC` : sql`DESC`;
        pageIds = (
          await sql<{ id: number }>`SELECT x.id FROM (${groups} ORDER BY 2 ${dir} ${nulls}) o
            CROSS JOIN LATERAL (SELECT d.id FROM demande_intervention d WHERE ${sql.join(where, sql` AND `)}
              ORDER BY d.id ${byIdOnly} LIMIT ${offset + limit}) x
            ORDER BY o.k ${dir} ${nulls}, x.id ${byIdOnly} LIMIT ${limit} OFFSET ${offset}`.execute(db)
        ).rows;
      } else {
        const column = { dateCreation: sql`d.date_creation`, dateEcheance: sql`d.date_echeance`, statut: sql`d.statut_id`, dateAnnulation: sql`d.date_annulation` }[q.sort.name];
        // date_creation is NOT NULL: a plain ORDER BY lets the (date_creation, id) index serve the page.
        const order = q.sort.name === 'dateCreation' ? sql`${column} ${dir}, ${byId}` : sql`${column} ${dir} ${nulls}, ${byId}`;
        pageIds = await filtered.select('d.id').orderBy(order).limit(limit).offset(offset).execute();
      }
      const ids = pageIds.map((r) => r.id);
      if (ids.length === 0) return { count: countRow.count, rows: [] };
      const rows = await db
        .selectFrom('demande_intervention as d')
        .innerJoin('statut as st', 'st.id', 'd.statut_id')
        .innerJoin('site as s', 's.id', 'd.site_id')
        .innerJoin('site_composteur as sc', 'sc.id', 'd.site_composteur_id')
        .innerJoin('type_action as tp', 'tp.id', 'd.type_action_programmee_id')
        .leftJoin('account as aa', 'aa.id', 'd.annulee_par_id')
        .where('d.id', 'in', ids)
        .select([
          'd.id',
          'd.date_creation as dateCreation',
          'd.type_action_programmee_id as idActionProgrammee',
          'tp.libelle as actionProgrammee',
          'd.date_echeance as dateEcheance',
          'd.statut_id as idStatut',
          'st.libelle as statut',
          'd.date_annulation as dateAnnulation',
          personName('aa').as('annuleePar'),
          'd.date_programmee as dateProgrammee',
          'd.site_id as idSite',
          sql<string>`coalesce(nullif(s.nom, ''), s.code)`.as('site'),
          'sc.numero as numero',
          'd.intervention_declenchante_id as idDeclenchante',
          'd.intervention_realisee_id as idRealisee',
        ])
        .execute();
      const position = new Map(ids.map((id, i) => [id, i]));
      return { count: countRow.count, rows: rows.sort((a, b) => position.get(a.id)! - position.get(b.id)!) };
    },

    /** The interventions linked to a page of history rows, by id. */
    async linkedInterventions(ids: number[]): Promise<LinkedRecord[]> {
      if (ids.length === 0) return [];
      return db
        .selectFrom('intervention as i')
        .innerJoin('type_action as t', 't.id', 'i.type_action_id')
        .innerJoin('account as a', 'a.id', 'i.intervenant_id')
        .leftJoin('type_action_constante as c', (j) => j.onRef('c.id_action', '=', 'i.type_action_id').onRef('c.id_constante', '=', 'i.valeur_constante'))
        .leftJoin('site_composteur as dest', 'dest.id', 'i.bac_destination_id')
        .where('i.id', 'in', ids)
        .select([
          'i.id',
          'i.date',
          personName('a').$castTo<string>().as('intervenant'),
          'i.type_action_id as idAction',
          't.libelle as typeAction',
          'i.valeur_nombre as valeurNombre',
          'c.constante',
          'i.valeur_texte as valeurTexte',
          'dest.numero as destinationNumeroBac',
          'i.observations',
        ])
        .execute();
    },

    /**
     * The named requests, locked until the transaction ends: two people acting on one request
     * are served one after the other, the second sees what the first did. With the Paris day
     * of the due date and today's, for the scheduling bounds.
     */
    lockForChange(ids: number[]) {
      return db
        .selectFrom('demande_intervention as d')
        .where('d.id', 'in', ids)
        .select([
          'd.id',
          'd.site_id as siteId',
          'd.statut_id as idStatut',
          sql<string>`to_char((d.date_echeance AT TIME ZONE 'Europe/Paris')::date, 'YYYY-MM-DD')`.as('dueDay'),
          PARIS_TODAY.as('today'),
        ])
        .orderBy('d.id')
        .forUpdate()
        .execute();
    },

    async cancel(ids: number[], accountId: number) {
      await db
        .updateTable('demande_intervention')
        .set({ statut_id: STATUT_ANNULEE, date_annulation: sql<Date>`now()`, annulee_par_id: accountId })
        .where('id', 'in', ids)
        .execute();
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

    /** A rule with the same trigger, constant and scheduled action, other than `exceptId`. */
    async ruleExists(input: DemandeRuleInput, exceptId: number | null) {
      let q = db
        .selectFrom('demande_rule')
        .where('type_action_declenchante_id', '=', input.actionDeclenchante)
        .where('type_action_programmee_id', '=', input.actionProgrammee)
        .where((eb) => (input.constante === null ? eb('id_constante', 'is', null) : eb('id_constante', '=', input.constante)));
      if (exceptId !== null) q = q.where('id', '<>', exceptId);
      return (await q.select('id').executeTakeFirst()) !== undefined;
    },

    /** Cell types each action is allowed on, and the constants of each action. */
    async catalogue() {
      const [actions, cells, constantes] = await Promise.all([
        db.selectFrom('type_action').select(['id']).execute(),
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
