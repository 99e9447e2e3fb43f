// The backups screen's answers (GET /api/admin/sauvegarde/status, POST /api/admin/sauvegarde/run).
import { z } from 'zod';

export const BACKUP_MESSAGES = {
  busy: 'Une sauvegarde est déjà en cours.',
  notConfigured: 'Les sauvegardes ne sont pas configurées sur ce serveur.',
} as const;

export const backupStatusSchema = z.object({
  /** ISO 8601 time of the newest backup in BACKUP_DIR; null: none yet. */
  derniere: z.string().nullable(),
  /** Its path on the server. */
  fichier: z.string().nullable(),
  /** Its size in bytes. */
  taille: z.number().nullable(),
  /** Why the last attempt failed, when it failed after the newest backup; else null. */
  erreur: z.string().nullable(),
  /** The last attempt failed, or (daily backup on) no backup for two days: administrators are mailed. */
  enRetard: z.boolean(),
});
export type BackupStatusBody = z.infer<typeof backupStatusSchema>;

export const backupRunResultSchema = z.object({
  status: z.literal('success'),
  message: z.string(),
  fichier: z.string(),
  taille: z.number(),
  /** SHA-256 of the file, as `sha256sum` prints it. */
  sha256: z.string(),
});
