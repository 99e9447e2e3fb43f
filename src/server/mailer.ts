// Outgoing mail: SMTP when SMTP_URL is set, otherwise each message is written as an
// RFC 822 .eml file in DATA_DIR/mail (and its subject and recipient logged).
import fs from 'node:fs';
import path from 'node:path';
import nodemailer from 'nodemailer';
import type { FastifyBaseLogger } from 'fastify';

export interface Mail {
  to: string;
  subject: string;
  text: string;
  html?: string;
}

export interface Mailer {
  send(mail: Mail): Promise<void>;
}

export function createMailer(opts: { smtpUrl?: string; mailDir: string; from: string; log: FastifyBaseLogger }): Mailer {
  if (opts.smtpUrl) {
    const transport = nodemailer.createTransport(opts.smtpUrl);
    return {
      async send(mail) {
        await transport.sendMail({ from: opts.from, ...mail });
        opts.log.info({ to: mail.to, subject: mail.subject }, 'Mail envoyé');
      },
    };
  }
  const transport = nodemailer.createTransport({ streamTransport: true, buffer: true, newline: 'unix' });
  return {
    async send(mail) {
      const info = await transport.sendMail({ from: opts.from, ...mail });
      fs.mkdirSync(opts.mailDir, { recursive: true });
      const stamp = new Date().toISOString().replace(/[:.]/g, '-');
      const safeTo = mail.to.replace(/[^a-zA-Z0-9@._-]/g, '_');
      const file = path.join(opts.mailDir, `${stamp}-${safeTo}-${Math.random().toString(36).slice(2, 8)}.eml`);
      fs.writeFileSync(file, info.message as Buffer);
      opts.log.info({ to: mail.to, subject: mail.subject, file }, 'Mail écrit dans un fichier');
    },
  };
}

/** Test double: keeps the messages in memory. */
export function createMemoryMailer(): Mailer & { sent: Mail[] } {
  const sent: Mail[] = [];
  return {
    sent,
    async send(mail) {
      sent.push(mail);
    },
  };
}
