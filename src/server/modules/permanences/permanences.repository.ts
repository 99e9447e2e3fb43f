// SQL of the permanences: the openings of a site, their series, openers and tallies, the causes
// of the 'no opener' alert, the reminders of the day before and the public list and feed.
// Instants compared with "now" are the `now` the caller gives (reproducible tests); Paris days
// are computed in SQL from the stored instants (`AT TIME ZONE 'Europe/Paris'`).
import { sql, type SqlBool } from 'kysely';
import type { Db } from '../../db/client.js';
import type { PermanenceFrequence } from '../../../shared/schemas/permanences.js';
import { SITE_STATUT } from '../../../shared/domain.js';

export interface SiteInfo {
  id: number;
  code: string;
  nom: string | null;
  numero: string | null;
  adresse: string | null;
  cp: string | null;
  ville: string | null;
}

export interface PermanenceRecord {
  id: number;
  siteId: number;
  serieId: number | null;
  debut: Date;
  fin: Date;
  titre: string | null;
  message: string | null;
  apresCoup: boolean;
  annuleeLe: Date | null;
  motifAnnulation: string | null;
  bilanClientId: string | null;
  bilanFoyers: number | null;
  bilanSeaux: number | null;
  bilanKg: number | null;
  bilanKgEstime: boolean | null;
  bilanTemperature: number | null;
  bilanLe: Date | null;
}

export interface PermanenceListRecord extends PermanenceRecord {
  frequence: PermanenceFrequence | null;
  jusqua: string | null;
  ouvreurs: { id: number; nom: string }[];
  jeTiens: boolean;
}

export interface OpenerContact {
  accountId: number;
  email: string;
  prenom: string | null;
  nom: string;
}

export interface ReminderRow {
  permanenceId: number;
  accountId: number;
  email: string;
  prenom: string | null;
  nom: string;
}

const RECORD = sql`p.id, p.site_id AS "siteId", p.serie_id AS "serieId", p.debut, p.fin, p.titre, p.message, p.apres_coup AS "apresCoup",
  p.annulee_le AS "annuleeLe", p.motif_annulation AS "motifAnnulation", p.bilan_client_id::text AS "bilanClientId",
  p.bilan_foyers AS "bilanFoyers", p.bilan_seaux AS "bilanSeaux", p.bilan_kg::float8 AS "bilanKg", p.bilan_kg_estime AS "bilanKgEstime",
  p.bilan_temperature::float8 AS "bilanTemperature", p.bilan_le AS "bilanLe"`;

const date = (d: Date | string | null) => (d === null ? null : new Date(d));

function record<T extends PermanenceRecord>(r: T): T {
  return { ...r, debut: new Date(r.debut), fin: new Date(r.fin), annuleeLe: date(r.annuleeLe), bilanLe: date(r.bilanLe) };
}

export function createPermanencesRepository(db: Db) {
  return {
    async site(id: number): Promise<SiteInfo | undefined> {
      return db.selectFrom('site').select(['id', 'code', 'nom', 'numero', 'adresse', 'cp', 'ville']).where('id', '=', id).executeTakeFirst();
    },

    /** A site whose public page exists (active, with bins), by its code, as the public page finds it. */
    async publicSiteByCode(code: string): Promise<SiteInfo | undefined> {
      return db
        .selectFrom('site')
        .select(['id', 'code', 'nom', 'numero', 'adresse', 'cp', 'ville'])
        .where('code', '=', code)
        .where('statut_id', '=', SITE_STATUT.actif)
        .where(sql<SqlBool>`nb_composteurs > 0`)
        .executeTakeFirst();
    },

    async isReferent(accountId: number, siteId: number): Promise<boolean> {
      const r = await db.selectFrom('site_referent').select('site_id').where('account_id', '=', accountId).where('site_id', '=', siteId).executeTakeFirst();
      return r !== undefined;
    },

    async insertSerie(row: { siteId: number; frequence: PermanenceFrequence; jusqua: string; accountId: number }): Promise<number> {
      const r = await db
        .insertInto('permanence_serie')
        .values({ site_id: row.siteId, frequence: row.frequence, jusqua: row.jusqua, created_by: row.accountId })
        .returning('id')
        .executeTakeFirstOrThrow();
      return r.id;
    },

    async insertPermanences(
      rows: readonly { siteId: number; serieId: number | null; debut: Date; fin: Date; titre: string | null; message: string | null; apresCoup: boolean; accountId: number }[],
    ): Promise<number[]> {
      const r = await db
        .insertInto('permanence')
        .values(
          rows.map((p) => ({
            site_id: p.siteId,
            serie_id: p.serieId,
            debut: p.debut,
            fin: p.fin,
            titre: p.titre,
            message: p.message,
            apres_coup: p.apresCoup,
            created_by: p.accountId,
          })),
        )
        .returning('id')
        .execute();
      return r.map((x) => x.id).sort((a, b) => a - b);
    },

    /** The permanence, locked for the rest of the transaction. */
    async lock(id: number): Promise<PermanenceRecord | undefined> {
      const r = await sql<PermanenceRecord>`SELECT ${RECORD} FROM permanence p WHERE p.id = ${id} FOR UPDATE`.execute(db);
      return r.rows[0] && record(r.rows[0]);
    },

    async find(id: number): Promise<PermanenceRecord | undefined> {
      const r = await sql<PermanenceRecord>`SELECT ${RECORD} FROM permanence p WHERE p.id = ${id}`.execute(db);
      return r.rows[0] && record(r.rows[0]);
    },

    /** The permanence whose tally was sent with this client id, if any. */
    async byClientId(clientId: string): Promise<PermanenceRecord | undefined> {
      const r = await sql<PermanenceRecord>`SELECT ${RECORD} FROM permanence p WHERE p.bilan_client_id = ${clientId}::uuid`.execute(db);
      return r.rows[0] && record(r.rows[0]);
    },

    /**
     * A site's permanences: 'a_venir' those starting from `from` on, soonest first; 'passees'
     * those started before `now`, latest first. With each one's series, openers and whether
     * `accountId` holds it.
     */
    async list(siteId: number, periode: 'a_venir' | 'passees', now: Date, from: Date, accountId: number): Promise<PermanenceListRecord[]> {
      const where = periode === 'a_venir' ? sql`p.debut >= ${from}` : sql`p.debut < ${now}`;
      const order = periode === 'a_venir' ? sql`p.debut ASC, p.id ASC` : sql`p.debut DESC, p.id DESC`;
      const r = await sql<PermanenceListRecord>`
        SELECT ${RECORD}, s.frequence, s.jusqua::text AS jusqua,
               coalesce((SELECT json_agg(json_build_object('id', a.id, 'nom', trim(coalesce(a.prenom, '') || ' ' || a.nom)) ORDER BY a.nom, a.prenom, a.id)
                           FROM permanence_ouvreur o JOIN account a ON a.id = o.account_id WHERE o.permanence_id = p.id), '[]'::json) AS ouvreurs,
               EXISTS (SELECT 1 FROM permanence_ouvreur o WHERE o.permanence_id = p.id AND o.account_id = ${accountId}) AS "jeTiens"
          FROM permanence p LEFT JOIN permanence_serie s ON s.id = p.serie_id
         WHERE p.site_id = ${siteId} AND ${where}
         ORDER BY ${order}`.execute(db);
      return r.rows.map((x) => ({ ...record(x), ouvreurs: typeof x.ouvreurs === 'string' ? JSON.parse(x.ouvreurs) : x.ouvreurs }));
    },

    async update(id: number, row: { debut: Date; fin: Date; titre: string | null; message: string | null }) {
      await db.updateTable('permanence').set({ debut: row.debut, fin: row.fin, titre: row.titre, message: row.message }).where('id', '=', id).execute();
    },

    /** A moved opening is reminded again on its new eve. */
    async resetReminders(id: number) {
      await db.updateTable('permanence_ouvreur').set({ rappel_envoye_le: null }).where('permanence_id', '=', id).execute();
    },

    async cancel(id: number, accountId: number, motif: string, now: Date) {
      await db.updateTable('permanence').set({ annulee_le: now, annulee_par: accountId, motif_annulation: motif }).where('id', '=', id).execute();
    },

    /** The openers of a permanence who have an e-mail and an active account. */
    async openers(permanenceId: number): Promise<OpenerContact[]> {
      return db
        .selectFrom('permanence_ouvreur as o')
        .innerJoin('account as a', 'a.id', 'o.account_id')
        .select(['a.id as accountId', 'a.email', 'a.prenom', 'a.nom'])
        .where('o.permanence_id', '=', permanenceId)
        .where('a.actif', '=', true)
        .orderBy('a.id')
        .execute();
    },

    async addOpener(permanenceId: number, accountId: number) {
      await db.insertInto('permanence_ouvreur').values({ permanence_id: permanenceId, account_id: accountId }).onConflict((oc) => oc.doNothing()).execute();
    },

    async removeOpener(permanenceId: number, accountId: number) {
      await db.deleteFrom('permanence_ouvreur').where('permanence_id', '=', permanenceId).where('account_id', '=', accountId).execute();
    },

    async kgParSeau(): Promise<number> {
      const r = await sql<{ kg: number }>`SELECT kg_par_seau::float8 AS kg FROM alerte_seuils WHERE id = 1`.execute(db);
      return r.rows[0].kg;
    },

    /** Records the tally; the kilos are rounded to the column's hundredths by the database. */
    async saveBilan(id: number, b: { clientId: string; foyers: number; seaux: number; kg: string; kgEstime: boolean; temperature: number | null; accountId: number; now: Date }) {
      await db
        .updateTable('permanence')
        .set({
          bilan_client_id: b.clientId,
          bilan_foyers: b.foyers,
          bilan_seaux: b.seaux,
          bilan_kg: b.kg,
          bilan_kg_estime: b.kgEstime,
          bilan_temperature: b.temperature,
          bilan_par: b.accountId,
          bilan_le: b.now,
        })
        .where('id', '=', id)
        .execute();
    },

    /**
     * Permanences not cancelled, not started at `now`, starting on a Paris day up to `lastDay`,
     * without any opener: the causes of 'permanence_sans_ouvreur'.
     */
    async withoutOpener(now: Date, lastDay: string): Promise<{ id: number; siteId: number; debut: Date; fin: Date }[]> {
      const r = await sql<{ id: number; siteId: number; debut: Date; fin: Date }>`
        SELECT p.id, p.site_id AS "siteId", p.debut, p.fin
          FROM permanence p
         WHERE p.annulee_le IS NULL AND p.debut > ${now}
           AND (p.debut AT TIME ZONE 'Europe/Paris')::date <= ${lastDay}::date
           AND NOT EXISTS (SELECT 1 FROM permanence_ouvreur o WHERE o.permanence_id = p.id)
         ORDER BY p.debut, p.id`.execute(db);
      return r.rows.map((x) => ({ ...x, debut: new Date(x.debut), fin: new Date(x.fin) }));
    },

    /**
     * Claims, in one statement, the reminders due at `now`: each opener of a permanence not
     * cancelled, not started, on a Paris day up to `lastDay`, not reminded yet. A second run
     * (another process) finds them claimed.
     */
    async claimReminders(now: Date, lastDay: string): Promise<ReminderRow[]> {
      const r = await sql<ReminderRow>`
        WITH due AS (
          SELECT o.permanence_id, o.account_id
            FROM permanence_ouvreur o
            JOIN permanence p ON p.id = o.permanence_id
            JOIN account a ON a.id = o.account_id AND a.actif
           WHERE o.rappel_envoye_le IS NULL AND p.annulee_le IS NULL AND p.debut > ${now}
             AND (p.debut AT TIME ZONE 'Europe/Paris')::date <= ${lastDay}::date
           FOR UPDATE OF o SKIP LOCKED
        ), claimed AS (
          UPDATE permanence_ouvreur o SET rappel_envoye_le = ${now}
            FROM due WHERE o.permanence_id = due.permanence_id AND o.account_id = due.account_id
          RETURNING o.permanence_id, o.account_id
        )
        SELECT c.permanence_id AS "permanenceId", c.account_id AS "accountId", a.email, a.prenom, a.nom
          FROM claimed c JOIN account a ON a.id = c.account_id
         ORDER BY c.permanence_id, c.account_id`.execute(db);
      return r.rows;
    },

    /** Gives a reminder back when its e-mail could not leave: the next run tries again. */
    async releaseReminder(permanenceId: number, accountId: number) {
      await db.updateTable('permanence_ouvreur').set({ rappel_envoye_le: null }).where('permanence_id', '=', permanenceId).where('account_id', '=', accountId).execute();
    },

    /** A site's permanences not ended at `now`, soonest first, cancelled ones included. */
    async next(siteId: number, now: Date, limit: number): Promise<PermanenceRecord[]> {
      const r = await sql<PermanenceRecord>`
        SELECT ${RECORD} FROM permanence p WHERE p.site_id = ${siteId} AND p.fin > ${now}
         ORDER BY p.debut, p.id LIMIT ${limit}`.execute(db);
      return r.rows.map(record);
    },

    /** A site's permanences starting within [from, to), for its calendar feed. */
    async between(siteId: number, from: Date, to: Date): Promise<PermanenceRecord[]> {
      const r = await sql<PermanenceRecord>`
        SELECT ${RECORD} FROM permanence p WHERE p.site_id = ${siteId} AND p.debut >= ${from} AND p.debut < ${to}
         ORDER BY p.debut, p.id`.execute(db);
      return r.rows.map(record);
    },
  };
}

export type PermanencesRepository = ReturnType<typeof createPermanencesRepository>;
