// SQL of the sites domain: the list and its export (the computed columns of the table are
// kept on the site row by the triggers of migration 005), the active sites of the site choice,
// one site, its cells, referents, convention history and requester. Callers pass a transaction when several writes must
// succeed or fail together.
import { sql, type RawBuilder, type SqlBool } from 'kysely';
import type { Db } from '../../db/client.js';
import { DEEP_PAGE_OFFSET, containsNormalized, ilikeUnaccent, pageFromNearestEnd, pageOf, shortWordTerm, wordStartsIn, wordStartsNormalized } from '../../db/list.js';
import type { SiteListQuery, SiteSortField } from '../../../shared/schemas/sites.js';
import type { ActiveSite } from '../../../shared/schemas/site-choice.js';
import { addressKeys } from '../reference/streets-import.js';

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

export interface NewSite {
  nom: string | null;
  ville: string;
  cp: string;
  code_insee: string;
  adresse: string;
  numero: string | null;
  complement: string | null;
  type_site_id: number;
  observations: string | null;
  cadena: string | null;
  date_implantation: Date | null;
  date_inauguration: Date | null;
  statut_id: number;
  demandeur_id: number | null;
}

/** What a site shows on its public page and in the open-data files, and where it stands. */
export interface SitePublicColumns {
  horaires: string | null;
  consignes: string | null;
  latitude: number | null;
  longitude: number | null;
  coordonnees_source: 'ban' | 'saisie' | null;
  open_data: boolean;
}

export interface NewRequester {
  date: Date | null;
  civilite: string;
  nom: string;
  prenom: string;
  fonction: string;
  precisions: string | null;
  telephone: string;
  telephone2: string | null;
  email: string | null;
  periode_implantation: string | null;
  annee_implantation: number | null;
}

export interface CellInput {
  composteur: number;
  typeBac: number;
  numero: number;
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
const COLUMNS = sql`s.id, s.code, s.nom, s.ville, s.cp, s.adresse, s.numero, s.complement,
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
    if (!shortWordTerm(filter.nom)) parts.push(containsNormalized(sql`s.nom_code_text`, filter.nom));
    // The name's own word starts (migration 013); the check beside it is kept off the trigram
    // index (`|| ''`), whose lossy matches would make every candidate row be tested again.
    else parts.push(sql<SqlBool>`(f_word_starts(s.nom_code_text) @> ARRAY[f_unaccent(lower(${filter.nom}))] AND ${wordStartsIn(sql`(s.nom_code_text || '')`, filter.nom)})`);
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

/** The list's queries, apart from the database so that tests can EXPLAIN them. */
export const siteListQueries = {
  count: (query: SortQuery) => sql<{ count: number }>`SELECT count(*)::int AS count FROM site s WHERE ${conditions(query.search, query.filter)}`,

  /**
   * A page of the list; `window` reads it from the other end (pageFromNearestEnd), its rows
   * then in the reverse order. Every key is followed by the unique code in the same direction,
   * and a NULL key comes last going up and first going down, so flipping the direction reads
   * exactly the list backwards.
   */
  page(query: SiteListQuery, window: { limit: number; offset: number; reversed: boolean } = { ...pageOf(query), reversed: false }) {
    const { limit, offset, reversed } = window;
    const { key, desc } = ordering(query);
    const dir = desc !== reversed ? sql`DESC` : sql`ASC`;
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

export function createSitesRepository(db: Db) {
  return {
    async list(query: SiteListQuery): Promise<{ count: number; sites: SiteRecord[] }> {
      const page = pageOf(query);
      if (page.offset >= DEEP_PAGE_OFFSET) {
        // A deep page: the count first (a programme's sites are a few thousand at most, each
        // filter has its index), then the page from the nearer end. The last page of 2,000
        // sites skips a few rows instead of walking every site before it.
        const count = (await siteListQueries.count(query).execute(db)).rows[0].count;
        const win = pageFromNearestEnd(page, count);
        if (win.limit === 0) return { count, sites: [] };
        const rows = (await siteListQueries.page(query, win).execute(db)).rows;
        return { count, sites: win.reversed ? rows.reverse() : rows };
      }
      const [countRes, rows] = await Promise.all([siteListQueries.count(query).execute(db), siteListQueries.page(query).execute(db)]);
      return { count: countRes.rows[0].count, sites: rows.rows };
    },

    /**
     * The rows of an export, `batchSize` at a time in the list's order. Each batch starts
     * after the (sort key, code) of the previous one's last row: one short indexed query per
     * batch, whatever the depth, no transaction held open while the client downloads, and
     * only one batch in memory.
     */
    async *batches(query: SortQuery, batchSize = 500): AsyncGenerator<SiteRecord[]> {
      let after: { key: string; code: string } | null = null;
      for (;;) {
        const rows: (SiteRecord & { sortKey: string })[] = (await siteListQueries.batch(query, after, batchSize).execute(db)).rows;
        if (rows.length > 0) yield rows;
        if (rows.length < batchSize) return;
        const last = rows[rows.length - 1];
        after = { key: last.sortKey, code: last.code };
      }
    },

    /**
     * The active sites offered by the site choice (and the site selects fed by it): all of
     * them, or those the account `referentId` is a referent of; by city, then by name in
     * natural order.
     */
    activeSites(opts: { referentId?: number } = {}): Promise<ActiveSite[]> {
      let q = db
        .selectFrom('site')
        .where('site.statut_id', '=', 1)
        .select(['site.id', 'site.code', 'site.nom', 'site.adresse', 'site.numero', 'site.ville', 'site.cp'])
        .orderBy(sql`f_unaccent(lower(site.ville))`)
        .orderBy(sql`site.nom_tri`)
        .orderBy('site.code');
      if (opts.referentId !== undefined) {
        const id = opts.referentId;
        q = q.where('site.id', 'in', db.selectFrom('site_referent').select('site_id').where('account_id', '=', id));
      }
      return q.execute();
    },

    async findRow(id: number): Promise<SiteRecord | undefined> {
      const { rows } = await sql<SiteRecord>`SELECT ${COLUMNS} FROM site s WHERE s.id = ${id}`.execute(db);
      return rows[0];
    },

    conventions: async (siteId: number) =>
      (
        await db
          .selectFrom('site_convention')
          .where('site_id', '=', siteId)
          .select('date_convention')
          .orderBy('date_convention', 'desc')
          .orderBy('id', 'desc')
          .execute()
      ).map((r) => r.date_convention),

    latestConvention: async (siteId: number) =>
      (
        await db
          .selectFrom('site_convention')
          .where('site_id', '=', siteId)
          .select('date_convention')
          .orderBy('date_convention', 'desc')
          .limit(1)
          .executeTakeFirst()
      )?.date_convention ?? null,

    addConvention: (siteId: number, date: Date) => db.insertInto('site_convention').values({ site_id: siteId, date_convention: date }).execute(),

    referents: (siteId: number) =>
      db
        .selectFrom('site_referent')
        .innerJoin('account', 'account.id', 'site_referent.account_id')
        .where('site_referent.site_id', '=', siteId)
        .select(['account.id', 'account.nom', 'account.prenom'])
        .orderBy('account.nom')
        .orderBy('account.prenom')
        .execute(),

    /**
     * The given ids that are possible referents: active external users other than providers
     * (who see every site anyway), the users the referents dialog offers.
     */
    async activeExternalUsers(ids: number[]): Promise<Set<number>> {
      if (ids.length === 0) return new Set();
      const rows = await db
        .selectFrom('account')
        .where('id', 'in', ids)
        .where('kind', '=', 'user')
        .where('actif', '=', true)
        .where((eb) => eb.or([eb('type_user_id', 'is', null), eb('type_user_id', '!=', 3)]))
        .select('id')
        .execute();
      return new Set(rows.map((r) => r.id));
    },

    async replaceReferents(siteId: number, accountIds: number[]) {
      await db.deleteFrom('site_referent').where('site_id', '=', siteId).execute();
      if (accountIds.length > 0) await db.insertInto('site_referent').values(accountIds.map((account_id) => ({ site_id: siteId, account_id }))).execute();
    },

    siteHeader: (id: number) => db.selectFrom('site').where('id', '=', id).select(['id', 'statut_id', 'demandeur_id']).executeTakeFirst(),

    /** Locks the site row so concurrent cell changes on one site take turns. */
    lockSite: (id: number) => db.selectFrom('site').where('id', '=', id).select('id').forUpdate().executeTakeFirst(),

    /** The territory's city of that name (and postal code when given). */
    findVille: (nom: string, cp: string | null) => {
      let q = db.selectFrom('ville').where('nom', '=', nom).select(['nom', 'cp', 'code_insee']).orderBy('cp');
      if (cp) q = q.where('cp', '=', cp);
      return q.limit(1).executeTakeFirst();
    },

    typeSiteExists: async (id: number) => !!(await db.selectFrom('type_site').where('id', '=', id).select('id').executeTakeFirst()),

    async existingIds(table: 'type_composteur' | 'type_bac', ids: number[]): Promise<Set<number>> {
      if (ids.length === 0) return new Set();
      const rows = await db.selectFrom(table).where('id', 'in', ids).select('id').execute();
      return new Set(rows.map((r) => r.id));
    },

    /**
     * Takes the next number of the type's sequence. The UPDATE locks the type row, so
     * concurrent creations get distinct numbers; a rolled-back creation gives its number back.
     */
    async nextCode(typeSiteId: number): Promise<string> {
      for (;;) {
        const row = await db
          .updateTable('type_site')
          .set({ next_sequence: sql`next_sequence + 1` })
          .where('id', '=', typeSiteId)
          .returning(['code', sql<number>`next_sequence - 1`.as('n')])
          .executeTakeFirstOrThrow();
        const code = `${row.code}${String(row.n).padStart(3, '0')}`;
        // Sites imported with their own codes may already hold this one: skip it.
        const taken = await db.selectFrom('site').where('code', '=', code).select('id').executeTakeFirst();
        if (!taken) return code;
      }
    },

    insertRequester: async (d: NewRequester) => (await db.insertInto('demandeur').values(d).returning('id').executeTakeFirstOrThrow()).id,

    insertSite: async (site: NewSite & Partial<SitePublicColumns> & { code: string }) =>
      (await db.insertInto('site').values(site).returning('id').executeTakeFirstOrThrow()).id,

    updateSite: (id: number, values: Partial<Omit<NewSite, 'ville' | 'cp' | 'code_insee' | 'demandeur_id'> & SitePublicColumns>) =>
      db.updateTable('site').set(values).where('id', '=', id).execute(),

    /** The imported point of an address (city, street and number), if any. */
    addressPoint(site: { code_insee: string | null; adresse: string; numero: string | null }) {
      const keys = addressKeys(site);
      if (!keys) return Promise.resolve(undefined);
      return db
        .selectFrom('adresse_point')
        .where('code_insee', '=', keys.code_insee)
        .where('voie_cle', '=', keys.voie_cle)
        .where('numero_cle', '=', keys.numero_cle)
        .select(['latitude', 'longitude'])
        .executeTakeFirst();
    },

    /** The public-page and open-data columns, with the address that places the site. */
    publicColumns: (id: number) =>
      db
        .selectFrom('site')
        .where('id', '=', id)
        .select(['horaires', 'consignes', 'latitude', 'longitude', 'coordonnees_source', 'open_data', 'code_insee', 'adresse', 'numero'])
        .executeTakeFirst(),

    insertCells: async (siteId: number, cells: CellInput[]) => {
      if (cells.length === 0) return;
      await db
        .insertInto('site_composteur')
        .values(cells.map((c) => ({ site_id: siteId, type_composteur_id: c.composteur, type_bac_id: c.typeBac, numero: c.numero, actif: true })))
        .execute();
    },

    /** Numbers used by the site's active cells, except the cell `exceptId`. */
    async activeNumeros(siteId: number, exceptId?: number): Promise<Set<number>> {
      let q = db.selectFrom('site_composteur').where('site_id', '=', siteId).where('actif', '=', true).select('numero');
      if (exceptId !== undefined) q = q.where('id', '!=', exceptId);
      return new Set((await q.execute()).map((r) => r.numero));
    },

    cells: (where: { siteId?: number; id?: number }) => {
      let q = db
        .selectFrom('site_composteur as sc')
        .innerJoin('type_composteur as tc', 'tc.id', 'sc.type_composteur_id')
        .innerJoin('type_bac as tb', 'tb.id', 'sc.type_bac_id')
        .select([
          'sc.id',
          'sc.site_id as site',
          'sc.type_composteur_id as composteur',
          'tc.volume',
          'tc.precisions',
          'sc.type_bac_id as typeBac',
          'sc.type_bac_id as idTypeBac',
          'tb.libelle',
          'sc.numero',
          'sc.actif',
          // Kept by the triggers of migration 007 on intervention, in the same transaction as
          // every insert, update and delete: no look into the log.
          sql<boolean>`sc.a_interventions`.as('aInterventions'),
        ])
        // Active cells first, by number; deactivated ones after.
        .orderBy('sc.actif', 'desc')
        .orderBy('sc.numero')
        .orderBy('sc.id');
      if (where.siteId !== undefined) q = q.where('sc.site_id', '=', where.siteId);
      if (where.id !== undefined) q = q.where('sc.id', '=', where.id);
      return q.execute();
    },

    updateCell: (id: number, c: CellInput & { actif: boolean }) =>
      db
        .updateTable('site_composteur')
        .set({ type_composteur_id: c.composteur, type_bac_id: c.typeBac, numero: c.numero, actif: c.actif })
        .where('id', '=', id)
        .execute(),

    demandeur: (id: number) => db.selectFrom('demandeur').where('id', '=', id).selectAll().executeTakeFirst(),

    updateRequester: (id: number, values: Omit<NewRequester, 'date' | 'civilite' | 'nom' | 'prenom'>) =>
      db.updateTable('demandeur').set(values).where('id', '=', id).executeTakeFirst(),
  };
}

export type SitesRepository = ReturnType<typeof createSitesRepository>;
