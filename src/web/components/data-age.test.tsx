import { describe, expect, it } from 'vitest';
import { dataAgeLabel } from './data-age';

describe('data age stamp', () => {
  it('gives the day, month and Paris time of the data, whatever the browser zone', () => {
    // 25 November 2026 09:42 UTC is 10:42 in Paris (winter time).
    expect(dataAgeLabel(Date.UTC(2026, 10, 25, 9, 42))).toBe('Données du 25/11 à 10:42');
    // 1 July 2026 22:05 UTC is already 2 July, 00:05 in Paris (summer time).
    expect(dataAgeLabel(Date.UTC(2026, 6, 1, 22, 5))).toBe('Données du 02/07 à 00:05');
  });
});
