// The backup's alarm: a failed scheduled backup (here, a backup folder that cannot be made) or
// none for two days is said in the status and mailed to the active administrators, once a day.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TEST_DRIVERS, createAccount, openTestDatabase } from '../../../../tests/helpers/test-app.js';
import { createMemoryMailer } from '../../mailer.js';
import type { DatabaseHandle } from '../../db/client.js';
import { BACKUP_OVERDUE_MS, backupAlarmText, backupOverdue, createBackupAlarm } from './backup.alarm.js';
import { backupFileName, createBackupJob, startBackupScheduler } from './backup.service.js';

const DAILY = { at: '03:15', dir: '/unused', keep: 14 };

describe('when the backups are overdue', () => {
  const now = new Date('2026-11-28T10:00:00Z');
  const started = new Date(now.getTime() - 3600_000);
  const hoursAgo = (h: number) => new Date(now.getTime() - h * 3600_000).toISOString();

  it('is a failed attempt, or no backup for two days while the daily backup is on', () => {
    expect(backupOverdue({ derniere: hoursAgo(1), erreur: 'ENOSPC' }, DAILY, now, started)).toBe(true);
    expect(backupOverdue({ derniere: hoursAgo(47), erreur: null }, DAILY, now, started)).toBe(false);
    expect(backupOverdue({ derniere: hoursAgo(49), erreur: null }, DAILY, now, started)).toBe(true);
    expect(backupOverdue({ derniere: hoursAgo(49), erreur: null }, { ...DAILY, at: 'off' }, now, started)).toBe(false);
    // None yet: counted from the start of the server, not from 1970.
    expect(backupOverdue({ derniere: null, erreur: null }, DAILY, now, started)).toBe(false);
    expect(backupOverdue({ derniere: null, erreur: null }, DAILY, now, new Date(now.getTime() - BACKUP_OVERDUE_MS - 1))).toBe(true);
  });

  it('tells the administrator what failed, since when, and what to do', () => {
    const { subject, text } = backupAlarmText({ derniere: '2026-11-25T02:15:00Z', erreur: 'ENOSPC: no space left on device' }, 'Compost Brest');
    expect(subject).toBe('Compost Brest : sauvegarde en échec');
    expect(text).toContain('La dernière tentative a échoué : ENOSPC: no space left on device');
    expect(text).toContain('La dernière sauvegarde réussie date du 25/11/2026 03:15.');
    expect(text).toContain('Sauvegarder maintenant');
    expect(backupAlarmText({ derniere: null, erreur: null }, 'Compost').text).toContain('Aucune sauvegarde n’a encore réussi.');
  });
});

describe.each(TEST_DRIVERS)('the daily backup alarm (%s)', (driver) => {
  let h: DatabaseHandle;
  let tmp: string;
  let admins: { email: string }[];
  let others: { email: string }[];

  beforeAll(async () => {
    h = await openTestDatabase(driver);
    tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'compost-backup-alarm-'));
    admins = [await createAccount(h.db, { roles: ['ROLE_ADMIN'] }), await createAccount(h.db, { roles: ['ROLE_ADMIN', 'ROLE_ADMIN_SITE'] })];
    others = [
      await createAccount(h.db, { roles: ['ROLE_ADMIN'], actif: false }),
      await createAccount(h.db, { roles: ['ROLE_ADMIN_SITE'] }),
      await createAccount(h.db, { roles: ['ROLE_USER'] }),
    ];
  }, 120_000);
  afterAll(async () => {
    await h?.close();
    fs.rmSync(tmp, { recursive: true, force: true });
  });

  it('mails the active administrators once when the scheduled backup fails, and leaves no file', async () => {
    // The backup folder lies under a plain file: it cannot be made.
    const blocker = path.join(tmp, 'pas-un-dossier');
    fs.writeFileSync(blocker, '');
    const config = { at: '03:15', dir: path.join(blocker, 'sauvegardes'), keep: 14 };
    const mailer = createMemoryMailer();
    const job = createBackupJob({ db: h.db, config });
    const alarm = createBackupAlarm({ db: h.db, mailer, appName: 'Compost test' });
    let checks = 0;
    const afterRun = async () => {
      checks++;
      const status = job.status();
      return alarm.warn(status, status.enRetard, new Date());
    };
    const scheduler = startBackupScheduler(job, config.at, { afterRun });
    await expect.poll(() => checks, { timeout: 30_000 }).toBe(1);
    await scheduler.stop();

    const status = job.status();
    expect(status.erreur).toMatch(/ENOTDIR|EEXIST/);
    expect(status.enRetard).toBe(true);
    expect(status.derniere).toBeNull();
    expect(mailer.sent.map((m) => m.to).sort()).toEqual(admins.map((a) => a.email).sort());
    for (const other of others) expect(mailer.sent.map((m) => m.to)).not.toContain(other.email);
    expect(mailer.sent[0].subject).toBe('Compost test : sauvegarde en échec');
    expect(mailer.sent[0].text).toContain('La dernière tentative a échoué');

    // The next check the same day mails nobody again.
    expect(await afterRun()).toBe(0);
    expect(mailer.sent).toHaveLength(admins.length);
    expect(fs.readdirSync(tmp)).toEqual(['pas-un-dossier']);
  });

  it('says nothing while the newest backup is recent, and warns once it is two days old', async () => {
    const dir = fs.mkdtempSync(path.join(tmp, 'ok-'));
    const mailer = createMemoryMailer();
    const alarm = createBackupAlarm({ db: h.db, mailer, appName: 'Compost test' });
    let now = new Date();
    const job = createBackupJob({ db: h.db, config: { at: '03:15', dir, keep: 14 }, now: () => now });
    const made = await job.run();
    expect(made.status).toBe('done');
    let status = job.status();
    expect(status).toMatchObject({ erreur: null, enRetard: false });
    expect(await alarm.warn(status, status.enRetard, now)).toBe(0);

    // Two days and a minute later, with no backup since (the server was down, or the job stuck).
    now = new Date(Date.parse(status.derniere!) + BACKUP_OVERDUE_MS + 60_000);
    status = job.status();
    expect(status.enRetard).toBe(true);
    expect(await alarm.warn(status, status.enRetard, now)).toBe(admins.length);
    expect(mailer.sent[0].text).toContain('Aucune sauvegarde n’a été faite depuis plus de deux jours.');
    expect(backupFileName(new Date(status.derniere!))).toMatch(/^compost-\d{8}-\d{6}\.sql\.gz$/);
  });
});
