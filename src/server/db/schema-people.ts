// Kysely table types of the people around a site (migration 031): permanences, their series,
// openers and tallies; households, what remains of those who left, and the news sent to them.
// schema.ts extends Database with them.
import type { ColumnType, Generated } from 'kysely';

type DefaultTimestamp = ColumnType<Date, Date | string | undefined, Date | string>;
type Timestamp = ColumnType<Date, Date | string, Date | string>;
/** numeric columns come back as numbers (both drivers are set so: db/pglite-engine.ts, db/postgres-connection.ts). */
type Numeric = ColumnType<number, number | string, number | string>;

export type PermanenceFrequence = 'hebdomadaire' | 'bimensuelle' | 'mensuelle';
export type FoyerStatut = 'en_attente' | 'confirme' | 'refuse';

export interface PeopleTables {
  permanence_serie: {
    id: Generated<number>;
    site_id: number;
    frequence: PermanenceFrequence;
    /** Last day (Paris) an occurrence may fall on; a date column: select it as text (::text). */
    jusqua: ColumnType<string, string, string>;
    created_by: number | null;
    created_at: DefaultTimestamp;
  };
  permanence: {
    id: Generated<number>;
    site_id: number;
    serie_id: number | null;
    debut: Timestamp;
    fin: Timestamp;
    titre: string | null;
    message: string | null;
    /** Recorded afterwards: an opening that was not scheduled. */
    apres_coup: Generated<boolean>;
    created_by: number | null;
    created_at: DefaultTimestamp;
    annulee_le: Timestamp | null;
    annulee_par: number | null;
    motif_annulation: string | null;
    bilan_foyers: number | null;
    bilan_seaux: number | null;
    bilan_kg: Numeric | null;
    bilan_kg_estime: boolean | null;
    bilan_temperature: Numeric | null;
    bilan_client_id: string | null;
    bilan_par: number | null;
    bilan_le: Timestamp | null;
  };
  permanence_ouvreur: {
    permanence_id: number;
    account_id: number;
    created_at: DefaultTimestamp;
    rappel_envoye_le: Timestamp | null;
  };
  foyer: {
    id: Generated<number>;
    site_id: number;
    prenom: string | null;
    email: string | null;
    personnes: number;
    bioseau: boolean;
    statut: Generated<FoyerStatut>;
    created_at: DefaultTimestamp;
    traite_le: Timestamp | null;
    traite_par: number | null;
    /** Receives the site's news (false after the one-click unsubscribe). */
    nouvelles: Generated<boolean>;
  };
  foyer_depart: {
    id: Generated<number>;
    site_id: number;
    personnes: number;
    confirme_le: Timestamp;
    parti_le: Timestamp;
  };
  foyer_nouvelle: {
    id: Generated<number>;
    site_id: number;
    /** Paris day it was sent: one a day per site. */
    jour: ColumnType<string, string, string>;
    sujet: string;
    texte: string;
    envoye_par: number | null;
    envoye_le: DefaultTimestamp;
    destinataires: number;
  };
}
