// Kysely types of the summary tables of migration 009 (the lead folds them into db/schema.ts).
export interface InterventionStatsMoisTable {
  type_action_id: number;
  /** First day of the Europe/Paris month. */
  mois: Date | string;
  site_id: number;
  intervenant_id: number;
  nb: number;
  /** Sum of valeur_nombre (litres for the litre actions). */
  quantite: number;
}

interface StatsLevel {
  type_action_id: number;
  mois: Date | string;
  nb: number;
  quantite: number;
}

declare module '../../db/schema.js' {
  interface Database {
    intervention_stats_mois: InterventionStatsMoisTable;
    intervention_stats_mois_intervenant: StatsLevel & { intervenant_id: number };
    /** The whole network in 16 stripes (bande = site_id % 16). */
    intervention_stats_mois_reseau: StatsLevel & { bande: number };
  }
}
