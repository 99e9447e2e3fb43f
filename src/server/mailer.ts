// Outgoing mail: SMTP when SMTP_URL is set, otherwise each message is written as an
// RFC 822 .eml file in DATA_DIR/mail (and its subject logged). Log lines name a recipient by
// its domain and a short hash only (enough to follow one address through the log), never by
// the address itself; a mail whose recipient was promised erasure (`erase`) leaves no trace of
// the address: its log line names the domain only, and its .eml copy has the address replaced.
// Attachments travel in both modes: the .eml file holds them as MIME parts, as SMTP would.
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import nodemailer from 'nodemailer';
import type { FastifyBaseLogger } from 'fastify';

export interface Mail {
  to: string;
  subject: string;
  text: string;
  html?: string;
  /** Extra header lines (e.g. List-Unsubscribe), passed as they are to nodemailer. */
  headers?: Record<string, string>;
  /** Files sent with the message (an .ics invitation), as parts of a multipart/mixed message. */
  attachments?: MailAttachment[];
  /**
   * The recipient was promised erasure once this message leaves (the anonymous reporter):
   * no copy of it is kept anywhere (see the mailer's file mode).
   */
  erase?: boolean;
}

export interface MailAttachment {
  /** The name the recipient's mail program shows and saves it under. */
  filename: string;
  content: string | Buffer;
  /** MIME type, with its parameters (e.g. 'text/calendar; charset=utf-8; method=PUBLISH'). */
  contentType: string;
}

export interface Mailer {
  send(mail: Mail): Promise<void>;
}

/** What stands for an erased address in the file copy of its mail (a reserved domain, RFC 2606). */
export const ERASED_RECIPIENT = 'adresse-effacee@invalid';

/** The first 12 hex digits of the SHA-256 of the address, lower-cased: the same address, the same tag. */
export function recipientHash(address: string): string {
  return crypto.createHash('sha256').update(address.trim().toLowerCase()).digest('hex').slice(0, 12);
}

/** How a log line names the recipient: its domain, plus its hash unless it is to be erased. */
export function recipientForLog(mail: Mail): { toDomain: string; toHash?: string } {
  const toDomain = mail.to.slice(mail.to.lastIndexOf('@') + 1).toLowerCase();
  return mail.erase ? { toDomain } : { toDomain, toHash: recipientHash(mail.to) };
}

/** The message as nodemailer takes it: `erase` is ours, not one of its options. */
function message(from: string, { erase: _erase, ...mail }: Mail) {
  return { from, ...mail };
}

/** The mail with every occurrence of its recipient's address replaced (the file copy of an erased one). */
function withoutAddress(mail: Mail): Mail {
  const out = (s: string) => s.split(mail.to).join(ERASED_RECIPIENT);
  const headers = mail.headers && Object.fromEntries(Object.entries(mail.headers).map(([k, v]) => [k, out(v)]));
  const attachments = mail.attachments?.map((a) => ({ ...a, content: typeof a.content === 'string' ? out(a.content) : a.content }));
  return { ...mail, to: ERASED_RECIPIENT, subject: out(mail.subject), text: out(mail.text), html: mail.html && out(mail.html), headers, attachments };
}

const loggedSubject = (mail: Mail) => (mail.erase ? withoutAddress(mail).subject : mail.subject);

export function createMailer(opts: { smtpUrl?: string; mailDir: string; from: string; log: FastifyBaseLogger }): Mailer {
  if (opts.smtpUrl) {
    const transport = nodemailer.createTransport(opts.smtpUrl);
    return {
      async send(mail) {
        try {
          await transport.sendMail(message(opts.from, mail));
        } catch (e) {
          // The SMTP server's refusal quotes the address (and nodemailer lists it): whoever logs
          // this error must not write down an address promised to be erased.
          if (mail.erase) throw new Error(`SMTP : envoi refusé (${(e as Error).message.split(mail.to).join(ERASED_RECIPIENT)})`);
          throw e;
        }
        opts.log.info({ ...recipientForLog(mail), subject: loggedSubject(mail) }, 'Mail envoyé');
      },
    };
  }
  const transport = nodemailer.createTransport({ streamTransport: true, buffer: true, newline: 'unix' });
  return {
    async send(mail) {
      const info = await transport.sendMail(message(opts.from, mail.erase ? withoutAddress(mail) : mail));
      fs.mkdirSync(opts.mailDir, { recursive: true });
      const stamp = new Date().toISOString().replace(/[:.]/g, '-');
      const tag = mail.erase ? 'efface' : recipientHash(mail.to);
      const file = path.join(opts.mailDir, `${stamp}-${tag}-${Math.random().toString(36).slice(2, 8)}.eml`);
      fs.writeFileSync(file, info.message as Buffer);
      opts.log.info({ ...recipientForLog(mail), subject: loggedSubject(mail), file }, 'Mail écrit dans un fichier');
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
