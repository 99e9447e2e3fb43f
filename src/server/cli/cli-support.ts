// What the import commands share: one file argument, the database opened as the server
// opens it (configuration, PGlite lock or PostgreSQL, migrations), always closed, and
// French messages with a non-zero exit code on failure.
import fs from 'node:fs';
import { ConfigError, loadConfig } from '../config.js';
import { openDatabase } from '../db/client.js';
import { migrate } from '../db/migrate.js';
import type { Db } from '../db/client.js';

export async function runImportCli(script: string, work: (db: Db, file: string) => Promise<string>): Promise<number> {
  const args = process.argv.slice(2);
  if (args.length !== 1 || args[0].startsWith('-')) {
    console.error(`Usage : npm run ${script} -- fichier.csv`);
    return 1;
  }
  const file = args[0];
  if (!fs.existsSync(file) || !fs.statSync(file).isFile()) {
    console.error(`Fichier introuvable : ${file}`);
    return 1;
  }
  let config;
  try {
    config = loadConfig();
  } catch (e) {
    if (e instanceof ConfigError) {
      console.error(e.message);
      return 2;
    }
    throw e;
  }
  let handle;
  try {
    handle = await openDatabase({ databaseUrl: config.DATABASE_URL, dataDir: config.dataDir });
  } catch (e) {
    console.error(`Impossible d’ouvrir la base de données : ${(e as Error).message}`);
    return 1;
  }
  try {
    await migrate(handle.db);
    console.log(await work(handle.db, file));
    return 0;
  } catch (e) {
    console.error((e as Error).message);
    return 1;
  } finally {
    await handle.close();
  }
}
