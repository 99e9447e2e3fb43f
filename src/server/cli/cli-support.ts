// What the commands share: one argument (a file for the imports), the database opened as the server
// opens it (configuration, PGlite lock or PostgreSQL, migrations), always closed, and
// French messages with a non-zero exit code on failure.
import fs from 'node:fs';
import { ConfigError, loadConfig } from '../config.js';
import { openDatabase } from '../db/client.js';
import { migrate } from '../db/migrate.js';
import type { Db } from '../db/client.js';

export async function runImportCli(script: string, work: (db: Db, file: string) => Promise<string>): Promise<number> {
  return runCli(script, 'fichier.csv', (file) => (!fs.existsSync(file) || !fs.statSync(file).isFile() ? `Fichier introuvable : ${file}` : null), work);
}

/**
 * A command taking one argument (`usage` names it): `check` refuses a bad one before the
 * database is opened; `work` returns what to print.
 */
export async function runCli(script: string, usage: string, check: (arg: string) => string | null, work: (db: Db, arg: string) => Promise<string>): Promise<number> {
  const args = process.argv.slice(2);
  if (args.length !== 1 || args[0].startsWith('-')) {
    console.error(`Usage : npm run ${script} -- ${usage}`);
    return 1;
  }
  const arg = args[0];
  const refusal = check(arg);
  if (refusal) {
    console.error(refusal);
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
    console.log(await work(handle.db, arg));
    return 0;
  } catch (e) {
    console.error((e as Error).message);
    return 1;
  } finally {
    await handle.close();
  }
}
