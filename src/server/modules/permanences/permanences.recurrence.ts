// The occurrences of a recurring permanence. The rule is computed by `rrule` on Paris
// wall-clock times (read as UTC, so the library never meets a time change), then each
// occurrence's start and end are turned into instants: a 17:00-19:00 weekly opening stays
// 17:00-19:00 in Paris after the clocks go back, its UTC instants move by one hour.
// - hebdomadaire: every week on the first opening's weekday;
// - bimensuelle: every other week on that weekday;
// - mensuelle: every month on the same weekday of the month as the first opening (the 2nd
//   Saturday); a first opening on the 5th such weekday of its month (29th to 31st) repeats on
//   the last one, since most months have no 5th.
// Occurrences fall on Paris days up to `jusqua` included.
import * as rrulePackage from 'rrule';
import type { PermanenceFrequence } from '../../../shared/schemas/permanences.js';
import { instantOfWall, parseDay } from '../../../shared/paris-time.js';

// rrule ships CommonJS to Node: its classes are on the default export there, named under a bundler.
const { RRule } = (rrulePackage as unknown as { default?: typeof rrulePackage }).default ?? rrulePackage;

const WEEKDAYS = [RRule.SU, RRule.MO, RRule.TU, RRule.WE, RRule.TH, RRule.FR, RRule.SA];

export interface Occurrence {
  debut: Date;
  fin: Date;
}

/**
 * The occurrences of a series whose first opening runs from `debutWall` to `finWall` (Paris
 * wall-clock times as UTC-read millisecond counts), repeated until the day `jusqua`.
 */
export function occurrences(debutWall: number, finWall: number, frequence: PermanenceFrequence, jusqua: string): Occurrence[] {
  const until = parseDay(jusqua);
  if (until === null) return [];
  const start = new Date(debutWall);
  const length = finWall - debutWall;
  const base = { dtstart: start, until: new Date(until + 24 * 3600_000 - 1000) };
  const rule =
    frequence === 'mensuelle'
      ? new RRule({ ...base, freq: RRule.MONTHLY, byweekday: [WEEKDAYS[start.getUTCDay()].nth(Math.ceil(start.getUTCDate() / 7) === 5 ? -1 : Math.ceil(start.getUTCDate() / 7))] })
      : new RRule({ ...base, freq: RRule.WEEKLY, interval: frequence === 'bimensuelle' ? 2 : 1 });
  const walls = rule.all().map((d) => d.getTime());
  // rrule yields the start only when it matches the rule; the first opening is one in any case.
  if (walls[0] !== debutWall) walls.unshift(debutWall);
  return walls.map((w) => {
    const debut = instantOfWall(w);
    const fin = instantOfWall(w + length);
    // An occurrence starting in the hour skipped in spring is pushed one hour later and could end
    // before it starts: it then keeps its length in real time.
    return { debut, fin: fin.getTime() > debut.getTime() ? fin : new Date(debut.getTime() + length) };
  });
}
