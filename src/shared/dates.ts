// Dates travel as UTC ISO strings and are stored as UTC; people read them as they are in
// Europe/Paris (reference-data.md), whatever the zone of the server or of the browser.
// One formatter for the tables, the dialogs and the CSV exports.

const PARIS = new Intl.DateTimeFormat('fr-FR', {
  timeZone: 'Europe/Paris',
  day: '2-digit',
  month: '2-digit',
  year: 'numeric',
  hour: '2-digit',
  minute: '2-digit',
  hourCycle: 'h23',
});

type DateLike = Date | string | null | undefined;

function parisParts(value: DateLike): Record<string, string> | null {
  if (value === null || value === undefined || value === '') return null;
  const date = value instanceof Date ? value : new Date(value);
  if (Number.isNaN(date.getTime())) return null;
  return Object.fromEntries(PARIS.formatToParts(date).map((p) => [p.type, p.value]));
}

/** 'dd/MM/yyyy' in Paris; '' when there is no date. */
export function formatParisDate(value: DateLike): string {
  const p = parisParts(value);
  return p ? `${p.day}/${p.month}/${p.year}` : '';
}

/** 'dd/MM/yyyy HH:mm' (24 h) in Paris; '' when there is no date. */
export function formatParisDateTime(value: DateLike): string {
  const p = parisParts(value);
  return p ? `${p.day}/${p.month}/${p.year} ${p.hour}:${p.minute}` : '';
}

/** The calendar day the instant falls on in Paris, as 'YYYY-MM-DD' (date inputs); null when none. */
export function parisDayValue(value: DateLike): string | null {
  const p = parisParts(value);
  return p ? `${p.year}-${p.month}-${p.day}` : null;
}
