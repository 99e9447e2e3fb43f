// Kysely table types of the alerts tables, mirroring their migration (016-alerts.ts); schema.ts
// extends Database with them.
import type { ColumnType, Generated } from 'kysely';
import type { AlertKind } from '../../shared/schemas/alerts.js';

type Timestamp = ColumnType<Date, Date | string, Date | string>;
type DefaultTimestamp = ColumnType<Date, Date | string | undefined, Date | string>;

export interface AlertsTables {
  /** The thresholds: a single row, id 1. */
  alerte_seuils: {
    id: number;
    temperature_min: number;
    temperature_max: number;
    jours_sans_releve: number;
    jours_sans_intervention: number;
    pourcentage_apport: number;
    limite_hebdo_kg: number;
    densite_kg_par_litre: number;
    /** numeric (migration 031): read it as a number (`::float8` or Number()). */
    kg_par_seau: ColumnType<number, number | string | undefined, number | string>;
    created_at: DefaultTimestamp;
    updated_at: Timestamp | null;
    updated_by: number | null;
  };
  alerte: {
    id: Generated<number>;
    kind: AlertKind;
    /** The request, cell or site the alert is about, depending on its kind. */
    objet_id: number;
    site_id: number;
    site_composteur_id: number | null;
    demande_id: number | null;
    message: string;
    opened_at: Timestamp;
    closed_at: Timestamp | null;
    acknowledged_at: Timestamp | null;
    acknowledged_by: number | null;
  };
  alerte_run: {
    id: Generated<number>;
    trigger: 'schedule' | 'manual' | 'cli';
    started_at: Timestamp;
    finished_at: Timestamp | null;
    ouvertes: Generated<number>;
    fermees: Generated<number>;
    mails: Generated<number>;
  };
  /** One digest per person and Paris day ('YYYY-MM-DD'). */
  alerte_digest: { account_id: number; jour: string; last_alerte_id: number; nb: number; sent_at: Timestamp };
  /** Kinds a person does not want by e-mail. */
  alerte_preference: { account_id: number; kind: AlertKind };
}
