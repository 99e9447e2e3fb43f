import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { FastifyBaseLogger } from 'fastify';
import { createMailer } from './mailer.js';
import { parseEml } from '../../tests/helpers/e2e-mail.js';

const dirs: string[] = [];
afterAll(() => dirs.forEach((d) => fs.rmSync(d, { recursive: true, force: true })));

function recordingLog() {
  const lines: { obj: Record<string, unknown>; msg: string }[] = [];
  const log = { info: (obj: Record<string, unknown>, msg: string) => lines.push({ obj, msg }) } as unknown as FastifyBaseLogger;
  return { log, lines };
}

describe('mailer without SMTP_URL', () => {
  it('writes each message as an RFC 822 .eml file in DATA_DIR/mail and logs its subject and recipient', async () => {
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
    const raw = fs.readFileSync(path.join(mailDir, files.find((f) => f.includes('anne@exemple.fr'))!), 'utf8');
    const eml = parseEml(raw);
    expect(eml.header('From')).toBe('Compost <no-reply@compost.test>');
    expect(eml.header('To')).toBe('anne@exemple.fr');
    expect(eml.header('Subject')).toBe('Réinitialisation de votre mot de passe');
    expect(eml.header('Date')).not.toBe('');
    expect(eml.header('Message-ID')).toMatch(/^<.+>$/);
    expect(eml.header('Content-Type')).toContain('multipart/alternative');
    expect(eml.body).toContain('http://x/reset/abc');

    expect(lines.map((l) => [l.msg, l.obj.to, l.obj.subject])).toEqual([
      ['Mail écrit dans un fichier', 'anne@exemple.fr', 'Réinitialisation de votre mot de passe'],
      ['Mail écrit dans un fichier', 'paul@exemple.fr', 'Validation de votre adresse mail'],
    ]);
    // The log names the message, never its content (links carry tokens).
    expect(JSON.stringify(lines)).not.toContain('/reset/abc');
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
});

describe('mailer with SMTP_URL', () => {
  it('sends through the server of SMTP_URL and fails when it cannot be reached', async () => {
    const { log, lines } = recordingLog();
    const mailer = createMailer({ smtpUrl: 'smtp://127.0.0.1:1', mailDir: path.join(os.tmpdir(), 'compost-unused-mail'), from: 'a@b.fr', log });
    await expect(mailer.send({ to: 'x@exemple.fr', subject: 's', text: 't' })).rejects.toThrow();
    expect(lines).toEqual([]);
    expect(fs.existsSync(path.join(os.tmpdir(), 'compost-unused-mail'))).toBe(false);
  });
});
