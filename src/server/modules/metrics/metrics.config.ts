// METRICS_TOKEN, parsed at start with the rest of the configuration (config.ts calls it).
import { ConfigError } from '../../config-error.js';

export interface MetricsConfig {
  /** METRICS_TOKEN; absent: /api/metrics answers 404. */
  token?: string;
}

export const METRICS_TOKEN_MESSAGE = 'METRICS_TOKEN doit faire au moins 16 caractères, sans espace (ex. la sortie de openssl rand -hex 32)';

/** METRICS_TOKEN (blank means absent). */
export function parseMetricsConfig(env: NodeJS.ProcessEnv): MetricsConfig {
  const token = env.METRICS_TOKEN?.trim() || undefined;
  if (token !== undefined && !/^[\x21-\x7e]{16,512}$/.test(token)) throw new ConfigError(`Configuration invalide :\n  METRICS_TOKEN: ${METRICS_TOKEN_MESSAGE}`);
  return { token };
}

