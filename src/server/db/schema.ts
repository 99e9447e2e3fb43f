// Kysely table types, mirroring migrations/. Generated columns are Generated<>.
import type { ColumnType, Generated, Selectable } from 'kysely';
import type { AlertsTables } from './schema-alerts.js';
import type { PhotosTables } from './schema-photos.js';
import type { PublicSitesTables } from './schema-public-sites.js';
import type { PeopleTables } from './schema-people.js';

type Timestamp = ColumnType<Date, Date | string, Date | string>;
type DefaultTimestamp = ColumnType<Date, Date | string | undefined, Date | string>;

export interface AccountTable {
  id: Generated<number>;
  /** 'intervenant': a name imported history gives, with no account here (migration 032); never logs in. */
  kind: 'user' | 'agent' | 'intervenant';
  identifiant: string | null;
  email: string;
  password_hash: string | null;
  type_user_id: number | null;
  organisme: string | null;
  nom: string;
  prenom: string | null;
  tel: string | null;
  photo: string | null;
  email_valide: Generated<boolean>;
  actif: Generated<boolean>;
  created_at: DefaultTimestamp;
  /** Where the user's route starts (migration 030); both or neither. */
  tournee_depart_latitude: ColumnType<number | null, number | null | undefined, number | null>;
  tournee_depart_longitude: ColumnType<number | null, number | null | undefined, number | null>;
}

/**
 * A table's row as a query reads it. Repositories cut the shapes they write from it (a Pick of
 * the columns they set), so that a column's type is written once, here.
 */
export type Row<T extends keyof Database> = Selectable<Database[T]>;

export interface Database extends AlertsTables, PhotosTables, PublicSitesTables, PeopleTables {
  type_user: { id: number; libelle: string };
  role: { id: number; code: string; libelle: string };
  type_bac: { id: number; libelle: string };
  statut: { id: number; libelle: string };
  account: AccountTable;
  account_role: { account_id: number; role_id: number };
  session: {
    id_hash: string;
    account_id: number;
    created_at: DefaultTimestamp;
    last_seen_at: DefaultTimestamp;
    expires_at: Timestamp;
  };
  account_token: {
    token_hash: string;
    account_id: number;
    purpose: 'confirm' | 'reset';
    created_at: DefaultTimestamp;
    expires_at: Timestamp;
    used_at: Timestamp | null;
  };
  type_site: { id: Generated<number>; libelle: string; code: string; next_sequence: Generated<number> };
  type_composteur: { id: Generated<number>; volume: number; precisions: string };
  type_action: {
    id: number;
    libelle: string;
    valeur: boolean;
    value_kind: 'none' | 'litres' | 'temperature' | 'constant' | 'text' | 'transfer';
    stats_series: string | null;
  };
  type_action_type_bac: { type_action_id: number; type_bac_id: number };
  type_action_constante: { id_constante: number; constante: string; id_action: number };
  ville: { id: Generated<number>; code_insee: string; nom: string; cp: string };
  rue: { id: Generated<number>; code_insee: string; nom: string };
  demandeur: {
    id: Generated<number>;
    date: Timestamp | null;
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
  };
  site: {
    id: Generated<number>;
    code: string;
    nom: string | null;
    ville: string;
    cp: string;
    code_insee: string | null;
    adresse: string;
    numero: string | null;
    complement: string | null;
    type_site_id: number;
    observations: string | null;
    cadena: string | null;
    date_implantation: Timestamp | null;
    date_inauguration: Timestamp | null;
    statut_id: number;
    demandeur_id: number | null;
    created_at: DefaultTimestamp;
    horaires: string | null;
    consignes: string | null;
    latitude: number | null;
    longitude: number | null;
    coordonnees_source: 'ban' | 'saisie' | null;
    open_data: Generated<boolean>;
  };
  demande_signalement: { demande_intervention_id: number; intervention_id: number; date_echeance: Timestamp; created_at: DefaultTimestamp };
  site_convention: { id: Generated<number>; site_id: number; date_convention: Timestamp; created_at: DefaultTimestamp };
  site_referent: { site_id: number; account_id: number };
  site_composteur: {
    id: Generated<number>;
    site_id: number;
    type_composteur_id: number;
    type_bac_id: number;
    numero: number;
    actif: Generated<boolean>;
    /** Kept by the triggers of migration 007: whether any intervention names this cell. */
    a_interventions: Generated<boolean>;
  };
  intervention_submission: {
    client_id: string;
    account_id: number;
    payload_hash: string;
    result: ColumnType<unknown, string, string>;
    created_at: DefaultTimestamp;
  };
  demande_intervention: {
    id: Generated<number>;
    site_id: number;
    site_composteur_id: number;
    statut_id: number;
    type_action_programmee_id: number;
    intervention_declenchante_id: number | null;
    intervention_realisee_id: number | null;
    date_creation: DefaultTimestamp;
    date_echeance: Timestamp;
    date_programmee: Timestamp | null;
    programme_par_id: number | null;
    date_annulation: Timestamp | null;
    annulee_par_id: number | null;
    /** The reason given when cancelled from the board (migration 030). */
    motif_annulation: ColumnType<string | null, string | null | undefined, string | null>;
  };
  intervention: {
    id: Generated<number>;
    client_id: string | null;
    date: Timestamp;
    site_id: number;
    site_composteur_id: number;
    type_action_id: number;
    valeur_nombre: number | null;
    valeur_constante: number | null;
    valeur_texte: string | null;
    bac_destination_id: number | null;
    observations: string | null;
    intervenant_id: number;
    modification_agent_id: number | null;
    modified_at: Timestamp | null;
    demande_intervention_id: number | null;
    created_at: DefaultTimestamp;
  };
  demande_rule: {
    id: Generated<number>;
    type_action_declenchante_id: number;
    id_constante: number | null;
    type_action_programmee_id: number;
    delai_jours: number;
  };
  schema_migration: { id: number; name: string; applied_at: DefaultTimestamp };
  /** Login and signup attempt counters (migration 006), shared by every server process. */
  login_attempt: { kind: string; key: string; window_start: Timestamp; count: number };
  /** Interventions per site and action, 0 for the site's total (migration 008, kept by triggers). */
  intervention_count: { site_id: number; type_action_id: number; n: number };
  /** Requests per site, status and programmed action (0: all), kept by triggers (migration 021). */
  demande_intervention_count: { statut_id: number; type_action_programmee_id: number; site_id: number; n: number };
  /** Every correction and deletion of an intervention (migration 008); nothing deletes it. */
  intervention_audit: {
    id: Generated<number>;
    intervention_id: number;
    action: 'update' | 'delete';
    agent_id: number | null;
    agent_nom: string;
    at: DefaultTimestamp;
    /** JSON text on insert; an object when read. */
    before: ColumnType<unknown, string, string>;
    after: ColumnType<unknown, string | null, string | null>;
  };
  /** Monthly statistics per Paris month, site, intervenant and action (migration 009, kept by triggers). */
  intervention_stats_mois: StatsLevel & { site_id: number; intervenant_id: number };
  /** The whole network in 16 stripes (bande = site_id % 16). */
  intervention_stats_mois_reseau: StatsLevel & { bande: number };
  /** Interventions per site and Paris month, all actions (migration 012, kept by the same triggers). */
  intervention_stats_site_mois: { mois: Date; site_id: number; nb: number; quantite: number };
  /** A day's route in the order its user chose by hand (migration 030): request ids, Paris day. */
  tournee_ordre: { account_id: number; jour: ColumnType<string, string, string>; demandes: number[]; updated_at: DefaultTimestamp };
}

interface StatsLevel {
  type_action_id: number;
  /** First day of the Europe/Paris month. */
  mois: Date | string;
  nb: number;
  /** Sum of valeur_nombre (litres for the litre actions). */
  quantite: number;
}
