// The backup routes (status, run now), the daily job's rotation and catch-up, and /api/metrics:
// through the real app, as main.ts builds it (config.backup and config.metrics).
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TEST_DRIVERS, createTestApp, loggedAs } from '../../../../tests/helpers/test-app.js';
import type { AppConfig } from '../../app.js';
import { createEquippedSite } from '../field-entry/test-factories.js';
import { readBackup } from './backup.format.js';
import { createBackupJob, listBackups, startBackupScheduler } from './backup.service.js';
import { parseBackupConfig } from './backup.config.js';
import { parseMetricsConfig } from '../metrics/metrics.config.js';

type Ctx = Awaited<ReturnType<typeof createTestApp>>;
const TOKEN = 'jeton-de-test-0123456789abcdef';

describe('backup and metrics configuration', () => {
  it('reads BACKUP_AT, BACKUP_DIR, BACKUP_KEEP with their defaults, and names every bad value', () => {
    // On the embedded database, the socket where the running server makes backups for the command.
    expect(parseBackupConfig({}, '/srv/data')).toEqual({ at: '03:15', dir: '/srv/data/backups', keep: 14, controlSocket: '/srv/data/sauvegarde.sock' });
    expect(parseBackupConfig({ BACKUP_AT: 'off', BACKUP_DIR: '/mnt/b', BACKUP_KEEP: '3', DATABASE_URL: 'postgres://h/db' }, '/srv/data')).toEqual({ at: 'off', dir: '/mnt/b', keep: 3 });
    expect(() => parseBackupConfig({ BACKUP_AT: '25:00', BACKUP_KEEP: '0' }, '/srv/data')).toThrow(/BACKUP_AT doit être une heure[\s\S]*BACKUP_KEEP doit être/);
    expect(parseMetricsConfig({})).toEqual({ token: undefined });
    expect(() => parseMetricsConfig({ METRICS_TOKEN: 'court' })).toThrow(/METRICS_TOKEN doit faire au moins 16 caractères/);
  });
});

describe.each(TEST_DRIVERS)('backup routes and metrics (%s)', (driver) => {
  let ctx: Ctx;
  let bare: Ctx;
  let dir: string;

  beforeAll(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'compost-backup-routes-'));
    const extra = { backup: { at: 'off', dir, keep: 2 }, metrics: { token: TOKEN } } as Partial<AppConfig>;
    ctx = await createTestApp(driver, extra);
    bare = await createTestApp('pglite');
  }, 180_000);
  afterAll(async () => {
    await ctx?.close();
    await bare?.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('lets only ROLE_ADMIN see the status and make a backup now', async () => {
    const admin = await loggedAs(ctx, ['ROLE_ADMIN']);
    const siteAdmin = await loggedAs(ctx, ['ROLE_ADMIN_SITE']);
    expect((await ctx.app.inject({ method: 'GET', url: '/api/admin/sauvegarde/status' })).statusCode).toBe(401);
    expect((await ctx.app.inject({ method: 'GET', url: '/api/admin/sauvegarde/status', headers: { cookie: siteAdmin.cookie } })).statusCode).toBe(403);
    expect((await ctx.app.inject({ method: 'POST', url: '/api/admin/sauvegarde/run', headers: { cookie: siteAdmin.cookie } })).statusCode).toBe(403);

    const empty = await ctx.app.inject({ method: 'GET', url: '/api/admin/sauvegarde/status', headers: { cookie: admin.cookie } });
    expect(empty.json()).toEqual({ derniere: null, fichier: null, taille: null, erreur: null, enRetard: false });

    const run = await ctx.app.inject({ method: 'POST', url: '/api/admin/sauvegarde/run', headers: { cookie: admin.cookie } });
    expect(run.statusCode, run.body).toBe(200);
    const body = run.json();
    expect(body.fichier.startsWith(dir)).toBe(true);
    expect(body.taille).toBe(fs.statSync(body.fichier).size);
    expect(body.sha256).toBe(crypto.createHash('sha256').update(fs.readFileSync(body.fichier)).digest('hex'));
    expect(body.message).toMatch(/^Sauvegarde écrite : /);
    const header = await readBackup(body.fichier);
    expect(header.tables.find((t) => t.name === 'account')!.rows).toBe(2);
    // No temporary file is left beside it.
    expect(fs.readdirSync(dir)).toEqual([path.basename(body.fichier)]);

    const status = (await ctx.app.inject({ method: 'GET', url: '/api/admin/sauvegarde/status', headers: { cookie: admin.cookie } })).json();
    expect(status).toEqual({ derniere: expect.any(String), fichier: body.fichier, taille: body.taille, erreur: null, enRetard: false });
  }, 120_000);

  it('says why a backup failed, and leaves no file behind', async () => {
    const file = path.join(dir, 'not-a-dir');
    fs.writeFileSync(file, '');
    const job = createBackupJob({ db: ctx.db, config: { at: 'off', dir: path.join(file, 'sub'), keep: 2 } });
    await expect(job.run()).rejects.toThrow();
    expect(job.status()).toEqual({ derniere: null, fichier: null, taille: null, erreur: expect.stringMatching(/ENOTDIR|not a directory/), enRetard: true });
    fs.rmSync(file);
  });

  it('keeps BACKUP_KEEP backups, and catches up a missed daily backup at start', async () => {
    const own = fs.mkdtempSync(path.join(os.tmpdir(), 'compost-backup-keep-'));
    try {
      // A backup of the first format (JSON lines), made before the SQL one, counts and rotates too.
      fs.writeFileSync(path.join(own, 'compost-20291231-100000.jsonl.gz'), 'x');
      expect(listBackups(own).map((b) => b.name)).toEqual(['compost-20291231-100000.jsonl.gz']);
      let now = new Date('2030-01-01T10:00:00Z');
      const job = createBackupJob({ db: ctx.db, config: { at: '03:15', dir: own, keep: 2 }, now: () => now });
      for (const t of ['2030-01-01T10:00:00Z', '2030-01-02T10:00:00Z', '2030-01-03T10:00:00Z']) {
        now = new Date(t);
        expect((await job.run()).status).toBe('done');
      }
      expect(listBackups(own).map((b) => b.name)).toEqual(['compost-20300103-100000.sql.gz', 'compost-20300102-100000.sql.gz']);
      // The 03:15 backup of the 3rd is done already (10:00): a start that day makes none.
      expect((await job.run(new Date('2030-01-03T02:15:00Z'))).status).toBe('skipped');
      // The next day, the server was down at 03:15: it makes one at start.
      now = new Date('2030-01-04T09:00:00Z');
      const scheduler = startBackupScheduler(job, '03:15', { now: () => now });
      await scheduler.stop();
      expect(listBackups(own)[0].name).toBe('compost-20300104-090000.sql.gz');
    } finally {
      fs.rmSync(own, { recursive: true, force: true });
    }
  }, 120_000);

  it('answers /api/metrics only with the token: 404 without METRICS_TOKEN, 401 with a wrong one', async () => {
    expect((await bare.app.inject({ method: 'GET', url: '/api/metrics', headers: { authorization: `Bearer ${TOKEN}` } })).statusCode).toBe(404);
    for (const authorization of [undefined, 'Bearer mauvais-jeton-0123456789', TOKEN, `Basic ${TOKEN}`]) {
      const res = await ctx.app.inject({ method: 'GET', url: '/api/metrics', headers: authorization ? { authorization } : {} });
      expect(res.statusCode).toBe(401);
      expect(res.json()).toEqual({ status: 'error', message: 'Jeton des métriques absent ou invalide.' });
    }
  });

  it('counts requests, field entries received, deduplicated and refused, and the last backup', async () => {
    const admin = await loggedAs(ctx, ['ROLE_ADMIN']);
    const site = await createEquippedSite(ctx.db);
    const entry = { clientId: crypto.randomUUID(), site: site.id, date: new Date(Date.now() - 3600_000).toISOString(), values: [{ composteur: site.apport, action: 1 }] };
    const post = (payload: object) => ctx.app.inject({ method: 'POST', url: '/api/admin/intervention/add', headers: { cookie: admin.cookie }, payload });
    expect((await post(entry)).statusCode).toBe(200);
    expect((await post(entry)).statusCode).toBe(200);
    expect((await post({ ...entry, clientId: crypto.randomUUID() })).statusCode).toBe(200);
    // The same entry sent twice at once (a phone retrying on a flaky network): stored once,
    // the other answer is the replay.
    const twice = { ...entry, clientId: crypto.randomUUID() };
    expect((await Promise.all([post(twice), post(twice)])).map((r) => r.statusCode)).toEqual([200, 200]);
    expect((await post({ ...entry, clientId: crypto.randomUUID(), values: [{ composteur: null, action: null }] })).statusCode).toBe(400);
    await ctx.app.inject({ method: 'GET', url: '/api/health' });

    const res = await ctx.app.inject({ method: 'GET', url: '/api/metrics', headers: { authorization: `Bearer ${TOKEN}` } });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toMatch(/^text\/plain; version=0\.0\.4/);
    const text = res.body;
    expect(text).toContain('compost_field_entries_total{result="received"} 3');
    expect(text).toContain('compost_field_entries_total{result="deduplicated"} 2');
    expect(text).toContain('compost_field_entries_total{result="refused"} 1');
    expect(text).toMatch(/compost_http_request_duration_seconds_count\{method="GET",route="\/api\/health",status="200"\} [1-9]/);
    expect(text).toMatch(/compost_http_request_duration_seconds_count\{method="POST",route="\/api\/admin\/intervention\/add",status="400"\} 1/);
    expect(text).toMatch(/compost_process_memory_bytes\{type="rss"\} [1-9]/);
    const newest = listBackups(dir)[0];
    expect(text).toContain(`compost_backup_last_success_timestamp_seconds ${newest.time.getTime() / 1000}`);
    // No alerts run yet: 0, which an alert rule on the age of the last run reports.
    expect(text).toContain('compost_alerts_last_success_timestamp_seconds 0\n');
    const run = await ctx.app.inject({ method: 'POST', url: '/api/admin/alerte/run', headers: { cookie: admin.cookie } });
    expect(run.statusCode).toBe(200);
    const after = (await ctx.app.inject({ method: 'GET', url: '/api/metrics', headers: { authorization: `Bearer ${TOKEN}` } })).body;
    const finished = await ctx.db.selectFrom('alerte_run').select('finished_at').executeTakeFirstOrThrow();
    const value = Number(/^compost_alerts_last_success_timestamp_seconds (\S+)$/m.exec(after)![1]);
    expect(Math.abs(value - finished.finished_at!.getTime() / 1000)).toBeLessThan(0.001);
  }, 120_000);
});
