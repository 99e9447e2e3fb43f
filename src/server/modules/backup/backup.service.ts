// The daily backup inside the server (BACKUP_AT, Paris time; BACKUP_DIR; BACKUP_KEEP): files
// named by their UTC time in BACKUP_DIR, the oldest beyond BACKUP_KEEP removed, and the status
// read from that directory (so it survives restarts). With several processes on one
// PostgreSQL, the backup holds an advisory lock: one process writes each day's.
import fs from 'node:fs';
import path from 'node:path';
import type { FastifyBaseLogger } from 'fastify';
import type { Db } from '../../db/client.js';
import { lastSlot, nextSlot } from '../alerts/public.js';
import { writeBackup, type BackupResult } from './backup.dump.js';
import type { BackupConfig } from './backup.config.js';
import { backupOverdue } from './backup.alarm.js';

export type { BackupConfig } from './backup.config.js';

/** Advisory lock of the backup job (next to migrate's 99111109 and the alerts' 99111110). */
export const BACKUP_LOCK = 99111111;
const NAME = /^compost-(\d{4})(\d{2})(\d{2})-(\d{2})(\d{2})(\d{2})\.(sql|jsonl)\.gz$/;
const STALE_TEMP_MS = 24 * 3600_000;

export interface BackupStatus {
  derniere: string | null;
  fichier: string | null;
  taille: number | null;
  erreur: string | null;
  /** The last attempt failed, or (daily backup on) none for two days: someone must look. */
  enRetard: boolean;
}

/** The file name of a backup made at `time`. */
export function backupFileName(time: Date): string {
  return `compost-${time.toISOString().replace(/[-:]/g, '').replace('T', '-').slice(0, 15)}.sql.gz`;
}

/** The backups of a directory, newest first, with the time their name gives. */
export function listBackups(dir: string): { name: string; time: Date; size: number }[] {
  let names: string[];
  try {
    names = fs.readdirSync(dir);
  } catch {
    return [];
  }
  const out: { name: string; time: Date; size: number }[] = [];
  for (const name of names) {
    const m = NAME.exec(name);
    if (!m) continue;
    const [y, mo, d, h, mi, s] = m.slice(1).map(Number);
    try {
      out.push({ name, time: new Date(Date.UTC(y, mo - 1, d, h, mi, s)), size: fs.statSync(path.join(dir, name)).size });
    } catch {
      /* removed meanwhile */
    }
  }
  return out.sort((a, b) => b.time.getTime() - a.time.getTime() || b.name.localeCompare(a.name));
}

export type BackupOutcome = { status: 'done'; result: BackupResult } | { status: 'busy' } | { status: 'skipped' };

export function createBackupJob(deps: { db: Db; config: BackupConfig; log?: Pick<FastifyBaseLogger, 'info' | 'error'>; now?: () => Date }) {
  const clock = deps.now ?? (() => new Date());
  const since = clock();
  let lastError: { at: Date; message: string } | null = null;
  let running: Promise<BackupOutcome> | null = null;

  /** Keeps the newest `keep` backups; removes temporary files a crash left behind. */
  function prune() {
    for (const old of listBackups(deps.config.dir).slice(deps.config.keep)) fs.rmSync(path.join(deps.config.dir, old.name), { force: true });
    for (const name of fs.readdirSync(deps.config.dir)) {
      const file = path.join(deps.config.dir, name);
      if (name.startsWith('compost-') && name.endsWith('.tmp') && Date.now() - fs.statSync(file).mtimeMs > STALE_TEMP_MS) fs.rmSync(file, { force: true });
    }
  }

  async function runOnce(slot?: Date): Promise<BackupOutcome> {
    const newest = listBackups(deps.config.dir)[0];
    // A scheduled backup already made (by this process or another sharing the directory).
    if (slot && newest && newest.time.getTime() >= slot.getTime()) return { status: 'skipped' };
    const started = clock();
    try {
      const result = await writeBackup(deps.db, path.join(deps.config.dir, backupFileName(started)), { lock: BACKUP_LOCK });
      if (!result) return { status: 'busy' };
      lastError = null;
      prune();
      deps.log?.info({ fichier: result.path, taille: result.size, sha256: result.sha256 }, 'Sauvegarde écrite');
      return { status: 'done', result };
    } catch (e) {
      lastError = { at: started, message: (e as Error).message };
      deps.log?.error({ err: e }, 'Sauvegarde en échec');
      throw e;
    }
  }

  return {
    /** One backup now (one at a time in this process); with `slot`, none if one was made since. */
    run(slot?: Date): Promise<BackupOutcome> {
      running ??= runOnce(slot).finally(() => (running = null));
      return running;
    },
    status(): BackupStatus {
      const newest = listBackups(deps.config.dir)[0];
      const derniere = newest ? newest.time.toISOString() : null;
      // A failure older than the last backup is over.
      const erreur = lastError && (!newest || lastError.at.getTime() > newest.time.getTime()) ? lastError.message : null;
      return {
        derniere,
        fichier: newest ? path.join(deps.config.dir, newest.name) : null,
        taille: newest ? newest.size : null,
        erreur,
        enRetard: backupOverdue({ derniere, erreur }, deps.config, clock(), since),
      };
    },
  };
}

export type BackupJob = ReturnType<typeof createBackupJob>;

/**
 * Runs the backup at every BACKUP_AT, and at once when the last one was missed (server down).
 * `afterRun` follows each scheduled run, made, skipped or failed (the alarm's check).
 */
export function startBackupScheduler(job: BackupJob, at: string, opts: { now?: () => Date; afterRun?: () => Promise<unknown> } = {}) {
  const clock = opts.now ?? (() => new Date());
  let timer: NodeJS.Timeout | null = null;
  let stopped = false;
  let current: Promise<unknown> = Promise.resolve();
  const runDue = () =>
    (current = job
      .run(lastSlot(at, clock()))
      .catch(() => undefined)
      .then(() => opts.afterRun?.())
      .catch(() => undefined));
  const plan = () => {
    if (stopped) return;
    timer = setTimeout(() => void runDue().then(plan), Math.max(0, nextSlot(at, clock()).getTime() - clock().getTime()));
    timer.unref();
  };
  void runDue().then(plan);
  return {
    async stop() {
      stopped = true;
      if (timer) clearTimeout(timer);
      await current;
    },
  };
}
