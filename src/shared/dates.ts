// Dates travel as UTC ISO strings and are stored as UTC; people read them as they are in
// Europe/Paris (docs/glossary.md, time), whatever the zone of the server or of the browser.
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

interface ParisParts {
  day: string;
  month: string;
  year: string;
  hour: string;
  minute: string;
}

const HOUR_MS = 3600_000;
/**
 * Paris's offset from UTC, in ms, by UTC hour. It changes only at the DST switches, which fall
 * on a whole UTC hour (01:00), so one Intl call per hour seen is enough: an export of thousands
 * of rows formats its dates with arithmetic instead of an Intl call each (5-10 µs apiece).
 */
const offsets = new Map<number, number>();

function parisOffset(time: number): number {
  const hour = Math.floor(time / HOUR_MS);
  let offset = offsets.get(hour);
  if (offset === undefined) {
    const p = Object.fromEntries(PARIS.formatToParts(new Date(hour * HOUR_MS)).map((x) => [x.type, x.value]));
    offset = Date.UTC(Number(p.year), Number(p.month) - 1, Number(p.day), Number(p.hour), Number(p.minute)) - hour * HOUR_MS;
    // Three years of hourly entries is about 26,000: beyond a bound, start again.
    if (offsets.size >= 50_000) offsets.clear();
    offsets.set(hour, offset);
  }
  return offset;
}

const pad = (n: number) => (n < 10 ? `0${n}` : String(n));

function parisParts(value: DateLike): ParisParts | null {
  if (value === null || value === undefined || value === '') return null;
  const time = value instanceof Date ? value.getTime() : new Date(value).getTime();
  if (Number.isNaN(time)) return null;
  const local = new Date(time + parisOffset(time));
  return {
    day: pad(local.getUTCDate()),
    month: pad(local.getUTCMonth() + 1),
    year: String(local.getUTCFullYear()).padStart(4, '0'),
    hour: pad(local.getUTCHours()),
    minute: pad(local.getUTCMinutes()),
  };
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
