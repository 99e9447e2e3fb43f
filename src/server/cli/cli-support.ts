// What the commands share: the configuration read as the server reads it (a bad value is a French
// message and exit code 2), the database opened as the server opens it (PGlite lock or
// PostgreSQL), always closed, and French messages with a non-zero exit code on failure.
import fs from 'node:fs';
import { ConfigError, loadConfig, type Config } from '../config.js';
import { openDatabase, type DatabaseHandle } from '../db/client.js';
import { migrate } from '../db/migrate.js';
import type { Db } from '../db/client.js';

/** The configuration; null once its message is printed (the command then exits with 2). */
export function cliConfig<T = Config>(read: () => T = loadConfig as () => T): T | null {
  try {
    return read();
  } catch (e) {
    if (e instanceof ConfigError) {
      console.error(e.message);
      return null;
    }
    throw e;
  }
}

export interface CliDatabaseOptions {
  /** Applies the migrations first (not for a restore, which brings its own schema). */
  migrate?: boolean;
  /** What to print when the database cannot be opened (a lock held by the server...). */
  openError?: (e: Error) => string;
  /** What to print when `work` throws. */
  failure?: (e: Error) => string;
}

/** Opens the database of `config`, runs `work` (its exit code), prints any failure, always closes. */
export async function withCliDatabase(config: Config, work: (handle: DatabaseHandle) => Promise<number>, opts: CliDatabaseOptions = {}): Promise<number> {
  let handle;
  try {
    handle = await openDatabase({ databaseUrl: config.DATABASE_URL, dataDir: config.dataDir });
  } catch (e) {
    console.error(opts.openError?.(e as Error) ?? `Impossible d’ouvrir la base de données : ${(e as Error).message}`);
    return 1;
  }
  try {
    if (opts.migrate ?? true) await migrate(handle.db);
    return await work(handle);
  } catch (e) {
    console.error(opts.failure?.(e as Error) ?? (e as Error).message);
    return 1;
  } finally {
    await handle.close();
  }
}

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
  const config = cliConfig();
  if (!config) return 2;
  return withCliDatabase(config, async (handle) => {
    console.log(await work(handle.db, arg));
    return 0;
  });
}
