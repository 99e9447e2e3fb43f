// config -> database (migrate, seed) -> createApp() -> listen; clean shutdown on signals.
import path from 'node:path';
import fs from 'node:fs';
import pino from 'pino';
import { ConfigError, loadConfig, type Config } from './config.js';
import { DatabaseLockedError, openDatabase, type DatabaseHandle } from './db/client.js';
import { migrate } from './db/migrate.js';
import { seedAdmin, seedCities, seedStreetsSample } from './db/seed.js';
import { seedDemoData } from './db/demo-data.js';
import { createMailer } from './mailer.js';
import { createApp } from './app.js';

export async function startServer(config: Config, opts: { webDir?: string } = {}) {
  const log = pino({ level: config.LOG_LEVEL });
  let handle: DatabaseHandle;
  try {
    handle = await openDatabase({ databaseUrl: config.DATABASE_URL, dataDir: config.dataDir });
  } catch (e) {
    if (e instanceof DatabaseLockedError) throw e;
    throw new Error(`Impossible d'ouvrir la base de données : ${(e as Error).message}`);
  }
  const { db } = handle;
  const applied = await migrate(db);
  if (applied.length) log.info({ migrations: applied }, 'migrations applied');
  await seedCities(db, config.TERRITORY);
  await seedStreetsSample(db);
  const admin = await seedAdmin(db, config);
  if (config.DEMO_DATA) {
    const demo = await seedDemoData(db);
    if (demo.created) log.info(demo, 'demo data created');
  }

  const mailer = createMailer({ smtpUrl: config.SMTP_URL, mailDir: path.join(config.dataDir, 'mail'), from: config.MAIL_FROM, log });
  const webDir = opts.webDir && fs.existsSync(path.join(opts.webDir, 'index.html')) ? opts.webDir : undefined;
  const app = await createApp({ db, mailer, config: { ...config, webDir } }, { loggerInstance: log });
  await app.listen({ port: config.PORT, host: config.HOST });
  const address = app.server.address();
  const port = typeof address === 'object' && address ? address.port : config.PORT;
  const url = `http://${config.HOST === '0.0.0.0' ? 'localhost' : config.HOST}:${port}`;

  let closing = false;
  const close = async () => {
    if (closing) return;
    closing = true;
    log.info('arrêt en cours');
    await app.close();
    await handle.close();
  };
  return { app, url, admin, close, db, log };
}

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
  console.log(`\nCompost est prêt : ${server.url}`);
  if (server.admin.created) {
    console.log(`Premier démarrage : connectez-vous sur ${server.url}/login avec l'identifiant « ${server.admin.login} »`);
    if (server.admin.generatedPassword) {
      console.log(`  mot de passe généré (affiché une seule fois) : ${server.admin.generatedPassword}`);
    } else {
      console.log('  et le mot de passe de ADMIN_PASSWORD.');
    }
  }
  const stop = (signal: string) => {
    server.log.info({ signal }, 'signal received');
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
