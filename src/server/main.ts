// config -> database (migrate, seed) -> createApp() -> listen; clean shutdown on signals.
import path from 'node:path';
import fs from 'node:fs';
import pino from 'pino';
import pretty from 'pino-pretty';
import { ConfigError, loadConfig, urlHost, type Config } from './config.js';
import { DatabaseLockedError, describePostgresUrl, openDatabase, type DatabaseHandle } from './db/client.js';
import { isDatabaseUnavailable } from './errors.js';
import { migrate } from './db/migrate.js';
import { seedAdmin, seedCities, seedStreetsSample, type AdminSeedResult } from './db/seed.js';
import { seedDemoData } from './db/demo-data.js';
import { createMailer } from './mailer.js';
import { createApp } from './app.js';
import { startAlertScheduler, type AlertScheduler } from './modules/alerts/alerts.scheduler.js';

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

async function prepareDatabase(handle: DatabaseHandle, config: Config, log: pino.Logger): Promise<AdminSeedResult> {
  const { db } = handle;
  const applied = await migrate(db);
  if (applied.length) log.info({ migrations: applied }, 'migrations applied');
  await seedCities(db, config.TERRITORY);
  await seedStreetsSample(db);
  const admin = await seedAdmin(db, config);
  // The generated password is only ever returned to the caller, which prints it once.
  if (admin.created) log.info({ login: admin.login }, 'first administrator created');
  if (config.DEMO_DATA) {
    const demo = await seedDemoData(db);
    if (demo.created) log.info(demo, 'demo data created');
  }
  return admin;
}

/** How long a start waits for a PostgreSQL server that does not answer yet (starting up, rebooting). */
export const DATABASE_WAIT_MS = 30_000;

/**
 * The server's logger: one JSON object a line when the output goes to a file, a pipe or a log
 * collector; coloured lines a person can read when it is a terminal.
 */
export function createLogger(level: string, opts: { pretty?: boolean; destination?: NodeJS.WritableStream } = {}): pino.Logger {
  const readable = opts.pretty ?? process.stdout.isTTY === true;
  if (!readable) return opts.destination ? pino({ level }, opts.destination) : pino({ level });
  return pino(
    { level },
    // In this thread and synchronous, so that the last lines before an exit are not lost.
    pretty({ colorize: !opts.destination, translateTime: 'SYS:HH:MM:ss', ignore: 'pid,hostname', sync: true, destination: opts.destination ?? 1 }),
  );
}

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
  let handle: DatabaseHandle;
  try {
    handle = await openDatabase({ databaseUrl: config.DATABASE_URL, dataDir: config.dataDir, waitMs, log, statementTimeoutMs: config.DB_STATEMENT_TIMEOUT * 1000 });
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
    admin = await prepareDatabase(handle, config, log);
    mailer = createMailer({ smtpUrl: config.SMTP_URL, mailDir: path.join(config.dataDir, 'mail'), from: config.MAIL_FROM, log });
    const webDir = opts.webDir && fs.existsSync(path.join(opts.webDir, 'index.html')) ? opts.webDir : undefined;
    app = await createApp({ db: handle.db, mailer, authChanges: handle.changes, config: { ...config, webDir } }, { loggerInstance: log });
    await app.listen({ port: config.PORT, host: config.HOST });
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
  const url = `http://${urlHost(config.HOST)}:${port}`;

  let closing: Promise<void> | null = null;
  const server = app;
  const close = () => {
    closing ??= (async () => {
      log.info('arrêt en cours');
      // No new alerts run; one in progress finishes (its e-mails leave) before the database closes.
      await alerts?.stop();
      // Stops accepting connections and waits for the requests in flight (and the mails
      // they queued), then closes the database.
      await server.close();
      await handle.close();
    })();
    return closing;
  };
  return { app, url, admin, close, db: handle.db, log };
}

/** How the first administrator logs in, printed once on the console (never logged). */
export function firstStartLines(url: string, admin: AdminSeedResult): string[] {
  if (!admin.created) return [];
  const lines = [`Premier démarrage : connectez-vous sur ${url}/login avec l'identifiant « ${admin.login} »`];
  if (admin.generatedPassword) lines.push(`  et le mot de passe généré (affiché une seule fois, notez-le) : ${admin.generatedPassword}`);
  else lines.push('  et le mot de passe de ADMIN_PASSWORD.');
  return lines;
}

const SHUTDOWN_TIMEOUT_MS = 10_000;

export async function runMain(opts: { webDir?: string } = {}) {
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
  console.log(`\n${config.APP_NAME} est prêt : ${server.url}`);
  for (const line of firstStartLines(server.url, server.admin)) console.log(line);

  const stop = (signal: string) => {
    server.log.info({ signal }, 'signal received');
    // A shutdown that hangs (a stuck connection) must not keep the process alive forever.
    setTimeout(() => {
      console.error('Arrêt forcé : la fermeture a pris trop de temps.');
      process.exit(1);
    }, SHUTDOWN_TIMEOUT_MS).unref();
    server.close().then(
      () => process.exit(0),
      (e) => {
        console.error(e);
        process.exit(1);
      },
    );
  };
  process.once('SIGTERM', () => stop('SIGTERM'));
  process.once('SIGINT', () => stop('SIGINT'));
}
