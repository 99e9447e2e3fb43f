// The daily digest of new alerts, in French: plain text and an HTML twin, the lines grouped by
// site, each with a link to the screen where its cause is dealt with, a link to the person's
// preferences (a kind can be turned off) and a List-Unsubscribe header pointing there.
import type { Mail } from '../../mailer.js';
import { formatParisDate } from '../../../shared/dates.js';

/** Most lines a digest lists; the rest are on the 'Alertes' page it links to. */
export const DIGEST_MAX_LINES = 100;
export const PREFERENCES_PATH = '/admin/alertes/preferences';
export const ALERTS_PATH = '/admin/alertes';

export interface DigestLineInput {
  siteId: number;
  site: string;
  code: string;
  ville: string;
  libelle: string;
  message: string;
  /** Path of the screen, under the public URL. */
  path: string;
}

/** A digest is a Mail with the List-Unsubscribe header (the mailer hands every field to nodemailer). */
export type DigestMail = Mail & { headers: Record<string, string> };

function escapeHtml(v: string): string {
  return v.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);
}

export function digestSubject(appName: string, total: number): string {
  return `[${appName}] ${total === 1 ? '1 nouvelle alerte' : `${total} nouvelles alertes`}`;
}

export function digestMail(opts: {
  appName: string;
  publicUrl: string;
  to: string;
  nom: string;
  prenom: string | null;
  day: Date;
  total: number;
  lines: DigestLineInput[];
}): DigestMail {
  const name = [opts.prenom, opts.nom].filter(Boolean).join(' ');
  const greeting = name ? `Bonjour ${name},` : 'Bonjour,';
  const intro =
    opts.total === 1
      ? `Une nouvelle alerte concerne les sites que vous suivez (${formatParisDate(opts.day)}) :`
      : `${opts.total} nouvelles alertes concernent les sites que vous suivez (${formatParisDate(opts.day)}) :`;
  const url = (p: string) => `${opts.publicUrl}${p}`;
  const bySite = new Map<number, DigestLineInput[]>();
  for (const l of opts.lines) bySite.set(l.siteId, [...(bySite.get(l.siteId) ?? []), l]);
  const more = opts.total - opts.lines.length;
  const alertsUrl = url(ALERTS_PATH);
  const preferencesUrl = url(PREFERENCES_PATH);

  const text: string[] = [greeting, '', intro];
  const html: string[] = [`<p>${escapeHtml(greeting)}</p>`, `<p>${escapeHtml(intro)}</p>`];
  for (const lines of bySite.values()) {
    const heading = `${lines[0].site} (${lines[0].code}, ${lines[0].ville})`;
    text.push('', heading);
    html.push(`<h3>${escapeHtml(heading)}</h3>`, '<ul>');
    for (const l of lines) {
      text.push(`- ${l.libelle} : ${l.message}`, `  ${url(l.path)}`);
      html.push(`<li><strong>${escapeHtml(l.libelle)}</strong> : ${escapeHtml(l.message)} — <a href="${escapeHtml(url(l.path))}">Ouvrir</a></li>`);
    }
    html.push('</ul>');
  }
  if (more > 0) {
    const rest = more === 1 ? 'Une autre alerte est' : `${more} autres alertes sont`;
    text.push('', `${rest} sur la page Alertes : ${alertsUrl}`);
    html.push(`<p>${escapeHtml(rest)} sur la page <a href="${escapeHtml(alertsUrl)}">Alertes</a>.</p>`);
  }
  const footer = `Vous recevez ce message au plus une fois par jour, quand de nouvelles alertes vous concernent. Pour choisir les alertes reçues par e-mail : ${preferencesUrl}`;
  text.push('', `Toutes les alertes ouvertes : ${alertsUrl}`, '', footer, '', `L’équipe ${opts.appName}`);
  html.push(
    `<p>Toutes les alertes ouvertes : <a href="${escapeHtml(alertsUrl)}">${escapeHtml(alertsUrl)}</a></p>`,
    `<p><small>Vous recevez ce message au plus une fois par jour, quand de nouvelles alertes vous concernent. <a href="${escapeHtml(preferencesUrl)}">Choisir les alertes reçues par e-mail</a></small></p>`,
    `<p>L’équipe ${escapeHtml(opts.appName)}</p>`,
  );
  return {
    to: opts.to,
    subject: digestSubject(opts.appName, opts.total),
    text: `${text.join('\n')}\n`,
    html: `<!doctype html>\n<html lang="fr"><body>\n${html.join('\n')}\n</body></html>\n`,
    headers: { 'List-Unsubscribe': `<${preferencesUrl}>` },
  };
}
