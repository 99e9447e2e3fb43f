// Kysely table types of the public-sites tables, mirroring their migrations (018, 026); schema.ts
// extends Database with them. The site table's own new columns are declared in schema.ts.
import type { ColumnType, Generated } from 'kysely';

type DefaultTimestamp = ColumnType<Date, Date | string | undefined, Date | string>;
type Timestamp = ColumnType<Date, Date | string, Date | string>;

export type SignalementCategorie = 'bac_plein' | 'odeur' | 'nuisibles' | 'degradation' | 'autre';
export type SignalementStatut = 'nouveau' | 'transforme' | 'classe';

export interface PublicSitesTables {
  /** A point of the imported Base Adresse Nationale files, keyed as streets-import.ts normalises. */
  adresse_point: {
    code_insee: string;
    voie_cle: string;
    numero_cle: string;
    longitude: number;
    latitude: number;
  };
  /** An anonymous report sent from a site's public page. */
  signalement_public: {
    id: Generated<number>;
    site_id: number;
    categorie: SignalementCategorie;
    texte: string;
    reponse_demandee: boolean;
    created_at: DefaultTimestamp;
    statut: Generated<SignalementStatut>;
    traite_le: Timestamp | null;
    traite_par_id: number | null;
    motif: string | null;
    demande_intervention_id: number | null;
    /** How many times this text was sent (identical reports, and reports merged into it). */
    occurrences: Generated<number>;
    /** Shown on the board from this time on: a site flooded past its daily cap waits its turn. */
    visible_le: DefaultTimestamp;
    fusionne_dans_id: number | null;
  };
  /** Reporters' addresses, only to answer them; deleted when the report is handled (026). */
  signalement_public_contact: {
    signalement_id: number;
    email: string;
  };
}
