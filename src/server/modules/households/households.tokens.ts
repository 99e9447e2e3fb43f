// The signed tokens of a household's links (leave the site, stop the news). A token is the
// household's id and an HMAC of it and of what the link does, under the key the alert digests'
// one-click links are signed with (migration 027): the links need no login and no row per
// e-mail, one cannot be made for another household, and a leave token does not unsubscribe (nor
// the reverse). A household's id is never given again, so once its record is deleted the token
// leads nowhere.
import crypto from 'node:crypto';
import { sql } from 'kysely';
import type { Db } from '../../db/client.js';

export type FoyerLinkPurpose = 'quitter' | 'desabonner';

/** Decimal household id, a dot, 43 characters of base64url (256 bits). */
const TOKEN = /^[1-9]\d{0,9}\.[A-Za-z0-9_-]{43}$/;

const mac = (key: string, purpose: FoyerLinkPurpose, foyerId: number) => crypto.createHmac('sha256', key).update(`foyer-${purpose}:${foyerId}`).digest('base64url');

export function foyerToken(key: string, purpose: FoyerLinkPurpose, foyerId: number): string {
  return `${foyerId}.${mac(key, purpose, foyerId)}`;
}

/** The household a token was made for (with this key, for this purpose), or null. */
export function foyerFromToken(key: string, purpose: FoyerLinkPurpose, token: string): number | null {
  if (!TOKEN.test(token)) return null;
  const [id, signature] = token.split('.');
  const foyerId = Number(id);
  if (foyerId > 2147483647) return null;
  const expected = Buffer.from(mac(key, purpose, foyerId));
  const given = Buffer.from(signature);
  return given.length === expected.length && crypto.timingSafeEqual(given, expected) ? foyerId : null;
}

/** The signing key (drawn once by migration 027; no secret of this module's own). */
export async function linkKey(db: Db): Promise<string> {
  const r = await sql<{ secret: string }>`SELECT secret FROM alerte_cle WHERE id = 1`.execute(db);
  return r.rows[0].secret;
}

export const LEAVE_PAGE = '/foyer/quitter';
export const UNSUBSCRIBE_ENDPOINT = '/api/public/foyer/desabonner';

/** The links a household's mails carry, and the RFC 8058 headers of a news mail. */
export function foyerLinks(publicUrl: string, key: string, foyerId: number) {
  const leaveUrl = `${publicUrl}${LEAVE_PAGE}?jeton=${encodeURIComponent(foyerToken(key, 'quitter', foyerId))}`;
  const unsubscribeUrl = `${publicUrl}${UNSUBSCRIBE_ENDPOINT}?jeton=${encodeURIComponent(foyerToken(key, 'desabonner', foyerId))}`;
  return {
    leaveUrl,
    unsubscribeUrl,
    headers: { 'List-Unsubscribe': `<${unsubscribeUrl}>`, 'List-Unsubscribe-Post': 'List-Unsubscribe=One-Click' } as Record<string, string>,
  };
}
