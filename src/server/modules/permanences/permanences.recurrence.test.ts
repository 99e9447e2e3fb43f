import { describe, expect, it } from 'vitest';
import { addDays, parisDay, parisInstant, parseDay, parseWall } from '../../../shared/paris-time.js';
import { occurrences } from './permanences.recurrence.js';

const wall = (local: string) => parseWall(local)!;
const iso = (d: Date) => d.toISOString();

describe('Paris wall-clock times', () => {
  it('reads a winter time as UTC+1 and a summer time as UTC+2', () => {
    expect(iso(parisInstant('2027-01-15T17:00')!)).toBe('2027-01-15T16:00:00.000Z');
    expect(iso(parisInstant('2027-07-15T17:00')!)).toBe('2027-07-15T15:00:00.000Z');
    expect(iso(parisInstant('2027-07-15T17:00:30')!)).toBe('2027-07-15T15:00:30.000Z');
  });

  it('reads the hour skipped in spring one hour later, and the hour lived twice in autumn as its first (summer) one', () => {
    // 28 March 2027: at 02:00 the clocks go to 03:00.
    expect(iso(parisInstant('2027-03-28T02:30')!)).toBe('2027-03-28T01:30:00.000Z');
    expect(iso(parisInstant('2027-03-28T03:30')!)).toBe('2027-03-28T01:30:00.000Z');
    expect(iso(parisInstant('2027-03-28T01:59')!)).toBe('2027-03-28T00:59:00.000Z');
    // 31 October 2027: at 03:00 the clocks go back to 02:00.
    expect(iso(parisInstant('2027-10-31T02:30')!)).toBe('2027-10-31T00:30:00.000Z');
    expect(iso(parisInstant('2027-10-31T03:30')!)).toBe('2027-10-31T02:30:00.000Z');
  });

  it('refuses what is no calendar time', () => {
    for (const bad of ['2027-02-29T10:00', '2027-04-31T10:00', '2027-01-01T24:00', '2027-01-01T10:60', '2027-13-01T10:00', '2027-1-01T10:00', '']) {
      expect(parisInstant(bad), bad).toBeNull();
    }
    expect(parseDay('2028-02-29')).not.toBeNull();
    expect(parseDay('2027-02-29')).toBeNull();
  });

  it('tells the Paris day of an instant and counts days', () => {
    // 23:30 UTC on 31 December is already 1 January in Paris.
    expect(parisDay(new Date('2026-12-31T23:30:00Z'))).toBe('2027-01-01');
    expect(parisDay(new Date('2027-07-31T21:59:00Z'))).toBe('2027-07-31');
    expect(parisDay(new Date('2027-07-31T22:00:00Z'))).toBe('2027-08-01');
    expect(addDays('2027-02-27', 2)).toBe('2027-03-01');
    expect(addDays('2027-03-27', 1)).toBe('2027-03-28');
  });
});

describe('occurrences of a series', () => {
  it('keeps a weekly 17:00-19:00 at 17:00-19:00 Paris time after the clocks go back: its UTC instants move by one hour', () => {
    // Saturdays 16 October 2027 to 6 November 2027; the change is on Sunday 31 October.
    const list = occurrences(wall('2027-10-16T17:00'), wall('2027-10-16T19:00'), 'hebdomadaire', '2027-11-06');
    expect(list.map((o) => [iso(o.debut), iso(o.fin)])).toEqual([
      ['2027-10-16T15:00:00.000Z', '2027-10-16T17:00:00.000Z'],
      ['2027-10-23T15:00:00.000Z', '2027-10-23T17:00:00.000Z'],
      ['2027-10-30T15:00:00.000Z', '2027-10-30T17:00:00.000Z'],
      ['2027-11-06T16:00:00.000Z', '2027-11-06T18:00:00.000Z'],
    ]);
  });

  it('does the same at the spring change, and stops on the day `jusqua` included', () => {
    // Wednesdays from 17 March 2027; the change is on Sunday 28 March.
    const list = occurrences(wall('2027-03-17T18:30'), wall('2027-03-17T20:00'), 'hebdomadaire', '2027-03-31');
    expect(list.map((o) => iso(o.debut))).toEqual(['2027-03-17T17:30:00.000Z', '2027-03-24T17:30:00.000Z', '2027-03-31T16:30:00.000Z']);
    expect(list.map((o) => o.fin.getTime() - o.debut.getTime())).toEqual([90, 90, 90].map((m) => m * 60_000));
  });

  it('skips a week every other week', () => {
    const list = occurrences(wall('2027-10-16T10:00'), wall('2027-10-16T12:00'), 'bimensuelle', '2027-11-27');
    expect(list.map((o) => parisDay(o.debut))).toEqual(['2027-10-16', '2027-10-30', '2027-11-13', '2027-11-27']);
  });

  it('repeats monthly on the same weekday of the month (the 2nd Saturday), and on the last one for a 5th', () => {
    // 11 September 2027 is the 2nd Saturday of September.
    const second = occurrences(wall('2027-09-11T10:00'), wall('2027-09-11T12:00'), 'mensuelle', '2028-01-31');
    expect(second.map((o) => parisDay(o.debut))).toEqual(['2027-09-11', '2027-10-09', '2027-11-13', '2027-12-11', '2028-01-08']);
    // The hours stay 10:00 in Paris on both sides of the change.
    expect(second.map((o) => iso(o.debut))).toEqual([
      '2027-09-11T08:00:00.000Z',
      '2027-10-09T08:00:00.000Z',
      '2027-11-13T09:00:00.000Z',
      '2027-12-11T09:00:00.000Z',
      '2028-01-08T09:00:00.000Z',
    ]);
    // 30 October 2027 is the 5th (and last) Saturday of October.
    const fifth = occurrences(wall('2027-10-30T10:00'), wall('2027-10-30T12:00'), 'mensuelle', '2028-01-31');
    expect(fifth.map((o) => parisDay(o.debut))).toEqual(['2027-10-30', '2027-11-27', '2027-12-25', '2028-01-29']);
  });

  it('keeps an occurrence that starts in the hour skipped in spring its length, never ending before it starts', () => {
    // Sundays 21 and 28 March 2027, 02:30-03:15: on the 28th, 02:30 does not exist and is read as 03:30.
    const list = occurrences(wall('2027-03-21T02:30'), wall('2027-03-21T03:15'), 'hebdomadaire', '2027-03-28');
    expect(list.map((o) => [iso(o.debut), iso(o.fin)])).toEqual([
      ['2027-03-21T01:30:00.000Z', '2027-03-21T02:15:00.000Z'],
      ['2027-03-28T01:30:00.000Z', '2027-03-28T02:15:00.000Z'],
    ]);
  });
});
