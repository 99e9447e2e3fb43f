// /admin/stats ('Statistiques'): monthly charts of the whole network or of
// one site for a year, optionally restricted to what one provider recorded, with the yearly
// CSV exports per site, and the people around the sites: the households taking part and the
// kilos diverted at the permanences (never filtered by provider: nobody's work). The filters live in the URL (?annee=2026&site=12&prestataire=5) so
// a view can be shared and the back button returns to the previous one.
import '@mantine/charts/styles.css';
import { useMemo, type ReactNode } from 'react';
import { Alert, Paper, Select, SimpleGrid, Stack, Text, type ComboboxItem, type ComboboxItemGroup } from '@mantine/core';
import { useQuery } from '@tanstack/react-query';
import { useSearchParams } from 'react-router';
import { can } from '../../../shared/permissions';
import type { ExportKind } from '../../../shared/schemas/statistics';
import type { ActiveSite } from '../../../shared/schemas/site-choice';
import { activeSitesQuery } from '../../session/bootstrap.api';
import { useSessionStore } from '../../session/session-store';
import { PageMessage } from '../../components/page-message';
import { PageTitle } from '../../components/page-title';
import { siteLabel } from '../../lib/labels';
import { downloadExport, householdsQuery, kilosQuery, prestatairesQuery, seriesQuery, temperaturesQuery, yearsQuery, type SeriesName, type StatsFilters } from './statistics.api';
import { ChartSkeleton, ExportButton, MonthlyChart, TemperatureChart } from './stats-charts';
import { HouseholdsChart, KilosChart } from './people-charts';

interface ChartDef {
  series: SeriesName;
  title: string;
  litres: boolean;
  /** Export kind and the words of its tooltip 'Télécharger {what} par site pour l'année'. */
  export?: { kind: ExportKind; what: string };
}

/** In the contract's order; no export on turning and repairs. */
export const CHARTS: readonly ChartDef[] = [
  { series: 'all', title: 'Interventions', litres: false, export: { kind: 'all', what: 'les interventions' } },
  { series: 'apportBroyat', title: 'Apports de broyat', litres: true, export: { kind: 'apportBroyat', what: 'les apports de broyat' } },
  { series: 'distribution', title: 'Distributions de compost', litres: true, export: { kind: 'distribution', what: 'les distributions de compost' } },
  { series: 'transfert', title: 'Transferts vers la maturation', litres: true, export: { kind: 'transfert', what: 'les transferts' } },
  { series: 'retournement', title: 'Retournements', litres: false },
  { series: 'reparation', title: 'Réparations', litres: false },
  { series: 'arrosage', title: 'Arrosages', litres: true, export: { kind: 'arrosage', what: 'les arrosages' } },
  { series: 'viderBac', title: 'Vider Cellule', litres: true, export: { kind: 'viderBac', what: 'les vidages de cellule' } },
  { series: 'tamisage', title: 'Tamisage', litres: true, export: { kind: 'tamisage', what: 'les tamisages' } },
];

export const NETWORK_LABEL = 'Tout le réseau';

/** Select data grouped by city, labelled by address, in French alphabetical order. */
function groupByVille(sites: readonly ActiveSite[]): ComboboxItemGroup<ComboboxItem>[] {
  const collator = new Intl.Collator('fr', { numeric: true });
  const byVille = new Map<string, ActiveSite[]>();
  for (const s of sites) byVille.set(s.ville, [...(byVille.get(s.ville) ?? []), s]);
  return [...byVille.entries()]
    .sort(([a], [b]) => collator.compare(a, b))
    .map(([group, list]) => ({ group, items: list.map((s) => ({ value: String(s.id), label: addressLabel(s) })).sort((a, b) => collator.compare(a.label, b.label)) }));
}

function addressLabel(s: ActiveSite): string {
  return s.numero ? siteLabel({ ...s, adresse: `${s.numero} ${s.adresse}` }) : siteLabel(s);
}

const positiveInt = (v: string | null): number | null => (v !== null && /^[1-9][0-9]{0,9}$/.test(v) && Number(v) <= 2_147_483_647 ? Number(v) : null);

export function StatisticsPage() {
  const roles = useSessionStore((s) => s.roles);
  if (!can(roles, 'stats.view')) return <PageMessage title="Accès non authorisé.">Les statistiques sont réservées aux administrateurs.</PageMessage>;
  return <Dashboard />;
}

function Dashboard() {
  const [params, setParams] = useSearchParams();
  const userId = useSessionStore((s) => s.id);
  const years = useQuery(yearsQuery());
  const sites = useQuery({ ...activeSitesQuery(userId ?? 0), enabled: userId !== null });
  const prestataires = useQuery(prestatairesQuery());

  const yearList = useMemo(() => (years.data ?? []).map((y) => y.annee), [years.data]);
  const urlYear = positiveInt(params.get('annee'));
  // Without a year in the URL (first load), the newest year; the URL gets it with the next change.
  const annee = urlYear ?? yearList[0] ?? null;
  const site = positiveInt(params.get('site'));
  const prestataire = positiveInt(params.get('prestataire'));
  const siteData = useMemo(() => groupByVille(sites.data ?? []), [sites.data]);
  const current = sites.data?.find((s) => s.id === site);
  const place = site === null ? NETWORK_LABEL : current ? addressLabel(current) : `Site ${site}`;

  const update = (key: 'annee' | 'site' | 'prestataire', value: string | null) => {
    const next = new URLSearchParams(params);
    if (annee !== null && !next.has('annee')) next.set('annee', String(annee));
    if (value === null || value === '') next.delete(key);
    else next.set(key, value);
    setParams(next);
  };

  // Years offered: the server's list, plus a year typed in the URL that is not (yet) in it.
  const yearOptions = useMemo(() => {
    const all = urlYear !== null && !yearList.includes(urlYear) ? [...yearList, urlYear].sort((a, b) => b - a) : yearList;
    return all.map(String);
  }, [yearList, urlYear]);
  const prestataireOptions = [{ value: '', label: 'Aucun' }, ...(prestataires.data ?? []).map((p) => ({ value: String(p.id), label: p.libelle }))];

  return (
    <Stack gap="md">
      <PageTitle>Statistiques</PageTitle>
      <Paper withBorder p="md" radius="md" component="form" aria-label="Filtres" onSubmit={(e) => e.preventDefault()}>
        <SimpleGrid cols={{ base: 1, sm: 3 }}>
          <Select
            label="Site"
            placeholder={NETWORK_LABEL}
            data={siteData}
            value={site === null ? null : String(site)}
            onChange={(v) => update('site', v)}
            searchable
            clearable
            nothingFoundMessage="Aucun site"
            disabled={sites.isPending && userId !== null}
          />
          <Select
            label="Prestataire"
            data={prestataireOptions}
            value={prestataire === null ? '' : String(prestataire)}
            onChange={(v) => update('prestataire', v)}
            allowDeselect={false}
          />
          <Select
            label="Année"
            data={yearOptions}
            value={annee === null ? null : String(annee)}
            onChange={(v) => update('annee', v)}
            allowDeselect={false}
            disabled={years.isPending}
          />
        </SimpleGrid>
      </Paper>
      {years.isError ? (
        <Alert color="red" role="alert">
          La liste des années n'a pas pu être chargée.
        </Alert>
      ) : annee === null ? (
        <Charts filters={null} place={place} />
      ) : (
        <Charts filters={{ annee, site, prestataire }} place={place} />
      )}
    </Stack>
  );
}

function Charts({ filters, place }: { filters: StatsFilters | null; place: string }) {
  const total = useQuery({ ...seriesQuery('all', filters ?? { annee: 0, site: null, prestataire: null }), enabled: filters !== null });
  if (filters === null || total.isPending) {
    return (
      <SimpleGrid cols={{ base: 1, lg: 2 }}>
        {CHARTS.map((c) => (
          <ChartSkeleton key={c.series} title={`${c.title} · ${place}`} />
        ))}
      </SimpleGrid>
    );
  }
  if (total.isError) {
    return (
      <Alert color="red" role="alert">
        Les statistiques n'ont pas pu être chargées.
      </Alert>
    );
  }
  const exportAction = (def: ChartDef) => {
    if (!def.export) return undefined;
    const { kind, what } = def.export;
    return (
      <ExportButton label={`Télécharger ${what} par site pour l'année`} onClick={() => downloadExport(kind, filters)} />
    );
  };
  const empty = total.data.every((r) => r.nb === 0);
  return (
    <Stack gap="md">
      {empty && (
        <Alert color="gray" title={`Aucune intervention en ${filters.annee}`}>
          {place === NETWORK_LABEL ? 'Aucune intervention n’a été enregistrée sur le réseau cette année-là.' : 'Aucune intervention n’a été enregistrée sur ce site cette année-là.'}
          {filters.prestataire !== null ? ' (pour ce prestataire)' : ''}
        </Alert>
      )}
      <SimpleGrid cols={{ base: 1, lg: 2 }}>
        <PeopleCards filters={filters} place={place} />
        {CHARTS.map((def) => (
          <SeriesCard key={def.series} def={def} filters={filters} place={place} action={exportAction(def)} />
        ))}
        {filters.site !== null && <TemperatureCard filters={filters} place={place} />}
      </SimpleGrid>
    </Stack>
  );
}

function SeriesCard({ def, filters, place, action }: { def: ChartDef; filters: StatsFilters; place: string; action?: ReactNode }) {
  const q = useQuery(seriesQuery(def.series, filters));
  const title = `${def.title} · ${place}`;
  if (q.isPending) return <ChartSkeleton title={title} />;
  if (q.isError) {
    return (
      <Alert color="red" role="alert" title={title}>
        Ce graphique n'a pas pu être chargé.
      </Alert>
    );
  }
  return <MonthlyChart title={title} rows={q.data} litres={def.litres} action={action} />;
}

function TemperatureCard({ filters, place }: { filters: StatsFilters; place: string }) {
  const q = useQuery(temperaturesQuery(filters));
  const title = `Températures (°C) · ${place}`;
  if (q.isPending) return <ChartSkeleton title={title} />;
  if (q.isError) {
    return (
      <Alert color="red" role="alert" title={title}>
        Ce graphique n'a pas pu être chargé.
      </Alert>
    );
  }
  return <TemperatureChart title={title} rows={q.data} />;
}

export const HOUSEHOLDS_TITLE = 'Foyers participants';
export const KILOS_TITLE = 'Kilos détournés';

/** The households and kilos cards, first: the figures funders ask for. */
function PeopleCards({ filters, place }: { filters: StatsFilters; place: string }) {
  const where = { annee: filters.annee, site: filters.site };
  const households = useQuery(householdsQuery(where));
  const kilos = useQuery(kilosQuery(where));
  const householdsTitle = `${HOUSEHOLDS_TITLE} · ${place}`;
  const kilosTitle = `${KILOS_TITLE} · ${place}`;
  const note =
    filters.prestataire !== null ? (
      <Text size="xs" c="dimmed" mb="xs">
        Tous prestataires confondus : ces chiffres ne dépendent pas du prestataire.
      </Text>
    ) : undefined;
  return (
    <>
      {households.isSuccess ? (
        <HouseholdsChart title={householdsTitle} rows={households.data} annee={filters.annee} note={note} />
      ) : (
        <PendingOrFailed title={householdsTitle} failed={households.isError} />
      )}
      {kilos.isSuccess ? <KilosChart title={kilosTitle} rows={kilos.data} note={note} /> : <PendingOrFailed title={kilosTitle} failed={kilos.isError} />}
    </>
  );
}

function PendingOrFailed({ title, failed }: { title: string; failed: boolean }) {
  if (!failed) return <ChartSkeleton title={title} />;
  return (
    <Alert color="red" role="alert" title={title}>
      Ce graphique n'a pas pu être chargé.
    </Alert>
  );
}
