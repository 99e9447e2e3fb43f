import { describe, expect, it } from 'vitest';
import { hasFigures, seriesOrder } from './chart-parts';

describe('chart parts', () => {
  it('sorts legend and tooltip items in the order of the series, not by name', () => {
    const series = [{ name: 'Nombre' }, { name: 'Litres' }];
    const { legendProps, tooltipProps } = seriesOrder(series);
    // What recharts hands the sorters, in its own (alphabetical) order.
    const legend = [{ dataKey: 'Litres', value: 'Litres' }, { dataKey: 'Nombre', value: 'Nombre' }];
    expect([...legend].sort((a, b) => legendProps.itemSorter(a) - legendProps.itemSorter(b)).map((i) => i.dataKey)).toEqual(['Nombre', 'Litres']);
    const tooltip = [{ dataKey: 'Litres', name: 'Litres' }, { dataKey: 'Nombre', name: 'Nombre' }];
    expect([...tooltip].sort((a, b) => tooltipProps.itemSorter(a) - tooltipProps.itemSorter(b)).map((i) => i.name)).toEqual(['Nombre', 'Litres']);
  });

  it('keeps cell 2 before cell 10', () => {
    const names = ['Cellule 1', 'Cellule 2', 'Cellule 10'];
    const { legendProps } = seriesOrder(names.map((name) => ({ name })));
    const sorted = ['Cellule 1', 'Cellule 10', 'Cellule 2'].map((n) => ({ dataKey: n })).sort((a, b) => legendProps.itemSorter(a) - legendProps.itemSorter(b));
    expect(sorted.map((i) => i.dataKey)).toEqual(names);
  });

  it('tells a chart without any figure from one with a single one', () => {
    const months = (n: number) => Array.from({ length: 12 }, (_, i) => ({ mois: String(i), Nombre: i === 5 ? n : 0, Litres: 0 }));
    expect(hasFigures(months(0), ['Nombre', 'Litres'])).toBe(false);
    expect(hasFigures(months(1), ['Nombre', 'Litres'])).toBe(true);
    expect(hasFigures([], ['Nombre'])).toBe(false);
  });
});
