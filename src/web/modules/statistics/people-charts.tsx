// The two chart cards of the people around the sites on the statistics dashboard: the households
// taking part at each month's end (with the people in them), and the kilos of the permanences'
// tallies, the part estimated from buckets drawn apart and said so. Like the other cards, each
// switches to a table and names its figures for screen readers.
import type { ReactNode } from 'react';
import { Text } from '@mantine/core';
import { BarChart } from '@mantine/charts';
import type { FoyersMoisRow, KgMoisRow } from '../../../shared/schemas/statistics';
import { COUNT_AXIS, NO_CHART_DATA, hasFigures, monthAxis, seriesOrder, useNarrowChart } from '../../components/chart-parts';
import { formatCount, formatNumber, monthLabels } from '../../lib/format';
import { CHART_HEIGHT, ChartCard, ChartOrTable } from './stats-charts';

const parisYearMonth = new Intl.DateTimeFormat('en-GB', { timeZone: 'Europe/Paris', year: 'numeric', month: 'numeric' });

/**
 * Index of the latest month of `annee` that has begun at `now` (Paris): December for a past year,
 * the current month for this year, -1 for a year to come. Households are a count at a month's
 * end, not a sum: the card's badge gives this month's.
 */
export function lastBegunMonth(annee: number, now: Date): number {
  const parts = parisYearMonth.formatToParts(now);
  const year = Number(parts.find((p) => p.type === 'year')!.value);
  const month = Number(parts.find((p) => p.type === 'month')!.value);
  if (annee < year) return 11;
  return annee === year ? month - 1 : -1;
}

const plural = (n: number, one: string, many: string) => `${formatCount(n)} ${n > 1 ? many : one}`;
/** Kilos keep the tallies' two decimals. */
const kilos = (n: number) => `${formatNumber(n, 2)}\u00a0kg`;
const round2 = (n: number) => Math.round(n * 100) / 100;

export function HouseholdsChart({ title, rows, annee, note }: { title: string; rows: readonly FoyersMoisRow[]; annee: number; note?: ReactNode }) {
  const narrow = useNarrowChart();
  const months = monthLabels(narrow);
  const fullMonths = monthLabels(false);
  const data = rows.map((r, i) => ({ mois: months[i], Foyers: r.nb, Personnes: r.personnes }));
  const series = [
    { name: 'Foyers', color: 'teal.6' },
    { name: 'Personnes', color: 'grape.5', yAxisId: 'right' },
  ];
  const last = lastBegunMonth(annee, new Date());
  const current = last >= 0 ? rows[last] : undefined;
  const badge = current ? `${plural(current.nb, 'foyer', 'foyers')} · ${plural(current.personnes, 'personne', 'personnes')}` : undefined;
  const monthName = last >= 0 ? fullMonths[last].toLowerCase() : '';
  const empty = !hasFigures(data, ['Foyers']);
  const summary = empty
    ? `${title} : ${NO_CHART_DATA}.`
    : current
      ? `${title} : ${plural(current.nb, 'foyer participant', 'foyers participants')} et ${plural(current.personnes, 'personne', 'personnes')} fin ${monthName}.`
      : `${title}.`;
  return (
    <ChartCard title={title} total={badge} totalLabel={badge && `Fin ${monthName} : ${badge}`}>
      {note}
      <ChartOrTable
        title={title}
        summary={summary}
        empty={empty}
        headers={['Mois (fin)', 'Foyers', 'Personnes']}
        rows={() => rows.map((r, i) => [fullMonths[i], formatCount(r.nb), formatCount(r.personnes)])}
      >
        <BarChart
          h={CHART_HEIGHT}
          data={data}
          dataKey="mois"
          series={series}
          withLegend
          withRightYAxis
          yAxisLabel="Foyers"
          rightYAxisLabel="Personnes"
          yAxisProps={COUNT_AXIS}
          rightYAxisProps={COUNT_AXIS}
          valueFormatter={(v) => formatCount(v)}
          xAxisProps={monthAxis(narrow)}
          {...seriesOrder(series)}
        />
      </ChartOrTable>
    </ChartCard>
  );
}

export function KilosChart({ title, rows, note }: { title: string; rows: readonly KgMoisRow[]; note?: ReactNode }) {
  const narrow = useNarrowChart();
  const months = monthLabels(narrow);
  const fullMonths = monthLabels(false);
  // Stacked: the weighed kilos under the estimated ones, so a bar's height is the month's kilos.
  const data = rows.map((r, i) => ({ mois: months[i], Pesés: round2(r.kg - r.kgEstimes), Estimés: r.kgEstimes }));
  const series = [
    { name: 'Pesés', color: 'green.7' },
    { name: 'Estimés', color: 'yellow.5' },
  ];
  const total = round2(rows.reduce((a, r) => a + r.kg, 0));
  const estimated = round2(rows.reduce((a, r) => a + r.kgEstimes, 0));
  const permanences = rows.reduce((a, r) => a + r.permanences, 0);
  const badge = estimated > 0 ? `${kilos(total)} dont ${kilos(estimated)} estimés` : kilos(total);
  const empty = !hasFigures(rows, ['permanences']);
  const summary = empty
    ? `${title} : ${NO_CHART_DATA}.`
    : `${title} : ${badge} sur l'année, ${plural(permanences, 'permanence', 'permanences')} avec bilan.`;
  return (
    <ChartCard title={title} total={badge}>
      {note}
      <ChartOrTable
        title={title}
        summary={summary}
        empty={empty}
        headers={['Mois', 'Kilos', 'dont estimés', 'Permanences']}
        rows={() => rows.map((r, i) => [fullMonths[i], formatNumber(r.kg, 2), formatNumber(r.kgEstimes, 2), formatCount(r.permanences)])}
      >
        <BarChart
          h={CHART_HEIGHT}
          data={data}
          dataKey="mois"
          type="stacked"
          series={series}
          withLegend
          yAxisLabel="kg"
          valueFormatter={(v) => formatNumber(v, 2)}
          xAxisProps={monthAxis(narrow)}
          {...seriesOrder(series)}
        />
      </ChartOrTable>
      {!empty && estimated > 0 && (
        <Text size="xs" c="dimmed" mt="xs">
          Estimés : seaux apportés × kilos par seau du programme, quand le bilan n’a pas été pesé.
        </Text>
      )}
    </ChartCard>
  );
}
