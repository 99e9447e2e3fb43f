// Calls of the 'Signalements' panel (anonymous reports sent from the sites' public pages):
// query keys, the list, the cells a request may be made on, and the two ways to handle a
// report, one at a time or several at once. The only fetch code of the panel.
import { keepPreviousData, queryOptions } from '@tanstack/react-query';
import { api } from '../../lib/api';
import { toQueryString } from '../../../shared/schemas/list';
import type { SiteInfos } from '../../../shared/schemas/interventions';
import type { SignalementList, SignalementTransform } from '../../../shared/schemas/public-sites';

type Bulk = { status: 'success'; message: string; count: number };

export const reportsKeys = {
  all: ['signalements'] as const,
  list: (statut: 'nouveau' | 'traite', page: number) => ['signalements', 'list', statut, page] as const,
  cells: (siteId: number) => ['signalements', 'cells', siteId] as const,
};

export const REPORTS_PAGE_SIZE = 20;

export const reportsQuery = (statut: 'nouveau' | 'traite', page: number) =>
  queryOptions({
    queryKey: reportsKeys.list(statut, page),
    queryFn: () =>
      api
        .get('admin/signalement/get/list', {
          searchParams: toQueryString({ page, rowsPerPage: REPORTS_PAGE_SIZE, sort: { name: 'date', direction: statut === 'nouveau' ? 'asc' : 'desc' }, filter: { statut } }),
        })
        .json<SignalementList>(),
    placeholderData: keepPreviousData,
    staleTime: 0,
  });

/** The active cells of the report's site (the ones a request may be made on). */
export const reportSiteCellsQuery = (siteId: number) =>
  queryOptions({
    queryKey: reportsKeys.cells(siteId),
    queryFn: async () => (await api.get(`admin/site/get/infos/pour/intervention/${siteId}`).json<SiteInfos>()).siteComposteurs,
    staleTime: 60_000,
  });

type Handled = { status: 'success'; message: string; idDemande: number | null };

export const transformReport = (id: number, payload: Partial<SignalementTransform>) => api.put(`admin/signalement/transformer/${id}`, { json: payload }).json<Handled>();

/** Several new reports of one site turned into one request, all or none. */
export const transformReports = (ids: number[], payload: Partial<SignalementTransform>) =>
  api.put('admin/signalement/transformer', { json: { ids, ...payload } }).json<Bulk & { idDemande: number }>();

export const fileReport = (id: number, motif: string) => api.put(`admin/signalement/classer/${id}`, { json: { motif } }).json<Handled>();

export const fileReports = (ids: number[], motif: string) => api.put('admin/signalement/classer', { json: { ids, motif } }).json<Bulk>();

export const mergeReports = (idConserve: number, ids: number[]) => api.put('admin/signalement/fusionner', { json: { idConserve, ids } }).json<Bulk>();
