// Calls of the statistics dashboard: query keys, queries
// and the yearly CSV downloads. The only fetch code of this module.
import { queryOptions } from '@tanstack/react-query';
import { api } from '../../lib/api';
import type { ExportKind, FoyersMoisRow, KgMoisRow, Prestataire, StatsMoisRow, TemperatureRow } from '../../../shared/schemas/statistics';
import { startDownload } from '../../lib/download';

/** The filters of the dashboard, as they live in the URL. */
export interface StatsFilters {
  annee: number;
  site: number | null;
  prestataire: number | null;
}

/** A monthly series: a stats series name, or 'all' for the interventions count. */
export type SeriesName = 'all' | 'apportBroyat' | 'distribution' | 'transfert' | 'retournement' | 'reparation' | 'arrosage' | 'viderBac' | 'tamisage';

export const statisticsKeys = {
  all: ['statistics'] as const,
  years: ['statistics', 'years'] as const,
  prestataires: ['statistics', 'prestataires'] as const,
  series: (name: SeriesName, f: StatsFilters) => ['statistics', 'series', name, f.annee, f.site, f.prestataire] as const,
  temperatures: (f: StatsFilters) => ['statistics', 'temperatures', f.annee, f.site, f.prestataire] as const,
  households: (f: PlaceFilters) => ['statistics', 'foyers', f.annee, f.site] as const,
  kilos: (f: PlaceFilters) => ['statistics', 'kgDetournes', f.annee, f.site] as const,
};

/** The households and the permanences' kilos are nobody's work: they are filtered by year and site only. */
export type PlaceFilters = Pick<StatsFilters, 'annee' | 'site'>;

function placeParams(f: PlaceFilters): Record<string, number> {
  return f.site === null ? { annee: f.annee } : { annee: f.annee, site: f.site };
}

function params(f: StatsFilters): Record<string, number> {
  const p: Record<string, number> = { annee: f.annee };
  if (f.site !== null) p.site = f.site;
  if (f.prestataire !== null) p.prestataire = f.prestataire;
  return p;
}

export const yearsQuery = () =>
  queryOptions({ queryKey: statisticsKeys.years, queryFn: () => api.get('admin/annee/get/all').json<{ annee: number }[]>(), staleTime: 60_000 });

export const prestatairesQuery = () =>
  queryOptions({ queryKey: statisticsKeys.prestataires, queryFn: () => api.get('admin/stats/prestataire/get/all').json<Prestataire[]>(), staleTime: 5 * 60_000 });

export const seriesQuery = (name: SeriesName, f: StatsFilters) =>
  queryOptions({
    queryKey: statisticsKeys.series(name, f),
    queryFn: ({ signal }) => api.get(name === 'all' ? 'admin/intervention/get/all/by/mois' : `admin/${name}/get/by/mois`, { searchParams: params(f), signal }).json<StatsMoisRow[]>(),
    // The interventions series is read by the page (empty state) and by its chart: one call.
    staleTime: 30_000,
  });

export const householdsQuery = (f: PlaceFilters) =>
  queryOptions({
    queryKey: statisticsKeys.households(f),
    queryFn: ({ signal }) => api.get('admin/foyers/get/by/mois', { searchParams: placeParams(f), signal }).json<FoyersMoisRow[]>(),
    staleTime: 30_000,
  });

export const kilosQuery = (f: PlaceFilters) =>
  queryOptions({
    queryKey: statisticsKeys.kilos(f),
    queryFn: ({ signal }) => api.get('admin/kgDetournes/get/by/mois', { searchParams: placeParams(f), signal }).json<KgMoisRow[]>(),
    staleTime: 30_000,
  });

export const temperaturesQuery = (f: StatsFilters) =>
  queryOptions({
    queryKey: statisticsKeys.temperatures(f),
    queryFn: ({ signal }) => api.get('admin/temperature/get/by/mois', { searchParams: params(f), signal }).json<TemperatureRow[]>(),
    enabled: f.site !== null,
    staleTime: 0,
  });

/**
 * Downloads export_{kind}_par_site_{year}.csv (one row per site, a column per month), of what
 * the screen's provider recorded when one is chosen (browser download).
 */
export function downloadExport(kind: ExportKind, f: Pick<StatsFilters, 'annee' | 'prestataire'>) {
  return startDownload(`admin/intervention/export/${kind}/by/site`, { annee: f.annee, prestataire: f.prestataire ?? undefined }, `export_${kind}_par_site_${f.annee}.csv`);
}
