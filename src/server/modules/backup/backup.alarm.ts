// The backup's alarm: a backup that failed, or none made for two days while the daily backup is
// on, is what an operator must hear about before the day the data is needed. The status says it
// (`enRetard`, shown to administrators on their home screen) and the administrators get a mail,
// at most one a day from this process. Their addresses are read when the mail leaves.
import { sql } from 'kysely';
import type { FastifyBaseLogger } from 'fastify';
import type { Db } from '../../db/client.js';
import type { Mailer } from '../../mailer.js';
import type { BackupConfig } from './backup.config.js';

/** How old the newest backup may be before the daily backup counts as missing. */
export const BACKUP_OVERDUE_MS = 48 * 3600_000;
const MAIL_EVERY_MS = 24 * 3600_000;

const parisDateTime = new Intl.DateTimeFormat('fr-FR', { timeZone: 'Europe/Paris', dateStyle: 'short', timeStyle: 'short' });

/**
 * Whether the backups need someone: the last attempt failed, or (daily backup on) the newest one
 * is over two days old, or there is none two days after this process started.
 */
export function backupOverdue(s: { derniere: string | null; erreur: string | null }, config: BackupConfig, now: Date, since: Date): boolean {
  if (s.erreur) return true;
  if (config.at === 'off') return false;
  const reference = s.derniere ? new Date(s.derniere) : since;
  return now.getTime() - reference.getTime() > BACKUP_OVERDUE_MS;
}

/** The mail's text: what is wrong, since when, and where to look. */
export function backupAlarmText(s: { derniere: string | null; erreur: string | null }, appName: string): { subject: string; text: string } {
  const last = s.derniere ? `La dernière sauvegarde réussie date du ${parisDateTime.format(new Date(s.derniere))}.` : 'Aucune sauvegarde n’a encore réussi.';
  const why = s.erreur ? `La dernière tentative a échoué : ${s.erreur}` : 'Aucune sauvegarde n’a été faite depuis plus de deux jours.';
  return {
    subject: `${appName} : sauvegarde en échec`,
    text: [
      'Bonjour,',
      '',
      why,
      last,
      '',
      'Vérifiez la place libre du dossier des sauvegardes (BACKUP_DIR) et le journal du serveur, puis lancez une sauvegarde depuis l’écran des sites (« Sauvegarder maintenant ») ou avec npm run backup.',
      '',
      'Ce message est envoyé une fois par jour tant que les sauvegardes sont en retard.',
    ].join('\n'),
  };
}

export function createBackupAlarm(deps: { db: Db; mailer: Mailer; appName: string; log?: Pick<FastifyBaseLogger, 'info' | 'error'> }) {
  let lastMail = 0;
  return {
    /** Mails the active administrators when `overdue`, once a day at most; returns how many got it. */
    async warn(status: { derniere: string | null; erreur: string | null }, overdue: boolean, now: Date): Promise<number> {
      if (!overdue || now.getTime() - lastMail < MAIL_EVERY_MS) return 0;
      const admins = await deps.db
        .selectFrom('account as a')
        .select('a.email')
        .where('a.actif', '=', true)
        .where('a.email_valide', '=', true)
        .where(sql<boolean>`EXISTS (SELECT 1 FROM account_role ar JOIN role r ON r.id = ar.role_id WHERE ar.account_id = a.id AND r.code = 'ROLE_ADMIN')`)
        .orderBy('a.id')
        .execute();
      const { subject, text } = backupAlarmText(status, deps.appName);
      let sent = 0;
      for (const { email } of admins) {
        try {
          await deps.mailer.send({ to: email, subject, text });
          sent++;
        } catch (e) {
          deps.log?.error({ err: e }, 'Alerte de sauvegarde non envoyée');
        }
      }
      if (sent > 0) lastMail = now.getTime();
      deps.log?.info({ destinataires: sent }, 'Alerte de sauvegarde envoyée');
      return sent;
    },
  };
}
