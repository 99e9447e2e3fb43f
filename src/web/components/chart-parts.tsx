// What every chart of the app shares (statistics, yearly report), on @mantine/charts:
// - counts are whole numbers, so their axis never shows 2,5 (`COUNT_AXIS`);
// - the legend and the tooltip list the series in the order the chart gives them (recharts
//   sorts them by name otherwise: 'Litres' before 'Nombre', 'Cellule 10' before 'Cellule 2');
// - month names in full, or abbreviated under 576 px where twelve full names collide;
// - a chart without any figure says so instead of drawing an empty frame.
//
//   const narrow = useNarrowChart();                      // under 576 px
//   const months = monthLabels(narrow);                   // lib/format.ts
//   hasFigures(data, ['Nombre']) ? <BarChart … xAxisProps={monthAxis(narrow)} yAxisProps={COUNT_AXIS} {...seriesOrder(series)} /> : <NoChartData />
import { Center, Text } from '@mantine/core';
import { useMediaQuery } from '@mantine/hooks';
import { NARROW_CHART_QUERY } from '../lib/format';

export const NO_CHART_DATA = 'Aucune donnée pour cette période';

/** The y axis of a count (x axis of a horizontal bar chart). */
export const COUNT_AXIS = { allowDecimals: false } as const;

/** Legend and tooltip props that keep the series in the given order. */
export function seriesOrder(series: readonly { name: string }[]) {
  const names = series.map((s) => s.name);
  const rank = (key: unknown) => {
    const i = names.indexOf(String(key));
    return i === -1 ? names.length : i;
  };
  return {
    legendProps: { itemSorter: (item: { dataKey?: unknown; value?: unknown }) => rank(item.dataKey ?? item.value) },
    tooltipProps: { itemSorter: (item: { dataKey?: unknown; name?: unknown }) => rank(item.dataKey ?? item.name) },
  };
}

/** The x axis of twelve months: every name shown, slanted, with room for the full names. */
export function monthAxis(narrow: boolean) {
  return { interval: 0, angle: -45, textAnchor: 'end', height: narrow ? 50 : 80 } as const;
}

/** True under 576 px, where charts abbreviate the month names. */
export function useNarrowChart(): boolean {
  return useMediaQuery(NARROW_CHART_QUERY, false, { getInitialValueInEffect: false });
}

/** True when some row has a non-zero figure under one of `keys`. */
export function hasFigures(rows: readonly Record<string, unknown>[], keys: readonly string[]): boolean {
  return rows.some((r) => keys.some((k) => typeof r[k] === 'number' && r[k] !== 0));
}

/** In place of a chart with nothing to draw, at the chart's height. */
export function NoChartData({ h }: { h: number }) {
  return (
    <Center h={h} bg="var(--mantine-color-gray-0)" style={{ borderRadius: 'var(--mantine-radius-sm)' }}>
      <Text c="dimmed" size="sm">
        {NO_CHART_DATA}
      </Text>
    </Center>
  );
}
