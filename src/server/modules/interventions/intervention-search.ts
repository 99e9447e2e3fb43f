// The search box of the interventions tables. It matches labels (site, intervenant, action, cell
// type, constant value) through the ids of the few referenced rows whose label matches, and free
// text (observations and free-text values) through the indexes of migration 015. Over the whole
// log, a search whose matches are few ("narrow", a fast path) gathers them first through those
// indexes; any other ("broad") is a condition on the walk, which soon fills a page.
import { sql, type RawBuilder, type SqlBool } from 'kysely';
import type { Db } from '../../db/client.js';
import { containsNormalized, ilikeUnaccent, intArray, shortWordTerm, trigramIndexable, wordStartsIn, wordStartsNormalized, wordStartsUnaccent } from '../../db/list.js';
import { COUNT_CAP } from '../../../shared/schemas/interventions-admin.js';

/** What a search may match besides action, cell type and constant labels. */
export interface SearchScope {
  site: boolean;
  intervenant: boolean;
  /** Observations and free-text values: only for who may see them (the tables service decides). */
  freeText: boolean;
}

export const FULL_SEARCH: SearchScope = { site: true, intervenant: true, freeText: true };

interface SearchTargets {
  sites: number[];
  accounts: number[];
  actions: number[];
  bacs: number[];
  /** type_action_id * 100 + valeur_constante of the constants whose label matches. */
  constantes: number[];
}

export interface ResolvedSearch extends SearchTargets {
  /** Free text is looked for with this term (the scope allows it). */
  text: string | null;
  /** 'narrow': few matches over the whole log, gathered first; 'broad': a filter on the walk. */
  mode: 'narrow' | 'broad';
  /** One part alone matches more than COUNT_CAP rows of the whole log: no need to count them. */
  beyondCap?: boolean;
  /** A search that matches no label: its free-text matches over the whole log, counted exactly. */
  textOnlyCount?: number;
}

/** Observations and free-text value of intervention i, as the indexes of migration 015 hold them. */
const FREE_TEXT = sql`f_unaccent(lower(coalesce(i.observations, '') || ' ' || coalesce(i.valeur_texte, '')))`;
const HAS_FREE_TEXT = sql<SqlBool>`(i.observations IS NOT NULL OR i.valeur_texte IS NOT NULL)`;

/** A label column already accent-free and lower-cased matches the term. */
const normalizedMatch = (column: RawBuilder<unknown>, term: string) => (shortWordTerm(term) ? wordStartsIn(column, term) : containsNormalized(column, term));

/** A raw label matches the term, ignoring accents and case. */
const labelMatch = (column: RawBuilder<unknown>, term: string) => (shortWordTerm(term) ? wordStartsUnaccent(column, term) : ilikeUnaccent(column, term));

/**
 * Free text of intervention i matches the term: in the form the indexes of migration 015 serve
 * (gathering a narrow search's matches), or as a plain check of the row at hand (a walk), where
 * listing the word starts of each row would cost far more than one regular expression.
 */
function freeTextMatch(term: string, use: 'index' | 'check'): RawBuilder<SqlBool> {
  if (!shortWordTerm(term)) return sql<SqlBool>`(${HAS_FREE_TEXT} AND ${containsNormalized(FREE_TEXT, term)})`;
  return sql<SqlBool>`(${HAS_FREE_TEXT} AND ${use === 'index' ? wordStartsNormalized(FREE_TEXT, term) : wordStartsIn(FREE_TEXT, term)})`;
}

/** The value is one of these constants (action * 100 + constant), through the (action, constant) index of migration 015. */
function constanteMatch(constantes: number[]): RawBuilder<SqlBool> {
  const actions = [...new Set(constantes.map((c) => Math.floor(c / 100)))];
  const values = [...new Set(constantes.map((c) => c % 100))];
  return sql<SqlBool>`(i.valeur_constante IS NOT NULL AND i.type_action_id = ANY(${intArray(actions)}) AND i.valeur_constante = ANY(${intArray(values)})
    AND (i.type_action_id * 100 + i.valeur_constante) = ANY(${intArray(constantes)}))`;
}

/** The parts of the search as conditions on intervention i, each an indexed column or expression. */
function searchParts(s: ResolvedSearch, use: 'index' | 'check'): RawBuilder<SqlBool>[] {
  const among = (column: string, ids: number[]) => (ids.length ? [sql<SqlBool>`${sql.ref(column)} = ANY(${intArray(ids)})`] : []);
  return [
    ...among('i.site_id', s.sites),
    ...among('i.intervenant_id', s.accounts),
    ...among('i.type_action_id', s.actions),
    ...among('i.type_bac_id', s.bacs),
    ...(s.constantes.length ? [constanteMatch(s.constantes)] : []),
    ...(s.text !== null ? [freeTextMatch(s.text, use)] : []),
  ];
}

/** The broad search as a condition on the walk. */
export function searchCondition(s: ResolvedSearch): RawBuilder<SqlBool> {
  const parts = searchParts(s, 'check');
  return parts.length ? sql<SqlBool>`(${sql.join(parts, sql` OR `)})` : sql<SqlBool>`false`;
}

/**
 * The narrow search's matches (their ids, or whole rows), each part gathered through its own
 * index. Whole rows spare a join back to the log, which the planner would rather make by reading
 * the whole log than by looking up each match.
 */
export function searchCandidates(s: ResolvedSearch, where: RawBuilder<SqlBool>, what: 'ids' | 'rows' = 'ids'): RawBuilder<unknown> {
  const cols = what === 'ids' ? sql`i.id` : sql`i.*`;
  const parts = searchParts(s, 'index').map((cond) => sql`SELECT ${cols} FROM intervention i WHERE ${cond} AND ${where}`);
  return parts.length ? sql.join(parts, sql` UNION `) : sql`SELECT ${cols} FROM intervention i WHERE false`;
}

/** The search's statements, apart from the database so that tests and the bench can EXPLAIN them. */
export const searchQueries = {
  /** The referenced rows whose label matches the term (a handful of small tables). */
  targets(term: string, scope: SearchScope) {
    const none = sql`ARRAY[]::int[]`;
    return sql<SearchTargets>`SELECT
      ${scope.site ? sql`ARRAY(SELECT s.id FROM site s WHERE ${normalizedMatch(sql`s.nom_code_text`, term)})` : none} AS sites,
      ${scope.intervenant ? sql`ARRAY(SELECT a.id FROM account a WHERE ${normalizedMatch(sql`a.intervention_sort_key`, term)})` : none} AS accounts,
      ARRAY(SELECT t.id FROM type_action t WHERE ${labelMatch(sql`t.libelle`, term)}) AS actions,
      ARRAY(SELECT t.id FROM type_bac t WHERE ${labelMatch(sql`t.libelle`, term)}) AS bacs,
      ARRAY(SELECT c.id_action * 100 + c.id_constante FROM type_action_constante c WHERE ${labelMatch(sql`c.constante`, term)}) AS constantes`;
  },

  /**
   * How many rows of the whole log the labels of the search can match at most (each part
   * counted from the kept counts and the statistics summaries), and how many rows the log holds.
   */
  labelReach(s: SearchTargets, withAccounts: boolean) {
    const sum = (q: RawBuilder<unknown>) => sql`coalesce((${q}), 0)::float8`;
    return sql<{ sites: number; actions: number; accounts: number | null; constantes: number; total: number }>`SELECT
      ${sum(sql`SELECT sum(n) FROM intervention_count WHERE type_action_id = 0 AND site_id = ANY(${intArray(s.sites)})`)} AS sites,
      ${sum(sql`SELECT sum(n) FROM intervention_count WHERE type_action_id = ANY(${intArray(s.actions)})`)} AS actions,
      ${withAccounts ? sum(sql`SELECT sum(nb) FROM intervention_stats_mois WHERE intervenant_id = ANY(${intArray(s.accounts)})`) : sql`NULL::float8`} AS accounts,
      ${s.constantes.length ? sql`(SELECT count(*) FROM intervention i WHERE ${constanteMatch(s.constantes)})::float8` : sql`0::float8`} AS constantes,
      ${sum(sql`SELECT sum(n) FROM intervention_count WHERE type_action_id = 0`)} AS total`;
  },

  /** How many rows have free text matching the term, counted through its index up to `cap`. */
  textReach: (term: string, cap: number) =>
    sql<{ n: number }>`SELECT count(*)::int AS n FROM (SELECT 1 FROM intervention i WHERE ${freeTextMatch(term, 'index')} LIMIT ${cap}) t`,
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

/**
 * The search's targets, and whether it is narrow enough to gather its matches first (never
 * within one site, whose rows are few: the filter on its walk is enough).
 */
export async function resolveSearch(db: Db, rawTerm: string | undefined, scope: SearchScope, withinSite: boolean): Promise<ResolvedSearch | null> {
  const term = rawTerm?.trim();
  if (!term) return null;
  const targets = (await searchQueries.targets(term, scope).execute(db)).rows[0];
  const text = scope.freeText ? term : null;
  const base = { ...targets, text };
  // A term no index can look up in free text (no run of three letters or digits, and not a
  // word start) is looked for by the walk.
  if (withinSite || (text !== null && !shortWordTerm(text) && !trigramIndexable(text))) return { ...base, mode: 'broad' };
  // Each part is counted exactly from the summaries (people: when they are few enough for it
  // to be cheap); their sum bounds the matches (a row may match twice).
  const manyPeople = base.accounts.length > NARROW_ACCOUNTS_MAX;
  const parts = (await searchQueries.labelReach(base, !manyPeople).execute(db)).rows[0];
  // One part past the cap: the walk meets matches soon and the count is known.
  if (Math.max(parts.sites, parts.actions, parts.accounts ?? 0, parts.constantes) > COUNT_CAP) return { ...base, mode: 'broad', beyondCap: true };
  // Any cell type, or many people, match much of the log.
  const reach = base.bacs.length > 0 || manyPeople ? Infinity : parts.sites + parts.actions + (parts.accounts ?? 0) + parts.constantes;
  const limit = narrowLimit(parts.total);
  if (reach > limit) return { ...base, mode: 'broad' };
  const textCount = text === null ? 0 : (await searchQueries.textReach(text, COUNT_CAP + 1).execute(db)).rows[0].n;
  if (textCount > COUNT_CAP) return { ...base, mode: 'broad', beyondCap: true };
  const labels = [base.sites, base.accounts, base.actions, base.bacs, base.constantes].some((ids) => ids.length > 0);
  return { ...base, mode: reach + textCount <= limit ? 'narrow' : 'broad', ...(labels || text === null ? {} : { textOnlyCount: textCount }) };
}
