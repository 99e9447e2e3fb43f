// SQL of the sites domain: the list (with the computed columns of the table), one site,
// its cells, referents, convention history and requester. Callers pass a transaction
// when several writes must succeed or fail together.
import { sql, type Expression, type RawBuilder, type SqlBool } from 'kysely';
import type { Db } from '../../db/client.js';
import { ilikeUnaccent, pageOf } from '../../db/list.js';
import type { SiteListQuery, SiteSortField } from '../../../shared/schemas/sites.js';

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

export interface NewDemandeur {
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

/** Sort keys: text is compared without accents or case; ties broken by id for stable paging. */
const SORT_EXPR: Record<SiteSortField, RawBuilder<unknown>> = {
  nom: sql`f_unaccent(lower(coalesce(nullif(x.nom, ''), x.code)))`,
  ville: sql`f_unaccent(lower(x.ville))`,
  adresse: sql`f_unaccent(lower(x.adresse))`,
  complement: sql`f_unaccent(lower(x.complement))`,
  typeSite: sql`f_unaccent(lower(x."typeSite"))`,
  referent: sql`f_unaccent(lower(x.referent))`,
  volume: sql`x.volume`,
  nbComposteurs: sql`x."nbComposteurs"`,
  cadena: sql`lower(x.cadena)`,
  observations: sql`f_unaccent(lower(x.observations))`,
  statut: sql`f_unaccent(lower(x.statut))`,
  dateConvention: sql`x."dateConvention"`,
  dateImplantation: sql`x."dateImplantation"`,
  dateInauguration: sql`x."dateInauguration"`,
};

export function createSitesRepository(db: Db) {
  /** Conditions on the site and its type only, so the count needs no computed column. */
  function conditions(search: string, filter: Filters) {
    const parts: RawBuilder<SqlBool>[] = [];
    const nomCode = sql<string>`coalesce(s.nom, '') || ' ' || s.code`;
    if (filter.nom) parts.push(ilikeUnaccent(nomCode, filter.nom));
    if (filter.adresse) parts.push(ilikeUnaccent(sql<string>`coalesce(s.numero || ' ', '') || s.adresse`, filter.adresse));
    if (filter.type) parts.push(sql<SqlBool>`(${ilikeUnaccent(sql`t.libelle`, filter.type)} OR ${ilikeUnaccent(sql`t.code`, filter.type)})`);
    if (filter.ville && filter.ville.length > 0) parts.push(sql<SqlBool>`s.ville IN (${sql.join(filter.ville)})`);
    if (filter.statut && filter.statut.length > 0) parts.push(sql<SqlBool>`s.statut_id IN (${sql.join(filter.statut)})`);
    if (search) {
      parts.push(
        sql<SqlBool>`(${sql.join(
          [nomCode, sql`s.ville`, sql`s.adresse`, sql`coalesce(s.complement, '')`, sql`t.libelle`, sql`coalesce(s.cadena, '')`].map((e) => ilikeUnaccent(e, search)),
          sql` OR `,
        )})`,
      );
    }
    return parts.length ? sql<SqlBool>`${sql.join(parts, sql` AND `)}` : sql<SqlBool>`true`;
  }

  /** Every column of the table for the sites matching `where`. */
  function rowsQuery(where: Expression<SqlBool>) {
    return sql`
      SELECT s.id, s.code, s.nom, s.ville, s.cp, s.adresse, s.numero, s.complement,
        s.type_site_id AS "idType", t.libelle AS "typeSite",
        (SELECT string_agg(trim(a.nom || ' ' || coalesce(a.prenom, '')), ', ' ORDER BY a.nom, a.prenom, a.id)
           FROM site_referent sr JOIN account a ON a.id = sr.account_id WHERE sr.site_id = s.id) AS referent,
        (SELECT coalesce(sum(tc.volume), 0)::int FROM site_composteur sc JOIN type_composteur tc ON tc.id = sc.type_composteur_id
           WHERE sc.site_id = s.id AND sc.actif) AS volume,
        (SELECT count(*)::int FROM site_composteur sc WHERE sc.site_id = s.id AND sc.actif) AS "nbComposteurs",
        s.cadena, s.observations, st.libelle AS statut, s.statut_id AS "idStatut",
        (SELECT max(c.date_convention) FROM site_convention c WHERE c.site_id = s.id) AS "dateConvention",
        s.date_implantation AS "dateImplantation", s.date_inauguration AS "dateInauguration",
        s.demandeur_id AS "idDemandeur"
      FROM site s
      JOIN type_site t ON t.id = s.type_site_id
      JOIN statut st ON st.id = s.statut_id
      WHERE ${where}`;
  }

  function orderedPage(query: Pick<SiteListQuery, 'search' | 'filter' | 'sort'>, limit: number, offset: number) {
    const dir = query.sort.direction === 'desc' ? sql`DESC` : sql`ASC`;
    return sql<SiteRecord>`
      SELECT * FROM (${rowsQuery(conditions(query.search, query.filter))}) x
      ORDER BY ${SORT_EXPR[query.sort.name]} ${dir} NULLS LAST, x.code ${dir}, x.id ${dir}
      LIMIT ${limit} OFFSET ${offset}`;
  }

  return {
    async list(query: SiteListQuery): Promise<{ count: number; sites: SiteRecord[] }> {
      const { limit, offset } = pageOf(query);
      const [countRes, rows] = await Promise.all([
        sql<{ count: number }>`SELECT count(*)::int AS count FROM site s JOIN type_site t ON t.id = s.type_site_id WHERE ${conditions(query.search, query.filter)}`.execute(db),
        orderedPage(query, limit, offset).execute(db),
      ]);
      return { count: countRes.rows[0].count, sites: rows.rows };
    },

    /**
     * The rows of an export, `batchSize` at a time in the list's order. Offset paging on
     * (sort key, code, id) keeps the order stable between batches; only one batch is held.
     */
    async *batches(query: Pick<SiteListQuery, 'search' | 'filter' | 'sort'>, batchSize = 500): AsyncGenerator<SiteRecord[]> {
      for (let offset = 0; ; offset += batchSize) {
        const { rows } = await orderedPage(query, batchSize, offset).execute(db);
        if (rows.length > 0) yield rows;
        if (rows.length < batchSize) return;
      }
    },

    async findRow(id: number): Promise<SiteRecord | undefined> {
      const { rows } = await sql<SiteRecord>`${rowsQuery(sql<SqlBool>`s.id = ${id}`)}`.execute(db);
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

    /** The given ids that are active external users (possible referents). */
    async activeExternalUsers(ids: number[]): Promise<Set<number>> {
      if (ids.length === 0) return new Set();
      const rows = await db.selectFrom('account').where('id', 'in', ids).where('kind', '=', 'user').where('actif', '=', true).select('id').execute();
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

    insertDemandeur: async (d: NewDemandeur) => (await db.insertInto('demandeur').values(d).returning('id').executeTakeFirstOrThrow()).id,

    insertSite: async (site: NewSite & { code: string }) => (await db.insertInto('site').values(site).returning('id').executeTakeFirstOrThrow()).id,

    updateSite: (id: number, values: Partial<Omit<NewSite, 'ville' | 'cp' | 'code_insee' | 'demandeur_id'>>) =>
      db.updateTable('site').set(values).where('id', '=', id).execute(),

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
        .select((eb) => [
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
          eb
            .exists(
              eb
                .selectFrom('intervention as i')
                .select('i.id')
                .where((w) => w.or([w('i.site_composteur_id', '=', w.ref('sc.id')), w('i.bac_destination_id', '=', w.ref('sc.id'))])),
            )
            .$castTo<boolean>()
            .as('aInterventions'),
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

    updateDemandeur: (id: number, values: Omit<NewDemandeur, 'date' | 'civilite' | 'nom' | 'prenom'>) =>
      db.updateTable('demandeur').set(values).where('id', '=', id).executeTakeFirst(),
  };
}

export type SitesRepository = ReturnType<typeof createSitesRepository>;
