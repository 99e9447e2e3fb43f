// The e-mails of the permanences, in French, plain text with an HTML twin:
// - the reminder of the day before to each opener, with the opening as an .ics invitation;
// - the cancellation of an opening, to its openers and to the site's households who take the
//   news (theirs carry the leave link and the one-click unsubscribe headers, RFC 8058).
import type { Mail } from '../../mailer.js';
import { escapeHtml } from '../../html.js';
import { ICS_CONTENT_TYPE } from './permanences.ics.js';

const DAY = new Intl.DateTimeFormat('fr-FR', { timeZone: 'Europe/Paris', weekday: 'long', day: 'numeric', month: 'long', year: 'numeric' });
const TIME = new Intl.DateTimeFormat('fr-FR', { timeZone: 'Europe/Paris', hour: '2-digit', minute: '2-digit', hourCycle: 'h23' });

/** 'samedi 28 novembre 2026, de 17:00 à 19:00' (Paris time). */
export function openingWhen(debut: Date, fin: Date): string {
  const sameDay = DAY.format(debut) === DAY.format(fin);
  return sameDay
    ? `${DAY.format(debut)}, de ${TIME.format(debut)} à ${TIME.format(fin)}`
    : `du ${DAY.format(debut)} à ${TIME.format(debut)} au ${DAY.format(fin)} à ${TIME.format(fin)}`;
}

function html(paragraphs: readonly string[]): string {
  return `<!doctype html>\n<html lang="fr"><body>\n${paragraphs.map((p) => `<p>${escapeHtml(p).replace(/\n/g, '<br>')}</p>`).join('\n')}\n</body></html>\n`;
}

function mail(to: string, subject: string, paragraphs: readonly string[]): Mail {
  return { to, subject, text: `${paragraphs.join('\n\n')}\n`, html: html(paragraphs) };
}

const greeting = (prenom: string | null) => (prenom ? `Bonjour ${prenom},` : 'Bonjour,');

export interface OpeningFacts {
  appName: string;
  site: string;
  address: string;
  debut: Date;
  fin: Date;
  titre: string | null;
}

export function reminderMail(o: OpeningFacts & { to: string; prenom: string | null; message: string | null; siteSheetUrl: string; ics: string }): Mail {
  const paragraphs = [
    greeting(o.prenom),
    `Vous tenez demain la permanence du site « ${o.site} »${o.titre ? ` (${o.titre})` : ''} : ${openingWhen(o.debut, o.fin)}.`,
    `Adresse : ${o.address}`,
    ...(o.message ? [`Message des référents : ${o.message}`] : []),
    'L’invitation jointe ajoute la permanence à votre agenda. Après la permanence, saisissez son bilan (foyers reçus, seaux, kilos) depuis la fiche du site :',
    o.siteSheetUrl,
    `L’équipe ${o.appName}`,
  ];
  return {
    ...mail(o.to, `[${o.appName}] Rappel : permanence demain au site ${o.site}`, paragraphs),
    attachments: [{ filename: 'permanence.ics', content: o.ics, contentType: `${ICS_CONTENT_TYPE}; method=PUBLISH` }],
  };
}

export function cancelledSubject(appName: string, site: string): string {
  return `[${appName}] Permanence annulée au site ${site}`;
}

export function cancelledOpenerMail(o: OpeningFacts & { to: string; prenom: string | null; motif: string }): Mail {
  return mail(o.to, cancelledSubject(o.appName, o.site), [
    greeting(o.prenom),
    `La permanence du site « ${o.site} »${o.titre ? ` (${o.titre})` : ''} que vous deviez tenir ${openingWhen(o.debut, o.fin)} est annulée.`,
    `Motif : ${o.motif}`,
    `L’équipe ${o.appName}`,
  ]);
}

export function cancelledHouseholdMail(
  o: OpeningFacts & { to: string; prenom: string | null; motif: string; leaveUrl: string; unsubscribeUrl: string; headers: Record<string, string> },
): Mail {
  return {
    ...mail(o.to, cancelledSubject(o.appName, o.site), [
      greeting(o.prenom),
      `La permanence du site de compostage « ${o.site} »${o.titre ? ` (${o.titre})` : ''} prévue ${openingWhen(o.debut, o.fin)} est annulée.`,
      `Motif : ${o.motif}`,
      `Adresse du site : ${o.address}`,
      'Vous recevez ce message parce que votre foyer composte sur ce site et reçoit ses nouvelles.',
      `Ne plus recevoir les nouvelles du site : ${o.unsubscribeUrl}`,
      `Quitter le site (vos données sont alors supprimées) : ${o.leaveUrl}`,
      `L’équipe ${o.appName}`,
    ]),
    headers: o.headers,
  };
}
