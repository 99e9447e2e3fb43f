// SQL of the public side of the sites: the public page of a site, the anonymous reports and
// their handling, and the rows of the open-data files. A site is public when it is active
// (status 1) and has at least one active cell: a requested site, or one whose bins were all
// retired, answers as unknown. The columns and table of migration 026 (occurrences, visible_le,
// fusionne_dans_id, signalement_public_contact) are written in SQL.
import { sql, type SqlBool } from 'kysely';
import type { Db } from '../../db/client.js';
import type { SignalementCategorie, SignalementStatut } from '../../db/schema-public-sites.js';
import { intArray, pageOf } from '../../db/list.js';
import type { SignalementListQuery } from '../../../shared/schemas/public-sites.js';
import { ACTION, SITE_STATUT, STATUT_EN_ATTENTE } from '../../../shared/domain.js';

/** Key of the per-site advisory locks of the reports (with the site's id as second key). */
const REPORT_LOCK = 5_190_026;

const isPublic = sql<SqlBool>`s.statut_id = ${sql.lit(SITE_STATUT.actif)} AND s.nb_composteurs > 0`;

export interface PublicSiteRecord {
  id: number;
  code: string;
  nom: string | null;
  typeSite: string;
  numero: string | null;
  adresse: string;
  cp: string;
  ville: string;
  horaires: string | null;
  consignes: string | null;
}

export interface LatestRecord {
  retournement: Date | null;
  transfert: Date | null;
  apportDate: Date | null;
  apportNiveau: string | null;
  matiereDate: Date | null;
  matiereNiveau: string | null;
  matiereConstante: number | null;
}

export interface OpenDataRecord {
  code: string;
  nom: string | null;
  codeInsee: string | null;
  numero: string | null;
  adresse: string;
  cp: string;
  ville: string;
  typeSite: string;
  dateImplantation: Date | null;
  nbComposteurs: number;
  volume: number;
  horaires: string | null;
  latitude: number | null;
  longitude: number | null;
}

export interface ReportScope {
  /** null: every site (ROLE_ADMIN); otherwise the sites this account is referent of. */
  referentId: number | null;
}

/** The latest intervention of one action on the site: one probe of the partial index of migration 018. */
function latestOf(siteId: number, action: number) {
  return sql`(SELECT i.date, i.valeur_constante FROM intervention i
    WHERE i.site_id = ${siteId} AND i.type_action_id = ${sql.lit(action)} ORDER BY i.date DESC LIMIT 1)`;
}

export function createPublicSitesRepository(db: Db) {
  return {
    async publicSite(code: string): Promise<PublicSiteRecord | undefined> {
      const { rows } = await sql<PublicSiteRecord>`SELECT s.id, s.code, s.nom, s.type_libelle AS "typeSite", s.numero, s.adresse, s.cp, s.ville,
          s.horaires, s.consignes
        FROM site s WHERE s.code = ${code} AND ${isPublic}`.execute(db);
      return rows[0];
    },

    async latest(siteId: number): Promise<LatestRecord> {
      // What the public page reads: the latest turn and transfer, the input and material levels.
      const { retournement, transfert, niveauApport, niveauMatiere } = ACTION;
      const { rows } = await sql<LatestRecord>`SELECT r.date AS retournement, t.date AS transfert,
          a.date AS "apportDate", ca.constante AS "apportNiveau",
          m.date AS "matiereDate", cm.constante AS "matiereNiveau", m.valeur_constante AS "matiereConstante"
        FROM (SELECT 1) one
        LEFT JOIN LATERAL ${latestOf(siteId, retournement)} r ON true
        LEFT JOIN LATERAL ${latestOf(siteId, transfert)} t ON true
        LEFT JOIN LATERAL ${latestOf(siteId, niveauApport)} a ON true
        LEFT JOIN type_action_constante ca ON ca.id_action = ${sql.lit(niveauApport)} AND ca.id_constante = a.valeur_constante
        LEFT JOIN LATERAL ${latestOf(siteId, niveauMatiere)} m ON true
        LEFT JOIN type_action_constante cm ON cm.id_action = ${sql.lit(niveauMatiere)} AND cm.id_constante = m.valeur_constante`.execute(db);
      return rows[0];
    },

    /** Reports on one site are written one at a time: the identical text and the next free place are read exact. */
    lockSiteReports: async (siteId: number) => {
      await sql`SELECT pg_advisory_xact_lock(${sql.lit(REPORT_LOCK)}, ${siteId})`.execute(db);
    },

    openIdentical: async (siteId: number, texte: string) =>
      (await sql<{ id: number }>`SELECT id FROM signalement_public WHERE site_id = ${siteId} AND statut = 'nouveau' AND texte = ${texte} ORDER BY id LIMIT 1`.execute(db)).rows[0]?.id,

    countAgain: (id: number, withEmail: boolean) =>
      sql`UPDATE signalement_public SET occurrences = occurrences + 1, reponse_demandee = reponse_demandee OR ${withEmail} WHERE id = ${id}`.execute(db),

    /**
     * A new report, on the board now, or once the site's latest `perDay` entries are a day old:
     * any 24 hours then show at most `perDay` new reports of a site, and none is refused.
     */
    insertReport: async (r: { siteId: number; categorie: SignalementCategorie; texte: string; withEmail: boolean; perDay: number }) =>
      (
        await sql<{ id: number; visible_le: Date }>`INSERT INTO signalement_public (site_id, categorie, texte, reponse_demandee, visible_le)
          VALUES (${r.siteId}, ${r.categorie}, ${r.texte}, ${r.withEmail}, greatest(now(),
            (SELECT visible_le FROM signalement_public WHERE site_id = ${r.siteId} ORDER BY visible_le DESC LIMIT 1 OFFSET ${r.perDay - 1}) + interval '24 hours'))
          RETURNING id, visible_le`.execute(db)
      ).rows[0],

    addContact: (id: number, email: string) =>
      sql`INSERT INTO signalement_public_contact (signalement_id, email) VALUES (${id}, ${email}) ON CONFLICT DO NOTHING`.execute(db),

    async reports(q: SignalementListQuery, scope: ReportScope) {
      let filtered = db.selectFrom('signalement_public as r');
      // A new report waiting for its place (visible_le) is not on the board yet.
      if (q.filter.statut === 'nouveau') filtered = filtered.where('r.statut', '=', 'nouveau').where(sql<SqlBool>`r.visible_le <= now()`);
      if (q.filter.statut === 'traite') filtered = filtered.where('r.statut', 'in', ['transforme', 'classe']);
      if (q.filter.site !== undefined) filtered = filtered.where('r.site_id', '=', q.filter.site);
      if (scope.referentId !== null) {
        const referentId = scope.referentId;
        filtered = filtered.where('r.site_id', 'in', (eb) => eb.selectFrom('site_referent').where('account_id', '=', referentId).select('site_id'));
      }
      const { count } = await filtered.select(sql<number>`count(*)::int`.as('count')).executeTakeFirstOrThrow();
      const { limit, offset } = pageOf(q);
      const dir = q.sort.direction;
      let page = filtered
        .innerJoin('site as s', 's.id', 'r.site_id')
        .leftJoin('account as a', 'a.id', 'r.traite_par_id')
        .leftJoin('demande_intervention as d', 'd.id', 'r.demande_intervention_id')
        .leftJoin('type_action as ta', 'ta.id', 'd.type_action_programmee_id')
        .select([
          'r.id',
          'r.created_at as date',
          'r.site_id as idSite',
          sql<string>`coalesce(nullif(s.nom, ''), s.code)`.as('site'),
          's.code',
          sql<string>`trim(coalesce(s.numero || ' ', '') || s.adresse || ', ' || s.cp || ' ' || s.ville)`.as('adresse'),
          'r.categorie',
          'r.texte',
          'r.reponse_demandee as reponseDemandee',
          'r.statut',
          'r.traite_le as traiteLe',
          sql<string | null>`trim(a.nom || ' ' || coalesce(a.prenom, ''))`.as('traitePar'),
          'r.motif',
          'r.demande_intervention_id as idDemande',
          'ta.libelle as actionProgrammee',
          'd.date_echeance as dateEcheance',
          sql<number>`r.occurrences`.as('occurrences'),
          sql<number | null>`r.fusionne_dans_id`.as('fusionneDans'),
        ]);
      page =
        q.sort.name === 'site'
          ? page.orderBy(sql`s.nom_tri`, dir).orderBy('r.created_at', 'desc').orderBy('r.id', 'desc')
          : page.orderBy('r.created_at', dir).orderBy('r.id', dir);
      return { count, rows: await page.limit(limit).offset(offset).execute() };
    },

    /** The reports, locked until the transaction ends (in id order: two bulk actions cannot deadlock). */
    lockReports: (ids: readonly number[]) =>
      db
        .selectFrom('signalement_public as r')
        .innerJoin('site as s', 's.id', 'r.site_id')
        .where(sql<SqlBool>`r.id = ANY(${intArray(ids)})`)
        .select(['r.id', 'r.site_id as siteId', 'r.statut', 'r.created_at as date', 's.code', 's.nom', sql<number>`r.occurrences`.as('occurrences')])
        .orderBy('r.id')
        .forUpdate('r')
        .execute(),

    isReferent: async (accountId: number, siteId: number) =>
      !!(await db.selectFrom('site_referent').where('account_id', '=', accountId).where('site_id', '=', siteId).select('site_id').executeTakeFirst()),

    actionLabel: async (id: number) => (await db.selectFrom('type_action').where('id', '=', id).select('libelle').executeTakeFirst())?.libelle,

    activeCell: (siteId: number, cellId: number) =>
      db
        .selectFrom('site_composteur')
        .where('id', '=', cellId)
        .where('site_id', '=', siteId)
        .where('actif', '=', true)
        .select(['id', 'type_bac_id as typeBac'])
        .executeTakeFirst(),

    actionAllowedOn: async (action: number, typeBac: number) =>
      !!(await db
        .selectFrom('type_action_type_bac')
        .where('type_action_id', '=', action)
        .where('type_bac_id', '=', typeBac)
        .select('type_action_id')
        .executeTakeFirst()),

    parisToday: async () => (await sql<{ today: string }>`SELECT to_char((now() AT TIME ZONE 'Europe/Paris')::date, 'YYYY-MM-DD') AS today`.execute(db)).rows[0].today,

    /** A pending request (status 3) due at the start of that Paris day, like a scheduled one. */
    insertRequest: async (r: { siteId: number; cellId: number; action: number; day: string }) =>
      (
        await db
          .insertInto('demande_intervention')
          .values({
            site_id: r.siteId,
            site_composteur_id: r.cellId,
            statut_id: STATUT_EN_ATTENTE,
            type_action_programmee_id: r.action,
            date_echeance: sql<Date>`(${r.day}::date)::timestamp AT TIME ZONE 'Europe/Paris'`,
          })
          .returning('id')
          .executeTakeFirstOrThrow()
      ).id,

    /** Handled: who and when, the reason or the request. */
    markHandled: (ids: readonly number[], h: { statut: Exclude<SignalementStatut, 'nouveau'>; accountId: number; motif: string | null; demandeId: number | null; fusionneDans?: number }) =>
      sql`UPDATE signalement_public SET statut = ${h.statut}, traite_le = now(), traite_par_id = ${h.accountId}, motif = ${h.motif},
          demande_intervention_id = ${h.demandeId}, fusionne_dans_id = ${h.fusionneDans ?? null}
        WHERE id = ANY(${intArray(ids)})`.execute(db),

    /** The reporters' addresses of these reports, forgotten as they are read (for the one answer each). */
    takeContacts: async (ids: readonly number[]) =>
      (await sql<{ id: number; email: string }>`DELETE FROM signalement_public_contact WHERE signalement_id = ANY(${intArray(ids)})
        RETURNING signalement_id AS id, email`.execute(db)).rows,

    /** Merged reports count into the kept one, and their reporters wait for its answer. */
    foldInto: async (keptId: number, ids: readonly number[], occurrences: number) => {
      await sql`INSERT INTO signalement_public_contact (signalement_id, email)
        SELECT ${keptId}, email FROM signalement_public_contact WHERE signalement_id = ANY(${intArray(ids)}) ON CONFLICT DO NOTHING`.execute(db);
      await sql`DELETE FROM signalement_public_contact WHERE signalement_id = ANY(${intArray(ids)})`.execute(db);
      await sql`UPDATE signalement_public SET occurrences = occurrences + ${occurrences},
          reponse_demandee = EXISTS (SELECT 1 FROM signalement_public_contact WHERE signalement_id = ${keptId})
        WHERE id = ${keptId}`.execute(db);
    },

    /** Active, published sites, by code (the open-data files). */
    async openDataSites(): Promise<OpenDataRecord[]> {
      const { rows } = await sql<OpenDataRecord>`SELECT s.code, s.nom, s.code_insee AS "codeInsee", s.numero, s.adresse, s.cp, s.ville,
          s.type_libelle AS "typeSite", s.date_implantation AS "dateImplantation", s.nb_composteurs AS "nbComposteurs", s.volume,
          s.horaires, s.latitude, s.longitude
        FROM site s WHERE ${isPublic} AND s.open_data ORDER BY s.code`.execute(db);
      return rows;
    },
  };
}

export type PublicSitesRepository = ReturnType<typeof createPublicSitesRepository>;
