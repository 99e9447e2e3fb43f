// SQL of the map and of the day's route: the active sites with their open alerts and pending
// requests, the requests planned on a Paris day, and each user's start point and hand-set orders.
import { sql, type Kysely } from 'kysely';
import type { Database } from '../../db/schema.js';
import type { Db } from '../../db/client.js';
import { intArray } from '../../db/list.js';
import { PENDING_STATUTS, SITE_STATUT } from '../../../shared/domain.js';
import type { CarteSite } from '../../../shared/schemas/map.js';

/** A request planned on the day, with its site's position (null when the site is not placed). */
export interface StopRecord {
  idDemande: number;
  idSite: number;
  site: string;
  adresse: string;
  action: string;
  cellule: string;
  dateEcheance: Date | string;
  latitude: number | null;
  longitude: number | null;
}

const PENDING = sql.join(PENDING_STATUTS.map((s) => sql.lit(s)));

export function createMapRepository(db: Db | Kysely<Database>) {
  return {
    /**
     * Every active site by name, with its open alerts (not closed, acknowledged or not) and its
     * pending requests, read from the counts the triggers keep (demande_intervention_count, the
     * row of every action: 0) rather than counted.
     */
    async carteSites(): Promise<CarteSite[]> {
      const { rows } = await sql<CarteSite>`
        SELECT s.id, s.code, coalesce(nullif(s.nom, ''), s.code) AS nom,
               trim(coalesce(s.numero || ' ', '') || s.adresse) AS adresse, s.ville,
               s.latitude, s.longitude,
               coalesce(a.n, 0)::int AS alertes,
               coalesce(c.n, 0)::int AS "demandesEnAttente"
          FROM site s
          LEFT JOIN (SELECT site_id, count(*)::int AS n FROM alerte WHERE closed_at IS NULL GROUP BY site_id) a ON a.site_id = s.id
          LEFT JOIN (SELECT site_id, sum(n)::int AS n FROM demande_intervention_count
                      WHERE statut_id IN (${PENDING}) AND type_action_programmee_id = 0 GROUP BY site_id) c ON c.site_id = s.id
         WHERE s.statut_id = ${SITE_STATUT.actif}
         ORDER BY s.nom_tri, s.code`.execute(db);
      return rows;
    },

    /**
     * The pending requests planned on this Paris day (from its midnight to the next, 23 or 25
     * hours on the days the clocks change), by id.
     */
    async dayStops(day: string): Promise<StopRecord[]> {
      const { rows } = await sql<StopRecord>`
        SELECT d.id AS "idDemande", d.site_id AS "idSite", coalesce(nullif(s.nom, ''), s.code) AS site,
               trim(coalesce(s.numero || ' ', '') || s.adresse || ', ' || s.cp || ' ' || s.ville) AS adresse,
               ta.libelle AS action, tb.libelle || ' n°' || sc.numero AS cellule,
               d.date_echeance AS "dateEcheance", s.latitude, s.longitude
          FROM demande_intervention d
          JOIN site s ON s.id = d.site_id
          JOIN type_action ta ON ta.id = d.type_action_programmee_id
          JOIN site_composteur sc ON sc.id = d.site_composteur_id
          JOIN type_bac tb ON tb.id = sc.type_bac_id
         WHERE d.statut_id IN (${PENDING})
           AND d.date_programmee >= (CAST(${day} AS date))::timestamp AT TIME ZONE 'Europe/Paris'
           AND d.date_programmee < (CAST(${day} AS date) + 1)::timestamp AT TIME ZONE 'Europe/Paris'
         ORDER BY d.id`.execute(db);
      return rows;
    },

    async savedDepart(accountId: number): Promise<{ latitude: number; longitude: number } | null> {
      const row = await db
        .selectFrom('account')
        .where('id', '=', accountId)
        .select(['tournee_depart_latitude as latitude', 'tournee_depart_longitude as longitude'])
        .executeTakeFirst();
      return row && row.latitude !== null && row.longitude !== null ? { latitude: row.latitude, longitude: row.longitude } : null;
    },

    async saveDepart(accountId: number, depart: { latitude: number; longitude: number } | null) {
      await db
        .updateTable('account')
        .set({ tournee_depart_latitude: depart?.latitude ?? null, tournee_depart_longitude: depart?.longitude ?? null })
        .where('id', '=', accountId)
        .execute();
    },

    async savedOrder(accountId: number, day: string): Promise<number[] | null> {
      const row = await db
        .selectFrom('tournee_ordre')
        .where('account_id', '=', accountId)
        .where('jour', '=', sql<string>`CAST(${day} AS date)`)
        .select('demandes')
        .executeTakeFirst();
      return row ? row.demandes.map(Number) : null;
    },

    async saveOrder(accountId: number, day: string, ids: readonly number[]) {
      await db
        .insertInto('tournee_ordre')
        .values({ account_id: accountId, jour: sql<string>`CAST(${day} AS date)`, demandes: intArray(ids) })
        .onConflict((oc) => oc.columns(['account_id', 'jour']).doUpdateSet({ demandes: intArray(ids), updated_at: sql<Date>`now()` }))
        .execute();
    },

    async deleteOrder(accountId: number, day: string) {
      await db.deleteFrom('tournee_ordre').where('account_id', '=', accountId).where('jour', '=', sql<string>`CAST(${day} AS date)`).execute();
    },
  };
}

export type MapRepository = ReturnType<typeof createMapRepository>;
