// BACKUP_AT, BACKUP_DIR and BACKUP_KEEP, parsed at start with the rest of the configuration
// (a bad value stops the start with a French message naming it). Imports nothing heavy:
// config.ts calls it.
import fs from 'node:fs';
import path from 'node:path';
import { ConfigError } from '../../config-error.js';

/** Beside the embedded database's files (DATA_DIR). */
export const CONTROL_SOCKET_NAME = 'sauvegarde.sock';

export interface BackupConfig {
  /** 'HH:MM' Paris time, or 'off'. */
  at: string;
  dir: string;
  keep: number;
  /**
   * On the embedded database only: the Unix socket in DATA_DIR where the running server makes a
   * backup for `npm run backup` (backup.control.ts), which cannot open the locked database itself.
   */
  controlSocket?: string;
}

/** BACKUP_AT, BACKUP_DIR, BACKUP_KEEP (blank means default); every bad value named at once. */
export function parseBackupConfig(env: NodeJS.ProcessEnv, dataDir: string): BackupConfig {
  const get = (name: string) => env[name]?.trim() || undefined;
  const errors: string[] = [];
  const at = get('BACKUP_AT') ?? '03:15';
  if (!/^(off|([01]\d|2[0-3]):[0-5]\d)$/.test(at)) errors.push('BACKUP_AT: BACKUP_AT doit être une heure HH:MM (heure de Paris, ex. 03:15) ou off');
  const keepText = get('BACKUP_KEEP') ?? '14';
  const keep = Number(keepText);
  if (!/^\d{1,4}$/.test(keepText) || keep < 1) errors.push('BACKUP_KEEP: BACKUP_KEEP doit être un nombre de sauvegardes à garder, entre 1 et 9999');
  const dir = path.resolve(get('BACKUP_DIR') ?? path.join(dataDir, 'backups'));
  if (fs.existsSync(dir) && !fs.statSync(dir).isDirectory()) errors.push(`BACKUP_DIR: BACKUP_DIR doit être un dossier (${dir} est un fichier)`);
  if (errors.length) throw new ConfigError(`Configuration invalide :\n${errors.map((e) => `  ${e}`).join('\n')}`);
  const controlSocket = get('DATABASE_URL') ? undefined : path.join(path.resolve(dataDir), CONTROL_SOCKET_NAME);
  return { at, dir, keep, ...(controlSocket ? { controlSocket } : {}) };
}

