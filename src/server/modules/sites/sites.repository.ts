// SQL of the sites domain but the list (sites-list.repository.ts): the active sites of the site
// choice, one site, its cells, referents, convention history and requester. Callers pass a
// transaction when several writes must succeed or fail together.
import { sql } from 'kysely';
import type { Db } from '../../db/client.js';
import type { Row } from '../../db/schema.js';
import { COLUMNS, type SiteRecord } from './sites-list.repository.js';
import type { ActiveSite } from '../../../shared/schemas/site-choice.js';
import { addressKeys } from '../reference/public.js';
import type { Box } from '../../../shared/schemas/territory.js';

/** A site as the forms create it: its city always has its INSEE code (a city of the list). */
export type NewSite = Pick<
  Row<'site'>,
  'nom' | 'ville' | 'cp' | 'adresse' | 'numero' | 'complement' | 'type_site_id' | 'observations' | 'cadena' | 'date_implantation' | 'date_inauguration' | 'statut_id' | 'demandeur_id'
> & { code_insee: string };

/** What a site shows on its public page and in the open-data files, and where it stands. */
export type SitePublicColumns = Pick<Row<'site'>, 'horaires' | 'consignes' | 'latitude' | 'longitude' | 'coordonnees_source' | 'open_data'>;

export type NewRequester = Omit<Row<'demandeur'>, 'id'>;

export interface CellInput {
  composteur: number;
  typeBac: number;
  numero: number;
}

export function createSitesRepository(db: Db) {
  return {
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

    /** The site's convention dates, latest first. */
    conventions: async (siteId: number) =>
      (await db.selectFrom('site_convention').where('site_id', '=', siteId).select('date_convention').orderBy('date_convention', 'desc').orderBy('id', 'desc').execute()).map(
        (r) => r.date_convention,
      ),

    addConvention: (siteId: number, date: Date) => db.insertInto('site_convention').values({ site_id: siteId, date_convention: date }).execute(),

    referents: (siteId: number) =>
      db
        .selectFrom('site_referent')
        .innerJoin('account', 'account.id', 'site_referent.account_id')
        .where('site_referent.site_id', '=', siteId)
        .select(['account.id', 'account.nom', 'account.prenom'])
        .orderBy('account.nom')
        .orderBy('account.prenom')
        .orderBy('account.id')
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

    /**
     * The box of the imported address points of the territory's cities (the `ville` table), or
     * null when none is known. One query over the points' primary key, city by city.
     */
    async territoryPointsBox(): Promise<Box | null> {
      const row = await db
        .selectFrom('adresse_point as p')
        .where('p.code_insee', 'in', db.selectFrom('ville').select('ville.code_insee'))
        .select([
          sql<number | null>`min(p.latitude)`.as('south'),
          sql<number | null>`max(p.latitude)`.as('north'),
          sql<number | null>`min(p.longitude)`.as('west'),
          sql<number | null>`max(p.longitude)`.as('east'),
        ])
        .executeTakeFirstOrThrow();
      if (row.south === null || row.north === null || row.west === null || row.east === null) return null;
      return { south: Number(row.south), north: Number(row.north), west: Number(row.west), east: Number(row.east) };
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

    /** The requester of a site request, with the API's names. */
    demandeur: (id: number) =>
      db
        .selectFrom('demandeur')
        .where('id', '=', id)
        .select(['id', 'date', 'civilite', 'nom', 'prenom', 'fonction', 'precisions', 'telephone', 'telephone2', 'email'])
        .select(['periode_implantation as periodeImplantation', 'annee_implantation as anneeImplantation'])
        .executeTakeFirst(),

    updateRequester: (id: number, values: Omit<NewRequester, 'date' | 'civilite' | 'nom' | 'prenom'>) =>
      db.updateTable('demandeur').set(values).where('id', '=', id).executeTakeFirst(),
  };
}

export type SitesRepository = ReturnType<typeof createSitesRepository>;
