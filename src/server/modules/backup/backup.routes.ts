// GET /api/admin/sauvegarde/status and POST /api/admin/sauvegarde/run (ROLE_ADMIN), and the
// daily backup of this process (BACKUP_AT), started with the app and stopped with it.
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import type { AppDeps } from '../../deps.js';
import { errorBodySchema } from '../../../shared/errors.js';
import { BACKUP_MESSAGES, backupRunResultSchema, backupStatusSchema } from '../../../shared/schemas/backup.js';
import { ConflictError, HttpError } from '../../errors.js';
import { BACKUP_LOCK, createBackupJob, startBackupScheduler, type BackupConfig } from './backup.service.js';
import { createBackupAlarm } from './backup.alarm.js';
import { writeBackup } from './backup.dump.js';
import { controlAnswer, controlSocketUsable, startBackupControl } from './backup.control.js';

export type BackupDeps = AppDeps & { config: AppDeps['config'] & { backup?: BackupConfig } };

const size = new Intl.NumberFormat('fr-FR', { maximumFractionDigits: 1 });
export const formatSize = (bytes: number) => (bytes < 1024 * 1024 ? `${size.format(bytes / 1024)} Ko` : `${size.format(bytes / 1024 / 1024)} Mo`);

export default async function backupRoutes(fastify: FastifyInstance, deps: BackupDeps) {
  const app = fastify.withTypeProvider<ZodTypeProvider>();
  const config = deps.config.backup;
  const job = config ? createBackupJob({ db: deps.db, config, log: fastify.log }) : null;
  const admin = app.guard('backup.manage');

  if (job && config && config.at !== 'off') {
    let scheduler: ReturnType<typeof startBackupScheduler> | null = null;
    const alarm = createBackupAlarm({ db: deps.db, mailer: deps.mailer, appName: deps.config.APP_NAME, log: fastify.log });
    fastify.addHook('onReady', async () => {
      scheduler = startBackupScheduler(job, config.at, {
        afterRun: () => {
          const status = job.status();
          return alarm.warn(status, status.enRetard, new Date());
        },
      });
    });
    fastify.addHook('onClose', async () => scheduler?.stop());
  }

  // `npm run backup` beside a server that holds the embedded database: it asks this process.
  const socketPath = config?.controlSocket;
  if (job && socketPath) {
    let control: Awaited<ReturnType<typeof startBackupControl>> | null = null;
    fastify.addHook('onReady', async () => {
      if (!controlSocketUsable(socketPath)) {
        fastify.log.warn(`Chemin trop long pour ${socketPath} : npm run backup ne pourra pas demander la sauvegarde au serveur (raccourcissez DATA_DIR).`);
        return;
      }
      control = await startBackupControl(socketPath, async (file) => {
        if (file) {
          const result = await writeBackup(deps.db, file, { lock: BACKUP_LOCK });
          return result ? controlAnswer(result) : { ok: false, message: BACKUP_MESSAGES.busy };
        }
        const outcome = await job.run();
        return outcome.status === 'done' ? controlAnswer(outcome.result) : { ok: false, message: BACKUP_MESSAGES.busy };
      });
    });
    fastify.addHook('onClose', async () => control?.close());
  }

  app.get('/admin/sauvegarde/status', { onRequest: admin, schema: { response: { 200: backupStatusSchema } } }, () =>
    job ? job.status() : { derniere: null, fichier: null, taille: null, erreur: null, enRetard: false },
  );

  app.post('/admin/sauvegarde/run', { onRequest: admin, schema: { response: { 200: backupRunResultSchema, 409: errorBodySchema } } }, async () => {
    if (!job) throw new ConflictError(BACKUP_MESSAGES.notConfigured);
    let outcome;
    try {
      outcome = await job.run();
    } catch (e) {
      throw new HttpError(500, `La sauvegarde a échoué : ${(e as Error).message}`);
    }
    if (outcome.status !== 'done') throw new ConflictError(BACKUP_MESSAGES.busy);
    const { path, size: taille, sha256 } = outcome.result;
    return { status: 'success' as const, message: `Sauvegarde écrite : ${path} (${formatSize(taille)})`, fichier: path, taille, sha256 };
  });
}
