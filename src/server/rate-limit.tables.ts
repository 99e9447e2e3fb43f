// Kysely type of the attempt counters of migration 006 (the lead folds it into db/schema.ts).
import type { ColumnType } from 'kysely';

export interface LoginAttemptTable {
  kind: string;
  key: string;
  window_start: ColumnType<Date, Date | string, Date | string>;
  count: number;
}

declare module './db/schema.js' {
  interface Database {
    login_attempt: LoginAttemptTable;
  }
}
