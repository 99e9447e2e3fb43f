// SQL of moving in: the lookups an imported file is checked against (read once, into maps),
// the batched writes, and the instance's own data in the templates' layout (?donnees=1).
import { sql } from 'kysely';
import type { Db } from '../../db/client.js';
import type { Row } from '../../db/schema.js';
import { TYPE_PRESTATAIRE } from '../../../shared/domain.js';

/** The e-mail domain of the rows of kind 'intervenant' (a name imported history gives, with no account here; see docs/moving-in.md): the address only keeps each name unique. */
export const NAME_ONLY_DOMAIN = 'intervenants.invalid';

export type NewInterventionRow = Pick<
  Row<'intervention'>,
  'date' | 'site_id' | 'site_composteur_id' | 'type_action_id' | 'valeur_nombre' | 'valeur_constante' | 'valeur_texte' | 'bac_destination_id' | 'observations' | 'intervenant_id'
>;

/** Rows to insert, a column each (dates as ISO texts). */
export interface InterventionColumns {
  date: string[];
  site_id: number[];
  site_composteur_id: number[];
  type_action_id: number[];
  valeur_nombre: (number | null)[];
  valeur_constante: (number | null)[];
  valeur_texte: (string | null)[];
  bac_destination_id: (number | null)[];
  observations: (string | null)[];
  intervenant_id: number[];
}

export function createImportsRepository(db: Db) {
  return {
    transaction<T>(fn: (tx: Db) => Promise<T>): Promise<T> {
      return db.transaction().execute((tx) => fn(tx));
    },

    // ---- Reference lists ----
    typeSites: () => db.selectFrom('type_site').select(['id', 'libelle', 'code']).orderBy('id').execute(),
    villes: () => db.selectFrom('ville').select(['nom', 'cp', 'code_insee']).orderBy('nom').orderBy('cp').execute(),
    typeComposteurs: () => db.selectFrom('type_composteur').select(['id', 'volume', 'precisions']).orderBy('id').execute(),
    typeBacs: () => db.selectFrom('type_bac').select(['id', 'libelle']).execute(),
    actions: () => db.selectFrom('type_action').select(['id', 'libelle', 'value_kind']).execute(),
    constantes: () => db.selectFrom('type_action_constante').select(['id_constante', 'constante', 'id_action']).execute(),

    accountsByEmail(emails: string[]) {
      if (emails.length === 0) return Promise.resolve([]);
      return db
        .selectFrom('account')
        .where(sql<boolean>`lower(email) = ANY(${emails.map((e) => e.toLowerCase())}::text[])`)
        .select(['id', 'kind', 'email', 'nom', 'prenom', 'tel', 'organisme', 'type_user_id', 'actif'])
        .execute();
    },

    /** Every account with the name the interventions export shows for it (nom prénom). */
    accountNames: () =>
      db
        .selectFrom('account')
        .select(['id', 'email', sql<string>`trim(nom || ' ' || coalesce(prenom, ''))`.as('name')])
        .orderBy('id')
        .execute(),

    sites: () => db.selectFrom('site').select(['id', 'code', 'nom', 'statut_id']).execute(),

    sitesByCode(codes: string[]) {
      if (codes.length === 0) return Promise.resolve([]);
      return db
        .selectFrom('site')
        .where('code', 'in', codes)
        .select(['id', 'code', 'nom', 'numero', 'adresse', 'complement', 'cp', 'ville', 'code_insee', 'type_site_id', 'statut_id', 'cadena', sql<Date | null>`date_convention`.as('date_convention'), 'date_implantation', 'date_inauguration', 'latitude', 'longitude', 'observations'])
        .execute();
    },

    cellsOf(siteIds: number[] | null) {
      let q = db.selectFrom('site_composteur').select(['id', 'site_id', 'type_bac_id', 'numero', 'type_composteur_id', 'actif', 'a_interventions']).orderBy('id');
      if (siteIds) q = q.where('site_id', 'in', siteIds.length ? siteIds : [0]);
      return q.execute();
    },

    referentLinks(siteIds: number[]) {
      if (siteIds.length === 0) return Promise.resolve([]);
      return db.selectFrom('site_referent').where('site_id', 'in', siteIds).select(['site_id', 'account_id']).execute();
    },

    /** The interventions of these sites as the import compares them (one row each, in id order). */
    interventionKeys(siteIds: number[]) {
      if (siteIds.length === 0) return Promise.resolve([]);
      return db
        .selectFrom('intervention')
        .where('site_id', 'in', siteIds)
        .select(['id', 'site_composteur_id', sql<string>`date_paris`.as('date_paris'), 'type_action_id', 'valeur_nombre', 'valeur_constante', 'valeur_texte', 'bac_destination_id', 'observations', 'intervenant_id'])
        .orderBy('id')
        .execute();
    },

    // ---- Writes (on a transaction's connection) ----
    async insertSite(values: Record<string, unknown> & { code: string }) {
      return (await db.insertInto('site').values(values as never).returning('id').executeTakeFirstOrThrow()).id;
    },
    updateSite: (id: number, values: Record<string, unknown>) => db.updateTable('site').set(values as never).where('id', '=', id).execute(),
    addConvention: (siteId: number, date: Date) => db.insertInto('site_convention').values({ site_id: siteId, date_convention: date }).execute(),
    insertCells: async (rows: { site_id: number; type_composteur_id: number; type_bac_id: number; numero: number; actif: boolean }[]) => {
      if (rows.length) await db.insertInto('site_composteur').values(rows).execute();
    },
    updateCell: (id: number, values: { type_composteur_id: number; actif: boolean }) => db.updateTable('site_composteur').set(values).where('id', '=', id).execute(),
    addReferents: async (links: { site_id: number; account_id: number }[]) => {
      if (links.length) await db.insertInto('site_referent').values(links).onConflict((oc) => oc.doNothing()).execute();
    },

    async insertUser(u: { email: string; nom: string; prenom: string | null; tel: string | null; organisme: string | null; type_user_id: number; actif?: boolean; email_valide?: boolean }) {
      const row = await db
        .insertInto('account')
        .values({ kind: 'user', actif: true, email_valide: true, password_hash: null, ...u })
        .returning('id')
        .executeTakeFirstOrThrow();
      return row.id;
    },
    /** An intervenant with no account: its name, under an internal address that keeps it unique. */
    async insertIntervenantName(email: string, nom: string) {
      const row = await db
        .insertInto('account')
        .values({ kind: 'intervenant', email, nom, prenom: null, actif: false, email_valide: false, password_hash: null })
        .returning('id')
        .executeTakeFirstOrThrow();
      return row.id;
    },
    updateUser: (id: number, values: { nom: string; prenom: string | null; tel: string | null; organisme: string | null; type_user_id: number }) =>
      db.updateTable('account').set(values).where('id', '=', id).execute(),
    /** The external role that follows from the user type (ROLE_PRESTATAIRE for providers), replacing the other one. */
    async setExternalRole(accountId: number, typeUserId: number) {
      const code = typeUserId === TYPE_PRESTATAIRE ? 'ROLE_PRESTATAIRE' : 'ROLE_USER';
      await db
        .deleteFrom('account_role')
        .where('account_id', '=', accountId)
        .where('role_id', 'in', db.selectFrom('role').where('code', 'in', ['ROLE_USER', 'ROLE_PRESTATAIRE']).where('code', '!=', code).select('id'))
        .execute();
      await sql`INSERT INTO account_role (account_id, role_id) SELECT ${accountId}, id FROM role WHERE code = ${code} ON CONFLICT DO NOTHING`.execute(db);
    },

    /**
     * Inserts rows given a column each, as one array parameter per column (ten parameters
     * whatever the count, no statement of thousands of values to build). The ids come back in the
     * columns' order: a sequence numbers the rows as unnest yields them.
     */
    async insertInterventions(c: InterventionColumns): Promise<number[]> {
      if (c.date.length === 0) return [];
      const { rows } = await sql<{ id: number }>`
        INSERT INTO intervention (date, site_id, site_composteur_id, type_action_id, valeur_nombre, valeur_constante, valeur_texte, bac_destination_id, observations, intervenant_id)
        SELECT * FROM unnest(${c.date}::timestamptz[], ${c.site_id}::int[], ${c.site_composteur_id}::int[], ${c.type_action_id}::int[], ${c.valeur_nombre}::numeric[],
          ${c.valeur_constante}::int[], ${c.valeur_texte}::text[], ${c.bac_destination_id}::int[], ${c.observations}::text[], ${c.intervenant_id}::int[])
        RETURNING id`.execute(db);
      return rows.map((r) => r.id).sort((a, b) => a - b);
    },
    updateIntervention: (id: number, values: { observations: string | null; intervenant_id: number; bac_destination_id: number | null }) =>
      db.updateTable('intervention').set(values).where('id', '=', id).execute(),

    // ---- The instance's data in the templates' layout ----
    exportSites() {
      return sql<
        Pick<Row<'site'>, 'code' | 'nom' | 'numero' | 'adresse' | 'complement' | 'cp' | 'ville' | 'cadena' | 'date_implantation' | 'date_inauguration' | 'latitude' | 'longitude' | 'observations'> & {
          type: string;
          statut: string;
          date_convention: Date | null;
          referents: string | null;
          cellules: string | null;
        }
      >`
        SELECT s.code, s.nom, s.numero, s.adresse, s.complement, s.cp, s.ville, ts.libelle AS type, st.libelle AS statut, s.cadena,
          s.date_convention, s.date_implantation, s.date_inauguration, s.latitude, s.longitude, s.observations,
          (SELECT string_agg(a.email, ', ' ORDER BY lower(a.email)) FROM site_referent sr JOIN account a ON a.id = sr.account_id WHERE sr.site_id = s.id) AS referents,
          (SELECT string_agg(CASE WHEN sc.actif THEN '' ELSE 'Désactivé - ' END || 'n°' || sc.numero || ' ' || tb.libelle || ' (' || tc.volume || ' L - ' || tc.precisions || ')', ' | ' ORDER BY sc.numero, tb.id, sc.id)
             FROM site_composteur sc JOIN type_bac tb ON tb.id = sc.type_bac_id JOIN type_composteur tc ON tc.id = sc.type_composteur_id WHERE sc.site_id = s.id) AS cellules
        FROM site s JOIN type_site ts ON ts.id = s.type_site_id JOIN statut st ON st.id = s.statut_id
        ORDER BY s.code`
        .execute(db)
        .then((r) => r.rows);
    },

    exportUsers() {
      return sql<Pick<Row<'account'>, 'nom' | 'prenom' | 'email' | 'tel' | 'organisme'> & { type: string | null; sites: string | null }>`
        SELECT tu.libelle AS type, a.nom, a.prenom, a.email, a.tel, a.organisme,
          (SELECT string_agg(s.code, ', ' ORDER BY s.code) FROM site_referent sr JOIN site s ON s.id = sr.site_id WHERE sr.account_id = a.id) AS sites
        FROM account a LEFT JOIN type_user tu ON tu.id = a.type_user_id
        WHERE a.kind = 'user'
        ORDER BY lower(a.email)`
        .execute(db)
        .then((r) => r.rows);
    },
  };
}

export type ImportsRepository = ReturnType<typeof createImportsRepository>;
