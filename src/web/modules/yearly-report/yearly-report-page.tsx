// /admin/rapport 'Rapport annuel' (ROLE_ADMIN, ROLE_ADMIN_SITE): a year's figures for the whole
// programme and a page per site (or one site's), with charts, for elected officials and funders:
// interventions, litres, requests, and the people around the sites (households, permanences,
// kilos diverted, estimates said so).
// The year and the site live in the URL (?annee=2026&site=12). 'Imprimer' prints the report
// alone (no top bar, no drawer, one page per site); 'Exporter CSV' downloads the same figures.
// Counts have whole ticks, legends follow the series, months are abbreviated on a phone and a
// chart without figures says so (components/chart-parts.tsx).
import '@mantine/charts/styles.css';
import './yearly-report.css';
import { useEffect, useMemo } from 'react';
import { Button, Card, Group, Select, SimpleGrid, Stack, Table, Text, Title } from '@mantine/core';
import { QueryState } from '../../components/query-state';
import { BarChart } from '@mantine/charts';
import { IconDownload, IconPrinter } from '@tabler/icons-react';
import { useQuery } from '@tanstack/react-query';
import { useSearchParams } from 'react-router';
import { can } from '../../../shared/permissions';
import { formatParisDate } from '../../../shared/dates';
import { REPORT_LITRES, REPORT_LITRES_LABELS, type ReportFigures, type YearlyReport } from '../../../shared/schemas/yearly-report';
import { activeSitesQuery } from '../../session/bootstrap.api';
import { useSessionStore } from '../../session/session-store';
import { COUNT_AXIS, NoChartData, hasFigures, monthAxis, seriesOrder, useNarrowChart } from '../../components/chart-parts';
import { PageMessage } from '../../components/page-message';
import { PageTitle } from '../../components/page-title';
import { formatNumber, monthLabels } from '../../lib/format';
import { yearsQuery } from '../statistics/public';
import { downloadReport, reportQuery, type ReportFilters } from './yearly-report.api';

const LITRE_COLORS: Record<(typeof REPORT_LITRES)[number], string> = {
  apportBroyat: 'orange.6',
  transfert: 'green.7',
  viderBac: 'gray.6',
  tamisage: 'teal.5',
  distribution: 'lime.6',
};
const positiveInt = (v: string | null): number | null => (v !== null && /^[1-9][0-9]{0,9}$/.test(v) && Number(v) <= 2_147_483_647 ? Number(v) : null);

export function YearlyReportPage() {
  const roles = useSessionStore((s) => s.roles);
  if (!can(roles, 'report.yearly')) return <PageMessage title="Accès non authorisé.">Cet écran est réservé aux administrateurs.</PageMessage>;
  return <ReportScreen />;
}

function ReportScreen() {
  const userId = useSessionStore((s) => s.id);
  const [params, setParams] = useSearchParams();
  const years = useQuery(yearsQuery());
  const sites = useQuery({ ...activeSitesQuery(userId ?? 0), enabled: userId !== null });
  const currentYear = new Date().getFullYear();
  const yearList = useMemo(() => [...new Set([currentYear, ...(years.data ?? []).map((y) => y.annee)])].sort((a, b) => b - a), [years.data, currentYear]);
  const annee = positiveInt(params.get('annee')) ?? currentYear;
  const site = positiveInt(params.get('site'));
  const filters: ReportFilters = { annee, site };
  const report = useQuery(reportQuery(filters));

  // Print rules apply while this screen is open only.
  useEffect(() => {
    document.body.classList.add('yearly-report-print');
    return () => document.body.classList.remove('yearly-report-print');
  }, []);

  const set = (key: 'annee' | 'site', value: string | null) => {
    const next = new URLSearchParams(params);
    if (value === null) next.delete(key);
    else next.set(key, value);
    if (!next.has('annee')) next.set('annee', String(annee));
    setParams(next);
  };

  const exportCsv = () => downloadReport(filters, report.data?.site?.code ?? null);

  const siteOptions = (sites.data ?? [])
    .map((s) => ({ value: String(s.id), label: s.nom ? `${s.nom} (${s.code})` : s.code }))
    .sort((a, b) => a.label.localeCompare(b.label, 'fr'));

  return (
    <Stack gap="lg" maw={1100} mx="auto">
      <PageTitle>{`Rapport annuel ${annee}`}</PageTitle>
      <Group className="report-controls" justify="space-between" align="flex-end" wrap="wrap">
        <Group align="flex-end" wrap="wrap">
          <Select label="Année" data={yearList.map(String)} value={String(annee)} onChange={(v) => set('annee', v)} allowDeselect={false} w={120} />
          <Select
            label="Site"
            placeholder="Tout le programme"
            data={siteOptions}
            value={site === null ? null : String(site)}
            onChange={(v) => set('site', v)}
            searchable
            clearable
            nothingFoundMessage="Aucun site"
            w={320}
          />
        </Group>
        <Group>
          <Button variant="light" leftSection={<IconPrinter size={16} aria-hidden />} onClick={() => window.print()} disabled={!report.data}>
            Imprimer
          </Button>
          <Button variant="light" leftSection={<IconDownload size={16} aria-hidden />} onClick={exportCsv} disabled={!report.data}>
            Exporter CSV
          </Button>
        </Group>
      </Group>
      <QueryState queries={[report]} label="Chargement du rapport">
        {(data) => <Report report={data} />}
      </QueryState>
    </Stack>
  );
}

const INTERVENTIONS = [{ name: 'Interventions', color: 'green.7' }];
const LITRES_SERIES = REPORT_LITRES.map((s) => ({ name: REPORT_LITRES_LABELS[s], color: LITRE_COLORS[s] }));

/** A monthly bar chart of the report, or the empty state when the year has no figure. */
function MonthlyBars({ h, data, series, stacked, withTooltip = true }: { h: number; data: Record<string, string | number>[]; series: { name: string; color: string }[]; stacked?: boolean; withTooltip?: boolean }) {
  const narrow = useNarrowChart();
  if (!hasFigures(data, series.map((s) => s.name))) return <NoChartData h={h} />;
  return (
    <BarChart
      h={h}
      data={data}
      dataKey="mois"
      type={stacked ? 'stacked' : undefined}
      withLegend={series.length > 1}
      withTooltip={withTooltip}
      barProps={{ isAnimationActive: false }}
      series={series}
      yAxisProps={stacked ? undefined : COUNT_AXIS}
      valueFormatter={(v) => formatNumber(v)}
      xAxisProps={monthAxis(narrow)}
      {...seriesOrder(series)}
    />
  );
}

function Report({ report }: { report: YearlyReport }) {
  const narrow = useNarrowChart();
  const months = monthLabels(narrow);
  const whole = report.site ? (report.site.nom ? `${report.site.nom} (${report.site.code})` : report.site.code) : 'Ensemble du programme';
  const f = report.ensemble;
  const monthly = months.map((mois, i) => ({ mois, Interventions: f.interventionsParMois[i] }));
  const litres = months.map((mois, i) => Object.fromEntries([['mois', mois], ...REPORT_LITRES.map((s) => [REPORT_LITRES_LABELS[s], f.litresParMois[s][i]])]));
  const byAction = f.parAction.map((a) => ({ action: a.libelle, Interventions: a.nb }));
  return (
    <Stack gap="lg">
      <Text size="lg">{whole}</Text>
      <FiguresTable figures={f} report={report} caption={`Chiffres ${report.annee} : ${whole}`} programme={!report.site} />
      <SimpleGrid cols={{ base: 1, md: 2 }}>
        <ChartCard title="Interventions par mois">
          <MonthlyBars h={240} data={monthly} series={INTERVENTIONS} />
        </ChartCard>
        <ChartCard title="Litres par mois">
          <MonthlyBars h={240} data={litres} series={LITRES_SERIES} stacked />
        </ChartCard>
      </SimpleGrid>
      {byAction.length > 0 && (
        <ChartCard title="Interventions par type d'action">
          <BarChart
            h={Math.max(160, byAction.length * 28)}
            data={byAction}
            dataKey="action"
            orientation="vertical"
            xAxisProps={COUNT_AXIS}
            yAxisProps={{ width: narrow ? 120 : 180 }}
            valueFormatter={(v) => formatNumber(v)}
            barProps={{ isAnimationActive: false }}
            series={INTERVENTIONS}
          />
        </ChartCard>
      )}
      {!report.site &&
        report.sites.map((s) => (
          <section key={s.id} className="report-page" aria-label={`Site ${s.nom ?? s.code}`}>
            <Stack gap="sm" pt="lg">
              <Title order={2} size="h3">
                {s.nom ? `${s.nom} (${s.code})` : s.code}
              </Title>
              <Text size="sm" c="dimmed">
                {s.adresse}, {s.ville}
                {s.dateImplantation ? ` · installé le ${formatParisDate(s.dateImplantation)}` : ''}
                {s.actif ? '' : ' · inactif'}
              </Text>
              <FiguresTable figures={s.figures} report={report} caption={`Chiffres ${report.annee} : ${s.nom ?? s.code}`} programme={false} />
              <ChartCard title="Interventions par mois">
                <MonthlyBars h={220} data={months.map((mois, i) => ({ mois, Interventions: s.figures.interventionsParMois[i] }))} series={INTERVENTIONS} withTooltip={false} />
              </ChartCard>
            </Stack>
          </section>
        ))}
    </Stack>
  );
}

function ChartCard({ title, children }: { title: string; children: React.ReactNode }) {
  return (
    <Card withBorder padding="md" radius="md" component="section" aria-label={title} className="report-chart">
      <Title order={3} size="h5" mb="sm">
        {title}
      </Title>
      {children}
    </Card>
  );
}

function FiguresTable({ figures: f, report, caption, programme }: { figures: ReportFigures; report: YearlyReport; caption: string; programme: boolean }) {
  const rows: [string, string][] = [
    ['Interventions', formatNumber(f.interventions)],
    ...REPORT_LITRES.map((s): [string, string] => [REPORT_LITRES_LABELS[s], `${formatNumber(f.litres[s])} L`]),
    [`Biodéchets détournés (estimation à ${formatNumber(report.densiteKgParLitre)} kg/L des litres transférés)`, `${formatNumber(f.kgTransferes)} kg`],
    ['Foyers participants en fin d’année', formatNumber(f.foyers)],
    ['Personnes dans ces foyers', formatNumber(f.personnes)],
    ['Permanences tenues', formatNumber(f.permanences)],
    ['Permanences annulées', formatNumber(f.permanencesAnnulees)],
    ['Biodéchets détournés aux permanences', `${formatNumber(f.kgDetournes, 2)} kg`],
    ['dont estimés d’après les seaux', `${formatNumber(f.kgEstimes, 2)} kg`],
    ['Relevés de température', formatNumber(f.temperatures.releves)],
    [`dont au-dessus de ${formatNumber(report.temperatureMax)} °C`, formatNumber(f.temperatures.auDessus)],
    [`dont au-dessous de ${formatNumber(report.temperatureMin)} °C`, formatNumber(f.temperatures.auDessous)],
    ["Demandes d'intervention créées", formatNumber(f.demandes.creees)],
    ['dont réalisées', formatNumber(f.demandes.realisees)],
    ['dont annulées', formatNumber(f.demandes.annulees)],
    ['dont en attente', formatNumber(f.demandes.enAttente)],
    ['dont en retard', formatNumber(f.demandes.enRetard)],
    ['Délai médian de réalisation', f.demandes.delaiMedianJours === null ? '—' : `${formatNumber(f.demandes.delaiMedianJours)} jours`],
    ['Signalements du public', formatNumber(f.signalements)],
    ...(programme
      ? ([
          ['Sites actifs', formatNumber(f.sitesActifs)],
          ['Sites avec des interventions', formatNumber(f.sitesAvecInterventions)],
        ] as [string, string][])
      : []),
    ['Référents', formatNumber(f.referents)],
  ];
  return (
    <Table withTableBorder striped maw={640} aria-label={caption}>
      <Table.Caption>{caption}</Table.Caption>
      <Table.Tbody>
        {rows.map(([label, value]) => (
          <Table.Tr key={label}>
            <Table.Th scope="row" fw={500}>
              {label}
            </Table.Th>
            <Table.Td ta="right">{value}</Table.Td>
          </Table.Tr>
        ))}
      </Table.Tbody>
    </Table>
  );
}
