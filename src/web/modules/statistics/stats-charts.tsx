// Chart cards of the statistics dashboard: a monthly bar chart (count, and litres on a
// second axis when the series has them) and the temperature lines of one site. Each card
// shows the year's total beside its title and can switch to a table: the text
// alternative of the chart for screen readers and for copying figures.
import { useState, type ReactNode } from 'react';
import { ActionIcon, Badge, Card, Group, Skeleton, Switch, Table, Text, Title, Tooltip } from '@mantine/core';
import { BarChart, LineChart } from '@mantine/charts';
import { IconDownload } from '@tabler/icons-react';
import type { StatsMoisRow, TemperatureRow } from '../../../shared/schemas/statistics';
import { formatParisDate, formatParisDateTime } from '../../../shared/dates';

const number = new Intl.NumberFormat('fr-FR');
const decimal = new Intl.NumberFormat('fr-FR', { maximumFractionDigits: 1 });
const capitalize = (s: string) => s.charAt(0).toUpperCase() + s.slice(1);
const CHART_HEIGHT = 260;

export function formatTotals(rows: readonly StatsMoisRow[], litres: boolean): string {
  const nb = rows.reduce((a, r) => a + r.nb, 0);
  const l = rows.reduce((a, r) => a + r.quantite, 0);
  return litres ? `${number.format(nb)} · ${number.format(l)} L` : number.format(nb);
}

interface CardProps {
  title: string;
  total?: string;
  /** The export button, when the chart has one. */
  action?: ReactNode;
  children: ReactNode;
}

function ChartCard({ title, total, action, children, busy }: CardProps & { busy?: boolean }) {
  return (
    <Card withBorder padding="md" radius="md" component="section" aria-label={title} aria-busy={busy || undefined}>
      <Group justify="space-between" align="flex-start" wrap="nowrap" mb="sm">
        <Group gap="xs" align="baseline">
          <Title order={3} size="h5">
            {title}
          </Title>
          {total !== undefined && (
            <Badge variant="light" size="lg" aria-label={`Total de l'année : ${total}`}>
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
  const [asTable, setAsTable] = useState(false);
  const data = rows.map((r) => ({ mois: capitalize(r.mois_nom), Nombre: r.nb, ...(litres ? { Litres: r.quantite } : {}) }));
  const total = formatTotals(rows, litres);
  const busiest = rows.reduce((best, r) => (r.nb > best.nb ? r : best), rows[0]);
  const summary =
    `${title} : ${total}${litres ? '' : ' intervention(s)'} sur l'année` + (busiest && busiest.nb > 0 ? `, mois le plus actif : ${busiest.mois_nom} (${busiest.nb}).` : '.');
  return (
    <ChartCard title={title} total={total} action={action}>
      <TableToggle checked={asTable} onChange={setAsTable} />
      {asTable ? (
        <AlternativeTable
          title={title}
          headers={litres ? ['Mois', 'Nombre', 'Litres'] : ['Mois', 'Nombre']}
          rows={rows.map((r) => [capitalize(r.mois_nom), number.format(r.nb), ...(litres ? [number.format(r.quantite)] : [])])}
        />
      ) : (
        <div role="img" aria-label={summary}>
          <BarChart
            h={CHART_HEIGHT}
            data={data}
            dataKey="mois"
            series={[
              { name: 'Nombre', color: 'teal.6' },
              ...(litres ? [{ name: 'Litres', color: 'orange.5', yAxisId: 'right' }] : []),
            ]}
            withLegend={litres}
            withRightYAxis={litres}
            yAxisLabel="Nombre"
            rightYAxisLabel={litres ? 'Litres' : undefined}
            valueFormatter={(v) => number.format(v)}
            xAxisProps={{ interval: 0, angle: -45, textAnchor: 'end', height: 80 }}
          />
        </div>
      )}
    </ChartCard>
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
  const [asTable, setAsTable] = useState(false);
  const cells = [...new Set(rows.map((r) => r.numeroBac))].sort((a, b) => a - b);
  // One point per reading, one line per cell: a reading fills only its cell's column.
  const data = rows.map((r) => ({ date: formatParisDate(r.date), [`Cellule ${r.numeroBac}`]: r.temp }));
  const temps = rows.map((r) => r.temp);
  const summary =
    rows.length === 0
      ? `${title} : aucun relevé.`
      : `${title} : ${rows.length} relevé(s) sur ${cells.length} cellule(s), de ${decimal.format(Math.min(...temps))} à ${decimal.format(Math.max(...temps))} °C.`;
  return (
    <ChartCard title={title} total={`${rows.length} relevé(s)`}>
      {rows.length === 0 ? (
        <Text c="dimmed">Aucun relevé de température pour cette année.</Text>
      ) : (
        <>
          <TableToggle checked={asTable} onChange={setAsTable} />
          {asTable ? (
            <AlternativeTable
              title={title}
              headers={['Date', 'Cellule', 'Température (°C)']}
              rows={rows.map((r) => [formatParisDateTime(r.date), String(r.numeroBac), decimal.format(r.temp)])}
            />
          ) : (
            <div role="img" aria-label={summary}>
              <LineChart
                h={CHART_HEIGHT}
                data={data}
                dataKey="date"
                series={cells.map((n, i) => ({ name: `Cellule ${n}`, color: CELL_COLORS[i % CELL_COLORS.length] }))}
                connectNulls
                withLegend
                unit=" °C"
                yAxisLabel="°C"
                valueFormatter={(v) => decimal.format(v)}
              />
            </div>
          )}
        </>
      )}
    </ChartCard>
  );
}
