// `npm run alerts`: computes the site follow-up alerts once and sends the day's digests, on the
// database the server uses (DATABASE_URL, or the embedded one of DATA_DIR), for a system cron
// (then ALERTS_AT=off on the servers). Exits 1 when another process is running the job.
import path from 'node:path';
import pino from 'pino';
import { ConfigError, loadConfig } from '../config.js';
import { openDatabase } from '../db/client.js';
import { migrate } from '../db/migrate.js';
import { createMailer } from '../mailer.js';
import { createAlertsJob } from '../modules/alerts/alerts.service.js';
import { ALERT_MESSAGES } from '../../shared/schemas/alerts.js';

const plural = (n: number, one: string, many: string) => `${n} ${n > 1 ? many : one}`;

async function main(): Promise<number> {
  if (process.argv.length > 2) {
    console.error('Usage : npm run alerts');
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
  const log = pino({ level: config.LOG_LEVEL });
  let handle;
  try {
    handle = await openDatabase({ databaseUrl: config.DATABASE_URL, dataDir: config.dataDir });
  } catch (e) {
    console.error(`Impossible d’ouvrir la base de données : ${(e as Error).message}`);
    return 1;
  }
  try {
    await migrate(handle.db);
    const mailer = createMailer({ smtpUrl: config.SMTP_URL, mailDir: path.join(config.dataDir, 'mail'), from: config.MAIL_FROM, log });
    const outcome = await createAlertsJob({ db: handle.db, mailer, config, log }).run({ trigger: 'cli', now: new Date() });
    if (outcome.status === 'busy') {
      console.error(ALERT_MESSAGES.busy);
      return 1;
    }
    console.log(
      `Alertes calculées : ${plural(outcome.ouvertes, 'ouverte', 'ouvertes')}, ${plural(outcome.fermees, 'fermée', 'fermées')}, ${plural(outcome.mails, 'e-mail envoyé', 'e-mails envoyés')}.`,
    );
    return 0;
  } catch (e) {
    console.error((e as Error).message);
    return 1;
  } finally {
    await handle.close();
  }
}

process.exitCode = await main();
