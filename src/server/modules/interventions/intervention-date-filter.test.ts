import { describe, expect, it } from 'vitest';
import { dateTermRanges, multirangeLiteral, parisOffsetMs } from './intervention-date-filter.js';

const span = (from: string, to: string) => ({ from: new Date(from), to: new Date(to) });
const iso = (m: ReturnType<typeof dateTermRanges>) => (m.kind === 'ranges' ? m.ranges.map(([s, e]) => [s.toISOString(), e.toISOString()]) : m.kind);

describe('date filter of the interventions tables', () => {
  it('turns a whole Paris day into one UTC range, in winter and in summer', () => {
    expect(iso(dateTermRanges('25/12/2025', span('2025-01-01T00:00:00Z', '2026-06-01T00:00:00Z')))).toEqual([['2025-12-24T23:00:00.000Z', '2025-12-25T23:00:00.000Z']]);
    expect(iso(dateTermRanges(' 12/07/2025 ', span('2025-01-01T00:00:00Z', '2026-06-01T00:00:00Z')))).toEqual([['2025-07-11T22:00:00.000Z', '2025-07-12T22:00:00.000Z']]);
  });

  it('gives the clock-change days their 23 and 25 hours', () => {
    expect(iso(dateTermRanges('30/03/2025', span('2025-01-01T00:00:00Z', '2025-12-31T00:00:00Z')))).toEqual([['2025-03-29T23:00:00.000Z', '2025-03-30T22:00:00.000Z']]);
    expect(iso(dateTermRanges('26/10/2025', span('2025-01-01T00:00:00Z', '2025-12-31T00:00:00Z')))).toEqual([['2025-10-25T22:00:00.000Z', '2025-10-26T23:00:00.000Z']]);
    expect(parisOffsetMs(Date.parse('2025-10-26T00:59:59Z'))).toBe(7_200_000);
    expect(parisOffsetMs(Date.parse('2025-10-26T01:00:00Z'))).toBe(3_600_000);
  });

  it('turns a month, a year and partial dates into the ranges of the days that hold data', () => {
    expect(iso(dateTermRanges('12/2025', span('2025-06-01T00:00:00Z', '2026-06-01T00:00:00Z')))).toEqual([['2025-11-30T23:00:00.000Z', '2025-12-31T23:00:00.000Z']]);
    expect(iso(dateTermRanges('2026', span('2025-06-01T00:00:00Z', '2026-03-01T10:00:00Z')))).toEqual([['2025-12-31T23:00:00.000Z', '2026-03-01T23:00:00.000Z']]);
    // '12/0': the 12th of January to September; within this span, January and February 2026.
    expect(iso(dateTermRanges('12/0', span('2025-12-20T00:00:00Z', '2026-02-20T00:00:00Z')))).toEqual([
      ['2026-01-11T23:00:00.000Z', '2026-01-12T23:00:00.000Z'],
      ['2026-02-11T23:00:00.000Z', '2026-02-12T23:00:00.000Z'],
    ]);
  });

  it('matches times of day, and a text that no display contains matches nothing', () => {
    expect(iso(dateTermRanges('14:3', span('2026-01-01T10:00:00Z', '2026-01-02T10:00:00Z')))).toEqual([
      ['2026-01-01T13:30:00.000Z', '2026-01-01T13:40:00.000Z'],
      ['2026-01-02T13:30:00.000Z', '2026-01-02T13:40:00.000Z'],
    ]);
    expect(iso(dateTermRanges('31/12/2025 23', span('2025-12-01T00:00:00Z', '2026-01-02T00:00:00Z')))).toEqual([['2025-12-31T22:00:00.000Z', '2025-12-31T23:00:00.000Z']]);
    expect(dateTermRanges('abc', span('2025-01-01T00:00:00Z', '2026-01-01T00:00:00Z'))).toEqual({ kind: 'none' });
    expect(dateTermRanges('32/01', span('2025-01-01T00:00:00Z', '2026-01-01T00:00:00Z'))).toEqual({ kind: 'none' });
    expect(dateTermRanges('12/12/2025 14:35:00', span('2025-01-01T00:00:00Z', '2026-01-01T00:00:00Z'))).toEqual({ kind: 'none' });
    expect(dateTermRanges('2026', null)).toEqual({ kind: 'none' });
  });

  it('falls back to the text when a short term would need too many ranges', () => {
    expect(dateTermRanges(':3', span('2023-01-01T00:00:00Z', '2026-01-01T00:00:00Z'))).toEqual({ kind: 'text', term: ':3' });
  });

  it('writes a tstzmultirange literal', () => {
    expect(multirangeLiteral([[new Date('2026-01-01T00:00:00Z'), new Date('2026-01-02T00:00:00Z')]])).toBe('{[2026-01-01T00:00:00.000Z,2026-01-02T00:00:00.000Z)}');
  });
});
