// `npm run backup` and `npm run restore` as an operator runs them, on embedded databases in
// DATA_DIR: a backup to a chosen file with its checksum printed, a restore into an empty
// directory, a restore refused on a non-empty one, a backup asked of the running server that holds
// the database, a bad setting named.
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { openDatabase } from '../../db/client.js';
import { migrate } from '../../db/migrate.js';
import { seedCities } from '../../db/seed.js';
import { runCliProcess } from '../../../../tests/helpers/cli-process.js';
import { loadConfig } from '../../config.js';
import { startServer } from '../../main.js';
import { checkBackup } from './backup.restore.js';
import { emptyDataDir } from '../../../../tests/helpers/data-dir.js';

const dirs: string[] = [];
afterAll(() => dirs.forEach((d) => fs.rmSync(d, { recursive: true, force: true })));
const tempDir = (name: string) => {
  const d = fs.mkdtempSync(path.join(os.tmpdir(), `compost-${name}-`));
  dirs.push(d);
  return d;
};
/** A data directory whose embedded database is initialised and empty, as a first start finds it. */
const dataDirWithCluster = (name: string) => emptyDataDir(`compost-${name}-`, dirs);

const run = (script: 'backup' | 'restore', args: string[], env: Record<string, string>) => runCliProcess(script, args, env);

describe('npm run backup and npm run restore', { timeout: 180_000 }, () => {
  it('back up one embedded database and restore it into an empty one, and refuse what would lose data', async () => {
    const source = await dataDirWithCluster('backup-cli-source');
    const h = await openDatabase({ dataDir: source });
    await migrate(h.db);
    await seedCities(h.db, '242900314');
    const cities = (await h.db.selectFrom('ville').select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow()).n;

    // Another program holds the embedded database and no server answers: the command says so.
    const out = path.join(tempDir('backup-cli-out'), 'compost.sql.gz');
    const locked = await run('backup', ['--out', out], { DATA_DIR: source });
    expect(locked.code).toBe(1);
    expect(locked.stderr).toContain(`Aucun serveur Compost ne répond sur ${path.join(source, 'sauvegarde.sock')}`);
    expect(fs.existsSync(out)).toBe(false);
    await h.close();

    const made = await run('backup', ['--out', out], { DATA_DIR: source });
    expect(made.stderr).toBe('');
    expect(made.code).toBe(0);
    expect(made.stdout).toContain(`Sauvegarde écrite : ${out}`);
    const sha = crypto.createHash('sha256').update(fs.readFileSync(out)).digest('hex');
    expect(made.stdout).toContain(`SHA-256 : ${sha}`);

    const target = await dataDirWithCluster('backup-cli-target');
    const restored = await run('restore', [out], { DATA_DIR: target });
    expect(restored.stderr).toBe('');
    expect(restored.code).toBe(0);
    expect(restored.stdout).toContain(`SHA-256 ${sha}`);
    expect(restored.stdout).toMatch(/Restauration terminée : \d+ lignes dans \d+ tables\./);
    const copy = await openDatabase({ dataDir: target });
    try {
      expect((await copy.db.selectFrom('ville').select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow()).n).toBe(cities);
    } finally {
      await copy.close();
    }

    // A second restore would replace what is there: refused without --force.
    const again = await run('restore', [out], { DATA_DIR: target });
    expect(again.code).toBe(1);
    expect(again.stderr).toContain('Restauration impossible, la base est restée telle qu’elle était');

    // A bad setting is named before anything is opened.
    const bad = await run('backup', [], { DATA_DIR: source, BACKUP_AT: '25:00' });
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('BACKUP_AT doit être une heure');
    const usage = await run('restore', [], { DATA_DIR: target });
    expect(usage.code).toBe(1);
    expect(usage.stderr.trim()).toBe('Usage : npm run restore -- fichier.sql.gz [--force]');
  });

  it('asks the running server for the backup of the embedded database it holds, to a chosen file or to its backup folder', async () => {
    const dataDir = await dataDirWithCluster('backup-cli-server');
    const server = await startServer(
      loadConfig({ DATA_DIR: dataDir, PORT: '0', HOST: '127.0.0.1', BACKUP_AT: 'off', ALERTS_AT: 'off', ADMIN_LOGIN: 'admin', ADMIN_PASSWORD: 'motdepasse-sauvegarde', LOG_LEVEL: 'silent' }),
    );
    try {
      const sites = (await server.db.selectFrom('ville').select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow()).n;
      const out = path.join(tempDir('backup-cli-server-out'), 'en-marche.sql.gz');
      const made = await run('backup', ['--out', out], { DATA_DIR: dataDir });
      expect(made.stderr).toBe('');
      expect(made.code).toBe(0);
      expect(made.stdout).toContain(`Sauvegarde écrite par le serveur en marche : ${out}`);
      const sha = crypto.createHash('sha256').update(fs.readFileSync(out)).digest('hex');
      expect(made.stdout).toContain(`SHA-256 : ${sha}`);
      const header = await checkBackup(out);
      expect(header.tables.find((t) => t.name === 'ville')?.rows).toBe(sites);

      // Without --out: a new file in the server's backup folder, which its status then names.
      const daily = await run('backup', [], { DATA_DIR: dataDir });
      expect(daily.code).toBe(0);
      const written = /Sauvegarde écrite par le serveur en marche : (\S+)/.exec(daily.stdout)?.[1];
      expect(written && path.dirname(written)).toBe(path.join(dataDir, 'backups'));
      expect(fs.existsSync(written!)).toBe(true);
    } finally {
      await server.close();
    }
    // Stopped, the server leaves no socket behind.
    expect(fs.existsSync(path.join(dataDir, 'sauvegarde.sock'))).toBe(false);
  });
});
