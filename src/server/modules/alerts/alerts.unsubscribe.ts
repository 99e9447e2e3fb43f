// One-click unsubscribe from the alert digests (RFC 8058). A digest carries the link
// /api/alerte/desabonnement/{token}; the token is the account id and an HMAC of it under the
// key of migration 027, so the link needs no login and no row per e-mail, and one cannot be
// made for another account. A POST to it turns the person's digest off (every kind in their
// preferences); a GET, which mail clients and link scanners may send, changes nothing and shows
// a small page whose button makes that POST.
import crypto from 'node:crypto';
import { escapeHtml } from '../../html.js';

export const UNSUBSCRIBE_PATH = '/api/alerte/desabonnement';

/** The shape of a token: decimal account id, a dot, 43 characters of base64url (256 bits). */
export const UNSUBSCRIBE_TOKEN = /^[1-9]\d{0,9}\.[A-Za-z0-9_-]{43}$/;

const mac = (key: string, accountId: number) => crypto.createHmac('sha256', key).update(`alerte-desabonnement:${accountId}`).digest('base64url');

export function unsubscribeToken(key: string, accountId: number): string {
  return `${accountId}.${mac(key, accountId)}`;
}

/** The account a token was made for, or null when it was not made with this key. */
export function unsubscribeAccount(key: string, token: string): number | null {
  if (!UNSUBSCRIBE_TOKEN.test(token)) return null;
  const [id, signature] = token.split('.');
  const accountId = Number(id);
  if (accountId > 2147483647) return null;
  const expected = Buffer.from(mac(key, accountId));
  const given = Buffer.from(signature);
  return given.length === expected.length && crypto.timingSafeEqual(given, expected) ? accountId : null;
}

/** A small French page: what a browser shows on the link, before and after the POST. */
export function unsubscribePage(opts: { appName: string; title: string; lines: string[]; form?: { button: string }; link?: { href: string; label: string } }): string {
  const body = [
    `<h1>${escapeHtml(opts.title)}</h1>`,
    ...opts.lines.map((l) => `<p>${escapeHtml(l)}</p>`),
    ...(opts.form
      ? [
          // No action: the form posts back to the link itself.
          '<form method="post">',
          '<input type="hidden" name="List-Unsubscribe" value="One-Click">',
          `<button type="submit">${escapeHtml(opts.form.button)}</button>`,
          '</form>',
        ]
      : []),
    ...(opts.link ? [`<p><a href="${escapeHtml(opts.link.href)}">${escapeHtml(opts.link.label)}</a></p>`] : []),
  ];
  return `<!doctype html>\n<html lang="fr"><head><meta charset="utf-8"><title>${escapeHtml(`${opts.title} - ${opts.appName}`)}</title></head><body>\n${body.join('\n')}\n</body></html>\n`;
}
