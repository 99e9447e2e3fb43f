// Paris wall-clock times and the instants they stand for (the permanences, the hour of the daily
// jobs). People type an opening's start and end as Paris wall-clock times ('2027-10-30T17:00');
// the database keeps instants. Two wall-clock hours a year are not one instant each:
// - the hour skipped in spring (last Sunday of March, 02:00-02:59 does not exist): the time is
//   read one hour later (02:30 -> 03:30 summer time), as a clock put forward would show it;
// - the hour lived twice in autumn (last Sunday of October, 02:00-02:59 happens twice): the
//   first one is taken (summer time, UTC+2).
// This is the 'compatible' choice of the TC39 Temporal proposal and of most calendar software.

const PARIS = new Intl.DateTimeFormat('en-GB', {
  timeZone: 'Europe/Paris',
  year: 'numeric',
  month: '2-digit',
  day: '2-digit',
  hour: '2-digit',
  minute: '2-digit',
  second: '2-digit',
  hourCycle: 'h23',
});

const HOUR_MS = 3600_000;
export const DAY_MS = 24 * HOUR_MS;

/** Paris wall-clock time of an instant, as a millisecond count read as if it were UTC. */
export function parisWall(instant: Date | number): number {
  const time = typeof instant === 'number' ? instant : instant.getTime();
  const p = Object.fromEntries(PARIS.formatToParts(new Date(time)).map((x) => [x.type, Number(x.value)]));
  return Date.UTC(p.year, p.month - 1, p.day, p.hour, p.minute, p.second) + (time % 1000 + 1000) % 1000;
}

/** The instant of a Paris wall-clock time given as a UTC-read millisecond count (see the file's header for the two odd hours). */
export function instantOfWall(wall: number): Date {
  // Paris is UTC+1 (winter) or UTC+2 (summer): the earlier matching instant is UTC+2.
  for (const offsetHours of [2, 1]) {
    const t = wall - offsetHours * HOUR_MS;
    if (parisWall(t) === wall) return new Date(t);
  }
  // The skipped spring hour: read with the winter offset, it lands one hour later in summer time.
  return new Date(wall - HOUR_MS);
}

const LOCAL = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})(?::(\d{2}))?$/;

/**
 * 'YYYY-MM-DDTHH:mm[:ss]' as a UTC-read millisecond count of that wall-clock time, or null when
 * it names no real calendar time (31 April, 24:00, minute 60).
 */
export function parseWall(local: string): number | null {
  const m = LOCAL.exec(local);
  if (!m) return null;
  const [y, mo, d, h, mi, s] = [m[1], m[2], m[3], m[4], m[5], m[6] ?? '0'].map(Number);
  if (y < 1900 || y > 9999 || h > 23 || mi > 59 || s > 59) return null;
  const wall = Date.UTC(y, mo - 1, d, h, mi, s);
  const back = new Date(wall);
  if (back.getUTCFullYear() !== y || back.getUTCMonth() !== mo - 1 || back.getUTCDate() !== d) return null;
  return wall;
}

/** The instant a Paris wall-clock time stands for, or null when it is no real calendar time. */
export function parisInstant(local: string): Date | null {
  const wall = parseWall(local);
  return wall === null ? null : instantOfWall(wall);
}

/** A 'YYYY-MM-DD' that names a real day, as the UTC midnight of that day; null otherwise. */
export function parseDay(day: string): number | null {
  return /^\d{4}-\d{2}-\d{2}$/.test(day) ? parseWall(`${day}T00:00`) : null;
}

/** The Paris calendar day of an instant, 'YYYY-MM-DD'. */
export function parisDay(instant: Date | number): string {
  return new Date(parisWall(instant)).toISOString().slice(0, 10);
}

/** 'YYYY-MM-DD' plus a number of days. */
export function addDays(day: string, days: number): string {
  return new Date(Date.parse(`${day}T00:00:00Z`) + days * DAY_MS).toISOString().slice(0, 10);
}
