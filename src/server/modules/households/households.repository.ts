// SQL of the households (foyers) of a site: registration from the public page, the referents'
// list and decisions, leaving (with the anonymous trace that keeps past months' counts), the
// one-click unsubscribe, and the one news message a day per site. A site takes registrations
// when its public page shows: active (status 1) with at least one active cell.
import { sql, type SqlBool } from 'kysely';
import type { Db } from '../../db/client.js';
import type { FoyerStatut } from '../../db/schema-people.js';
import { SITE_STATUT } from '../../../shared/domain.js';

const isPublic = sql<SqlBool>`s.statut_id = ${sql.lit(SITE_STATUT.actif)} AND s.nb_composteurs > 0`;

export interface FoyerRecord {
  id: number;
  siteId: number;
  prenom: string | null;
  email: string | null;
  personnes: number;
  bioseau: boolean;
  statut: FoyerStatut;
  createdAt: Date;
  traiteLe: Date | null;
  nouvelles: boolean;
}

export function createHouseholdsRepository(db: Db) {
  return {
    /** The site behind a public code, when its public page shows. */
    async publicSite(code: string): Promise<{ id: number; code: string; nom: string | null } | undefined> {
      const { rows } = await sql<{ id: number; code: string; nom: string | null }>`SELECT s.id, s.code, s.nom FROM site s WHERE s.code = ${code} AND ${isPublic}`.execute(db);
      return rows[0];
    },

    async site(id: number): Promise<{ id: number; code: string; nom: string | null } | undefined> {
      return db.selectFrom('site').select(['id', 'code', 'nom']).where('id', '=', id).executeTakeFirst();
    },

    isReferent: async (accountId: number, siteId: number) =>
      !!(await db.selectFrom('site_referent').where('account_id', '=', accountId).where('site_id', '=', siteId).select('site_id').executeTakeFirst()),

    /** Whether this address already stands for a household of the site (waiting or confirmed). */
    hasLiveEmail: async (siteId: number, email: string) =>
      !!(await db
        .selectFrom('foyer')
        .select('id')
        .where('site_id', '=', siteId)
        .where(sql<SqlBool>`lower(email) = lower(${email})`)
        .where('statut', '<>', 'refuse')
        .executeTakeFirst()),

    insert: async (f: { siteId: number; prenom: string | null; email: string | null; personnes: number; bioseau: boolean }) =>
      (
        await db
          .insertInto('foyer')
          .values({ site_id: f.siteId, prenom: f.prenom, email: f.email, personnes: f.personnes, bioseau: f.bioseau, nouvelles: f.email !== null })
          .returning('id')
          .executeTakeFirstOrThrow()
      ).id,

    /** Every household of the site: the waiting ones first, then the confirmed, then the refused; newest first within each. */
    list: (siteId: number): Promise<FoyerRecord[]> =>
      db
        .selectFrom('foyer')
        .select([
          'id',
          'site_id as siteId',
          'prenom',
          'email',
          'personnes',
          'bioseau',
          'statut',
          'created_at as createdAt',
          'traite_le as traiteLe',
          'nouvelles',
        ])
        .where('site_id', '=', siteId)
        .orderBy(sql`CASE statut WHEN 'en_attente' THEN 0 WHEN 'confirme' THEN 1 ELSE 2 END`)
        .orderBy('created_at', 'desc')
        .orderBy('id', 'desc')
        .execute(),

    find: (id: number) => db.selectFrom('foyer').select(['id', 'site_id as siteId', 'statut']).where('id', '=', id).executeTakeFirst(),

    /**
     * Confirms or refuses a waiting household; false when it was no longer waiting. A refused
     * household's first name and e-mail are erased with the decision: nobody needs them any more.
     */
    async decide(id: number, statut: 'confirme' | 'refuse', accountId: number): Promise<boolean> {
      const erased = statut === 'refuse' ? { prenom: null, email: null, nouvelles: false } : {};
      const r = await db
        .updateTable('foyer')
        .set({ statut, traite_le: sql<Date>`now()`, traite_par: accountId, ...erased })
        .where('id', '=', id)
        .where('statut', '=', 'en_attente')
        .executeTakeFirst();
      return Number(r.numUpdatedRows) === 1;
    },

    /**
     * Deletes the household's record; a confirmed one leaves an anonymous trace (its site, its
     * size, when it was confirmed and when it left) so that the months it took part keep their
     * count. False when there was no such household (already gone).
     */
    async leave(id: number): Promise<boolean> {
      const r = await sql<{ id: number }>`
        WITH gone AS (DELETE FROM foyer WHERE id = ${id} RETURNING id, site_id, personnes, statut, traite_le),
        kept AS (
          INSERT INTO foyer_depart (site_id, personnes, confirme_le, parti_le)
          SELECT site_id, personnes, traite_le, greatest(now(), traite_le) FROM gone WHERE statut = 'confirme'
        )
        SELECT id FROM gone`.execute(db);
      return r.rows.length === 1;
    },

    /** Stops the news for a household; false when there was no such household. */
    async unsubscribe(id: number): Promise<boolean> {
      const r = await db.updateTable('foyer').set({ nouvelles: false }).where('id', '=', id).executeTakeFirst();
      return Number(r.numUpdatedRows) === 1;
    },

    /**
     * Claims the site's news of the Paris day: one row per site and day (the table's unique
     * key), so two referents sending at once cannot both pass. False when the day's is taken.
     */
    async claimNews(n: { siteId: number; sujet: string; texte: string; accountId: number; destinataires: number }): Promise<boolean> {
      const r = await sql<{ id: number }>`
        INSERT INTO foyer_nouvelle (site_id, jour, sujet, texte, envoye_par, destinataires)
        VALUES (${n.siteId}, (now() AT TIME ZONE 'Europe/Paris')::date, ${n.sujet}, ${n.texte}, ${n.accountId}, ${n.destinataires})
        ON CONFLICT (site_id, jour) DO NOTHING
        RETURNING id`.execute(db);
      return r.rows.length === 1;
    },
  };
}

export type HouseholdsRepository = ReturnType<typeof createHouseholdsRepository>;
