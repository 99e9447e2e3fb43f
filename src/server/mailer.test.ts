import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { FastifyBaseLogger } from 'fastify';
import { ERASED_RECIPIENT, createMailer, recipientHash } from './mailer.js';
import ICAL from 'ical.js';
import { parseEml } from '../../tests/helpers/e2e-mail.js';

const dirs: string[] = [];
afterAll(() => dirs.forEach((d) => fs.rmSync(d, { recursive: true, force: true })));

function recordingLog() {
  const lines: { obj: Record<string, unknown>; msg: string }[] = [];
  const log = { info: (obj: Record<string, unknown>, msg: string) => lines.push({ obj, msg }) } as unknown as FastifyBaseLogger;
  return { log, lines };
}

/** The MIME parts of a multipart message: each one's headers (lower-cased names) and decoded body. */
function mimeParts(raw: string): { headers: Record<string, string>; body: string }[] {
  const boundary = /boundary="?([^";\r\n]+)"?/i.exec(raw)?.[1];
  if (!boundary) return [];
  return raw
    .split(`--${boundary}`)
    .slice(1, -1)
    .flatMap((chunk) => {
      const [head, ...rest] = chunk.replace(/^\r?\n/, '').split(/\r?\n\r?\n/);
      const headers = Object.fromEntries(
        head
          .replace(/\r?\n[ \t]+/g, ' ')
          .split(/\r?\n/)
          .filter(Boolean)
          .map((l) => [l.slice(0, l.indexOf(':')).toLowerCase(), l.slice(l.indexOf(':') + 1).trim()]),
      );
      const text = rest.join('\n\n');
      if (/multipart\//i.test(headers['content-type'] ?? '')) return mimeParts(chunk);
      const encoding = (headers['content-transfer-encoding'] ?? '').toLowerCase();
      const body = encoding === 'base64' ? Buffer.from(text.replace(/\s/g, ''), 'base64').toString('utf8') : encoding === 'quoted-printable' ? parseEml(`Content-Transfer-Encoding: quoted-printable\n\n${text}`).body : text;
      return [{ headers, body }];
    });
}

const ICS = ['BEGIN:VCALENDAR', 'VERSION:2.0', 'PRODID:-//Compost//Test//FR', 'METHOD:PUBLISH', 'BEGIN:VEVENT', 'UID:permanence-7@compost.test', 'DTSTAMP:20301026T053000Z', 'DTSTART:20301027T160000Z', 'DTEND:20301027T180000Z', 'SUMMARY:Permanence du site Jardin des Capucins – été', 'END:VEVENT', 'END:VCALENDAR', ''].join('\r\n');

describe('mailer attachments', () => {
  it('writes an attachment as a MIME part of the .eml file, with its name and type, that reads back as it was sent', async () => {
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'compost-mail-'));
    dirs.push(dataDir);
    const mailDir = path.join(dataDir, 'mail');
    const mailer = createMailer({ mailDir, from: 'a@b.fr', log: recordingLog().log });
    await mailer.send({ to: 'anne@exemple.fr', subject: 'Rappel', text: 'Demain.\n', attachments: [{ filename: 'permanence.ics', content: ICS, contentType: 'text/calendar; charset=utf-8; method=PUBLISH' }] });
    const [file] = fs.readdirSync(mailDir);
    const raw = fs.readFileSync(path.join(mailDir, file), 'utf8');
    expect(parseEml(raw).header('Content-Type')).toContain('multipart/mixed');
    const parts = mimeParts(raw);
    expect(parts.map((p) => p.headers['content-type']?.split(';')[0])).toEqual(['text/plain', 'text/calendar']);
    const ics = parts[1];
    expect(ics.headers['content-type']).toContain('method=PUBLISH');
    expect(ics.headers['content-disposition']).toMatch(/attachment; filename="?permanence\.ics"?/);
    expect(ics.body).toBe(ICS);
    const event = new ICAL.Component(ICAL.parse(ics.body)).getFirstSubcomponent('vevent')!;
    expect(String(event.getFirstPropertyValue('summary'))).toBe('Permanence du site Jardin des Capucins – été');
    expect((event.getFirstPropertyValue('dtstart') as ICAL.Time).toJSDate().toISOString()).toBe('2030-10-27T16:00:00.000Z');
  });

  it('leaves no erased address in a text attachment either', async () => {
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'compost-mail-'));
    dirs.push(dataDir);
    const mailDir = path.join(dataDir, 'mail');
    const mailer = createMailer({ mailDir, from: 'a@b.fr', log: recordingLog().log });
    const to = 'jean.reporter@quartier.example.org';
    await mailer.send({ to, subject: 's', text: 't', erase: true, attachments: [{ filename: 'a.txt', content: `pour ${to}`, contentType: 'text/plain; charset=utf-8' }] });
    const raw = fs.readFileSync(path.join(mailDir, fs.readdirSync(mailDir)[0]), 'utf8');
    const parts = mimeParts(raw);
    expect(parts[1].body).toBe(`pour ${ERASED_RECIPIENT}`);
    expect(raw.toLowerCase()).not.toContain('jean.reporter');
  });
});

describe('mailer without SMTP_URL', () => {
  it('writes each message as an RFC 822 .eml file in DATA_DIR/mail and logs its subject and the recipient as domain and hash only', async () => {
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'compost-mail-'));
    dirs.push(dataDir);
    const mailDir = path.join(dataDir, 'mail');
    const { log, lines } = recordingLog();
    const mailer = createMailer({ mailDir, from: 'Compost <no-reply@compost.test>', log });
    await mailer.send({ to: 'anne@exemple.fr', subject: 'Réinitialisation de votre mot de passe', text: 'Bonjour Anne,\n\nhttp://x/reset/abc\n', html: '<p>Bonjour</p>' });
    await mailer.send({ to: 'paul@exemple.fr', subject: 'Validation de votre adresse mail', text: 'Bonjour Paul,\n' });

    const files = fs.readdirSync(mailDir).sort();
    expect(files).toHaveLength(2);
    expect(files.every((f) => f.endsWith('.eml'))).toBe(true);
    // Files are named by the recipient's hash, never its address.
    expect(files.some((f) => f.includes('@'))).toBe(false);
    const raw = fs.readFileSync(path.join(mailDir, files.find((f) => f.includes(recipientHash('anne@exemple.fr')))!), 'utf8');
    const eml = parseEml(raw);
    expect(eml.header('From')).toBe('Compost <no-reply@compost.test>');
    expect(eml.header('To')).toBe('anne@exemple.fr');
    expect(eml.header('Subject')).toBe('Réinitialisation de votre mot de passe');
    expect(eml.header('Date')).not.toBe('');
    expect(eml.header('Message-ID')).toMatch(/^<.+>$/);
    expect(eml.header('Content-Type')).toContain('multipart/alternative');
    expect(eml.body).toContain('http://x/reset/abc');

    expect(lines.map((l) => [l.msg, l.obj.toDomain, l.obj.toHash, l.obj.subject])).toEqual([
      ['Mail écrit dans un fichier', 'exemple.fr', recipientHash('anne@exemple.fr'), 'Réinitialisation de votre mot de passe'],
      ['Mail écrit dans un fichier', 'exemple.fr', recipientHash('paul@exemple.fr'), 'Validation de votre adresse mail'],
    ]);
    // The same address always gives the same hash, whatever its case; another, another.
    expect(recipientHash('Anne@Exemple.fr')).toBe(recipientHash('anne@exemple.fr'));
    expect(recipientHash('anne@exemple.fr')).toMatch(/^[0-9a-f]{12}$/);
    expect(recipientHash('paul@exemple.fr')).not.toBe(recipientHash('anne@exemple.fr'));
    // The log names the message, never its content (links carry tokens) nor the address.
    expect(JSON.stringify(lines)).not.toContain('/reset/abc');
    expect(JSON.stringify(lines)).not.toMatch(/anne|paul/);
  });

  it('keeps an odd recipient from choosing where the file goes', async () => {
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'compost-mail-'));
    dirs.push(dataDir);
    const mailer = createMailer({ mailDir: path.join(dataDir, 'mail'), from: 'a@b.fr', log: recordingLog().log });
    await mailer.send({ to: '../../evil/x@exemple.fr', subject: 's', text: 't' });
    const files = fs.readdirSync(path.join(dataDir, 'mail'));
    expect(files).toHaveLength(1);
    expect(files[0]).not.toContain('/');
    expect(fs.existsSync(path.join(dataDir, 'evil'))).toBe(false);
  });

  it('keeps no copy of an address promised erasure: the file holds a stand-in, the log its domain only', async () => {
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'compost-mail-'));
    dirs.push(dataDir);
    const mailDir = path.join(dataDir, 'mail');
    const { log, lines } = recordingLog();
    const mailer = createMailer({ mailDir, from: 'a@b.fr', log });
    const to = 'Jean.Reporter+x@Quartier.example.org';
    await mailer.send({
      to,
      subject: `Votre signalement (${to})`,
      text: `Bonjour,\nvotre adresse ${to} sera effacée.\nhttp://x/suivi/tok\n`,
      html: `<p>${to}</p>`,
      headers: { 'List-Unsubscribe': `<mailto:desinscription@b.fr?subject=${to}>`, 'X-Compost-Suivi': 'signalement' },
      erase: true,
    });
    const files = fs.readdirSync(mailDir);
    expect(files).toHaveLength(1);
    const raw = fs.readFileSync(path.join(mailDir, files[0]), 'utf8');
    const eml = parseEml(raw);
    // Not the address, in any case or encoding, nor its hash; the message itself is still there.
    for (const text of [files[0], raw, eml.body, eml.header('Subject'), JSON.stringify(lines)]) {
      expect(text.toLowerCase()).not.toContain('jean.reporter');
      expect(text).not.toContain(recipientHash(to));
    }
    expect(eml.header('To')).toBe(ERASED_RECIPIENT);
    expect(eml.header('X-Compost-Suivi')).toBe('signalement');
    expect(eml.body).toContain('http://x/suivi/tok');
    expect(raw).not.toMatch(/erase/i);
    expect(lines.map((l) => [l.msg, l.obj])).toEqual([
      ['Mail écrit dans un fichier', { toDomain: 'quartier.example.org', subject: `Votre signalement (${ERASED_RECIPIENT})`, file: path.join(mailDir, files[0]) }],
    ]);
  });
});

/**
 * A stand-in SMTP server on a free local port that accepts every message and keeps what it
 * was sent (the envelope's recipients and the raw message).
 */
async function smtpServer() {
  const received: { rcpt: string[]; data: string }[] = [];
  const server = net.createServer((socket) => {
    let buffer = '';
    let data: string | null = null;
    let rcpt: string[] = [];
    socket.write('220 test ESMTP\r\n');
    socket.on('data', (chunk) => {
      buffer += chunk.toString('utf8');
      for (;;) {
        if (data !== null) {
          const end = buffer.indexOf('\r\n.\r\n');
          if (end < 0) return;
          received.push({ rcpt, data: data + buffer.slice(0, end) });
          buffer = buffer.slice(end + 5);
          data = null;
          rcpt = [];
          socket.write('250 OK\r\n');
          continue;
        }
        const eol = buffer.indexOf('\r\n');
        if (eol < 0) return;
        const line = buffer.slice(0, eol);
        buffer = buffer.slice(eol + 2);
        const verb = line.slice(0, 4).toUpperCase();
        if (verb === 'EHLO' || verb === 'HELO') socket.write('250 test\r\n');
        else if (verb === 'RCPT' && line.includes('refuse')) socket.write(`550 5.1.1 ${line.slice(8)}: Recipient address rejected\r\n`);
        else if (verb === 'RCPT') {
          rcpt.push(line);
          socket.write('250 OK\r\n');
        } else if (verb === 'DATA') {
          data = '';
          socket.write('354 go\r\n');
        }
        else if (verb === 'QUIT') socket.end('221 bye\r\n');
        else socket.write('250 OK\r\n');
      }
    });
    socket.on('error', () => undefined);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as net.AddressInfo).port;
  return { url: `smtp://127.0.0.1:${port}?ignoreTLS=true`, received, close: () => new Promise((r) => server.close(r)) };
}

describe('mailer with SMTP_URL', () => {
  it('sends the message with its extra headers, and logs the recipient as domain and hash, or domain only when it is to be erased', async () => {
    const smtp = await smtpServer();
    try {
      const { log, lines } = recordingLog();
      const mailDir = path.join(os.tmpdir(), `compost-unused-mail-${process.pid}`);
      const mailer = createMailer({ smtpUrl: smtp.url, mailDir, from: 'a@b.fr', log });
      await mailer.send({ to: 'anne@exemple.fr', subject: 'Alerte', text: 't', headers: { 'List-Unsubscribe': '<https://x/desinscription/tok>' } });
      await mailer.send({ to: 'jean.reporter@quartier.example.org', subject: 'Suivi', text: 'merci', erase: true });
      expect(smtp.received.map((m) => m.rcpt)).toEqual([['RCPT TO:<anne@exemple.fr>'], ['RCPT TO:<jean.reporter@quartier.example.org>']]);
      expect(parseEml(smtp.received[0].data).header('List-Unsubscribe')).toBe('<https://x/desinscription/tok>');
      // `erase` is the mailer's, not a header or an option of the message.
      expect(smtp.received[1].data).not.toMatch(/erase/i);
      expect(lines.map((l) => [l.msg, l.obj])).toEqual([
        ['Mail envoyé', { toDomain: 'exemple.fr', toHash: recipientHash('anne@exemple.fr'), subject: 'Alerte' }],
        ['Mail envoyé', { toDomain: 'quartier.example.org', subject: 'Suivi' }],
      ]);
      expect(fs.existsSync(mailDir)).toBe(false);
    } finally {
      await smtp.close();
    }
  });

  it('sends attachments through SMTP as parts of the message', async () => {
    const smtp = await smtpServer();
    try {
      const mailer = createMailer({ smtpUrl: smtp.url, mailDir: os.tmpdir(), from: 'a@b.fr', log: recordingLog().log });
      await mailer.send({ to: 'anne@exemple.fr', subject: 'Rappel', text: 't', attachments: [{ filename: 'permanence.ics', content: ICS, contentType: 'text/calendar; charset=utf-8; method=PUBLISH' }] });
      const parts = mimeParts(smtp.received[0].data.replace(/^\.\./gm, '.'));
      expect(parts.map((p) => p.headers['content-type']?.split(';')[0])).toEqual(['text/plain', 'text/calendar']);
      expect(parts[1].body.replace(/\r\n/g, '\n')).toBe(ICS.replace(/\r\n/g, '\n'));
    } finally {
      await smtp.close();
    }
  });

  it('fails on a recipient the server refuses, quoting the address unless it was promised erasure', async () => {
    const smtp = await smtpServer();
    try {
      const mailer = createMailer({ smtpUrl: smtp.url, mailDir: os.tmpdir(), from: 'a@b.fr', log: recordingLog().log });
      const plain = await mailer.send({ to: 'refuse.anne@exemple.fr', subject: 's', text: 't' }).catch((e: Error) => e);
      expect((plain as Error).message).toContain('refuse.anne@exemple.fr');
      const erased = await mailer.send({ to: 'refuse.jean@quartier.example.org', subject: 's', text: 't', erase: true }).catch((e: Error) => e);
      expect(erased).toBeInstanceOf(Error);
      expect((erased as Error).message).toContain('Recipient address rejected');
      expect(JSON.stringify({ ...(erased as object), message: (erased as Error).message })).not.toContain('refuse.jean');
    } finally {
      await smtp.close();
    }
  });
});

describe('mailer with SMTP_URL, unreachable', () => {
  it('sends through the server of SMTP_URL and fails when it cannot be reached', async () => {
    const { log, lines } = recordingLog();
    const mailer = createMailer({ smtpUrl: 'smtp://127.0.0.1:1', mailDir: path.join(os.tmpdir(), 'compost-unused-mail'), from: 'a@b.fr', log });
    await expect(mailer.send({ to: 'x@exemple.fr', subject: 's', text: 't' })).rejects.toThrow();
    expect(lines).toEqual([]);
    expect(fs.existsSync(path.join(os.tmpdir(), 'compost-unused-mail'))).toBe(false);
  });
});
