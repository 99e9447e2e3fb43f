// Query keys, queries and calls of the interventions administration (/admin/interventions):
// the global list (through useListQuery), one intervention, its correction and deletion, the
// CSV export, and the options of the Site filter.
import { queryOptions } from '@tanstack/react-query';
import { api } from '../../lib/api';
import type { ActiveSite } from '../../../shared/schemas/site-choice';
import type { InterventionDetail, InterventionUpdateInput } from '../../../shared/schemas/interventions-admin';
import { startDownload } from '../../lib/download';

export const interventionsAdminKeys = {
  all: ['interventions', 'admin'] as const,
  list: ['interventions', 'admin', 'list'] as const,
  detail: (id: number) => ['interventions', 'admin', 'detail', id] as const,
  sites: ['interventions', 'admin', 'sites'] as const,
};

export const INTERVENTIONS_LIST_URL = 'admin/intervention/get/list/by/filters';

export const interventionDetailQuery = (id: number) =>
  queryOptions({
    queryKey: interventionsAdminKeys.detail(id),
    queryFn: () => api.get(`admin/intervention/get/${id}`).json<InterventionDetail>(),
    staleTime: 0,
    retry: false,
  });

/** Options of the Site filter: the active sites (the only ones that receive interventions). */
export const siteOptionsQuery = () =>
  queryOptions({
    queryKey: interventionsAdminKeys.sites,
    queryFn: () => api.get('admin/site/get/all/actif').json<ActiveSite[]>(),
    staleTime: 60_000,
  });

export interface UpdateAnswer {
  status: 'success';
  message: string;
  demandesAnnulees: number[];
  demandesCreees: number[];
}

export const updateIntervention = (id: number, body: InterventionUpdateInput) =>
  api.put(`admin/intervention/update/${id}`, { json: body }).json<UpdateAnswer>();

export const deleteIntervention = (id: number) =>
  api.put(`admin/intervention/delete/${id}`).json<{ status: 'success'; message: string; demandeSupprimee: number | null }>();

/** Downloads the CSV of the list's current search, filters and sort as export.csv (browser download). */
export function exportInterventions(queryString: string) {
  return startDownload('admin/intervention/export', queryString, 'export.csv');
}
