// `npm run restore -- FILE [--force]`: loads a backup into the database the server would use
// (DATABASE_URL, or the embedded one of DATA_DIR), which must be empty unless --force. The file
// is checked whole before the database is opened; the load is one transaction.
import { cliConfig, withCliDatabase } from './cli-support.js';
import { fileSha256 } from '../modules/backup/backup.format.js';
import { checkBackup, restoreBackup } from '../modules/backup/backup.restore.js';

async function main(): Promise<number> {
  const args = process.argv.slice(2);
  const force = args.includes('--force');
  const files = args.filter((a) => a !== '--force');
  if (files.length !== 1 || files[0].startsWith('-')) {
    console.error('Usage : npm run restore -- fichier.sql.gz [--force]');
    return 1;
  }
  const file = files[0];
  const config = cliConfig();
  if (!config) return 2;
  try {
    const header = await checkBackup(file);
    console.log(`Sauvegarde vérifiée : ${header.createdAt}, schéma n°${header.schema}, base ${header.engine}, SHA-256 ${await fileSha256(file)}`);
  } catch (e) {
    console.error((e as Error).message);
    return 1;
  }
  return withCliDatabase(
    config,
    async (handle) => {
      const { header, migrated } = await restoreBackup(handle.db, file, { force });
      const rows = header.tables.reduce((n, t) => n + t.rows, 0);
      console.log(`Restauration terminée : ${rows} lignes dans ${header.tables.length} tables.`);
      if (migrated.length) console.log(`Migrations appliquées ensuite : ${migrated.join(', ')}.`);
      return 0;
    },
    { migrate: false, failure: (e) => `Restauration impossible, la base est restée telle qu’elle était : ${e.message}` },
  );
}

process.exitCode = await main();
