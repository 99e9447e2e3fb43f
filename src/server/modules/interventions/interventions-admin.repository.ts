// SQL of the interventions tables (public per-site, administrators' per-site and global), of
// their search and CSV export, and of the administration's reads and writes. The lists scale
// with the page, not the log: every order is an index walk that stops once the page is full.
// - date: (date, id), or (site_id | type_action_id, date, id) under a filter;
// - numeroBac: (numero_bac, date, id) on the copy of the cell's number kept by migration 008;
// - site, intervenant, action, typeBac: the referenced table is walked in label order (its own
//   index, or a few rows) and, for each entry, its interventions by (fk, date, id): a nested
//   loop whose output is already in order, so the final sort is incremental and stops early.
//   Under a site restriction (at most one site's rows) a plain join and sort is cheaper.
// - the Date filter is a set of UTC ranges (intervention-date-filter.ts) walked on the index.
// - the search matches labels (site, intervenant, action, cell type, constant value) through
//   the ids of the few referenced rows whose label matches, and free text (observations and
//   free-text values) through the indexes of migration 015. Over the whole log, a search whose
//   matches are few ("narrow") gathers them first through those indexes and sorts them; one
//   that matches much of the log ("broad") filters the ordinary walk, which soon fills a page.
// - a page is its walk (ids and sort keys, planned for the filter at hand), then its rows read by
//   id in one statement planned once per connection (plan-once.ts);
// - counts: exact from intervention_count (per site and action, kept by triggers) without a
//   date filter or search; with one, exact within a site or a narrow search, otherwise counted
//   up to COUNT_CAP + 1.
// The export writes each CSV line in SQL (csv.ts): one COPY in the list's order on PostgreSQL,
// keyset batches on the embedded database, each resuming after the previous batch's last sort
// key compared in SQL at full precision (a date travels as text, never as a JavaScript Date,
// which would drop its microseconds and skip the rows sharing the boundary's millisecond).
import { Readable } from 'node:stream';
import { sql, type RawBuilder, type SqlBool } from 'kysely';
import type { Db } from '../../db/client.js';
import { planOnce } from '../../db/plan-once.js';
import { DEEP_PAGE_OFFSET, containsNormalized, ilikeUnaccent, intArray, pageFromNearestEnd, shortWordTerm, trigramIndexable, wordStartsIn, wordStartsNormalized, wordStartsUnaccent } from '../../db/list.js';
import { COUNT_CAP, type InterventionSortField } from '../../../shared/schemas/interventions-admin.js';
import { ACTION_VALUE_KINDS, STATUT_REALISEE } from '../../../shared/domain.js';
import { copyLines, sqlCsvInteger, sqlCsvLine, sqlCsvText, sqlParisDateTime, streamsCopy } from '../../csv.js';
import { dateTermRanges, multirangeLiteral, type DateTermMatch } from './intervention-date-filter.js';

/** What a search may match besides action, cell type and constant labels. */
export interface SearchScope {
  site: boolean;
  intervenant: boolean;
  /** Observations and free-text values: never for an anonymous caller. */
  freeText: boolean;
}

export const FULL_SEARCH: SearchScope = { site: true, intervenant: true, freeText: true };

export interface ListFilter {
  /** Restricts to one site (per-site tables, or the global list's Site filter). */
  siteId?: number;
  action?: number;
  typeBac?: number;
  numeroBac?: number;
  /** Date filter as typed. */
  date?: string;
  /** Search box, as typed. */
  search?: string;
  /** What the search looks at; every field when absent. */
  scope?: SearchScope;
}

export interface ListSort {
  name: InterventionSortField;
  direction: 'asc' | 'desc';
}

/** Sort position of a row, for the next batch: every part as the database wrote it. */
export interface ListKey {
  gkey: string | null;
  gtie: string | null;
  numero: number | null;
  /** The date at full precision, as text (see DATE_KEY). */
  dkey: string;
  id: number;
}

/** A row of any interventions table, with everything its columns need. */
export interface InterventionListRecord extends ListKey {
  date: Date;
  idAction: number;
  typeAction: string;
  actionValeur: boolean;
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
  siteNom: string | null;
  modificationAgent: string | null;
  modifiedAt: Date | null;
  /** The request this intervention processed. */
  demandeIntervention: number | null;
  /** Status of the latest request this intervention raised. */
  idStatut: number | null;
  /** The intervention that processed the request this one raised. */
  interventionRealisee: number | null;
  locked: boolean;
  pendingDemande: boolean;
}

/** The date at full precision (microseconds) as text that reads back the same whatever the session's DateStyle. */
const DATE_KEY = (d: RawBuilder<unknown>) => sql<string>`to_char(${d} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"')`;
const dateOfKey = (key: string) => sql`CAST(${key} AS timestamptz)`;

/** Sorts by a referenced label: the table walked in order, its key, tie-breaker and the column pointing at it. */
const GROUPS: Partial<Record<InterventionSortField, { table: RawBuilder<unknown>; key: RawBuilder<unknown>; tie: RawBuilder<unknown>; tieType: 'integer' | 'text'; fk: RawBuilder<unknown> }>> = {
  action: { table: sql`type_action`, key: sql`f_unaccent(lower(g.libelle))`, tie: sql`g.id`, tieType: 'integer', fk: sql`i.type_action_id` },
  typeBac: { table: sql`type_bac`, key: sql`f_unaccent(lower(g.libelle))`, tie: sql`g.id`, tieType: 'integer', fk: sql`i.type_bac_id` },
  // Stored f_unaccent(lower(name)) keys (migration 008), with their (key, tie) indexes.
  site: { table: sql`site`, key: sql`g.intervention_sort_key`, tie: sql`g.code`, tieType: 'text', fk: sql`i.site_id` },
  intervenant: { table: sql`account`, key: sql`g.intervention_sort_key`, tie: sql`g.id`, tieType: 'integer', fk: sql`i.intervenant_id` },
};

type ResolvedDate = DateTermMatch | null;

// ---------------------------------------------------------------------------------------------
// Search.

/** Observations and free-text value of intervention i, as the indexes of migration 015 hold them. */
const FREE_TEXT = sql`f_unaccent(lower(coalesce(i.observations, '') || ' ' || coalesce(i.valeur_texte, '')))`;
const HAS_FREE_TEXT = sql<SqlBool>`(i.observations IS NOT NULL OR i.valeur_texte IS NOT NULL)`;

export interface ResolvedSearch {
  sites: number[];
  accounts: number[];
  actions: number[];
  bacs: number[];
  /** type_action_id * 100 + valeur_constante of the constants whose label matches. */
  constantes: number[];
  /** Free text is looked for with this term (the scope allows it). */
  text: string | null;
  /** 'narrow': few matches over the whole log, gathered first; 'broad': a filter on the walk. */
  mode: 'narrow' | 'broad';
  /** One part alone matches more than COUNT_CAP rows of the whole log: no need to count them. */
  beyondCap?: boolean;
}

/** A label column already accent-free and lower-cased matches the term. */
function normalizedMatch(column: RawBuilder<unknown>, term: string) {
  return shortWordTerm(term) ? wordStartsIn(column, term) : containsNormalized(column, term);
}

/** A raw label matches the term, ignoring accents and case. */
function labelMatch(column: RawBuilder<unknown>, term: string) {
  return shortWordTerm(term) ? wordStartsUnaccent(column, term) : ilikeUnaccent(column, term);
}

/**
 * Free text of intervention i matches the term: in the form the indexes of migration 015 serve
 * (gathering a narrow search's matches), or as a plain check of the row at hand (a walk), where
 * listing the word starts of each row would cost far more than one regular expression.
 */
function freeTextMatch(term: string, use: 'index' | 'check' = 'index'): RawBuilder<SqlBool> {
  if (shortWordTerm(term)) return sql<SqlBool>`(${HAS_FREE_TEXT} AND ${use === 'index' ? wordStartsNormalized(FREE_TEXT, term) : wordStartsIn(FREE_TEXT, term)})`;
  return sql<SqlBool>`(${HAS_FREE_TEXT} AND ${containsNormalized(FREE_TEXT, term)})`;
}

/** Whether an index can gather the free-text matches of the term (see trigramIndexable). */
const freeTextIndexable = (term: string) => shortWordTerm(term) || trigramIndexable(term);

/** The search as a condition on intervention i (each part an indexed column or expression). */
function searchCondition(s: ResolvedSearch): RawBuilder<SqlBool> {
  const parts: RawBuilder<SqlBool>[] = [];
  if (s.sites.length) parts.push(sql<SqlBool>`i.site_id = ANY(${intArray(s.sites)})`);
  if (s.accounts.length) parts.push(sql<SqlBool>`i.intervenant_id = ANY(${intArray(s.accounts)})`);
  if (s.actions.length) parts.push(sql<SqlBool>`i.type_action_id = ANY(${intArray(s.actions)})`);
  if (s.bacs.length) parts.push(sql<SqlBool>`i.type_bac_id = ANY(${intArray(s.bacs)})`);
  if (s.constantes.length) parts.push(constanteMatch(s.constantes));
  if (s.text !== null) parts.push(freeTextMatch(s.text, 'check'));
  return parts.length ? sql<SqlBool>`(${sql.join(parts, sql` OR `)})` : sql<SqlBool>`false`;
}

/** The value is one of these constants (action * 100 + constant), through the (action, constant) index of migration 015. */
function constanteMatch(constantes: number[]): RawBuilder<SqlBool> {
  const actions = [...new Set(constantes.map((c) => Math.floor(c / 100)))];
  const values = [...new Set(constantes.map((c) => c % 100))];
  return sql<SqlBool>`(i.valeur_constante IS NOT NULL AND i.type_action_id = ANY(${intArray(actions)}) AND i.valeur_constante = ANY(${intArray(values)})
    AND (i.type_action_id * 100 + i.valeur_constante) = ANY(${intArray(constantes)}))`;
}

/**
 * The narrow search's matches (their ids, or whole rows), each part gathered through its own
 * index. Whole rows spare a join back to the log, which the planner would rather make by reading
 * the whole log than by looking up each match.
 */
function searchCandidates(s: ResolvedSearch, where: RawBuilder<SqlBool>, what: 'ids' | 'rows' = 'ids'): RawBuilder<unknown> {
  const cols = what === 'ids' ? sql`i.id` : sql`i.*`;
  const one = (cond: RawBuilder<SqlBool>) => sql`SELECT ${cols} FROM intervention i WHERE ${cond} AND ${where}`;
  const parts = [
    ...(s.sites.length ? [one(sql<SqlBool>`i.site_id = ANY(${intArray(s.sites)})`)] : []),
    ...(s.accounts.length ? [one(sql<SqlBool>`i.intervenant_id = ANY(${intArray(s.accounts)})`)] : []),
    ...(s.actions.length ? [one(sql<SqlBool>`i.type_action_id = ANY(${intArray(s.actions)})`)] : []),
    ...(s.bacs.length ? [one(sql<SqlBool>`i.type_bac_id = ANY(${intArray(s.bacs)})`)] : []),
    ...(s.constantes.length ? [one(constanteMatch(s.constantes))] : []),
    ...(s.text !== null ? [one(freeTextMatch(s.text))] : []),
  ];
  return parts.length ? sql.join(parts, sql` UNION `) : sql`SELECT ${cols} FROM intervention i WHERE false`;
}

/**
 * Where the rows of one page or batch come from: the log, or the narrow search's matches (a
 * union, planned on its own: given the log and the matches' ids, the planner would rather walk
 * the whole log in the page's order, expecting to meet the matches soon).
 */
function source(search: ResolvedSearch | null, where: RawBuilder<SqlBool>) {
  // OFFSET 0 keeps the matches apart when there is only one part (no union): pulled up into
  // the page's statement, a single condition on free text would let the planner walk the date
  // index instead, checking each row, which reads the whole log when a term has no match.
  return search?.mode === 'narrow' ? sql`(${searchCandidates(search, where, 'rows')} OFFSET 0) i` : sql`intervention i`;
}

// ---------------------------------------------------------------------------------------------
// Lists.

/** The WHERE of the list on intervention i (every filter is a column of i since migration 008). */
function conditions(f: ListFilter, date: ResolvedDate, search: ResolvedSearch | null = null): RawBuilder<SqlBool> {
  const parts: RawBuilder<SqlBool>[] = [];
  if (f.siteId !== undefined) parts.push(sql<SqlBool>`i.site_id = ${f.siteId}`);
  if (f.action !== undefined) parts.push(sql<SqlBool>`i.type_action_id = ${f.action}`);
  if (f.typeBac !== undefined) parts.push(sql<SqlBool>`i.type_bac_id = ${f.typeBac}`);
  if (f.numeroBac !== undefined) parts.push(sql<SqlBool>`i.numero_bac = ${f.numeroBac}`);
  if (date) parts.push(dateCondition(date));
  // A narrow search is applied by the source of the rows, a broad one here.
  if (search && search.mode === 'broad') parts.push(searchCondition(search));
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

/** Columns of intervention i an export line is made of. */
const LINE_COLUMNS = [
  'id',
  'date',
  'date_paris',
  'site_id',
  'intervenant_id',
  'type_bac_id',
  'numero_bac',
  'type_action_id',
  'valeur_nombre',
  'valeur_constante',
  'valeur_texte',
  'bac_destination_id',
  'observations',
  'modification_agent_id',
  'modified_at',
] as const;

const columnsOf = (alias: string, names: readonly string[]) => sql.raw(names.map((n) => `${alias}.${n}`).join(', '));

interface WalkOptions {
  limit: number | null;
  offset: number;
  after: ListKey | null;
  /** Columns of intervention i to carry (besides the sort keys). */
  columns: readonly string[];
}

/**
 * Rows (the given columns of intervention i and the sort keys gkey, gtie, numero) of one page,
 * of one export batch after `after`, or of the whole export (no limit), in the list's order.
 */
function walkQuery(f: ListFilter, date: ResolvedDate, search: ResolvedSearch | null, sort: ListSort, w: WalkOptions) {
  const desc = sort.direction === 'desc';
  const dir = desc ? sql`DESC` : sql`ASC`;
  const cmp = desc ? sql`<` : sql`>`;
  const where = conditions(f, date, search);
  const { after } = w;
  const limit = w.limit === null ? sql`` : sql`LIMIT ${w.limit} OFFSET ${w.offset}`;
  const cols = columnsOf('i', w.columns);
  const from = source(search, conditions(f, date));

  if (sort.name === 'date') {
    const resume = after ? sql`(i.date, i.id) ${cmp} (${dateOfKey(after.dkey)}, ${after.id})` : sql`true`;
    return sql`SELECT ${cols}, NULL::text AS gkey, NULL::text AS gtie, NULL::int AS numero FROM ${from}
      WHERE ${where} AND ${resume} ORDER BY i.date ${dir}, i.id ${dir} ${limit}`;
  }
  if (sort.name === 'numeroBac') {
    const resume = after ? sql`(i.numero_bac, i.date, i.id) ${cmp} (${after.numero}, ${dateOfKey(after.dkey)}, ${after.id})` : sql`true`;
    return sql`SELECT ${cols}, NULL::text AS gkey, NULL::text AS gtie, i.numero_bac AS numero FROM ${from}
      WHERE ${where} AND ${resume} ORDER BY i.numero_bac ${dir}, i.date ${dir}, i.id ${dir} ${limit}`;
  }

  const g = GROUPS[sort.name]!;
  const tieCast = sql.raw(g.tieType);
  if (f.siteId !== undefined || search?.mode === 'narrow') {
    // A few thousand rows at most: join and sort them. The keys are computed once per entry of
    // the referenced table (OFFSET 0 keeps that subquery apart), not once per intervention.
    const resume = after
      ? sql`(o.gkey, o.gtie, i.date, i.id) ${cmp} (${after.gkey}, CAST(${after.gtie} AS ${tieCast}), ${dateOfKey(after.dkey)}, ${after.id})`
      : sql`true`;
    return sql`SELECT ${cols}, o.gkey, o.gtie, NULL::int AS numero
      FROM ${from} JOIN (SELECT g.id AS gid, ${g.key} AS gkey, ${g.tie} AS gtie FROM ${g.table} g OFFSET 0) o ON o.gid = ${g.fk}
      WHERE ${where} AND ${resume} ORDER BY o.gkey ${dir}, o.gtie ${dir}, i.date ${dir}, i.id ${dir} ${limit}`;
  }
  // Group by group in label order. The inner walk is limited to what the page can need from
  // one group: the final sort then only ever sorts that many rows per group (it cannot know
  // that each group already comes in date order) and stops at the group that fills the page.
  const outerFrom = after ? sql`(${g.key}, ${g.tie}) ${desc ? sql`<=` : sql`>=`} (${after.gkey}, CAST(${after.gtie} AS ${tieCast}))` : sql`true`;
  const innerFrom = after
    ? sql`(o.gtie <> CAST(${after.gtie} AS ${tieCast}) OR (i.date, i.id) ${cmp} (${dateOfKey(after.dkey)}, ${after.id}))`
    : sql`true`;
  const innerLimit = w.limit === null ? sql`` : sql`LIMIT ${w.offset + w.limit}`;
  return sql`SELECT ${columnsOf('x', w.columns)}, o.gkey, o.gtie, NULL::int AS numero
    FROM (SELECT g.id AS gid, ${g.key} AS gkey, ${g.tie} AS gtie FROM ${g.table} g WHERE ${outerFrom} ORDER BY ${g.key} ${dir}, ${g.tie} ${dir}) o
    CROSS JOIN LATERAL (SELECT ${cols} FROM intervention i WHERE ${g.fk} = o.gid AND ${where} AND ${innerFrom}
      ORDER BY i.date ${dir}, i.id ${dir} ${innerLimit}) x
    ORDER BY o.gkey ${dir}, o.gtie ${dir}, x.date ${dir}, x.id ${dir} ${limit}`;
}

/** The ORDER BY of the list over a walk's output `alias`. */
function walkOrder(alias: string, sort: ListSort) {
  const dir = sort.direction === 'desc' ? 'DESC' : 'ASC';
  const keys = sort.name === 'date' ? ['date', 'id'] : sort.name === 'numeroBac' ? ['numero', 'date', 'id'] : ['gkey', 'gtie', 'date', 'id'];
  return sql.raw(keys.map((k) => `${alias}.${k} ${dir}`).join(', '));
}

/**
 * An export batch's rows with their display columns, in the order of the walk, in one
 * statement (a page reads them by id instead: rowsByIdsQuery). Labels are scalar subqueries
 * rather than joins: each is planned alone, where a join of eight tables cost more to plan
 * (tens of ms) than to run for twenty rows.
 */
function rowsQuery(ids: RawBuilder<unknown>, withFlags = true) {
  return sql<InterventionListRecord>`SELECT i.id, i.date, ${DATE_KEY(sql`i.date`)} AS dkey, p.gkey, p.gtie::text AS gtie, p.numero, ${displayColumns(withFlags)}
    FROM (SELECT q.*, row_number() OVER () AS n FROM (${ids}) q) p
    JOIN intervention i ON i.id = p.id
    ORDER BY p.n`;
}

/**
 * The display rows of these interventions, in the order of `ids`: a page's rows once its walk
 * has found them. Lookups by id whose plan never depends on the page, so planned once per
 * connection (plan-once.ts): planning the twenty-odd label and flag subqueries took about as
 * long as running them, on every page.
 */
function rowsByIdsQuery(ids: number[]) {
  return planOnce(sql<Omit<InterventionListRecord, 'gkey' | 'gtie' | 'numero'>>`SELECT i.id, i.date, ${DATE_KEY(sql`i.date`)} AS dkey, ${displayColumns(true)}
    FROM unnest(${intArray(ids)}) WITH ORDINALITY AS p(id, n)
    JOIN intervention i ON i.id = p.id
    ORDER BY p.n`);
}

/** The sort keys of a page's rows, in the list's order (a walk: see walkQuery). */
type PageKey = Pick<ListKey, 'id' | 'gkey' | 'gtie' | 'numero'>;

/**
 * A page: its walk first (the ids and sort keys, a statement planned for the filter at hand),
 * then its display rows by id. A row deleted between the two statements is left out.
 */
async function readPage(db: Db, keys: RawBuilder<PageKey>): Promise<InterventionListRecord[]> {
  const walked = (await keys.execute(db)).rows;
  if (walked.length === 0) return [];
  const byId = new Map((await rowsByIdsQuery(walked.map((k) => k.id)).execute(db)).rows.map((r) => [r.id, r]));
  return walked.flatMap((k) => {
    const row = byId.get(k.id);
    return row ? [Object.assign(row, { gkey: k.gkey, gtie: k.gtie === null ? null : String(k.gtie), numero: k.numero })] : [];
  });
}

/** The display columns of intervention i (everything but the sort keys). */
function displayColumns(withFlags: boolean) {
  // The flags say whether the table may offer to edit or delete the row (the rules of
  // interventions-admin.service.ts); an export has no use for them, and over a batch of a
  // thousand rows the planner hashes every request of the table to answer them (20 ms a batch at
  // a million interventions). A request is called for by its first trigger and by the later
  // entries that signalled it again (demande_signalement).
  // Two indexed lookups (an OR of the two would read every request for each row).
  const calledFor = sql`(SELECT d.id, d.statut_id, d.intervention_realisee_id FROM demande_intervention d WHERE d.intervention_declenchante_id = i.id
    UNION ALL SELECT d.id, d.statut_id, d.intervention_realisee_id FROM demande_signalement ds JOIN demande_intervention d ON d.id = ds.demande_intervention_id
      WHERE ds.intervention_id = i.id)`;
  const flags = withFlags
    ? sql`(i.demande_intervention_id IS NOT NULL
        OR EXISTS (SELECT 1 FROM demande_intervention d WHERE d.intervention_realisee_id = i.id)
        OR EXISTS (SELECT 1 FROM demande_intervention d WHERE d.intervention_declenchante_id = i.id AND d.statut_id = ${STATUT_REALISEE})
        OR EXISTS (SELECT 1 FROM demande_signalement ds JOIN demande_intervention d ON d.id = ds.demande_intervention_id
                    WHERE ds.intervention_id = i.id AND d.statut_id = ${STATUT_REALISEE})) AS locked,
      EXISTS (SELECT 1 FROM demande_intervention d WHERE d.intervention_declenchante_id = i.id AND d.statut_id IN (3, 4)) AS "pendingDemande",
      (SELECT c.statut_id FROM ${calledFor} c ORDER BY c.id DESC LIMIT 1) AS "idStatut",
      (SELECT c.intervention_realisee_id FROM ${calledFor} c WHERE c.intervention_realisee_id IS NOT NULL ORDER BY c.id DESC LIMIT 1) AS "interventionRealisee"`
    : sql`false AS locked, false AS "pendingDemande", NULL::int AS "idStatut", NULL::int AS "interventionRealisee"`;
  return sql`i.type_action_id AS "idAction", (SELECT ta.libelle FROM type_action ta WHERE ta.id = i.type_action_id) AS "typeAction",
      (SELECT ta.valeur FROM type_action ta WHERE ta.id = i.type_action_id) AS "actionValeur",
      (SELECT tb.libelle FROM type_bac tb WHERE tb.id = i.type_bac_id) AS "typeBac", i.type_bac_id AS "idTypeBac",
      i.numero_bac AS "numeroBac", i.site_composteur_id AS "idSiteComposteur",
      i.valeur_nombre AS "valeurNombre", i.valeur_constante AS "valeurConstante",
      (SELECT tac.constante FROM type_action_constante tac WHERE tac.id_action = i.type_action_id AND tac.id_constante = i.valeur_constante) AS constante,
      i.valeur_texte AS "valeurTexte", i.bac_destination_id AS "bacDestination",
      (SELECT dest.numero FROM site_composteur dest WHERE dest.id = i.bac_destination_id) AS "destinationNumeroBac", i.observations,
      (SELECT trim(a.nom || ' ' || coalesce(a.prenom, '')) FROM account a WHERE a.id = i.intervenant_id) AS intervenant,
      i.site_id AS "idSite", (SELECT coalesce(nullif(s.nom, ''), s.code) FROM site s WHERE s.id = i.site_id) AS site,
      (SELECT s.nom FROM site s WHERE s.id = i.site_id) AS "siteNom",
      (SELECT trim(m.nom || ' ' || coalesce(m.prenom, '')) FROM account m WHERE m.id = i.modification_agent_id) AS "modificationAgent",
      i.modified_at AS "modifiedAt", i.demande_intervention_id AS "demandeIntervention", ${flags}`;
}

// ---------------------------------------------------------------------------------------------
// Export lines.

/**
 * The export's columns: the table's, with the unit of the value in a column of its own so that a
 * spreadsheet can add the values up.
 */
export const EXPORT_HEADERS = ['Date', 'Site', 'Intervenant', 'Type Cellule', 'N° Cellule', 'Action', 'Valeur', 'Unité', 'Observations', 'Modifiée par'] as const;

const idsOfKind = (...kinds: string[]) =>
  Object.entries(ACTION_VALUE_KINDS)
    .filter(([, k]) => kinds.includes(k))
    .map(([id]) => Number(id));

/**
 * The value of an export line in SQL, in three parts: the number of a measured action (litres,
 * degrees), the text of the others (a constant's label, a free text), and the unit of the number
 * ('L', '°C'; a transfer's says where the matter went, as the table does: 'L vers le composteur
 * n°3'). The table's displayed value (displayValue of shared/schemas/interventions.ts) is the
 * number and its unit run together.
 */
function sqlExportValue(r: { action: RawBuilder<unknown>; nombre: RawBuilder<unknown>; constante: RawBuilder<unknown>; texte: RawBuilder<unknown>; dest: RawBuilder<unknown> }) {
  const among = (...kinds: string[]) => {
    const ids = idsOfKind(...kinds);
    return ids.length ? sql<SqlBool>`${r.action} IN (${sql.raw(ids.join(', '))})` : sql<SqlBool>`false`;
  };
  return {
    nombre: sql`CASE WHEN ${among('transfer', 'litres', 'temperature')} THEN ${r.nombre} END`,
    texte: sql<string>`CASE WHEN ${among('constant')} THEN ${r.constante} WHEN ${among('text')} THEN ${r.texte} END`,
    unite: sql<string>`CASE WHEN ${r.nombre} IS NULL THEN NULL
      WHEN ${among('transfer')} THEN 'L' || coalesce(' vers le composteur n°' || (${r.dest})::text, '')
      WHEN ${among('litres')} THEN 'L'
      WHEN ${among('temperature')} THEN '°C' END`,
  };
}

/**
 * A decimal cell as formatCsvCell writes a number (csv.ts): no trailing zeros, the French decimal
 * comma (36,5), never guarded nor quoted (a negative temperature is a number, not a formula);
 * '' for NULL.
 */
export function sqlCsvDecimal(v: RawBuilder<unknown>): RawBuilder<string> {
  return sql<string>`coalesce(replace(trim_scale(${v})::text, '.', ','), '')`;
}

/** The label maps of an export, as JSON text read once (see labelMaps). */
export interface ExportMaps {
  sites: string;
  accounts: string;
  cellsAndActions: string;
  agents: string;
  constantes: string;
}

/**
 * The labels an export line shows, as maps from id to label: site, intervenant, cell type and
 * action as finished CSV cells (formatted once per label, not once per row), the correcting
 * agent and the constants as plain text (they go into a longer cell). Cell types and actions
 * share a map, their keys prefixed 'b' and 'a'.
 */
function mapExpressions() {
  const cell = (label: RawBuilder<unknown>) => sqlCsvText(label);
  const person = sql`trim(a.nom || ' ' || coalesce(a.prenom, ''))`;
  return {
    sites: sql`(SELECT coalesce(jsonb_object_agg(s.id, ${cell(sql`coalesce(nullif(s.nom, ''), s.code)`)}), '{}') FROM site s)`,
    accounts: sql`(SELECT coalesce(jsonb_object_agg(a.id, ${cell(person)}), '{}') FROM account a)`,
    cellsAndActions: sql`(SELECT coalesce(jsonb_object_agg(k, ${cell(sql`x.libelle`)}), '{}')
      FROM (SELECT 'b' || tb.id AS k, tb.libelle FROM type_bac tb UNION ALL SELECT 'a' || ta.id, ta.libelle FROM type_action ta) x)`,
    agents: sql`(SELECT coalesce(jsonb_object_agg(a.id, ${person}), '{}') FROM account a WHERE a.kind = 'agent' OR EXISTS (SELECT 1 FROM intervention i WHERE i.modification_agent_id = a.id))`,
    constantes: sql`(SELECT coalesce(jsonb_object_agg(c.id_action * 100 + c.id_constante, c.constante), '{}') FROM type_action_constante c)`,
  };
}

/**
 * Labels of a row `r` (columns of LINE_COLUMNS), read from the maps: built by the statement
 * itself (a whole-log COPY: once), or given as parameters (batches: built once per export, where
 * building them in each batch cost more than the batch).
 */
function labelsOf(maps: ExportMaps | null) {
  const m = mapExpressions();
  const map = (name: keyof ExportMaps) => (maps === null ? m[name] : sql`(SELECT CAST(${maps[name]} AS jsonb))`);
  return {
    siteCell: sql`(${map('sites')} ->> r.site_id::text)`,
    intervenantCell: sql`(${map('accounts')} ->> r.intervenant_id::text)`,
    typeBacCell: sql`(${map('cellsAndActions')} ->> ('b' || r.type_bac_id))`,
    actionCell: sql`(${map('cellsAndActions')} ->> ('a' || r.type_action_id))`,
    agent: sql`(${map('agents')} ->> r.modification_agent_id::text)`,
    constante: sql`(${map('constantes')} ->> (r.type_action_id * 100 + r.valeur_constante)::text)`,
    // Transfers only: the lookup runs on a fifth of the rows.
    dest: sql`(SELECT d.numero FROM site_composteur d WHERE d.id = r.bac_destination_id)`,
  };
}

/**
 * One CSV line per row of `walk` (in its order), with the sort keys for the next batch (a COPY,
 * which reads every row in one statement, takes the line alone). The value and the last
 * change are computed once per row in a subquery kept apart (OFFSET 0), since the cell rules
 * read each of them several times; its ORDER BY (already the walk's) tells the planner the
 * rows stay in order.
 */
function linesQuery(walk: RawBuilder<unknown>, sort: ListSort, maps: ExportMaps | null) {
  const l = labelsOf(maps);
  const withKeys = maps !== null;
  const value = sqlExportValue({ action: sql`r.type_action_id`, nombre: sql`r.valeur_nombre`, constante: l.constante, texte: sql`r.valeur_texte`, dest: l.dest });
  const v = (c: string) => sql.ref(`v.${c}`) as unknown as RawBuilder<unknown>;
  const line = sqlCsvLine([
    // The Paris date as the line shows it, kept on the row (migration 022).
    sql<string>`v.date_paris`,
    sql<string>`coalesce(v.site_cell, '')`,
    sql<string>`coalesce(v.intervenant_cell, '')`,
    sql<string>`coalesce(v.type_bac_cell, '')`,
    sqlCsvInteger(v('numero_bac')),
    sql<string>`coalesce(v.action_cell, '')`,
    // A number, or else a text (one of the two is NULL).
    sql<string>`(${sqlCsvDecimal(v('valeur_nombre'))} || ${sqlCsvText(v('valeur_texte'))})`,
    sqlCsvText(v('unite')),
    sqlCsvText(v('observations')),
    sqlCsvText(v('modifiee')),
  ]);
  return sql<ExportLine>`
    SELECT ${line} AS line${withKeys ? sql`, v.gkey, v.gtie::text AS gtie, v.numero, ${DATE_KEY(sql`v.date`)} AS dkey, v.id` : sql``}
    FROM (SELECT r.id, r.date, r.date_paris, r.gkey, r.gtie, r.numero, r.numero_bac, r.observations,
            ${l.siteCell} AS site_cell, ${l.intervenantCell} AS intervenant_cell, ${l.typeBacCell} AS type_bac_cell, ${l.actionCell} AS action_cell,
            ${value.nombre} AS valeur_nombre, ${value.texte} AS valeur_texte, ${value.unite} AS unite,
            CASE WHEN r.modification_agent_id IS NULL THEN NULL ELSE ${l.agent} || ' le ' || ${sqlParisDateTime(sql`r.modified_at`)} END AS modifiee
          FROM (${walk}) r ORDER BY ${walkOrder('r', sort)} OFFSET 0) v
    ORDER BY ${walkOrder('v', sort)}`;
}

/** A line of the export, with its row's sort position. */
export interface ExportLine extends ListKey {
  line: string;
}

/** Rows of an export batch on the embedded database: aim at this much time per query, then let other requests in. */
export const EXPORT_BATCH_TARGET_MS = 15;
const EXPORT_BATCH_MIN = 50;
const EXPORT_BATCH_MAX = 5000;

const yieldToEventLoop = () => new Promise<void>((resolve) => setImmediate(resolve));

/** The list's queries, apart from the database so that tests and the bench can EXPLAIN them. */
export const interventionListQueries = {
  span: (siteId?: number) =>
    sql<{ from: Date | null; to: Date | null }>`SELECT min(i.date) AS "from", max(i.date) AS "to" FROM intervention i
      WHERE ${siteId === undefined ? sql`true` : sql`i.site_id = ${siteId}`}`,

  /** The ids and sort keys of a page, in the list's order (its rows: rowsByIds). */
  pageKeys: (f: ListFilter, date: ResolvedDate, sort: ListSort, limit: number, offset: number, search: ResolvedSearch | null = null, after: ListKey | null = null) =>
    walkQuery(f, date, search, sort, { limit, offset, after, columns: ['id', 'date'] }) as RawBuilder<PageKey>,

  /** The display rows of these interventions, in the order of the ids. */
  rowsByIds: rowsByIdsQuery,

  /**
   * Interventions per Paris month, oldest first, from the network's monthly summary (kept by
   * triggers), of one action when given; with the first instant of the month and of the next
   * one as date keys.
   */
  months: (action?: number) =>
    sql<{ nb: number; mois: string; startKey: string; endKey: string }>`SELECT sum(m.nb)::int AS nb, to_char(m.mois, 'YYYY-MM-DD') AS mois,
        ${DATE_KEY(sql`(m.mois::timestamp AT TIME ZONE 'Europe/Paris')`)} AS "startKey",
        ${DATE_KEY(sql`((m.mois + interval '1 month')::timestamp AT TIME ZONE 'Europe/Paris')`)} AS "endKey"
      FROM intervention_stats_mois_reseau m WHERE ${action === undefined ? sql`true` : sql`m.type_action_id = ${action}`}
      GROUP BY m.mois HAVING sum(m.nb) > 0 ORDER BY m.mois`,

  /**
   * Interventions of the whole network per Paris day of one month (`mois`, its first day), oldest
   * first, from the daily summary (kept by triggers), with the first instant of the day and of
   * the next one as date keys.
   */
  days: (mois: string) =>
    sql<{ nb: number; startKey: string; endKey: string }>`SELECT sum(j.nb)::int AS nb,
        ${DATE_KEY(sql`(j.jour::timestamp AT TIME ZONE 'Europe/Paris')`)} AS "startKey",
        ${DATE_KEY(sql`((j.jour + 1)::timestamp AT TIME ZONE 'Europe/Paris')`)} AS "endKey"
      FROM intervention_stats_jour_reseau j WHERE j.jour >= CAST(${mois} AS date) AND j.jour < CAST(${mois} AS date) + interval '1 month'
      GROUP BY j.jour HAVING sum(j.nb) > 0 ORDER BY j.jour`,

  /** An export batch as table rows (without the edit/delete flags). */
  batch: (f: ListFilter, date: ResolvedDate, sort: ListSort, after: ListKey | null, size: number, search: ResolvedSearch | null = null) =>
    rowsQuery(walkQuery(f, date, search, sort, { limit: size, offset: 0, after, columns: ['id', 'date'] }), false),

  /** The label maps of an export's batches, read once. */
  labelMaps: () => {
    const m = mapExpressions();
    return sql<ExportMaps>`SELECT ${m.sites}::text AS sites, ${m.accounts}::text AS accounts, ${m.cellsAndActions}::text AS "cellsAndActions",
      ${m.agents}::text AS agents, ${m.constantes}::text AS constantes`;
  },

  /** Export lines: a batch of `size` after `after` with their sort keys (maps given), or all of them, the line alone (one COPY). */
  lines: (f: ListFilter, date: ResolvedDate, search: ResolvedSearch | null, sort: ListSort, page: { after: ListKey | null; size: number; maps: ExportMaps } | null) =>
    linesQuery(
      walkQuery(f, date, search, sort, { limit: page?.size ?? null, offset: 0, after: page?.after ?? null, columns: LINE_COLUMNS }),
      sort,
      page?.maps ?? null,
    ),

  /** The count of the list; `kept` when it is read from intervention_count (exact, and a few rows). */
  count(f: ListFilter, date: ResolvedDate, search: ResolvedSearch | null = null): { query: RawBuilder<{ count: number }>; capped: boolean; kept?: true } {
    if (search?.mode === 'narrow') return { query: sql`SELECT count(*)::int AS count FROM (${searchCandidates(search, conditions(f, date))}) c`, capped: false };
    if (!date && !search && f.typeBac === undefined && f.numeroBac === undefined) {
      // type_action_id 0: the site's total.
      const parts: RawBuilder<SqlBool>[] = [sql<SqlBool>`c.type_action_id = ${f.action ?? 0}`];
      if (f.siteId !== undefined) parts.push(sql<SqlBool>`c.site_id = ${f.siteId}`);
      return { query: sql`SELECT coalesce(sum(c.n), 0)::int AS count FROM intervention_count c WHERE ${sql.join(parts, sql` AND `)}`, capped: false, kept: true };
    }
    // Within one site the rows are few: count them all.
    if (f.siteId !== undefined) return { query: sql`SELECT count(*)::int AS count FROM intervention i WHERE ${conditions(f, date, search)}`, capped: false };
    if (!search && date?.kind === 'ranges' && date.ranges.length > 1) {
      // Range by range on the index: only matching rows are read, and at most COUNT_CAP + 1.
      const rest = conditions({ ...f, date: undefined }, null);
      return {
        query: sql`SELECT count(*)::int AS count FROM (SELECT 1 FROM unnest(CAST(${multirangeLiteral(date.ranges)} AS tstzmultirange)) r
          JOIN intervention i ON i.date >= lower(r) AND i.date < upper(r) WHERE ${rest} LIMIT ${COUNT_CAP + 1}) x`,
        capped: true,
      };
    }
    // A broad search matches much of the log: walking it in date order finds COUNT_CAP + 1 matches
    // soon, where gathering every match through the indexes reads them all.
    const order = search ? sql`ORDER BY i.date DESC, i.id DESC` : sql``;
    return { query: sql`SELECT count(*)::int AS count FROM (SELECT 1 FROM intervention i WHERE ${conditions(f, date, search)} ${order} LIMIT ${COUNT_CAP + 1}) x`, capped: true };
  },

  /** The referenced rows whose label matches the term (a handful of small tables). */
  searchTargets(term: string, scope: SearchScope) {
    const none = sql`ARRAY[]::int[]`;
    return sql<{ sites: number[]; accounts: number[]; actions: number[]; bacs: number[]; constantes: number[] }>`SELECT
      ${scope.site ? sql`ARRAY(SELECT s.id FROM site s WHERE ${normalizedMatch(sql`s.nom_code_text`, term)})` : none} AS sites,
      ${scope.intervenant ? sql`ARRAY(SELECT a.id FROM account a WHERE ${normalizedMatch(sql`a.intervention_sort_key`, term)})` : none} AS accounts,
      ARRAY(SELECT t.id FROM type_action t WHERE ${labelMatch(sql`t.libelle`, term)}) AS actions,
      ARRAY(SELECT t.id FROM type_bac t WHERE ${labelMatch(sql`t.libelle`, term)}) AS bacs,
      ARRAY(SELECT c.id_action * 100 + c.id_constante FROM type_action_constante c WHERE ${labelMatch(sql`c.constante`, term)}) AS constantes`;
  },

  /**
   * How many rows of the whole log the labels of the search can match at most (each part
   * counted from the summaries), and how many rows the log holds.
   */
  labelReach(s: Omit<ResolvedSearch, 'mode' | 'text'>, withAccounts: boolean) {
    const sum = (q: RawBuilder<unknown>) => sql`coalesce((${q}), 0)::float8`;
    return sql<{ sites: number; actions: number; accounts: number | null; constantes: number; total: number }>`SELECT
      ${sum(sql`SELECT sum(n) FROM intervention_count WHERE type_action_id = 0 AND site_id = ANY(${intArray(s.sites)})`)} AS sites,
      ${sum(sql`SELECT sum(n) FROM intervention_count WHERE type_action_id = ANY(${intArray(s.actions)})`)} AS actions,
      ${withAccounts ? sum(sql`SELECT sum(nb) FROM intervention_stats_mois_intervenant WHERE intervenant_id = ANY(${intArray(s.accounts)})`) : sql`NULL::float8`} AS accounts,
      ${s.constantes.length ? sql`(SELECT count(*) FROM intervention i WHERE ${constanteMatch(s.constantes)})::float8` : sql`0::float8`} AS constantes,
      ${sum(sql`SELECT sum(n) FROM intervention_count WHERE type_action_id = 0`)} AS total`;
  },

  /** How many rows have free text matching the term, counted through its index up to `cap`. */
  textReach: (term: string, cap: number) =>
    sql<{ n: number }>`SELECT count(*)::int AS n FROM (SELECT 1 FROM intervention i WHERE ${freeTextMatch(term)} LIMIT ${cap}) t`,
};

/** More people than this matching a term: the search is broad (counting their rows would cost more than it saves). */
const NARROW_ACCOUNTS_MAX = 200;

/**
 * Gathering the matches first beats filtering the walk while they are fewer than
 * sqrt(COUNT_CAP x rows): the walk reads rows / matches rows per match, and counting stops at
 * COUNT_CAP + 1 matches.
 */
export function narrowLimit(total: number) {
  return Math.max(1000, Math.sqrt(COUNT_CAP * total));
}

export function createInterventionsAdminRepository(db: Db) {
  /** The Date filter as ranges over the days that hold data (of the site, when restricted). */
  async function resolveDate(f: ListFilter): Promise<ResolvedDate> {
    const term = f.date?.trim();
    if (!term) return null;
    const span = (await interventionListQueries.span(f.siteId).execute(db)).rows[0];
    return dateTermRanges(term, span?.from && span.to ? { from: new Date(span.from), to: new Date(span.to) } : null);
  }

  /** The search's targets, and whether it is narrow enough to gather its matches first. */
  async function resolveSearch(f: ListFilter): Promise<ResolvedSearch | null> {
    const term = f.search?.trim();
    if (!term) return null;
    const scope = f.scope ?? FULL_SEARCH;
    const targets = (await interventionListQueries.searchTargets(term, scope).execute(db)).rows[0];
    const text = scope.freeText ? term : null;
    const base = { ...targets, text };
    // Within one site the rows are few: the filter on its walk is enough.
    if (f.siteId !== undefined) return { ...base, mode: 'broad' };
    // A term no index can look up in free text (no run of three letters or digits, and not a
    // word start) is looked for by the walk.
    if (text !== null && !freeTextIndexable(text)) return { ...base, mode: 'broad' };
    // Each part is counted exactly from the summaries (people: when they are few enough for it
    // to be cheap); their sum bounds the matches (a row may match twice).
    const manyPeople = base.accounts.length > NARROW_ACCOUNTS_MAX;
    const parts = (await interventionListQueries.labelReach(base, !manyPeople).execute(db)).rows[0];
    // One part past the cap: the walk meets matches soon and the count is known.
    if (Math.max(parts.sites, parts.actions, parts.accounts ?? 0, parts.constantes) > COUNT_CAP) return { ...base, mode: 'broad', beyondCap: true };
    // Any cell type, or many people, match much of the log.
    const reach = base.bacs.length > 0 || manyPeople ? Infinity : parts.sites + parts.actions + (parts.accounts ?? 0) + parts.constantes;
    const limit = narrowLimit(parts.total);
    if (reach > limit) return { ...base, mode: 'broad' };
    const textCount = base.text === null ? 0 : (await interventionListQueries.textReach(base.text, COUNT_CAP + 1).execute(db)).rows[0].n;
    if (textCount > COUNT_CAP) return { ...base, mode: 'broad', beyondCap: true };
    return { ...base, mode: reach + textCount <= limit ? 'narrow' : 'broad' };
  }

  /** Export lines of the embedded database, keyset batches sized to EXPORT_BATCH_TARGET_MS, yielding between them. */
  async function* lineBatches(f: ListFilter, sort: ListSort, date: ResolvedDate, search: ResolvedSearch | null, fixedSize?: number): AsyncGenerator<string> {
    let after: ListKey | null = null;
    let size = fixedSize ?? EXPORT_BATCH_MIN;
    const maps = (await interventionListQueries.labelMaps().execute(db)).rows[0];
    for (;;) {
      const started = performance.now();
      const rows: ExportLine[] = (await interventionListQueries.lines(f, date, search, sort, { after, size, maps }).execute(db)).rows;
      const ms = performance.now() - started;
      if (rows.length > 0) yield rows.map((r) => r.line).join('');
      if (rows.length < size) return;
      const last = rows[rows.length - 1];
      after = { gkey: last.gkey, gtie: last.gtie, numero: last.numero, dkey: last.dkey, id: last.id };
      // Towards the target time, at most doubling at a time (a fast batch may have been lucky).
      if (fixedSize === undefined) size = Math.min(EXPORT_BATCH_MAX, 2 * size, Math.max(EXPORT_BATCH_MIN, Math.round((size * EXPORT_BATCH_TARGET_MS) / Math.max(ms, 1))));
      // On the embedded database a query holds the main thread: other requests run here.
      await yieldToEventLoop();
    }
  }

  /**
   * Where a page at `offset` of the whole log in date order starts: the Paris months wholly
   * before it (their counts from the monthly summary), then, without an action filter, the
   * whole days of its month (the daily summary), are skipped by a condition on the date, which
   * the (date, id) index jumps to, instead of walking their rows one by one. Page 10,000 of the
   * million-row log then walks at most a day of rows, not 200,000.
   */
  async function periodStart(order: ListSort, action: number | undefined, offset: number): Promise<{ skipped: number; after: ListKey } | null> {
    const newestFirst = order.direction === 'desc';
    let skipped = 0;
    let after: ListKey | null = null;
    /** Skips the periods wholly before the page; the one the page starts in, if any. */
    const skip = <P extends { nb: number; startKey: string; endKey: string }>(periods: P[]): P | undefined => {
      for (const p of newestFirst ? periods.reverse() : periods) {
        if (skipped + p.nb > offset) return p;
        skipped += p.nb;
        // Past this period: before its first instant (newest first), from the next one's on
        // (oldest first). Ids start at 1, so an id of 0 keeps or leaves out that whole instant.
        after = { gkey: null, gtie: null, numero: null, dkey: newestFirst ? p.startKey : p.endKey, id: 0 };
      }
      return undefined;
    };
    const month = skip((await interventionListQueries.months(action).execute(db)).rows);
    // The daily summary counts every action together.
    if (month && action === undefined) skip((await interventionListQueries.days(month.mois).execute(db)).rows);
    return after ? { skipped, after } : null;
  }

  return {
    resolveDate,
    resolveSearch,

    async list(f: ListFilter, sort: ListSort, page: { limit: number; offset: number }) {
      const [date, search] = await Promise.all([resolveDate(f), resolveSearch(f)]);
      if (date?.kind === 'none') return { count: 0, countCapped: false, rows: [] as InterventionListRecord[] };
      const counted = interventionListQueries.count(f, date, search);
      if (counted.kept && page.offset >= DEEP_PAGE_OFFSET) {
        // A deep page of a list whose count is kept: the count first, then the page from the
        // nearer end, in the reverse order for a page past the middle (every key of a list's
        // order runs in the same direction, so reversing it is flipping that direction). The
        // last page of the whole log skips a few rows, not 999,980.
        const n = (await counted.query.execute(db)).rows[0]?.count ?? 0;
        const win = pageFromNearestEnd(page, n);
        if (win.limit === 0) return { count: n, countCapped: false, rows: [] as InterventionListRecord[] };
        const order: ListSort = win.reversed ? { ...sort, direction: sort.direction === 'asc' ? 'desc' : 'asc' } : sort;
        const start = order.name === 'date' && f.siteId === undefined && win.offset >= DEEP_PAGE_OFFSET ? await periodStart(order, f.action, win.offset) : null;
        const rows = await readPage(db, interventionListQueries.pageKeys(f, date, order, win.limit, win.offset - (start?.skipped ?? 0), search, start?.after ?? null));
        return { count: n, countCapped: false, rows: win.reversed ? rows.reverse() : rows };
      }
      const pageRows = readPage(db, interventionListQueries.pageKeys(f, date, sort, page.limit, page.offset, search));
      // The search alone, one of its parts already past the cap: nothing to count.
      const onlySearch = !date && f.action === undefined && f.typeBac === undefined && f.numeroBac === undefined && f.siteId === undefined;
      if (search?.beyondCap && onlySearch) return { count: COUNT_CAP, countCapped: true, rows: await pageRows };
      const [countRes, rows] = await Promise.all([counted.query.execute(db), pageRows]);
      const n = countRes.rows[0]?.count ?? 0;
      const capped = counted.capped && n > COUNT_CAP;
      return { count: capped ? COUNT_CAP : n, countCapped: capped, rows };
    },

    /**
     * The rows of the table, `size` at a time in the list's order: each batch starts after the
     * sort key of the previous batch's last row, compared in SQL at full precision.
     */
    async *batches(f: ListFilter, sort: ListSort, size = 1000): AsyncGenerator<InterventionListRecord[]> {
      const [date, search] = await Promise.all([resolveDate(f), resolveSearch(f)]);
      if (date?.kind === 'none') return;
      let after: ListKey | null = null;
      for (;;) {
        const rows: InterventionListRecord[] = (await interventionListQueries.batch(f, date, sort, after, size, search).execute(db)).rows;
        if (rows.length > 0) yield rows;
        if (rows.length < size) return;
        const last = rows[rows.length - 1];
        after = { gkey: last.gkey, gtie: last.gtie, numero: last.numero, dkey: last.dkey, id: last.id };
      }
    },

    /**
     * The CSV file of the list (after `header`): one COPY on PostgreSQL, batches of lines on the
     * embedded database (`batches: true` forces them, and `batchSize` fixes their size, for tests).
     */
    async exportCsv(f: ListFilter, sort: ListSort, header: string, opts: { batches?: boolean; batchSize?: number } = {}): Promise<Readable> {
      const [date, search] = await Promise.all([resolveDate(f), resolveSearch(f)]);
      if (date?.kind === 'none') return Readable.from([header]);
      if (!opts.batches && (await streamsCopy(db))) {
        return copyLines(db, interventionListQueries.lines(f, date, search, sort, null), header);
      }
      async function* file() {
        yield header;
        yield* lineBatches(f, sort, date, search, opts.batchSize);
      }
      return Readable.from(file(), { objectMode: false });
    },

    /** One intervention as a table row (whatever filter), or undefined. */
    async findRow(id: number): Promise<InterventionListRecord | undefined> {
      const row = (await rowsByIdsQuery([id]).execute(db)).rows[0];
      return row && { ...row, gkey: null, gtie: null, numero: null };
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
