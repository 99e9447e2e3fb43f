// The mails a household receives: the welcome after 'Je composte ici' (when it left an e-mail),
// and the site's news. Each carries the link to leave the site (its record is then deleted) and
// the one-click unsubscribe headers (RFC 8058), so that the mail client offers 'Se désabonner'
// without a login. Plain text first, with a simple HTML twin, like the other e-mails.
import type { Mail } from '../../mailer.js';
import { escapeHtml } from '../../html.js';
import type { HouseholdRecipient } from './public.js';

type Links = Pick<HouseholdRecipient, 'leaveUrl' | 'unsubscribeUrl' | 'headers'>;

export const WELCOME_SUBJECT = 'Votre inscription sur un site de compostage';

/** A paragraph is text, or text ending with a link. */
type Paragraph = string | { text: string; href: string };

function render(paragraphs: Paragraph[]) {
  const text = paragraphs.map((p) => (typeof p === 'string' ? p : `${p.text}\n${p.href}`)).join('\n\n');
  const html = paragraphs
    .map((p) => (typeof p === 'string' ? `<p>${escapeHtml(p).replace(/\n/g, '<br>')}</p>` : `<p>${escapeHtml(p.text)}<br><a href="${escapeHtml(p.href)}">${escapeHtml(p.href)}</a></p>`))
    .join('\n');
  return { text: `${text}\n`, html: `<!doctype html>\n<html lang="fr"><body>\n${html}\n</body></html>\n` };
}

function footer(m: { appName: string; contact: string } & Links): Paragraph[] {
  return [
    { text: 'Pour ne plus recevoir les nouvelles du site :', href: m.unsubscribeUrl },
    { text: 'Pour quitter le site (vos données seront supprimées) :', href: m.leaveUrl },
    `Pour toute question : ${m.contact}`,
    `L’équipe ${m.appName}`,
  ];
}

export function welcomeMail(m: { appName: string; contact: string; to: string; prenom: string | null; site: string } & Links): Mail {
  return {
    to: m.to,
    subject: WELCOME_SUBJECT,
    headers: m.headers,
    ...render([
      m.prenom ? `Bonjour ${m.prenom},` : 'Bonjour,',
      `Merci d’avoir inscrit votre foyer sur le site de compostage « ${m.site} ». Les référents du site confirmeront votre inscription.`,
      'Votre adresse mail ne sert qu’à vous envoyer les nouvelles du site (une ouverture annulée, une information des référents). Elle n’est visible que des référents du site et des administrateurs du programme.',
      ...footer(m),
    ]),
  };
}

export function newsMail(m: { appName: string; contact: string; to: string; prenom: string | null; site: string; sujet: string; texte: string } & Links): Mail {
  return {
    to: m.to,
    // A subject is one line: a newline typed in the news' subject must not reach the header.
    subject: `${m.site} : ${m.sujet}`.replace(/\s+/g, ' '),
    headers: m.headers,
    ...render([m.prenom ? `Bonjour ${m.prenom},` : 'Bonjour,', `Les référents du site de compostage « ${m.site} » vous écrivent :`, m.texte, ...footer(m)]),
  };
}
