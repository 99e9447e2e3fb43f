// SQL of the interventions tables (public per-site, administrators' per-site and global) and
// of the administration's reads and writes. The lists scale with the page, not the log
// (issue 13): every order is an index walk that stops once the page is full.
// - date: (date, id), or (site_id | type_action_id, date, id) under a filter;
// - numeroBac: (numero_bac, date, id) on the copy of the cell's number kept by migration 008;
// - site, intervenant, action, typeBac: the referenced table is walked in label order (its own
//   index, or a few rows) and, for each entry, its interventions by (fk, date, id): a nested
//   loop whose output is already in order, so the final sort is incremental and stops early.
//   Under a site restriction (at most one site's rows) a plain join and sort is cheaper.
// - the Date filter is a set of UTC ranges (intervention-date-filter.ts) walked on the index.
// - counts: exact from intervention_count (per site and action, kept by triggers) without a
//   date filter; with one, exact within a site, otherwise counted up to COUNT_CAP + 1.
// The export reads the same order in keyset batches, after the last row's sort key.
import { sql, type RawBuilder, type SqlBool } from 'kysely';
import type { Db } from '../../db/client.js';
import { COUNT_CAP, type InterventionSortField } from '../../../shared/schemas/interventions-admin.js';
import { dateTermRanges, multirangeLiteral, type DateTermMatch } from './intervention-date-filter.js';

export interface ListFilter {
  /** Restricts to one site (per-site tables, or the global list's Site filter). */
  siteId?: number;
  action?: number;
  typeBac?: number;
  numeroBac?: number;
  /** Date filter as typed. */
  date?: string;
}

export interface ListSort {
  name: InterventionSortField;
  direction: 'asc' | 'desc';
}

/** Sort position of a row, for the export's next batch. */
export interface ListKey {
  gkey: string | null;
  gtie: string | null;
  numero: number | null;
  date: Date;
  id: number;
}

/** A row of any interventions table, with everything its columns need. */
export interface InterventionListRecord extends ListKey {
  idAction: number;
  typeAction: string;
  typeBac: string;
  idTypeBac: number;
  numeroBac: number;
  idSiteComposteur: number;
  valeurNombre: number | string | null;
  valeurConstante: number | null;
  constante: string | null;
  valeurTexte: string | null;
  bacDestination: number | null;
  destinationNumeroBac: number | null;
  observations: string | null;
  intervenant: string;
  idSite: number;
  site: string;
  modificationAgent: string | null;
  modifiedAt: Date | null;
  locked: boolean;
  pendingDemande: boolean;
}

const STATUT_REALISEE = 5;

/** Sorts by a referenced label: the table walked in order, its key, tie-breaker and the column pointing at it. */
const GROUPS: Partial<Record<InterventionSortField, { table: RawBuilder<unknown>; key: RawBuilder<unknown>; tie: RawBuilder<unknown>; tieType: 'integer' | 'text'; fk: RawBuilder<unknown> }>> = {
  action: { table: sql`type_action`, key: sql`f_unaccent(lower(g.libelle))`, tie: sql`g.id`, tieType: 'integer', fk: sql`i.type_action_id` },
  typeBac: { table: sql`type_bac`, key: sql`f_unaccent(lower(g.libelle))`, tie: sql`g.id`, tieType: 'integer', fk: sql`i.type_bac_id` },
  // (key, code) is the sites list's own index (migration 005).
  // Stored f_unaccent(lower(name)) keys (migration 008), with their (key, tie) indexes.
  site: { table: sql`site`, key: sql`g.intervention_sort_key`, tie: sql`g.code`, tieType: 'text', fk: sql`i.site_id` },
  intervenant: { table: sql`account`, key: sql`g.intervention_sort_key`, tie: sql`g.id`, tieType: 'integer', fk: sql`i.intervenant_id` },
};

type ResolvedDate = DateTermMatch | null;

/** The WHERE of the list on intervention i (every filter is a column of i since migration 008). */
function conditions(f: ListFilter, date: ResolvedDate): RawBuilder<SqlBool> {
  const parts: RawBuilder<SqlBool>[] = [];
  if (f.siteId !== undefined) parts.push(sql<SqlBool>`i.site_id = ${f.siteId}`);
  if (f.action !== undefined) parts.push(sql<SqlBool>`i.type_action_id = ${f.action}`);
  if (f.typeBac !== undefined) parts.push(sql<SqlBool>`i.type_bac_id = ${f.typeBac}`);
  if (f.numeroBac !== undefined) parts.push(sql<SqlBool>`i.numero_bac = ${f.numeroBac}`);
  if (date) parts.push(dateCondition(date));
  return parts.length ? sql<SqlBool>`${sql.join(parts, sql` AND `)}` : sql<SqlBool>`true`;
}

function dateCondition(date: DateTermMatch): RawBuilder<SqlBool> {
  if (date.kind === 'none') return sql<SqlBool>`false`;
  if (date.kind === 'text') {
    const pattern = `%${date.term.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
    return sql<SqlBool>`to_char(i.date AT TIME ZONE 'Europe/Paris', 'DD/MM/YYYY HH24:MI') LIKE ${pattern}`;
  }
  const { ranges } = date;
  const lo = ranges[0][0];
  const hi = ranges[ranges.length - 1][1];
  // The outer bounds are index conditions; the exact set is checked on each row walked.
  const bounds = sql<SqlBool>`i.date >= ${lo} AND i.date < ${hi}`;
  if (ranges.length === 1) return bounds;
  return sql<SqlBool>`${bounds} AND i.date <@ CAST(${multirangeLiteral(ranges)} AS tstzmultirange)`;
}

/** Ids (and sort keys) of the rows of one page, or of one export batch after `after`, in the list's order. */
function idQuery(f: ListFilter, date: ResolvedDate, sort: ListSort, page: { limit: number; offset: number; after: ListKey | null }) {
  const desc = sort.direction === 'desc';
  const dir = desc ? sql`DESC` : sql`ASC`;
  const cmp = desc ? sql`<` : sql`>`;
  const where = conditions(f, date);
  const { after } = page;
  const limit = sql`LIMIT ${page.limit} OFFSET ${page.offset}`;

  if (sort.name === 'date') {
    const from = after ? sql`(i.date, i.id) ${cmp} (${after.date}, ${after.id})` : sql`true`;
    return sql`SELECT i.id, i.date, NULL::text AS gkey, NULL::text AS gtie, NULL::int AS numero FROM intervention i
      WHERE ${where} AND ${from} ORDER BY i.date ${dir}, i.id ${dir} ${limit}`;
  }
  if (sort.name === 'numeroBac') {
    const from = after ? sql`(i.numero_bac, i.date, i.id) ${cmp} (${after.numero}, ${after.date}, ${after.id})` : sql`true`;
    return sql`SELECT i.id, i.date, NULL::text AS gkey, NULL::text AS gtie, i.numero_bac AS numero FROM intervention i
      WHERE ${where} AND ${from} ORDER BY i.numero_bac ${dir}, i.date ${dir}, i.id ${dir} ${limit}`;
  }

  const g = GROUPS[sort.name]!;
  const tieCast = sql.raw(g.tieType);
  if (f.siteId !== undefined) {
    // One site's rows at most: join and sort them. The keys are computed once per entry of the
    // referenced table (OFFSET 0 keeps that subquery apart), not once per intervention.
    const from = after
      ? sql`(o.gkey, o.gtie, i.date, i.id) ${cmp} (${after.gkey}, CAST(${after.gtie} AS ${tieCast}), ${after.date}, ${after.id})`
      : sql`true`;
    return sql`SELECT i.id, i.date, o.gkey, o.gtie::text AS gtie, NULL::int AS numero
      FROM intervention i JOIN (SELECT g.id AS gid, ${g.key} AS gkey, ${g.tie} AS gtie FROM ${g.table} g OFFSET 0) o ON o.gid = ${g.fk}
      WHERE ${where} AND ${from} ORDER BY o.gkey ${dir}, o.gtie ${dir}, i.date ${dir}, i.id ${dir} ${limit}`;
  }
  // Group by group in label order. The inner walk is limited to what the page can need from
  // one group: the final sort then only ever sorts that many rows per group (it cannot know
  // that each group already comes in date order) and stops at the group that fills the page.
  const outerFrom = after ? sql`(${g.key}, ${g.tie}) ${desc ? sql`<=` : sql`>=`} (${after.gkey}, CAST(${after.gtie} AS ${tieCast}))` : sql`true`;
  const innerFrom = after
    ? sql`(o.gtie <> CAST(${after.gtie} AS ${tieCast}) OR (i.date, i.id) ${cmp} (${after.date}, ${after.id}))`
    : sql`true`;
  return sql`SELECT x.id, x.date, o.gkey, o.gtie::text AS gtie, NULL::int AS numero
    FROM (SELECT g.id AS gid, ${g.key} AS gkey, ${g.tie} AS gtie FROM ${g.table} g WHERE ${outerFrom} ORDER BY ${g.key} ${dir}, ${g.tie} ${dir}) o
    CROSS JOIN LATERAL (SELECT i.id, i.date FROM intervention i WHERE ${g.fk} = o.gid AND ${where} AND ${innerFrom}
      ORDER BY i.date ${dir}, i.id ${dir} LIMIT ${page.offset + page.limit}) x
    ORDER BY o.gkey ${dir}, o.gtie ${dir}, x.date ${dir}, x.id ${dir} ${limit}`;
}

/**
 * The page's rows with their display columns, in the order of idQuery. Labels are scalar
 * subqueries rather than joins: each is planned alone, where a join of eight tables cost
 * more to plan (tens of ms) than to run for twenty rows.
 */
function rowsQuery(ids: RawBuilder<unknown>, withFlags = true) {
  return sql<InterventionListRecord>`SELECT i.id, i.date, p.gkey, p.gtie, p.numero, ${displayColumns(withFlags)}
    FROM (SELECT q.*, row_number() OVER () AS n FROM (${ids}) q) p
    JOIN intervention i ON i.id = p.id
    ORDER BY p.n`;
}

/** The display columns of intervention i (everything but the sort keys). */
function displayColumns(withFlags: boolean) {
  // The flags say whether the table may offer to edit or delete the row; an export has no use
  // for them, and over a batch of a thousand rows the planner hashes every request of the
  // table to answer them (20 ms a batch at a million interventions).
  const flags = withFlags
    ? sql`(i.demande_intervention_id IS NOT NULL
        OR EXISTS (SELECT 1 FROM demande_intervention d WHERE d.intervention_realisee_id = i.id)
        OR EXISTS (SELECT 1 FROM demande_intervention d WHERE d.intervention_declenchante_id = i.id AND d.statut_id = ${STATUT_REALISEE})) AS locked,
      EXISTS (SELECT 1 FROM demande_intervention d WHERE d.intervention_declenchante_id = i.id AND d.statut_id IN (3, 4)) AS "pendingDemande"`
    : sql`false AS locked, false AS "pendingDemande"`;
  return sql`i.type_action_id AS "idAction", (SELECT ta.libelle FROM type_action ta WHERE ta.id = i.type_action_id) AS "typeAction",
      (SELECT tb.libelle FROM type_bac tb WHERE tb.id = i.type_bac_id) AS "typeBac", i.type_bac_id AS "idTypeBac",
      i.numero_bac AS "numeroBac", i.site_composteur_id AS "idSiteComposteur",
      i.valeur_nombre AS "valeurNombre", i.valeur_constante AS "valeurConstante",
      (SELECT tac.constante FROM type_action_constante tac WHERE tac.id_action = i.type_action_id AND tac.id_constante = i.valeur_constante) AS constante,
      i.valeur_texte AS "valeurTexte", i.bac_destination_id AS "bacDestination",
      (SELECT dest.numero FROM site_composteur dest WHERE dest.id = i.bac_destination_id) AS "destinationNumeroBac", i.observations,
      (SELECT trim(a.nom || ' ' || coalesce(a.prenom, '')) FROM account a WHERE a.id = i.intervenant_id) AS intervenant,
      i.site_id AS "idSite", (SELECT coalesce(nullif(s.nom, ''), s.code) FROM site s WHERE s.id = i.site_id) AS site,
      (SELECT trim(m.nom || ' ' || coalesce(m.prenom, '')) FROM account m WHERE m.id = i.modification_agent_id) AS "modificationAgent",
      i.modified_at AS "modifiedAt", ${flags}`;
}

/**
 * An export batch in date (or cell number) order, read straight off the index walk: no list
 * of ids to number and join back (a third of a batch's time at a thousand rows).
 */
function directBatch(f: ListFilter, date: ResolvedDate, sort: ListSort, after: ListKey | null, size: number) {
  const desc = sort.direction === 'desc';
  const dir = desc ? sql`DESC` : sql`ASC`;
  const cmp = desc ? sql`<` : sql`>`;
  const where = conditions(f, date);
  if (sort.name === 'numeroBac') {
    const from = after ? sql`(i.numero_bac, i.date, i.id) ${cmp} (${after.numero}, ${after.date}, ${after.id})` : sql`true`;
    return sql<InterventionListRecord>`SELECT i.id, i.date, NULL::text AS gkey, NULL::text AS gtie, i.numero_bac AS numero, ${displayColumns(false)}
      FROM intervention i WHERE ${where} AND ${from} ORDER BY i.numero_bac ${dir}, i.date ${dir}, i.id ${dir} LIMIT ${size}`;
  }
  const from = after ? sql`(i.date, i.id) ${cmp} (${after.date}, ${after.id})` : sql`true`;
  return sql<InterventionListRecord>`SELECT i.id, i.date, NULL::text AS gkey, NULL::text AS gtie, NULL::int AS numero, ${displayColumns(false)}
    FROM intervention i WHERE ${where} AND ${from} ORDER BY i.date ${dir}, i.id ${dir} LIMIT ${size}`;
}

/** The list's queries, apart from the database so that tests and the bench can EXPLAIN them. */
export const interventionListQueries = {
  span: (siteId?: number) =>
    sql<{ from: Date | null; to: Date | null }>`SELECT min(i.date) AS "from", max(i.date) AS "to" FROM intervention i
      WHERE ${siteId === undefined ? sql`true` : sql`i.site_id = ${siteId}`}`,

  page: (f: ListFilter, date: ResolvedDate, sort: ListSort, limit: number, offset: number) =>
    rowsQuery(idQuery(f, date, sort, { limit, offset, after: null })),

  /** An export batch: the table's rows without the edit/delete flags. */
  batch: (f: ListFilter, date: ResolvedDate, sort: ListSort, after: ListKey | null, size: number) =>
    sort.name === 'date' || sort.name === 'numeroBac'
      ? directBatch(f, date, sort, after, size)
      : rowsQuery(idQuery(f, date, sort, { limit: size, offset: 0, after }), false),

  count(f: ListFilter, date: ResolvedDate): { query: RawBuilder<{ count: number }>; capped: boolean } {
    if (!date && f.typeBac === undefined && f.numeroBac === undefined) {
      // type_action_id 0: the site's total.
      const parts: RawBuilder<SqlBool>[] = [sql<SqlBool>`c.type_action_id = ${f.action ?? 0}`];
      if (f.siteId !== undefined) parts.push(sql<SqlBool>`c.site_id = ${f.siteId}`);
      return { query: sql`SELECT coalesce(sum(c.n), 0)::int AS count FROM intervention_count c WHERE ${sql.join(parts, sql` AND `)}`, capped: false };
    }
    // Within one site the rows are few: count them all.
    if (f.siteId !== undefined) return { query: sql`SELECT count(*)::int AS count FROM intervention i WHERE ${conditions(f, date)}`, capped: false };
    if (date?.kind === 'ranges' && date.ranges.length > 1) {
      // Range by range on the index: only matching rows are read, and at most COUNT_CAP + 1.
      const rest = conditions({ ...f, date: undefined }, null);
      return {
        query: sql`SELECT count(*)::int AS count FROM (SELECT 1 FROM unnest(CAST(${multirangeLiteral(date.ranges)} AS tstzmultirange)) r
          JOIN intervention i ON i.date >= lower(r) AND i.date < upper(r) WHERE ${rest} LIMIT ${COUNT_CAP + 1}) x`,
        capped: true,
      };
    }
    return { query: sql`SELECT count(*)::int AS count FROM (SELECT 1 FROM intervention i WHERE ${conditions(f, date)} LIMIT ${COUNT_CAP + 1}) x`, capped: true };
  },
};

export function createInterventionsAdminRepository(db: Db) {
  /** The Date filter as ranges over the days that hold data (of the site, when restricted). */
  async function resolveDate(f: ListFilter): Promise<ResolvedDate> {
    const term = f.date?.trim();
    if (!term) return null;
    const span = (await interventionListQueries.span(f.siteId).execute(db)).rows[0];
    return dateTermRanges(term, span?.from && span.to ? { from: new Date(span.from), to: new Date(span.to) } : null);
  }

  return {
    resolveDate,

    async list(f: ListFilter, sort: ListSort, page: { limit: number; offset: number }) {
      const date = await resolveDate(f);
      if (date?.kind === 'none') return { count: 0, countCapped: false, rows: [] as InterventionListRecord[] };
      const count = interventionListQueries.count(f, date);
      const [countRes, rows] = await Promise.all([count.query.execute(db), interventionListQueries.page(f, date, sort, page.limit, page.offset).execute(db)]);
      const n = countRes.rows[0]?.count ?? 0;
      const capped = count.capped && n > COUNT_CAP;
      return { count: capped ? COUNT_CAP : n, countCapped: capped, rows: rows.rows };
    },

    /**
     * The rows of an export, `size` at a time in the list's order: each batch starts after the
     * sort key of the previous batch's last row (one short indexed query per batch, whatever
     * the depth; one batch in memory; no transaction held while the client downloads).
     */
    async *batches(f: ListFilter, sort: ListSort, size = 1000): AsyncGenerator<InterventionListRecord[]> {
      const date = await resolveDate(f);
      if (date?.kind === 'none') return;
      let after: ListKey | null = null;
      for (;;) {
        const rows: InterventionListRecord[] = (await interventionListQueries.batch(f, date, sort, after, size).execute(db)).rows;
        if (rows.length > 0) yield rows;
        if (rows.length < size) return;
        const last = rows[rows.length - 1];
        after = { gkey: last.gkey, gtie: last.gtie, numero: last.numero, date: last.date, id: last.id };
      }
    },

    /** One intervention as a table row (whatever filter), or undefined. */
    async findRow(id: number): Promise<InterventionListRecord | undefined> {
      const ids = sql`SELECT i.id, i.date, NULL::text AS gkey, NULL::text AS gtie, NULL::int AS numero FROM intervention i WHERE i.id = ${id}`;
      return (await rowsQuery(ids).execute(db)).rows[0];
    },

    /** The stored row, locked for the change, with what the locks need. */
    async lockIntervention(id: number) {
      const { rows } = await sql<{
        id: number;
        date: Date;
        site_id: number;
        site_composteur_id: number;
        type_action_id: number;
        valeur_nombre: number | string | null;
        valeur_constante: number | null;
        valeur_texte: string | null;
        bac_destination_id: number | null;
        observations: string | null;
        intervenant_id: number;
        demande_intervention_id: number | null;
        modification_agent_id: number | null;
        modified_at: Date | null;
      }>`SELECT id, date, site_id, site_composteur_id, type_action_id, valeur_nombre, valeur_constante, valeur_texte, bac_destination_id,
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
      values: {
        date: Date;
        site_composteur_id: number;
        type_action_id: number;
        valeur_nombre: number | null;
        valeur_constante: number | null;
        valeur_texte: string | null;
        bac_destination_id: number | null;
        observations: string | null;
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

    async deleteDemande(id: number) {
      await db.deleteFrom('demande_intervention').where('id', '=', id).execute();
    },

    async cancelDemandes(ids: number[], agentId: number) {
      if (ids.length === 0) return;
      await db
        .updateTable('demande_intervention')
        .set({ statut_id: 6, date_annulation: sql<Date>`now()`, annulee_par_id: agentId })
        .where('id', 'in', ids)
        .execute();
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

    agentName: async (accountId: number) =>
      (
        await db
          .selectFrom('account')
          .where('id', '=', accountId)
          .select(sql<string>`trim(nom || ' ' || coalesce(prenom, ''))`.as('nom'))
          .executeTakeFirst()
      )?.nom ?? '',
  };
}

export type InterventionsAdminRepository = ReturnType<typeof createInterventionsAdminRepository>;
