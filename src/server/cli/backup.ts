// `npm run backup [-- --out FILE]`: writes a backup of the database the server uses
// (DATABASE_URL, or the embedded one of DATA_DIR) to FILE, by default a new file in BACKUP_DIR,
// and prints its path, size and SHA-256. On PostgreSQL it runs beside the server; the embedded
// database is held by a running server, which then makes the backup itself (BACKUP_AT, or
// POST /api/admin/sauvegarde/run).
import path from 'node:path';
import { DatabaseLockedError } from '../db/client.js';
import { cliConfig, withCliDatabase } from './cli-support.js';
import { writeBackup } from '../modules/backup/backup.dump.js';
import { backupFileName } from '../modules/backup/backup.service.js';
import { parseBackupConfig } from '../modules/backup/backup.config.js';
import { formatSize } from '../modules/backup/backup.routes.js';

async function main(): Promise<number> {
  const args = process.argv.slice(2);
  if (!(args.length === 0 || (args.length === 2 && args[0] === '--out' && !args[1].startsWith('-')))) {
    console.error('Usage : npm run backup [-- --out fichier.jsonl.gz]');
    return 1;
  }
  const config = cliConfig();
  const backup = config && cliConfig(() => parseBackupConfig(process.env, config.dataDir));
  if (!config || !backup) return 2;
  const file = args[1] ? path.resolve(args[1]) : path.join(backup.dir, backupFileName(new Date()));
  return withCliDatabase(
    config,
    async (handle) => {
      const result = (await writeBackup(handle.db, file))!;
      const rows = result.header.tables.reduce((n, t) => n + t.rows, 0);
      console.log(`Sauvegarde écrite : ${result.path}`);
      console.log(`Taille : ${formatSize(result.size)} (${result.size} octets), ${rows} lignes, schéma n°${result.header.schema}`);
      console.log(`SHA-256 : ${result.sha256}`);
      return 0;
    },
    {
      migrate: false,
      openError: (e) =>
        e instanceof DatabaseLockedError
          ? `${e.message}\nLe serveur en marche fait lui-même la sauvegarde : chaque jour à BACKUP_AT, ou à la demande (POST /api/admin/sauvegarde/run, compte administrateur).`
          : `Impossible d’ouvrir la base de données : ${e.message}`,
      failure: (e) => `Sauvegarde impossible : ${e.message}`,
    },
  );
}

process.exitCode = await main();
