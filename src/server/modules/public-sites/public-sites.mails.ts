// The one message a reporter who left an e-mail receives, when their report is handled:
// turned into an intervention request, or filed with a reason. Plain text first, with a
// simple HTML twin, like the account e-mails.
import type { Mail } from '../../mailer.js';
import { formatParisDate } from '../../../shared/dates.js';
import { escapeHtml } from '../../html.js';

export const REPORT_HANDLED_SUBJECT = 'Votre signalement sur un site de compostage';

export interface ReportHandledMail {
  appName: string;
  contact: string;
  to: string;
  /** The site's name, or its code. */
  site: string;
  reportedAt: Date;
  outcome: { kind: 'transforme'; action: string; dueDay: string } | { kind: 'classe'; motif: string };
}

export function reportHandledMail(m: ReportHandledMail): Mail {
  const [y, mo, d] = m.outcome.kind === 'transforme' ? m.outcome.dueDay.split('-') : [];
  const paragraphs = [
    'Bonjour,',
    m.outcome.kind === 'transforme'
      ? `Votre signalement du ${formatParisDate(m.reportedAt)} sur le site de compostage « ${m.site} » a été pris en compte : une intervention (${m.outcome.action}) est prévue d’ici le ${d}/${mo}/${y}.`
      : `Votre signalement du ${formatParisDate(m.reportedAt)} sur le site de compostage « ${m.site} » a été examiné et classé sans intervention. Motif : ${m.outcome.motif}`,
    'Merci de votre vigilance. Votre adresse mail, qui ne servait qu’à vous répondre, a été effacée.',
    `Pour toute question : ${m.contact}`,
    `L’équipe ${m.appName}`,
  ];
  return {
    to: m.to,
    // The reporter was promised erasure: no copy of this message is kept.
    erase: true,
    subject: REPORT_HANDLED_SUBJECT,
    text: `${paragraphs.join('\n\n')}\n`,
    html: `<!doctype html>\n<html lang="fr"><body>\n${paragraphs.map((p) => `<p>${escapeHtml(p)}</p>`).join('\n')}\n</body></html>\n`,
  };
}
