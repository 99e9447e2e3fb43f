import { describe, expect, it } from 'vitest';
import { formatParisDate, formatParisDateTime, parisDayValue } from './dates';

describe('dates shown in Paris time', () => {
  it('shows the day and time they are in Paris, in winter and in summer', () => {
    expect(formatParisDate('2023-12-31T23:30:00Z')).toBe('01/01/2024');
    expect(formatParisDateTime('2024-06-30T22:30:00Z')).toBe('01/07/2024 00:30');
    expect(formatParisDateTime(new Date('2024-01-15T08:05:00Z'))).toBe('15/01/2024 09:05');
    expect(parisDayValue('2024-03-05T23:30:00Z')).toBe('2024-03-06');
  });

  it('gives an empty text, or null for inputs, when there is no valid date', () => {
    for (const none of [null, undefined, '', 'pas une date', new Date(Number.NaN)]) {
      expect(formatParisDate(none)).toBe('');
      expect(formatParisDateTime(none)).toBe('');
      expect(parisDayValue(none)).toBeNull();
    }
  });

  it('agrees with the Paris clock minute by minute across both daylight-saving switches, and over years', () => {
    const clock = new Intl.DateTimeFormat('fr-FR', {
      timeZone: 'Europe/Paris',
      day: '2-digit',
      month: '2-digit',
      year: 'numeric',
      hour: '2-digit',
      minute: '2-digit',
      hourCycle: 'h23',
    });
    const expected = (d: Date) => {
      const p = Object.fromEntries(clock.formatToParts(d).map((x) => [x.type, x.value]));
      return `${p.day}/${p.month}/${p.year} ${p.hour}:${p.minute}`;
    };
    const instants: Date[] = [];
    // Three hours either side of each switch (spring forward, fall back), every 59 seconds.
    for (const pivot of ['2025-03-30T01:00:00Z', '2025-10-26T01:00:00Z']) {
      const t = new Date(pivot).getTime();
      for (let s = -3 * 3600; s <= 3 * 3600; s += 59) instants.push(new Date(t + s * 1000));
    }
    // And spread over twelve years, at odd seconds.
    for (let t = Date.UTC(2019, 0, 1); t < Date.UTC(2031, 0, 1); t += 86_400_000 * 3 + 3_601_017) instants.push(new Date(t));
    for (const d of instants) expect(formatParisDateTime(d)).toBe(expected(d));
    // The fall-back hour happens twice in Paris: 02:30 then, an hour later, 02:30 again.
    expect(formatParisDateTime('2025-10-26T00:30:00Z')).toBe('26/10/2025 02:30');
    expect(formatParisDateTime('2025-10-26T01:30:00Z')).toBe('26/10/2025 02:30');
    expect(formatParisDateTime('2025-03-30T01:30:00Z')).toBe('30/03/2025 03:30');
  });
});
