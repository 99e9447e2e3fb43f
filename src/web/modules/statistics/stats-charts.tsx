// Chart cards of the statistics dashboard: a monthly bar chart (count, and litres on a
// second axis when the series has them) and the temperature lines of one site. Each card
// shows the year's total beside its title and can switch to a table: the text
// alternative of the chart for screen readers and for copying figures. Counts have whole
// ticks, the legend follows the series, months are abbreviated on a phone, and a chart
// without figures says 'Aucune donnée pour cette période' (components/chart-parts.tsx).
import { useState, type ReactNode } from 'react';
import { ActionIcon, Badge, Card, Group, Skeleton, Switch, Table, Title, Tooltip } from '@mantine/core';
import { BarChart, LineChart } from '@mantine/charts';
import { IconDownload } from '@tabler/icons-react';
import { MOIS_NOMS, type StatsMoisRow, type TemperatureRow } from '../../../shared/schemas/statistics';
import { formatParisDate, formatParisDateTime } from '../../../shared/dates';
import { COUNT_AXIS, NoChartData, NO_CHART_DATA, hasFigures, monthAxis, seriesOrder, useNarrowChart } from '../../components/chart-parts';
import { formatCount, formatLitres, formatNumber, formatTemperature, monthLabels } from '../../lib/format';

export const CHART_HEIGHT = 260;

export function formatTotals(rows: readonly StatsMoisRow[], litres: boolean): string {
  const nb = rows.reduce((a, r) => a + r.nb, 0);
  const l = rows.reduce((a, r) => a + r.quantite, 0);
  return litres ? `${formatCount(nb)} · ${formatLitres(l)}` : formatCount(nb);
}

/** A month of the series by its name ('janvier'), as `labels` call it. */
function monthOf(row: StatsMoisRow, labels: readonly string[]): string {
  const i = (MOIS_NOMS as readonly string[]).indexOf(row.mois_nom);
  return i === -1 ? row.mois_nom : labels[i];
}

interface CardProps {
  title: string;
  total?: string;
  /** How the badge is read out; by default "Total de l'année : {total}". */
  totalLabel?: string;
  /** The export button, when the chart has one. */
  action?: ReactNode;
  children: ReactNode;
}

export function ChartCard({ title, total, totalLabel, action, children, busy }: CardProps & { busy?: boolean }) {
  return (
    <Card withBorder padding="md" radius="md" component="section" aria-label={title} aria-busy={busy || undefined}>
      <Group justify="space-between" align="flex-start" wrap="nowrap" mb="sm">
        <Group gap="xs" align="baseline">
          <Title order={3} size="h5">
            {title}
          </Title>
          {total !== undefined && (
            <Badge variant="light" size="lg" aria-label={totalLabel ?? `Total de l'année : ${total}`}>
              {total}
            </Badge>
          )}
        </Group>
        {action}
      </Group>
      {children}
    </Card>
  );
}

export function ExportButton({ label, onClick }: { label: string; onClick: () => void }) {
  return (
    <Tooltip label={label} withArrow>
      <ActionIcon variant="light" size="lg" aria-label={label} onClick={onClick}>
        <IconDownload size={18} aria-hidden />
      </ActionIcon>
    </Tooltip>
  );
}

export function ChartSkeleton({ title }: { title: string }) {
  return (
    <ChartCard title={title} busy>
      <Skeleton height={CHART_HEIGHT} radius="sm" aria-label={`Chargement : ${title}`} role="progressbar" />
    </ChartCard>
  );
}

interface MonthlyProps {
  title: string;
  rows: readonly StatsMoisRow[];
  litres: boolean;
  action?: ReactNode;
}

export function MonthlyChart({ title, rows, litres, action }: MonthlyProps) {
  const narrow = useNarrowChart();
  const months = monthLabels(narrow);
  const fullMonths = monthLabels(false);
  const data = rows.map((r) => ({ mois: monthOf(r, months), Nombre: r.nb, ...(litres ? { Litres: r.quantite } : {}) }));
  const series = [{ name: 'Nombre', color: 'teal.6' }, ...(litres ? [{ name: 'Litres', color: 'orange.5', yAxisId: 'right' }] : [])];
  const total = formatTotals(rows, litres);
  const busiest = rows.reduce((best, r) => (r.nb > best.nb ? r : best), rows[0]);
  const empty = !hasFigures(data, ['Nombre', 'Litres']);
  const summary = empty
    ? `${title} : ${NO_CHART_DATA}.`
    : `${title} : ${total}${litres ? '' : ' intervention(s)'} sur l'année` + (busiest && busiest.nb > 0 ? `, mois le plus actif : ${busiest.mois_nom} (${formatCount(busiest.nb)}).` : '.');
  return (
    <ChartCard title={title} total={total} action={action}>
      <ChartOrTable
        title={title}
        summary={summary}
        empty={empty}
        headers={litres ? ['Mois', 'Nombre', 'Litres'] : ['Mois', 'Nombre']}
        rows={() => rows.map((r) => [monthOf(r, fullMonths), formatCount(r.nb), ...(litres ? [formatNumber(r.quantite)] : [])])}
      >
        <BarChart
          h={CHART_HEIGHT}
          data={data}
          dataKey="mois"
          series={series}
          withLegend={litres}
          withRightYAxis={litres}
          yAxisLabel="Nombre"
          rightYAxisLabel={litres ? 'Litres' : undefined}
          yAxisProps={COUNT_AXIS}
          valueFormatter={(v) => formatNumber(v)}
          xAxisProps={monthAxis(narrow)}
          {...seriesOrder(series)}
        />
      </ChartOrTable>
    </ChartCard>
  );
}

/**
 * A chart card's body: 'Aucune donnée pour cette période' when the chart has no figure, otherwise
 * the switch between the chart (`children`) and its table, the chart's text alternative (built
 * only when shown). `summary` is what a screen reader hears of the chart, or of its absence.
 */
export function ChartOrTable({ title, summary, empty, headers, rows, children }: { title: string; summary: string; empty: boolean; headers: string[]; rows: () => string[][]; children: ReactNode }) {
  const [asTable, setAsTable] = useState(false);
  if (empty) {
    return (
      <div role="img" aria-label={summary}>
        <NoChartData h={CHART_HEIGHT} />
      </div>
    );
  }
  return (
    <>
      <TableToggle checked={asTable} onChange={setAsTable} />
      {asTable ? (
        <AlternativeTable title={title} headers={headers} rows={rows()} />
      ) : (
        <div role="img" aria-label={summary}>
          {children}
        </div>
      )}
    </>
  );
}

/** The switch between a chart and its table (the chart's text alternative). */
function TableToggle({ checked, onChange }: { checked: boolean; onChange: (checked: boolean) => void }) {
  return <Switch size="xs" mb="xs" label="Afficher le tableau" checked={checked} onChange={(e) => onChange(e.currentTarget.checked)} />;
}

/** A chart's figures as a table, captioned with the chart's title. */
function AlternativeTable({ title, headers, rows }: { title: string; headers: string[]; rows: string[][] }) {
  return (
    <Table.ScrollContainer minWidth={260}>
      <Table striped withTableBorder>
        <Table.Caption>{title}</Table.Caption>
        <Table.Thead>
          <Table.Tr>
            {headers.map((h) => (
              <Table.Th key={h}>{h}</Table.Th>
            ))}
          </Table.Tr>
        </Table.Thead>
        <Table.Tbody>
          {rows.map((cells, i) => (
            <Table.Tr key={i}>
              {cells.map((c, j) => (
                <Table.Td key={j}>{c}</Table.Td>
              ))}
            </Table.Tr>
          ))}
        </Table.Tbody>
      </Table>
    </Table.ScrollContainer>
  );
}

const CELL_COLORS = ['red.6', 'blue.6', 'green.6', 'violet.6', 'orange.6', 'cyan.6', 'pink.6', 'lime.6'];

export function TemperatureChart({ title, rows }: { title: string; rows: readonly TemperatureRow[] }) {
  const cells = [...new Set(rows.map((r) => r.numeroBac))].sort((a, b) => a - b);
  // One point per reading, one line per cell: a reading fills only its cell's column.
  const data = rows.map((r) => ({ date: formatParisDate(r.date), [`Cellule ${r.numeroBac}`]: r.temp }));
  const temps = rows.map((r) => r.temp);
  const series = cells.map((n, i) => ({ name: `Cellule ${n}`, color: CELL_COLORS[i % CELL_COLORS.length] }));
  const summary =
    rows.length === 0
      ? `${title} : ${NO_CHART_DATA}.`
      : `${title} : ${rows.length} relevé(s) sur ${cells.length} cellule(s), de ${formatNumber(Math.min(...temps))} à ${formatTemperature(Math.max(...temps))}.`;
  return (
    <ChartCard title={title} total={`${formatCount(rows.length)} relevé(s)`}>
      <ChartOrTable
        title={title}
        summary={summary}
        empty={rows.length === 0}
        headers={['Date', 'Cellule', 'Température (°C)']}
        rows={() => rows.map((r) => [formatParisDateTime(r.date), String(r.numeroBac), formatNumber(r.temp)])}
      >
        <LineChart
          h={CHART_HEIGHT}
          data={data}
          dataKey="date"
          series={series}
          connectNulls
          withLegend
          yAxisLabel="°C"
          valueFormatter={(v) => formatTemperature(v)}
          {...seriesOrder(series)}
        />
      </ChartOrTable>
    </ChartCard>
  );
}
