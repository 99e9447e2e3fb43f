// SQL of the sites list and its CSV export: the computed columns of the table are kept on the site
// row by the triggers of migration 005, each filter and each sort key has its index.
import { sql, type RawBuilder, type SqlBool } from 'kysely';
import type { Db } from '../../db/client.js';
import { containsNormalized, ilikeUnaccent, pageOf, shortWordTerm, wordStartsNormalized } from '../../db/list.js';
import { SITE_SORT_FIELDS, type SiteListQuery, type SiteSortField } from '../../../shared/schemas/sites.js';
import type { ListPaths } from '../../db/list-paths.js';

export interface SiteRecord {
  id: number;
  code: string;
  nom: string | null;
  ville: string;
  cp: string;
  adresse: string;
  numero: string | null;
  complement: string | null;
  idType: number;
  typeSite: string;
  referent: string | null;
  volume: number;
  nbComposteurs: number;
  cadena: string | null;
  observations: string | null;
  statut: string;
  idStatut: number;
  dateConvention: Date | null;
  dateImplantation: Date | null;
  dateInauguration: Date | null;
  idDemandeur: number | null;
}

type Filters = SiteListQuery['filter'];
type SortQuery = Pick<SiteListQuery, 'search' | 'filter' | 'sort'>;

/**
 * Sort keys of the list: text compared without accents or case; a site without the value
 * last in both directions. Each key, followed by the unique code, has an index of the same
 * expression (migration 005), which also serves the export's keyset batches; `cast` reads
 * back the key of a batch's last row. The name sorts in natural order ('École 2' before
 * 'École 13') by the key the database keeps beside it (site.nom_tri, migration 020).
 */
const SORT_KEYS: Record<SiteSortField, { key: (desc: boolean) => RawBuilder<unknown>; cast: 'text' | 'integer' | 'timestamptz' }> = {
  nom: { key: () => sql`s.nom_tri`, cast: 'text' },
  ville: { key: () => sql`f_unaccent(lower(s.ville))`, cast: 'text' },
  adresse: { key: () => sql`f_unaccent(lower(s.adresse))`, cast: 'text' },
  complement: { key: (desc) => optionalTextKey(sql`s.complement`, sql`f_unaccent(lower(s.complement))`, desc), cast: 'text' },
  typeSite: { key: () => sql`f_unaccent(lower(s.type_libelle))`, cast: 'text' },
  referent: { key: (desc) => optionalTextKey(sql`s.referent`, sql`f_unaccent(lower(left(s.referent, 200)))`, desc), cast: 'text' },
  volume: { key: () => sql`s.volume`, cast: 'integer' },
  nbComposteurs: { key: () => sql`s.nb_composteurs`, cast: 'integer' },
  cadena: { key: (desc) => optionalTextKey(sql`s.cadena`, sql`lower(s.cadena)`, desc), cast: 'text' },
  observations: { key: (desc) => optionalTextKey(sql`s.observations`, sql`f_unaccent(lower(left(s.observations, 200)))`, desc), cast: 'text' },
  statut: { key: () => sql`f_unaccent(lower(s.statut_libelle))`, cast: 'text' },
  dateConvention: { key: (desc) => dateKey(sql`s.date_convention`, desc), cast: 'timestamptz' },
  dateImplantation: { key: (desc) => dateKey(sql`s.date_implantation`, desc), cast: 'timestamptz' },
  dateInauguration: { key: (desc) => dateKey(sql`s.date_inauguration`, desc), cast: 'timestamptz' },
};

/** '0' + the text, or '1' when empty, going up; the other way round going down. */
function optionalTextKey(column: RawBuilder<unknown>, normalised: RawBuilder<unknown>, desc: boolean) {
  const [filled, empty] = desc ? ['1', '0'] : ['0', '1'];
  return sql`(CASE WHEN coalesce(${column}, '') = '' THEN ${sql.lit(empty)} ELSE ${sql.lit(filled)} || ${normalised} END)`;
}

function dateKey(column: RawBuilder<unknown>, desc: boolean) {
  return desc ? sql`coalesce(${column}, '-infinity'::timestamptz)` : sql`coalesce(${column}, 'infinity'::timestamptz)`;
}

/** Every column of the table (the computed ones are kept on the site row by triggers). */
export const COLUMNS = sql`s.id, s.code, s.nom, s.ville, s.cp, s.adresse, s.numero, s.complement,
  s.type_site_id AS "idType", s.type_libelle AS "typeSite", s.referent, s.volume, s.nb_composteurs AS "nbComposteurs",
  s.cadena, s.observations, s.statut_libelle AS statut, s.statut_id AS "idStatut", s.date_convention AS "dateConvention",
  s.date_implantation AS "dateImplantation", s.date_inauguration AS "dateInauguration", s.demandeur_id AS "idDemandeur"`;

/** The search and filters of the list, each backed by an index. */
function conditions(search: string, filter: Filters) {
  const parts: RawBuilder<SqlBool>[] = [];
  // A term of one or two letters, too short for the trigram indexes, finds the words starting
  // with it through the word-start indexes (migration 007); the name and code are part of the
  // search column.
  if (filter.nom) {
    // The name's own word starts (migration 013) for a short term.
    parts.push(shortWordTerm(filter.nom) ? wordStartsNormalized(sql`s.nom_code_text`, filter.nom) : containsNormalized(sql`s.nom_code_text`, filter.nom));
  }
  if (filter.adresse) {
    parts.push(shortWordTerm(filter.adresse) ? wordStartsNormalized(sql`s.adresse_text`, filter.adresse) : containsNormalized(sql`s.adresse_text`, filter.adresse));
  }
  if (filter.type) {
    // The few matching types first, so the site_type_idx index serves the filter.
    const types = sql`SELECT t.id FROM type_site t WHERE ${ilikeUnaccent(sql`t.libelle`, filter.type)} OR ${ilikeUnaccent(sql`t.code`, filter.type)}`;
    parts.push(sql<SqlBool>`s.type_site_id = ANY(ARRAY(${types}))`);
  }
  if (filter.ville && filter.ville.length > 0) parts.push(sql<SqlBool>`s.ville IN (${sql.join(filter.ville)})`);
  if (filter.statut && filter.statut.length > 0) parts.push(sql<SqlBool>`s.statut_id IN (${sql.join(filter.statut)})`);
  // Name, code, city, address, details, cadena and type.
  if (search) parts.push(shortWordTerm(search) ? wordStartsNormalized(sql`s.search_text`, search) : containsNormalized(sql`s.search_text`, search));
  return parts.length ? sql<SqlBool>`${sql.join(parts, sql` AND `)}` : sql<SqlBool>`true`;
}

function ordering(query: SortQuery) {
  const desc = query.sort.direction === 'desc';
  const { key, cast } = SORT_KEYS[query.sort.name];
  return { key: key(desc), cast, dir: desc ? sql`DESC` : sql`ASC`, desc };
}

/** No fast path: every filter and key has its index, and a page lies at most LIST_DEPTH rows deep. */
export const SITE_LIST_PATHS: ListPaths<keyof Filters | 'search', SiteSortField> = {
  fast: {},
  plainOnly: { filters: ['search', 'nom', 'ville', 'adresse', 'type', 'statut'], sorts: SITE_SORT_FIELDS },
};

/** The list's queries, apart from the database so that tests can EXPLAIN them. */
export const siteListQueries = {
  count: (query: SortQuery) => sql<{ count: number }>`SELECT count(*)::int AS count FROM site s WHERE ${conditions(query.search, query.filter)}`,

  /** A page of the list: every key is followed by the unique code in the same direction. */
  page(query: SiteListQuery) {
    const { limit, offset } = pageOf(query);
    const { key, dir } = ordering(query);
    return sql<SiteRecord>`SELECT ${COLUMNS} FROM site s WHERE ${conditions(query.search, query.filter)}
      ORDER BY ${key} ${dir}, s.code ${dir} LIMIT ${limit} OFFSET ${offset}`;
  },

  /** Up to `size` rows in the list's order, after the row whose sort key and code are `after`. */
  batch(query: SortQuery, after: { key: string; code: string } | null, size: number) {
    const { key, cast, dir, desc } = ordering(query);
    const from = after ? sql<SqlBool>`(${key}, s.code) ${desc ? sql`<` : sql`>`} (CAST(${after.key} AS ${sql.raw(cast)}), ${after.code})` : sql<SqlBool>`true`;
    return sql<SiteRecord & { sortKey: string }>`SELECT ${COLUMNS}, (${key})::text AS "sortKey" FROM site s
      WHERE ${conditions(query.search, query.filter)} AND ${from}
      ORDER BY ${key} ${dir}, s.code ${dir} LIMIT ${size}`;
  },
};

export function createSiteListRepository(db: Db) {
  return {
    /** The count and the page side by side (SITE_LIST_PATHS). */
    async list(query: SiteListQuery): Promise<{ count: number; sites: SiteRecord[] }> {
      const [countRes, rows] = await Promise.all([siteListQueries.count(query).execute(db), siteListQueries.page(query).execute(db)]);
      return { count: countRes.rows[0].count, sites: rows.rows };
    },

    /**
     * The rows of an export, `batchSize` at a time in the list's order. Each batch starts
     * after the (sort key, code) of the previous one's last row: one short indexed query per
     * batch, whatever the depth, no transaction held open while the client downloads, and
     * only one batch in memory. The first batch is read before this resolves, so that the
     * caller answers with an error status when it fails, before any byte of the file.
     */
    async batches(query: SortQuery, batchSize = 500): Promise<AsyncGenerator<SiteRecord[]>> {
      const read = async (after: { key: string; code: string } | null) => (await siteListQueries.batch(query, after, batchSize).execute(db)).rows;
      let rows = await read(null);
      return (async function* () {
        for (;;) {
          if (rows.length > 0) yield rows;
          if (rows.length < batchSize) return;
          const last = rows[rows.length - 1];
          rows = await read({ key: last.sortKey, code: last.code });
        }
      })();
    },

  };
}
