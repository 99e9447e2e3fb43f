// SQL of the intervention requests: the pending board, the history, the status changes
// (cancel, schedule) and the request rules table. The board and the history page on the
// requests alone (ids in the page's order, from an index walk), then read the page's cards.
import { sql, type Kysely, type RawBuilder, type SqlBool } from 'kysely';
import type { Database } from '../../db/schema.js';
import type { Db } from '../../db/client.js';
import { DEEP_PAGE_OFFSET, containsNormalized, intArray, pageFromNearestEnd, pageOf, shortWordTerm, wordStartsNormalized } from '../../db/list.js';
import { planOnce } from '../../db/plan-once.js';
import { PENDING_STATUTS, STATUT_ANNULEE, STATUT_EN_ATTENTE, STATUT_PROGRAMMEE, type DemandeRuleInput, type HistoryQuery, type PendingListQuery } from '../../../shared/schemas/requests.js';

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
      d.intervention_realisee_id AS "idRealisee"
    FROM unnest(${intArray(ids)}) WITH ORDINALITY AS p(id, n)
    JOIN demande_intervention d ON d.id = p.id
    JOIN site s ON s.id = d.site_id
    LEFT JOIN intervention i ON i.id = d.intervention_declenchante_id
    ORDER BY p.n`);
}

/**
 * The board sorted by site walks the pending requests from the first site, or back from the
 * last one, when its page is within this many requests of either end (about 1.5 ms per
 * thousand skipped); further in, it jumps to the page's sites by their counts (5-6 ms
 * whatever the page).
 */
export const BOARD_WALK_MAX_OFFSET = 1000;

/**
 * The number of requests of these statuses (all when none), of a site and a programmed action
 * when given, from the counts kept by triggers (migration 021): 0 in a key stands for "all".
 */
function requestCount(f: { statuts: readonly number[]; site?: number; action?: number }) {
  const statuts = f.statuts.length > 0 ? f.statuts : [0];
  const onSite = f.site === undefined ? sql`true` : sql`c.site_id = ${f.site}`;
  return sql<{ count: number }>`SELECT coalesce(sum(c.n), 0)::int AS count FROM demande_intervention_count c
    WHERE c.statut_id IN (${sql.join(statuts.map((s) => sql`${s}`))}) AND c.type_action_programmee_id = ${f.action ?? 0} AND ${onSite}`;
}

/** The history's search: the site (name, code, city, address...), the scheduled action or the status. */
function searchCondition(term: string): RawBuilder<SqlBool> {
  const inText = (column: RawBuilder<unknown>) => (shortWordTerm(term) ? wordStartsNormalized(column, term) : containsNormalized(column, term));
  const sites = sql`SELECT g.id FROM site g WHERE ${inText(sql`g.search_text`)}`;
  const actions = sql`SELECT g.id FROM type_action g WHERE ${inText(sql`f_unaccent(lower(g.libelle))`)}`;
  const statuts = sql`SELECT g.id FROM statut g WHERE g.id BETWEEN ${STATUT_EN_ATTENTE} AND ${STATUT_ANNULEE} AND ${inText(sql`f_unaccent(lower(g.libelle))`)}`;
  // IN (subquery) under OR: each list is hashed once, then probed per request (an ANY over an
  // array of hundreds of sites would be searched linearly for each of them).
  return sql<SqlBool>`(d.site_id IN (${sites}) OR d.type_action_programmee_id IN (${actions}) OR d.statut_id IN (${statuts}))`;
}

export function createRequestsRepository(db: Db | Kysely<Database>) {
  async function cards(ids: number[]) {
    if (ids.length === 0) return [];
    return (await cardsQuery(ids).execute(db)).rows;
  }

  /**
   * Where a page `offset` requests into the whole history in creation order (newest first
   * when `newestFirst`) starts: the number of requests in the Paris months wholly before it,
   * and the condition that leaves those months out; null when the page starts in the first month.
   * A month starts at its first instant in Paris, compared with the stored dates in SQL.
   */
  async function creationMonthStart(newestFirst: boolean, offset: number): Promise<{ skipped: number; condition: RawBuilder<SqlBool> } | null> {
    const { rows } = await sql<{ mois: string; n: number }>`SELECT to_char(m.mois, 'YYYY-MM-DD') AS mois, sum(m.n)::int AS n
        FROM demande_intervention_mois m GROUP BY m.mois HAVING sum(m.n) > 0 ORDER BY m.mois`.execute(db);
    let skipped = 0;
    let past: string | null = null;
    for (const month of newestFirst ? rows.reverse() : rows) {
      if (skipped + month.n > offset) break;
      skipped += month.n;
      past = month.mois;
    }
    if (past === null) return null;
    const condition = newestFirst
      ? sql<SqlBool>`d.date_creation < (CAST(${past} AS date)::timestamp AT TIME ZONE 'Europe/Paris')`
      : sql<SqlBool>`d.date_creation >= ((CAST(${past} AS date) + interval '1 month')::timestamp AT TIME ZONE 'Europe/Paris')`;
    return { skipped, condition };
  }

  return {
    cards,

    async pendingList(q: PendingListQuery) {
      // The count and the page's ids, side by side, then the page's cards: the joins of a card
      // run for one page, not for every pending request.
      const page = pageOf(q);
      const pending = sql.join(PENDING_STATUTS.map((s) => sql.lit(s)));
      const site = q.filter.site;
      const counting = requestCount({ statuts: PENDING_STATUTS, site }).execute(db);
      // Past the first thousand requests the count comes first: a page near the end is then
      // walked from the end, backwards.
      const win = page.offset >= BOARD_WALK_MAX_OFFSET ? pageFromNearestEnd(page, (await counting).rows[0].count) : { ...page, reversed: false };
      // By due date, always: the pending requests' own index is short.
      const walk = win.offset < BOARD_WALK_MAX_OFFSET || q.sort.name === 'dateEcheance';
      const { limit, offset } = walk ? win : page;
      const reversed = walk && win.reversed;
      const dir = (q.sort.direction === 'asc') !== reversed ? sql`ASC` : sql`DESC`;
      const dueDir = reversed ? sql`DESC` : sql`ASC`;
      let paging: Promise<{ rows: { id: number }[] }>;
      if (limit === 0) {
        paging = Promise.resolve({ rows: [] });
      } else if (q.sort.name === 'dateEcheance') {
        // The pending requests' own index by due date, from the nearer end.
        const onSite = site === undefined ? sql`true` : sql`d.site_id = ${site}`;
        paging = sql<{ id: number }>`SELECT d.id FROM demande_intervention d WHERE d.statut_id IN (${pending}) AND ${onSite}
            ORDER BY d.date_echeance ${dir}, d.id ${dir} LIMIT ${limit} OFFSET ${offset}`.execute(db);
      } else if (walk) {
        // By site, near either end: the sites in name order (their index), each one's pending
        // requests by due date (their partial index), until the page is full; backwards from
        // the last site for a page near the end.
        const onSite = site === undefined ? sql`true` : sql`d.site_id = ${site}`;
        paging = sql<{ id: number }>`SELECT d.id FROM demande_intervention d JOIN site s ON s.id = d.site_id
            WHERE d.statut_id IN (${pending}) AND ${onSite}
            ORDER BY s.nom_tri ${dir}, d.site_id ${dir}, d.date_echeance ${dueDir}, d.id ${dueDir} LIMIT ${limit} OFFSET ${offset}`.execute(db);
      } else {
        // By site, in the middle: the sites in order, each with its number of pending requests
        // (from the counts table) and the number before it; only the sites the page overlaps
        // are read, not the thousands of pending requests before it.
        const onSite = site === undefined ? sql`true` : sql`c.site_id = ${site}`;
        paging = sql<{ id: number }>`WITH o AS (
              SELECT c.site_id AS gid, s.nom_tri, sum(c.n)::int AS n
                FROM demande_intervention_count c JOIN site s ON s.id = c.site_id
               WHERE c.statut_id IN (${pending}) AND c.type_action_programmee_id = 0 AND ${onSite}
               GROUP BY c.site_id, s.nom_tri HAVING sum(c.n) > 0
            ), r AS (
              SELECT gid, n, (sum(n) OVER (ORDER BY nom_tri ${dir}, gid ${dir}) - n)::int AS before FROM o
            )
            SELECT x.id FROM r CROSS JOIN LATERAL (
                SELECT y.id, r.before + row_number() OVER (ORDER BY y.date_echeance, y.id) AS pos
                  FROM (SELECT d.id, d.date_echeance FROM demande_intervention d
                         WHERE d.site_id = r.gid AND d.statut_id IN (${pending})
                         ORDER BY d.date_echeance, d.id LIMIT ${offset + limit} - r.before) y
              ) x
             WHERE r.before < ${offset + limit} AND r.before + r.n > ${offset} AND x.pos > ${offset}
             ORDER BY x.pos LIMIT ${limit}`.execute(db);
      }
      const ids = paging.then((p) => (reversed ? p.rows.reverse() : p.rows).map((r) => r.id));
      const [countRes, rows] = await Promise.all([counting, ids.then(cards)]);
      return { count: countRes.rows[0].count, rows };
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

    async history(q: HistoryQuery) {
      // Filters and the search are columns of the request itself (the search through the few
      // sites, actions and statuses it names): count and page without the joins, which then
      // run for the page's rows only.
      const f = q.filter;
      const where: RawBuilder<SqlBool>[] = [];
      if (f.site !== undefined) where.push(sql<SqlBool>`d.site_id = ${f.site}`);
      if (f.statut !== undefined) where.push(sql<SqlBool>`d.statut_id = ${f.statut}`);
      if (f.actionProgrammee !== undefined) where.push(sql<SqlBool>`d.type_action_programmee_id = ${f.actionProgrammee}`);
      if (q.search.trim()) where.push(searchCondition(q.search.trim()));
      const cond = where.length ? sql.join(where, sql` AND `) : sql`true`;
      // Without a search the count is read from the counts table (one row per site at most);
      // a search counts the requests it matches. On PostgreSQL the count and the page run side
      // by side on two connections.
      const counting = q.search.trim()
        ? sql<{ count: number }>`SELECT count(*)::int AS count FROM demande_intervention d WHERE ${cond}`.execute(db)
        : requestCount({ statuts: f.statut === undefined ? [] : [f.statut], site: f.site, action: f.actionProgrammee }).execute(db);
      // A deep page without a search is read from the nearer end of the history: its count
      // comes first (one row per site), then a page past the middle is read in the reverse
      // order. The last page skips six requests, not 93,000.
      const page = pageOf(q);
      const win = !q.search.trim() && page.offset >= DEEP_PAGE_OFFSET ? pageFromNearestEnd(page, (await counting).rows[0].count) : { ...page, reversed: false };
      const { limit, offset } = win;
      const dir = (q.sort.direction === 'asc') !== win.reversed ? sql`ASC` : sql`DESC`;
      // NULLS LAST in the page's order is NULLS FIRST when it is read backwards.
      const nulls = win.reversed ? sql`NULLS FIRST` : sql`NULLS LAST`;
      let paging: Promise<{ rows: { id: number }[] }>;
      if (limit === 0) {
        paging = Promise.resolve({ rows: [] });
      } else if ((q.sort.name === 'site' || q.sort.name === 'actionProgrammee') && !q.search.trim() && offset >= DEEP_PAGE_OFFSET) {
        // A deep page by site or by action: each label's number of requests from the counts
        // table (one row per site and filter combination, migration 021) and the number before
        // it in the list's order; only the labels the page overlaps are read, each by its
        // (fk, id) index, instead of every request before the page. Sites or actions sharing a
        // label form one group, their requests in id order, as in the list.
        const s = f.statut ?? 0;
        const onSite = f.site === undefined ? sql`true` : sql`c.site_id = ${f.site}`;
        const counted =
          q.sort.name === 'site'
            ? sql`SELECT g.nom_tri AS k, c.site_id AS gid, c.n FROM demande_intervention_count c JOIN site g ON g.id = c.site_id
                WHERE c.statut_id = ${s} AND c.type_action_programmee_id = ${f.actionProgrammee ?? 0} AND ${onSite} AND c.n > 0`
            : sql`SELECT lower(g.libelle) AS k, c.type_action_programmee_id AS gid, c.n FROM demande_intervention_count c
                JOIN type_action g ON g.id = c.type_action_programmee_id
                WHERE c.statut_id = ${s} AND ${f.actionProgrammee === undefined ? sql`c.type_action_programmee_id <> 0` : sql`c.type_action_programmee_id = ${f.actionProgrammee}`}
                  AND ${onSite} AND c.n > 0`;
        const fk = q.sort.name === 'site' ? sql`d.site_id` : sql`d.type_action_programmee_id`;
        const end = offset + limit;
        // Within a group, the rows the page takes: those past the page's start, at most up to its
        // end. A group of one site or action (nearly always) walks its (fk, id) index in order;
        // only a group of several (a shared label) sorts its requests.
        const skip = sql`greatest(${offset} - r.before, 0)`;
        const take = sql`${end} - greatest(r.before, ${offset})`;
        paging = sql<{ id: number }>`WITH o AS (
              SELECT k, array_agg(DISTINCT gid) AS gids, sum(n)::int AS n FROM (${counted}) c GROUP BY k
            ), r AS (
              SELECT gids, n, (sum(n) OVER (ORDER BY k ${dir} ${nulls}) - n)::int AS before FROM o
            )
            SELECT x.id FROM r CROSS JOIN LATERAL (
                (SELECT d.id FROM demande_intervention d WHERE cardinality(r.gids) = 1 AND ${fk} = r.gids[1] AND ${cond}
                  ORDER BY d.id ${dir} OFFSET ${skip} LIMIT ${take})
                UNION ALL
                (SELECT d.id FROM demande_intervention d WHERE cardinality(r.gids) > 1 AND ${fk} = ANY(r.gids) AND ${cond}
                  ORDER BY d.id ${dir} OFFSET ${skip} LIMIT ${take})
              ) x
             WHERE r.before < ${end} AND r.before + r.n > ${offset}
             ORDER BY r.before, x.id ${dir} LIMIT ${limit}`.execute(db);
      } else if (q.sort.name === 'site' || q.sort.name === 'actionProgrammee') {
        // Group by group in label order (sites in natural order, from their name index, or
        // the programmed actions), each group's requests by id from its (fk, id) index
        // (migration 014), at most a page's depth from each: the incremental sort stops at the
        // group that fills the page instead of sorting every request of the history.
        // The sites straight from their name index (a subquery sorting them would sort all
        // 2,000 before the first page); the programmed actions are a few dozen.
        const groups =
          q.sort.name === 'site'
            ? sql`(SELECT g.id AS gid, g.nom_tri AS k FROM site g)`
            : sql`(SELECT g.id AS gid, lower(g.libelle) AS k FROM type_action g ORDER BY 2 ${dir} ${nulls})`;
        const fk = q.sort.name === 'site' ? sql`d.site_id` : sql`d.type_action_programmee_id`;
        // nom_tri is never null: no NULLS clause, which would keep the index from serving DESC.
        const keyNulls = q.sort.name === 'site' ? sql`` : nulls;
        paging = sql<{ id: number }>`SELECT x.id FROM ${groups} o
            CROSS JOIN LATERAL (SELECT d.id FROM demande_intervention d WHERE ${fk} = o.gid AND ${cond}
              ORDER BY d.id ${dir} LIMIT ${offset + limit}) x
            ORDER BY o.k ${dir} ${keyNulls}, x.id ${dir} LIMIT ${limit} OFFSET ${offset}`.execute(db);
      } else {
        // Each order is an index in that exact order (migrations 010 and 019), walked until the
        // page is full, forwards or backwards: the NOT NULL columns in both directions by one
        // index; the cancellation date, empty on most requests, keeps them last either way with
        // one index per direction.
        let skipped = 0;
        let walked = cond;
        if (q.sort.name === 'dateCreation' && where.length === 0 && offset >= DEEP_PAGE_OFFSET) {
          // A deep page of the whole history in creation order skips the Paris months wholly
          // before it, by the monthly counts (migration 025), and walks at most one month.
          const start = await creationMonthStart((q.sort.direction === 'desc') !== win.reversed, offset);
          if (start) {
            skipped = start.skipped;
            walked = sql<SqlBool>`${cond} AND ${start.condition}`;
          }
        }
        const order = {
          dateCreation: sql`d.date_creation ${dir}, d.id ${dir}`,
          dateEcheance: sql`d.date_echeance ${dir}, d.id ${dir}`,
          statut: sql`d.statut_id ${dir}, d.id ${dir}`,
          dateAnnulation: sql`d.date_annulation ${dir} ${nulls}, d.id ${dir}`,
        }[q.sort.name];
        paging = sql<{ id: number }>`SELECT d.id FROM demande_intervention d WHERE ${walked} ORDER BY ${order} LIMIT ${limit} OFFSET ${offset - skipped}`.execute(db);
      }
      const ids = paging.then((p) => (win.reversed ? p.rows.reverse() : p.rows).map((r) => r.id));
      // The page's cards are read while the count still runs.
      const [countRes, rows] = await Promise.all([counting, ids.then(cards)]);
      return { count: countRes.rows[0].count, rows };
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
