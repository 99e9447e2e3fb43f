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
});
