// What other modules may use of the permanences module:
// - the daily alerts job: the causes of 'permanence_sans_ouvreur' (an opening, not cancelled,
//   starting by the day after tomorrow in Paris, that nobody holds yet) and the reminders of the
//   day before, each opener once, with the opening as an .ics invitation;
// - the public page of a site: its next openings, without any person or message.
import type { FastifyBaseLogger } from 'fastify';
import type { Db } from '../../db/client.js';
import type { Mailer } from '../../mailer.js';
import type { PublicPermanence } from '../../../shared/schemas/permanences.js';
import { formatParisDateTime } from '../../../shared/dates.js';
import { createPermanencesRepository } from './permanences.repository.js';
import { addDays, parisDay } from '../../../shared/paris-time.js';
import { permanencesCalendar, siteAddress, siteName } from './permanences.ics.js';
import { reminderMail } from './permanences.mails.js';

/** An opening with no opener raises its alert this many Paris days ahead (2: by the day after tomorrow). */
export const SANS_OUVREUR_JOURS = 2;
/** How many openings the public page shows. */
export const PUBLIC_NEXT_COUNT = 3;

export interface PermanenceAlertCause {
  /** The permanence. */
  objetId: number;
  siteId: number;
  message: string;
}

/** The current causes of 'permanence_sans_ouvreur' at `now`, read through `db` (the job's transaction). */
export async function permanenceAlertCauses(db: Db, now: Date): Promise<PermanenceAlertCause[]> {
  const rows = await createPermanencesRepository(db).withoutOpener(now, addDays(parisDay(now), SANS_OUVREUR_JOURS));
  return rows.map((p) => ({ objetId: p.id, siteId: p.siteId, message: `Permanence du ${formatParisDateTime(p.debut)} sans ouvreur : personne ne s’est encore inscrit pour la tenir` }));
}

export interface ReminderDeps {
  db: Db;
  mailer: Mailer;
  config: { APP_NAME: string; publicUrl: string };
  log?: Pick<FastifyBaseLogger, 'error'>;
}

/**
 * Sends the reminders due at `now` (openings of tomorrow, Paris, not started, not cancelled) to
 * each opener not reminded yet; each is claimed before its mail leaves and given back if the
 * mail fails, so a second run sends nothing twice and a failed one is sent by the next. Says how
 * many left.
 */
export async function sendPermanenceReminders(deps: ReminderDeps, now: Date): Promise<number> {
  const repo = createPermanencesRepository(deps.db);
  const due = await repo.claimReminders(now, addDays(parisDay(now), 1));
  let sent = 0;
  for (const r of due) {
    try {
      const p = (await repo.find(r.permanenceId))!;
      const site = (await repo.site(p.siteId))!;
      const ics = permanencesCalendar({ appName: deps.config.APP_NAME, publicUrl: deps.config.publicUrl, site, permanences: [p], now, withMessage: true });
      await deps.mailer.send(
        reminderMail({
          appName: deps.config.APP_NAME,
          site: siteName(site),
          address: siteAddress(site),
          debut: p.debut,
          fin: p.fin,
          titre: p.titre,
          message: p.message,
          to: r.email,
          prenom: r.prenom,
          siteSheetUrl: `${deps.config.publicUrl}/admin/fiche/site/${site.id}`,
          ics,
        }),
      );
      sent++;
    } catch (e) {
      await repo.releaseReminder(r.permanenceId, r.accountId);
      deps.log?.error({ err: e, permanence: r.permanenceId, account: r.accountId }, 'Rappel de permanence non envoyé');
    }
  }
  return sent;
}

/** The next openings of a site not ended at `now`, cancelled ones marked, as the public page shows them. */
export async function nextPublicPermanences(db: Db, siteId: number, now: Date): Promise<PublicPermanence[]> {
  const rows = await createPermanencesRepository(db).next(siteId, now, PUBLIC_NEXT_COUNT);
  return rows.map((p) => ({ debut: p.debut.toISOString(), fin: p.fin.toISOString(), titre: p.titre, annulee: p.annuleeLe !== null }));
}
