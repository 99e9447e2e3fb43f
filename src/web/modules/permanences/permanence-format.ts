// How a permanence and its tally read on screen, in Paris time whatever the phone's zone: the
// permanences screen and the outbox page (through public.ts) say them the same way.
import { formatParisDate, formatParisDateTime, parisDayValue } from '../../../shared/dates';
import { formatNumber, formatTemperature } from '../../lib/format';

const WEEKDAY = new Intl.DateTimeFormat('fr-FR', { timeZone: 'Europe/Paris', weekday: 'long' });

/** 'HH:mm' in Paris. */
export const parisTime = (iso: string) => formatParisDateTime(iso).slice(11);

/** 'samedi 28/11/2026, 17:00 – 19:00'; both dates when it spans midnight. */
export function formatPermanenceWhen(debut: string, fin: string): string {
  const day = formatParisDate(debut);
  const weekday = WEEKDAY.format(new Date(debut));
  if (formatParisDate(fin) === day) return `${weekday} ${day}, ${parisTime(debut)} – ${parisTime(fin)}`;
  return `${weekday} ${formatParisDateTime(debut)} – ${formatParisDateTime(fin)}`;
}

/** '12,5 kg'. */
export const formatKg = (kg: number) => `${formatNumber(kg, 2)}\u00a0kg`;

/** The lines of a tally as typed ('Kilos : estimés à partir des seaux' when none was weighed). */
export function bilanLines(bilan: { foyers: number; seaux: number; kg?: number | null; temperature?: number | null }): string[] {
  return [
    `Foyers reçus : ${bilan.foyers}`,
    `Seaux apportés : ${bilan.seaux}`,
    bilan.kg === null || bilan.kg === undefined ? 'Kilos : estimés à partir des seaux' : `Kilos pesés : ${formatKg(bilan.kg)}`,
    ...(bilan.temperature === null || bilan.temperature === undefined ? [] : [`Température : ${formatTemperature(bilan.temperature)}`]),
  ];
}

/** 'Bilan de permanence – QUA005 - Rue de Siam'. */
export const bilanTitle = (siteLabel: string) => `Bilan de permanence – ${siteLabel}`;

/** The permanences screen of a site; `?bilan={clientId}` reopens a tally the server refused. */
export const permanencesPath = (siteId: number, correcting?: string) => `/admin/fiche/site/${siteId}/permanences${correcting ? `?bilan=${encodeURIComponent(correcting)}` : ''}`;

/** An instant as a Paris wall-clock time, 'YYYY-MM-DDTHH:mm' (what the form's inputs hold). */
export function parisLocal(iso: string): string {
  return `${parisDayValue(iso)}T${parisTime(iso)}`;
}

/** Now as a Paris wall-clock time. */
export function parisNowLocal(now: Date = new Date()): string {
  return parisLocal(now.toISOString());
}
