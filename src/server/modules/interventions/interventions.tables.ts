// Kysely types of the tables of migration 008 (the lead folds them into db/schema.ts). The
// columns 008 adds to intervention (type_bac_id, numero_bac) are read through raw SQL only.
import type { ColumnType, Generated } from 'kysely';

export interface InterventionCountTable {
  site_id: number;
  type_action_id: number;
  n: number;
}

export interface InterventionAuditTable {
  id: Generated<number>;
  intervention_id: number;
  action: 'update' | 'delete';
  agent_id: number | null;
  agent_nom: string;
  at: ColumnType<Date, Date | string | undefined, Date | string>;
  /** JSON text on insert; an object when read. */
  before: ColumnType<unknown, string, string>;
  after: ColumnType<unknown, string | null, string | null>;
}

declare module '../../db/schema.js' {
  interface Database {
    intervention_count: InterventionCountTable;
    intervention_audit: InterventionAuditTable;
  }
}
