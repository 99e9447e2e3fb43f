// `npm run alerts`: computes the site follow-up alerts once and sends the day's digests, on the
// database the server uses (DATABASE_URL, or the embedded one of DATA_DIR), for a system cron
// (then ALERTS_AT=off on the servers). Exits 1 when another process is running the job.
import path from 'node:path';
import pino from 'pino';
import { cliConfig, withCliDatabase } from './cli-support.js';
import { createMailer } from '../mailer.js';
import { createAlertsJob } from '../modules/alerts/alerts.service.js';
import { ALERT_MESSAGES } from '../../shared/schemas/alerts.js';

const plural = (n: number, one: string, many: string) => `${n} ${n > 1 ? many : one}`;

async function main(): Promise<number> {
  if (process.argv.length > 2) {
    console.error('Usage : npm run alerts');
    return 1;
  }
  const config = cliConfig();
  if (!config) return 2;
  const log = pino({ level: config.LOG_LEVEL });
  return withCliDatabase(config, async (handle) => {
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
  });
}

process.exitCode = await main();
