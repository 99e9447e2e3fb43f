// What the application is built from: the database, the mailer and the part of the
// configuration the routes read. Route modules take these and never import the app itself.
import type { Db } from './db/client.js';
import type { Mailer } from './mailer.js';
import type { Config } from './config.js';
import type { AuthChangeFeed } from './db/auth-changes.js';
import type { BackupConfig } from './modules/backup/backup.config.js';
import type { MetricsConfig } from './modules/metrics/metrics.config.js';
import type { PoolStats } from './modules/metrics/metrics.plugin.js';

export type AppConfig = Pick<Config, 'APP_NAME' | 'APP_CONTACT' | 'publicUrl' | 'secureCookies' | 'TERRITORY'> &
  Partial<Pick<Config, 'ALERTS_AT' | 'OPEN_DATA_NAME' | 'OPEN_DATA_SIRET' | 'MAP_TILES_URL' | 'MAP_TILES_ATTRIBUTION'>> & {
  /** Directory of the built web app; absent: API only. */
  webDir?: string;
  /** Proxies whose X-Forwarded-For is believed (config.ts); absent: none, the peer's address counts. */
  TRUST_PROXY?: Config['TRUST_PROXY'];
  backup?: BackupConfig;
  metrics?: MetricsConfig;
};

export interface AppDeps {
  db: Db;
  mailer: Mailer;
  config: AppConfig;
  /**
   * The database handle's feed of session, account and role changes. With it, sessions are
   * kept in memory between requests (plugins/auth.ts); without it, read on every request.
   */
  authChanges?: AuthChangeFeed;
  /** The PostgreSQL pool's counts, for the metrics; absent on PGlite. */
  poolStats?: () => PoolStats;
}
