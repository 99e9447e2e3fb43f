// The daily digest of new alerts, in French: plain text and an HTML twin, one line per site and
// kind (a count when several cells or requests share it), the sites in order, each line with a
// link to the screen where its cause is dealt with, a link to the person's preferences (a kind
// can be turned off) and the one-click unsubscribe headers (RFC 8058).
import type { Mail } from '../../mailer.js';
import { formatParisDate } from '../../../shared/dates.js';
import { REQUEST_ALERT_KINDS, type AlertKind } from '../../../shared/schemas/alerts.js';
import { escapeHtml } from '../../html.js';

/** Most lines a digest lists; the rest are on the 'Alertes' page it links to. */
export const DIGEST_MAX_LINES = 100;
export const PREFERENCES_PATH = '/admin/alertes/preferences';
export const ALERTS_PATH = '/admin/alertes';

/** The kinds whose alerts are each about one cell: several on a site make one line "n cellules". */
const CELL_KINDS: readonly AlertKind[] = ['no_reading', 'temperature_high', 'temperature_low'];

export interface DigestLineInput {
  siteId: number;
  site: string;
  kind: AlertKind;
  libelle: string;
  /** How many alerts of this kind the site has; the message is shown when there is one. */
  nb: number;
  message: string;
  /** Path of the screen, under the public URL. */
  path: string;
}

/** A digest is a Mail with the List-Unsubscribe headers. */
export type DigestMail = Mail & { headers: Record<string, string> };

export function digestSubject(appName: string, total: number): string {
  return `[${appName}] ${total === 1 ? '1 nouvelle alerte' : `${total} nouvelles alertes`}`;
}

/** What a line says after the kind: the alert's message, or how many cells or requests share it. */
function detail(l: DigestLineInput): string {
  if (l.nb === 1) return l.message;
  if (CELL_KINDS.includes(l.kind)) return `${l.nb} cellules`;
  if (REQUEST_ALERT_KINDS.includes(l.kind)) return `${l.nb} demandes`;
  return `${l.nb} alertes`;
}

export function digestMail(opts: {
  appName: string;
  publicUrl: string;
  to: string;
  nom: string;
  prenom: string | null;
  day: Date;
  total: number;
  /** Sorted by site. */
  lines: DigestLineInput[];
  /** The person's one-click unsubscribe URL. */
  unsubscribeUrl: string;
}): DigestMail {
  const name = [opts.prenom, opts.nom].filter(Boolean).join(' ');
  const greeting = name ? `Bonjour ${name},` : 'Bonjour,';
  const intro =
    opts.total === 1
      ? `Une nouvelle alerte concerne les sites que vous suivez (${formatParisDate(opts.day)}) :`
      : `${opts.total} nouvelles alertes concernent les sites que vous suivez (${formatParisDate(opts.day)}) :`;
  const url = (p: string) => `${opts.publicUrl}${p}`;
  const more = opts.total - opts.lines.reduce((n, l) => n + l.nb, 0);
  const alertsUrl = url(ALERTS_PATH);
  const preferencesUrl = url(PREFERENCES_PATH);

  const text: string[] = [greeting, '', intro, ''];
  const html: string[] = [`<p>${escapeHtml(greeting)}</p>`, `<p>${escapeHtml(intro)}</p>`, '<ul>'];
  for (const l of opts.lines) {
    text.push(`- ${l.site} — ${l.libelle} : ${detail(l)}`, `  ${url(l.path)}`);
    html.push(`<li><strong>${escapeHtml(l.site)}</strong> — ${escapeHtml(l.libelle)} : ${escapeHtml(detail(l))} — <a href="${escapeHtml(url(l.path))}">Ouvrir</a></li>`);
  }
  html.push('</ul>');
  if (more > 0) {
    const rest = more === 1 ? 'Une autre alerte est' : `${more} autres alertes sont`;
    text.push('', `${rest} sur la page Alertes : ${alertsUrl}`);
    html.push(`<p>${escapeHtml(rest)} sur la page <a href="${escapeHtml(alertsUrl)}">Alertes</a>.</p>`);
  }
  const footer = 'Vous recevez ce message au plus une fois par jour, quand de nouvelles alertes vous concernent.';
  text.push(
    '',
    `Toutes les alertes ouvertes : ${alertsUrl}`,
    '',
    footer,
    `Pour choisir les alertes reçues par e-mail : ${preferencesUrl}`,
    `Pour ne plus recevoir ce résumé : ${opts.unsubscribeUrl}`,
    '',
    `L’équipe ${opts.appName}`,
  );
  html.push(
    `<p>Toutes les alertes ouvertes : <a href="${escapeHtml(alertsUrl)}">${escapeHtml(alertsUrl)}</a></p>`,
    `<p><small>${escapeHtml(footer)} <a href="${escapeHtml(preferencesUrl)}">Choisir les alertes reçues par e-mail</a> · <a href="${escapeHtml(opts.unsubscribeUrl)}">Ne plus recevoir ce résumé</a></small></p>`,
    `<p>L’équipe ${escapeHtml(opts.appName)}</p>`,
  );
  return {
    to: opts.to,
    subject: digestSubject(opts.appName, opts.total),
    text: `${text.join('\n')}\n`,
    html: `<!doctype html>\n<html lang="fr"><body>\n${html.join('\n')}\n</body></html>\n`,
    headers: { 'List-Unsubscribe': `<${opts.unsubscribeUrl}>`, 'List-Unsubscribe-Post': 'List-Unsubscribe=One-Click' },
  };
}
