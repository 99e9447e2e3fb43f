// The Date filter of the interventions tables: the text typed ('12/0', '25/12/2025', '2026',
// '12/2025', '14:3') matches the rows whose displayed 'dd/MM/yyyy HH:mm' (Europe/Paris)
// contains it. Instead of formatting every row, the term is turned into the set of Paris-time
// intervals whose display contains it, over the days that hold data: a set of UTC ranges the
// date index can walk. Each way the term can sit in the 16 characters of the display (an
// alignment) fixes some digits of the day, month, year, hour or minute; a day matches when its
// 'dd/MM/yyyy' agrees with the fixed digits, and within it the minutes whose 'HH:mm' agree.

const TEMPLATE = 'DD/MM/YYYY HH:MI';
const SEPARATORS: Record<number, string> = { 2: '/', 5: '/', 10: ' ', 13: ':' };
const DAY_MS = 86_400_000;
const MINUTE_MS = 60_000;

export type DateTermMatch =
  /** No display can contain the term. */
  | { kind: 'none' }
  /** Disjoint UTC ranges [start, end), in ascending order. */
  | { kind: 'ranges'; ranges: [Date, Date][] }
  /** Too many ranges to send (a one- or two-character term matching most rows): match the text. */
  | { kind: 'text'; term: string };

interface Alignment {
  /** Fixed characters of the 'dd/MM/yyyy' part, by position. */
  day: [number, string][];
  /** Fixed characters of the 'HH:mm' part, by position in 'HH:MI' (0, 1, 3, 4). */
  time: [number, string][];
}

function alignments(term: string): Alignment[] {
  const out: Alignment[] = [];
  for (let p = 0; p + term.length <= TEMPLATE.length; p++) {
    const a: Alignment = { day: [], time: [] };
    let ok = true;
    for (let j = 0; j < term.length && ok; j++) {
      const pos = p + j;
      const c = term[j];
      const sep = SEPARATORS[pos];
      if (sep !== undefined) ok = c === sep;
      else if (!/[0-9]/.test(c)) ok = false;
      else if (pos < 10) a.day.push([pos, c]);
      else a.time.push([pos - 11, c]);
    }
    if (ok) out.push(a);
  }
  return out;
}

const pad = (n: number) => String(n).padStart(2, '0');

/** Minute-of-day intervals [from, to) whose 'HH:mm' agrees with the fixed characters. */
function timeIntervals(fixed: [number, string][]): [number, number][] {
  if (fixed.length === 0) return [[0, 1440]];
  const out: [number, number][] = [];
  for (let m = 0; m < 1440; m++) {
    const text = `${pad(Math.floor(m / 60))}:${pad(m % 60)}`;
    if (!fixed.every(([pos, c]) => text[pos] === c)) continue;
    const last = out[out.length - 1];
    if (last && last[1] === m) last[1] = m + 1;
    else out.push([m, m + 1]);
  }
  return out;
}

/**
 * Offset of Paris from UTC at an instant, in ms: the EU rule (since 1996) of summer time from
 * the last Sunday of March to the last Sunday of October, both at 01:00 UTC.
 */
export function parisOffsetMs(utcMs: number): number {
  const y = new Date(utcMs).getUTCFullYear();
  const lastSunday = (month: number) => {
    const end = new Date(Date.UTC(y, month + 1, 0));
    return Date.UTC(y, month, end.getUTCDate() - end.getUTCDay(), 1);
  };
  return utcMs >= lastSunday(2) && utcMs < lastSunday(9) ? 7_200_000 : 3_600_000;
}

/**
 * The UTC instant of a Paris wall-clock time given as ms since the epoch "as if UTC". When the
 * wall time happens twice (the autumn hour), `earliest` picks the first one (a range's start)
 * or the last one (a range's end); a wall time that never happens (the spring hour) maps to
 * the change itself.
 */
export function parisWallToUtc(wallMs: number, earliest: boolean): number {
  const valid = [wallMs - 7_200_000, wallMs - 3_600_000].filter((utc) => utc + parisOffsetMs(utc) === wallMs);
  if (valid.length === 0) return wallMs - 3_600_000;
  return earliest ? valid[0] : valid[valid.length - 1];
}

/**
 * The UTC ranges whose Paris display contains `term`, over the days from `span.from` to
 * `span.to` (the first and last dates of the data), or 'text' beyond `maxRanges`.
 */
export function dateTermRanges(rawTerm: string, span: { from: Date; to: Date } | null, maxRanges = 3000): DateTermMatch {
  const term = rawTerm.trim();
  const aligns = alignments(term);
  if (aligns.length === 0 || span === null) return { kind: 'none' };
  const times = aligns.map((a) => timeIntervals(a.time));

  // Paris calendar days of the span, as midnight "as if UTC".
  const firstDay = Math.floor((span.from.getTime() + parisOffsetMs(span.from.getTime())) / DAY_MS) * DAY_MS;
  const lastDay = Math.floor((span.to.getTime() + parisOffsetMs(span.to.getTime())) / DAY_MS) * DAY_MS;

  // Wall-clock intervals (ms "as if UTC"), merged as they come since days go up.
  const wall: [number, number][] = [];
  for (let day = firstDay; day <= lastDay; day += DAY_MS) {
    const d = new Date(day);
    const text = `${pad(d.getUTCDate())}/${pad(d.getUTCMonth() + 1)}/${d.getUTCFullYear()}`;
    const minutes: [number, number][] = [];
    aligns.forEach((a, i) => {
      if (a.day.every(([pos, c]) => text[pos] === c)) minutes.push(...times[i]);
    });
    if (minutes.length === 0) continue;
    minutes.sort((x, y) => x[0] - y[0]);
    for (const [from, to] of minutes) {
      const start = day + from * MINUTE_MS;
      const end = day + to * MINUTE_MS;
      const last = wall[wall.length - 1];
      if (last && start <= last[1]) last[1] = Math.max(last[1], end);
      else wall.push([start, end]);
    }
    if (wall.length > maxRanges) return { kind: 'text', term };
  }
  if (wall.length === 0) return { kind: 'none' };
  return { kind: 'ranges', ranges: wall.map(([s, e]) => [new Date(parisWallToUtc(s, true)), new Date(parisWallToUtc(e, false))]) };
}

/** PostgreSQL tstzmultirange literal of the ranges. */
export function multirangeLiteral(ranges: [Date, Date][]): string {
  return `{${ranges.map(([s, e]) => `[${s.toISOString()},${e.toISOString()})`).join(',')}}`;
}
