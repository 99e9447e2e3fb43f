// `npm run backup [-- --out FILE]`: writes a backup of the database the server uses
// (DATABASE_URL, or the embedded one of DATA_DIR) to FILE, by default a new file in BACKUP_DIR,
// and prints its path, size and SHA-256. On PostgreSQL it reads the database beside the server.
// The embedded database is locked by a running server: the command then asks that server,
// through its socket in DATA_DIR, to write the backup (backup.control.ts).
import path from 'node:path';
import { DatabaseLockedError } from '../db/client.js';
import { cliConfig, withCliDatabase } from './cli-support.js';
import { writeBackup } from '../modules/backup/backup.dump.js';
import { backupFileName } from '../modules/backup/backup.service.js';
import { parseBackupConfig } from '../modules/backup/backup.config.js';
import { requestServerBackup, type ControlAnswer } from '../modules/backup/backup.control.js';
import { formatSize } from '../modules/backup/backup.routes.js';

function printResult(r: { fichier: string; taille: number; sha256: string; lignes: number; schema: number }, byServer: boolean) {
  console.log(`Sauvegarde écrite${byServer ? ' par le serveur en marche' : ''} : ${r.fichier}`);
  console.log(`Taille : ${formatSize(r.taille)} (${r.taille} octets), ${r.lignes} lignes, schéma n°${r.schema}`);
  console.log(`SHA-256 : ${r.sha256}`);
}

async function main(): Promise<number> {
  const args = process.argv.slice(2);
  if (!(args.length === 0 || (args.length === 2 && args[0] === '--out' && !args[1].startsWith('-')))) {
    console.error('Usage : npm run backup [-- --out fichier.sql.gz]');
    return 1;
  }
  const config = cliConfig();
  const backup = config && cliConfig(() => parseBackupConfig(process.env, config.dataDir));
  if (!config || !backup) return 2;
  const out = args[1] ? path.resolve(args[1]) : null;
  const file = out ?? path.join(backup.dir, backupFileName(new Date()));

  // A server running on the embedded database makes the backup itself, on request.
  let answer: ControlAnswer | null = null;
  if (backup.controlSocket) {
    try {
      answer = await requestServerBackup(backup.controlSocket, out);
    } catch (e) {
      console.error(`Le serveur en marche n’a pas pu être joint : ${(e as Error).message}`);
      return 1;
    }
  }
  if (answer) {
    if (!answer.ok) {
      console.error(`Sauvegarde impossible : ${answer.message}`);
      return 1;
    }
    printResult(answer, true);
    return 0;
  }
  return withCliDatabase(
    config,
    async (handle) => {
      const result = (await writeBackup(handle.db, file))!;
      printResult({ fichier: result.path, taille: result.size, sha256: result.sha256, lignes: result.header.tables.reduce((n, t) => n + t.rows, 0), schema: result.header.schema }, false);
      return 0;
    },
    {
      migrate: false,
      openError: (e) =>
        e instanceof DatabaseLockedError
          ? `${e.message}\nAucun serveur Compost ne répond sur ${backup.controlSocket} : la base est tenue par un autre programme. Arrêtez-le, ou lancez la sauvegarde depuis le serveur (chaque jour à BACKUP_AT, ou POST /api/admin/sauvegarde/run).`
          : `Impossible d’ouvrir la base de données : ${e.message}`,
      failure: (e) => `Sauvegarde impossible : ${e.message}`,
    },
  );
}

process.exitCode = await main();
