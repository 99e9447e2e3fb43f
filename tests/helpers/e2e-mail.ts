// Reads the .eml files this worker's e2e server wrote (no SMTP_URL: DATA_DIR/mail).
import fs from 'node:fs';
import path from 'node:path';
import { e2eWorkerDataDir } from './e2e-test.js';

export interface SavedMail {
  file: string;
  to: string;
  subject: string;
  body: string;
}

function decodeQuotedPrintable(s: string) {
  const bytes: number[] = [];
  const soft = s.replace(/=\r?\n/g, '');
  for (let i = 0; i < soft.length; i++) {
    if (soft[i] === '=' && /^[0-9A-F]{2}$/i.test(soft.slice(i + 1, i + 3))) {
      bytes.push(parseInt(soft.slice(i + 1, i + 3), 16));
      i += 2;
    } else bytes.push(...Buffer.from(soft[i], 'utf8'));
  }
  return Buffer.from(bytes).toString('utf8');
}

function decodeHeader(v: string) {
  return v.replace(/=\?utf-8\?([BQ])\?([^?]*)\?=/gi, (_m, enc: string, text: string) =>
    enc.toUpperCase() === 'B' ? Buffer.from(text, 'base64').toString('utf8') : decodeQuotedPrintable(text.replace(/_/g, ' ')),
  );
}

/** Headers (unfolded, encoded words decoded) and text body of an RFC 822 message. */
export function parseEml(raw: string): { header: (name: string) => string; body: string } {
  const [head, ...rest] = raw.split(/\r?\n\r?\n/);
  const unfolded = head.replace(/\r?\n[ \t]+/g, ' ');
  // Adjacent encoded words are joined without the folding space (RFC 2047, section 6.2).
  const header = (name: string) => decodeHeader((unfolded.match(new RegExp(`^${name}: (.*)$`, 'im'))?.[1] ?? '').replace(/\?=\s+=\?/g, '?==?'));
  const bodyRaw = rest.join('\n\n');
  const body = /quoted-printable/i.test(raw) ? decodeQuotedPrintable(bodyRaw) : /base64/i.test(head) ? Buffer.from(bodyRaw.replace(/\s/g, ''), 'base64').toString('utf8') : bodyRaw;
  return { header, body };
}

export function readMails(to?: string): SavedMail[] {
  const dir = path.join(e2eWorkerDataDir(), 'mail');
  if (!fs.existsSync(dir)) return [];
  return fs
    .readdirSync(dir)
    .filter((f) => f.endsWith('.eml'))
    .sort()
    .map((f) => {
      const { header, body } = parseEml(fs.readFileSync(path.join(dir, f), 'utf8'));
      return { file: f, to: header('To'), subject: header('Subject'), body };
    })
    .filter((m) => !to || m.to.includes(to));
}

/** The first link of the newest mail to `to` whose path contains `pathPart`. */
export function linkFrom(to: string, pathPart: string): string {
  const mails = readMails(to).reverse();
  for (const m of mails) {
    const link = m.body.match(new RegExp(`https?://[^\\s"<>]*${pathPart}[^\\s"<>]*`))?.[0];
    if (link) return link;
  }
  throw new Error(`no mail to ${to} with a link containing ${pathPart}`);
}
