// config -> database (migrate, seed) -> createApp() -> listen; clean shutdown on signals.
import path from 'node:path';
import fs from 'node:fs';
import os from 'node:os';
import tls from 'node:tls';
import { X509Certificate } from 'node:crypto';
import type pino from 'pino';
import { createLogger } from './logging.js';
import { ConfigError, loadConfig, urlHost, type Config } from './config.js';
import { DatabaseLockedError, describePostgresUrl, openDatabase, type DatabaseHandle } from './db/client.js';
import { isDatabaseUnavailable } from './errors.js';
import { migrate } from './db/migrate.js';
import { seedAdmin, seedCities, type AdminSeedResult } from './db/seed.js';
import { seedStreetsSample } from './modules/reference/public.js';
import { seedDemoData } from './db/demo-data.js';
import { createMailer } from './mailer.js';
import { createApp } from './app.js';
import { startAlertScheduler, type AlertScheduler } from './modules/alerts/public.js';
import { tuneGarbageCollector } from './gc-tuning.js';
import { assertSchemaKnown } from './modules/backup/public.js';

export { createLogger } from './logging.js';

/** What the web build is made from: a newer file here means dist/ is out of date. */
export const WEB_SOURCES = ['src/web', 'src/shared', 'public', 'index.html', 'vite.config.ts', 'tsconfig.sw.json', 'package-lock.json'];

function newestMtime(p: string): number {
  if (!fs.existsSync(p)) return 0;
  const st = fs.statSync(p);
  if (!st.isDirectory()) return st.mtimeMs;
  let max = 0;
  for (const entry of fs.readdirSync(p)) max = Math.max(max, newestMtime(path.join(p, entry)));
  return max;
}

/** True when `dist` has no index.html or one of the web sources changed after it was built. */
export function webBuildNeeded(root: string, dist: string): boolean {
  const builtAt = newestMtime(path.join(dist, 'index.html'));
  if (!builtAt) return true;
  return WEB_SOURCES.some((s) => newestMtime(path.join(root, s)) > builtAt);
}

/** '1 migration appliquée (20)', '20 migrations appliquées (1 à 20)'. */
export function migrationsLine(applied: number[]): string {
  const which = applied.length === 1 ? String(applied[0]) : `${applied[0]} à ${applied[applied.length - 1]}`;
  return applied.length === 1 ? `Base de données : 1 migration appliquée (${which})` : `Base de données : ${applied.length} migrations appliquées (${which})`;
}

/**
 * The certificate and key of TLS_CERT and TLS_KEY (config.ts checked that both files exist),
 * checked to go together before anything else starts; an expired certificate is only a warning
 * (browsers say so themselves).
 */
export function readTls(certFile: string, keyFile: string, log?: pino.Logger): { cert: Buffer; key: Buffer } {
  const read = (name: string, file: string) => {
    try {
      return fs.readFileSync(file);
    } catch (e) {
      const code = (e as NodeJS.ErrnoException).code;
      const why = code === 'EACCES' ? 'permission refusée' : code === 'EISDIR' ? 'c’est un dossier' : (code ?? (e as Error).message);
      throw new Error(`${name} : impossible de lire le fichier ${file} (${why}).`);
    }
  };
  const cert = read('TLS_CERT', certFile);
  const key = read('TLS_KEY', keyFile);
  let x509: X509Certificate;
  try {
    x509 = new X509Certificate(cert);
  } catch {
    throw new Error(`TLS_CERT : le fichier ${certFile} n’est pas un certificat PEM (-----BEGIN CERTIFICATE-----).`);
  }
  try {
    tls.createSecureContext({ cert, key });
  } catch (e) {
    const reason = (e as Error).message;
    if (/key values mismatch/i.test(reason)) throw new Error(`TLS_KEY : la clé privée de ${keyFile} ne correspond pas au certificat de ${certFile}.`);
    throw new Error(`TLS_KEY : le fichier ${keyFile} n’est pas une clé privée PEM lisible (${reason}).`);
  }
  if (Date.parse(x509.validTo) < Date.now()) log?.warn(`TLS_CERT : le certificat de ${certFile} a expiré (${x509.validTo}) ; les navigateurs le refuseront.`);
  return { cert, key };
}

/** The addresses a phone on the local network can open, when the server listens on every interface. */
export function lanUrls(host: string, port: number, scheme: string): string[] {
  if (host !== '0.0.0.0' && host !== '::' && host !== '[::]') return [];
  const out: string[] = [];
  for (const list of Object.values(os.networkInterfaces())) {
    for (const a of list ?? []) if (!a.internal && a.family === 'IPv4') out.push(`${scheme}://${a.address}:${port}`);
  }
  return out;
}

/** Migrates and seeds; `grew`: migrations ran or the demo programme was written (much written at once). */
async function prepareDatabase(handle: DatabaseHandle, config: Config, log: pino.Logger): Promise<{ admin: AdminSeedResult; grew: boolean }> {
  const { db } = handle;
  // A newer release migrated this database: running older code on it would misread it.
  await assertSchemaKnown(db);
  const applied = await migrate(db);
  if (applied.length) log.info(migrationsLine(applied));
  await seedCities(db, config.TERRITORY);
  await seedStreetsSample(db);
  const admin = await seedAdmin(db, config);
  // The generated password is only ever returned to the caller, which prints it once.
  if (admin.created) log.info(`Premier administrateur créé : « ${admin.login} »`);
  let demoCreated = false;
  if (config.DEMO_DATA) {
    const demo = await seedDemoData(db);
    demoCreated = demo.created;
    if (demo.created) log.info(`Programme de démonstration créé : ${demo.sites} sites, ${demo.interventions} interventions`);
  }
  return { admin, grew: applied.length > 0 || demoCreated };
}

/** How long a start waits for a PostgreSQL server that does not answer yet (starting up, rebooting). */
export const DATABASE_WAIT_MS = 30_000;

function errorText(e: unknown): string {
  const err = e as { message?: string; code?: string; errors?: unknown[] };
  if (err.message) return err.message;
  // Node gives an empty message when every address of the host refused the connection.
  const first = err.errors?.[0] as { message?: string } | undefined;
  return first?.message ?? err.code ?? String(e);
}

export async function startServer(config: Config, opts: { webDir?: string; databaseWaitMs?: number; log?: pino.Logger } = {}) {
  const log = opts.log ?? createLogger(config.LOG_LEVEL);
  const waitMs = opts.databaseWaitMs ?? DATABASE_WAIT_MS;
  // A certificate that cannot serve stops the start before the database opens.
  const https = config.TLS_CERT && config.TLS_KEY ? readTls(config.TLS_CERT, config.TLS_KEY, log) : undefined;
  let handle: DatabaseHandle;
  const open = () => openDatabase({ databaseUrl: config.DATABASE_URL, dataDir: config.dataDir, waitMs, log, statementTimeoutMs: config.DB_STATEMENT_TIMEOUT * 1000 });
  try {
    handle = await open();
  } catch (e) {
    if (e instanceof DatabaseLockedError) throw e;
    if (config.DATABASE_URL && isDatabaseUnavailable(e)) {
      throw new Error(
        `La base PostgreSQL de DATABASE_URL (${describePostgresUrl(config.DATABASE_URL)}) ne répond pas après ${Math.round(waitMs / 1000)} s ` +
          `(${errorText(e)}). Vérifiez que le serveur PostgreSQL est démarré et joignable, et que DATABASE_URL est juste.`,
      );
    }
    const where = config.DATABASE_URL ? ` (DATABASE_URL : ${describePostgresUrl(config.DATABASE_URL)})` : '';
    throw new Error(`Impossible d'ouvrir la base de données${where} : ${errorText(e)}`);
  }
  let app: Awaited<ReturnType<typeof createApp>> | undefined;
  let admin: AdminSeedResult;
  let mailer: ReturnType<typeof createMailer>;
  try {
    const prepared = await prepareDatabase(handle, config, log);
    admin = prepared.admin;
    if (handle.kind === 'pglite' && prepared.grew) {
      // Migrating a new embedded database (or writing the demo programme) grows PGlite's
      // WebAssembly memory by hundreds of MB, which it never gives back: the server would keep
      // them until its next restart. A fresh engine on the same files starts from what the data
      // needs (docs/deploy.md, "A small server").
      await handle.close();
      handle = await open();
    }
    mailer = createMailer({ smtpUrl: config.SMTP_URL, mailDir: path.join(config.dataDir, 'mail'), from: config.MAIL_FROM, log });
    const webDir = opts.webDir && fs.existsSync(path.join(opts.webDir, 'index.html')) ? opts.webDir : undefined;
    app = await createApp({ db: handle.db, mailer, authChanges: handle.changes, poolStats: handle.poolStats, config: { ...config, webDir } }, { loggerInstance: log, ...(https ? { https } : {}) });
    // Fastify says where it listens, on one line per address; the ready line (runMain) says it once.
    const fastifyLog = app.log as pino.Logger;
    const level = fastifyLog.level;
    if (fastifyLog.isLevelEnabled('info')) fastifyLog.level = 'warn';
    try {
      await app.listen({ port: config.PORT, host: config.HOST });
    } finally {
      fastifyLog.level = level;
    }
  } catch (e) {
    // A failed start releases what it opened: the PGlite lock, the pool, the port.
    await app?.close().catch(() => undefined);
    await handle.close().catch(() => undefined);
    const err = e as NodeJS.ErrnoException;
    if (err.code === 'EADDRINUSE') throw new Error(`Le port ${config.PORT} de ${config.HOST} est déjà utilisé : choisissez-en un autre avec PORT.`);
    if (err.code === 'EADDRNOTAVAIL') throw new Error(`L'adresse ${config.HOST} (HOST) n'existe pas sur cette machine.`);
    throw e;
  }
  // The daily alerts, in this process (the job itself makes sure one process runs each day's).
  const alerts: AlertScheduler | null =
    config.ALERTS_AT === 'off' ? null : startAlertScheduler({ db: handle.db, mailer, config, at: config.ALERTS_AT, log });
  const address = app.server.address();
  const port = typeof address === 'object' && address ? address.port : config.PORT;
  const scheme = https ? 'https' : 'http';
  const url = `${scheme}://${urlHost(config.HOST)}:${port}`;
  const lan = lanUrls(config.HOST, port, scheme);

  let closing: Promise<void> | null = null;
  const server = app;
  const close = (reason?: string) => {
    closing ??= (async () => {
      log.info(reason ? `Arrêt demandé (${reason}) : fin des requêtes en cours…` : 'Arrêt : fin des requêtes en cours…');
      // No new alerts run; one in progress finishes (its e-mails leave) before the database closes.
      await alerts?.stop();
      // Stops accepting connections and waits for the requests in flight (and the mails
      // they queued), then closes the database.
      await server.close();
      await handle.close();
    })();
    return closing;
  };
  return { app, url, lan, admin, close, db: handle.db, log };
}

/** Lines framed so that they stand out among the log lines. */
export function boxed(lines: string[]): string[] {
  const width = Math.max(...lines.map((l) => l.length));
  const bar = '─'.repeat(width + 2);
  return [`┌${bar}┐`, ...lines.map((l) => `│ ${l.padEnd(width)} │`), `└${bar}┘`];
}

/**
 * How the first administrator logs in, printed once on the console (never logged): a generated
 * password in a box; a password from ADMIN_PASSWORD is never printed.
 */
export function firstStartLines(url: string, admin: AdminSeedResult): string[] {
  if (!admin.created) return [];
  if (!admin.generatedPassword) {
    return [`Premier démarrage : connectez-vous sur ${url}/login avec l'identifiant « ${admin.login} »`, '  et le mot de passe de ADMIN_PASSWORD.'];
  }
  return boxed([...firstAccess(url, admin), 'Il n’est affiché qu’une fois : notez-le maintenant.']);
}

const firstAccess = (url: string, admin: AdminSeedResult) => [
  `Premier démarrage : connectez-vous sur ${url}/login`,
  `Identifiant : ${admin.login}`,
  `Mot de passe généré : ${admin.generatedPassword}`,
];

/** Where a start whose output is no terminal leaves the generated password, in DATA_DIR. */
export const FIRST_ACCESS_FILE = 'premier-acces.txt';

/**
 * The first-start lines for the console. On a terminal, the box with the generated password.
 * Otherwise the output ends up in log files (systemd's journal, a container's log): the
 * identifiant and password go to DATA_DIR/premier-acces.txt, readable by this account alone,
 * and the console names that file only.
 */
export function firstStartOutput(url: string, admin: AdminSeedResult, opts: { terminal: boolean; dataDir: string }): string[] {
  if (opts.terminal || !admin.generatedPassword) return firstStartLines(url, admin);
  const file = path.join(opts.dataDir, FIRST_ACCESS_FILE);
  try {
    fs.mkdirSync(opts.dataDir, { recursive: true });
    // A file left by an earlier start goes: the new one is created with its mode, never reused.
    fs.rmSync(file, { force: true });
    fs.writeFileSync(file, [...firstAccess(url, admin), 'Supprimez ce fichier une fois connecté et le mot de passe changé.', ''].join('\n'), { mode: 0o600, flag: 'wx' });
  } catch (e) {
    return [`Premier démarrage : impossible d'écrire ${file} (${(e as Error).message}) ; le mot de passe généré n'est affiché nulle part.`, `  Donnez-en un à « ${admin.login} » avec npm run admin:password -- ${admin.login}`];
  }
  return [`Premier démarrage : l'identifiant et le mot de passe générés de l'administrateur sont dans ${file} (lisible par ce seul compte).`];
}

/** The line that says the server is ready, with the addresses a phone on the local network can open. */
export function readyLine(appName: string, url: string, lan: string[] = []): string {
  return `${appName} est prêt : ${url}${lan.length ? ` (réseau local : ${lan.join(', ')})` : ''}`;
}

const SHUTDOWN_TIMEOUT_MS = 10_000;

export async function runMain(opts: { webDir?: string } = {}) {
  tuneGarbageCollector();
  let config: Config;
  try {
    config = loadConfig();
  } catch (e) {
    if (e instanceof ConfigError) {
      console.error(e.message);
      process.exit(2);
    }
    throw e;
  }
  let server: Awaited<ReturnType<typeof startServer>>;
  try {
    server = await startServer(config, opts);
  } catch (e) {
    console.error((e as Error).message);
    process.exit(1);
  }
  const stop = (signal: string) => {
    // A shutdown that hangs (a stuck connection) must not keep the process alive forever.
    setTimeout(() => {
      console.error('Arrêt forcé : la fermeture a pris trop de temps.');
      process.exit(1);
    }, SHUTDOWN_TIMEOUT_MS).unref();
    server.close(signal).then(
      () => process.exit(0),
      (e) => {
        console.error(e);
        process.exit(1);
      },
    );
  };
  // The handlers are in place before the ready line: whoever stops the server once it says it
  // is ready gets a clean stop, never the default end of a process killed by its signal.
  process.once('SIGTERM', () => stop('SIGTERM'));
  process.once('SIGINT', () => stop('SIGINT'));
  // One write: whoever reads the console (a terminal, a supervisor, a test) gets the ready line
  // and the first administrator's box together, never the one without the other.
  const firstStart = firstStartOutput(server.url, server.admin, { terminal: Boolean(process.stdout.isTTY), dataDir: config.dataDir });
  console.log([`\n${readyLine(config.APP_NAME, server.url, server.lan)}`, ...firstStart].join('\n'));
}
