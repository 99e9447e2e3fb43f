// iCalendar (RFC 5545) of permanences, made with ical-generator: the public feed of a site's
// openings and the invitation attached to an opener's reminder. METHOD:PUBLISH in both: the
// calendar only informs (nobody answers an invitation), which every calendar program accepts.
// Times are written in UTC (DTSTART:…Z): exact whatever the reader's zone, no VTIMEZONE needed;
// calendar programs show them in Paris time for a reader in Paris. The UID of an opening is
// stable (its id and the server's host), so a feed refreshed or an invitation received again
// updates the same event; a cancelled opening stays with STATUS:CANCELLED and a higher SEQUENCE.
import ical, { ICalCalendarMethod, ICalEventStatus } from 'ical-generator';
import type { PermanenceRecord, SiteInfo } from './permanences.repository.js';

export const ICS_CONTENT_TYPE = 'text/calendar; charset=utf-8';

export function siteName(site: Pick<SiteInfo, 'nom' | 'code'>): string {
  return site.nom || site.code;
}

export function siteAddress(site: SiteInfo): string {
  const street = [site.numero, site.adresse].filter(Boolean).join(' ');
  const city = [site.cp, site.ville].filter(Boolean).join(' ');
  return [street, city].filter(Boolean).join(', ');
}

export function permanenceUid(id: number, publicUrl: string): string {
  return `permanence-${id}@${new URL(publicUrl).host}`;
}

/** What an opening is called in a calendar: its title, or 'Permanence du site …'. */
export function permanenceSummary(p: Pick<PermanenceRecord, 'titre'>, site: Pick<SiteInfo, 'nom' | 'code'>): string {
  return p.titre ? `${p.titre} (${siteName(site)})` : `Permanence du site ${siteName(site)}`;
}

/**
 * A calendar of openings of one site. `withMessage`: the referents' message goes in the
 * description (the openers' invitation); the public feed leaves it out, as the public page does.
 */
export function permanencesCalendar(opts: {
  appName: string;
  publicUrl: string;
  site: SiteInfo;
  permanences: readonly PermanenceRecord[];
  now: Date;
  withMessage: boolean;
}): string {
  const calendar = ical({
    name: `${opts.appName} : permanences du site ${siteName(opts.site)}`,
    prodId: { company: opts.appName, product: 'Permanences', language: 'FR' },
    method: ICalCalendarMethod.PUBLISH,
  });
  for (const p of opts.permanences) {
    const cancelled = p.annuleeLe !== null;
    calendar.createEvent({
      id: permanenceUid(p.id, opts.publicUrl),
      start: p.debut,
      end: p.fin,
      stamp: opts.now,
      summary: cancelled ? `Annulée : ${permanenceSummary(p, opts.site)}` : permanenceSummary(p, opts.site),
      location: siteAddress(opts.site),
      description: opts.withMessage && p.message ? p.message : null,
      status: cancelled ? ICalEventStatus.CANCELLED : ICalEventStatus.CONFIRMED,
      sequence: cancelled ? 1 : 0,
      url: `${opts.publicUrl}/s/${encodeURIComponent(opts.site.code)}`,
    });
  }
  return calendar.toString();
}
