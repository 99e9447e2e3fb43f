import { describe, expect, it } from 'vitest';
import { formatCount, formatLitres, formatNumber, formatTemperature, frenchValue, monthLabels } from './format';

// What a French reader expects, written by hand: a decimal comma, a narrow no-break space
// between thousands (U+202F, as Intl writes it) and a no-break space before the unit.
const NNBSP = '\u202f';
const NBSP = '\u00a0';

describe('screen number formats', () => {
  it('writes decimals with a comma and groups thousands', () => {
    expect(formatNumber(36.5)).toBe('36,5');
    expect(formatNumber(54.5)).toBe('54,5');
    expect(formatNumber(12)).toBe('12');
    expect(formatNumber(1250.75, 2)).toBe(`1${NNBSP}250,75`);
    expect(formatCount(12345)).toBe(`12${NNBSP}345`);
  });

  it('puts the unit after a no-break space', () => {
    expect(formatTemperature(36.5)).toBe(`36,5${NBSP}°C`);
    expect(formatTemperature(-2.5)).toBe(`-2,5${NBSP}°C`);
    expect(formatLitres(1250)).toBe(`1${NNBSP}250${NBSP}L`);
  });

  it('turns the server-written values of the tables to French, leaving labels and free text alone', () => {
    expect(frenchValue('54.5 °C')).toBe(`54,5${NBSP}°C`);
    expect(frenchValue('200.5 L vers le composteur n°3')).toBe(`200,5${NBSP}L vers le composteur n°3`);
    expect(frenchValue('150 L')).toBe(`150${NBSP}L`);
    expect(frenchValue('Plein')).toBe('Plein');
    expect(frenchValue('Porte 1.5 arrachée')).toBe('Porte 1.5 arrachée');
    expect(frenchValue('')).toBe('');
  });

  it('names the months in full, or by abbreviations that never repeat', () => {
    expect(monthLabels(false)).toHaveLength(12);
    expect(monthLabels(false)[6]).toBe('Juillet');
    const short = monthLabels(true);
    expect(short).toEqual(['Janv.', 'Févr.', 'Mars', 'Avr.', 'Mai', 'Juin', 'Juil.', 'Août', 'Sept.', 'Oct.', 'Nov.', 'Déc.']);
    expect(new Set(short).size).toBe(12);
  });
});
