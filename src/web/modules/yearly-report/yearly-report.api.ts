// Calls of the yearly report: the figures of a year (programme or one site) and their CSV.
import { queryOptions } from '@tanstack/react-query';
import { api } from '../../lib/api';
import { startDownload } from '../../lib/download';
import type { YearlyReport } from '../../../shared/schemas/yearly-report';

export interface ReportFilters {
  annee: number;
  site: number | null;
}

const params = (f: ReportFilters) => (f.site === null ? { annee: f.annee } : { annee: f.annee, site: f.site });

export const reportKeys = { report: (f: ReportFilters) => ['yearlyReport', f.annee, f.site] as const };

export const reportQuery = (f: ReportFilters) =>
  queryOptions({
    queryKey: reportKeys.report(f),
    queryFn: ({ signal }) => api.get('admin/rapport/get/by/annee', { searchParams: params(f), signal, timeout: 120_000 }).json<YearlyReport>(),
  });

/** Downloads rapport_annuel_{year}.csv (or _{site code}) through the browser's downloads. */
export function downloadReport(f: ReportFilters, siteCode: string | null) {
  return startDownload('admin/rapport/export', params(f), siteCode ? `rapport_annuel_${f.annee}_${siteCode}.csv` : `rapport_annuel_${f.annee}.csv`);
}
