// Calls of the sites screen (and the reference lists it needs):
// query keys, queries and the save calls. The only fetch code of this module.
import { queryOptions } from '@tanstack/react-query';
import { api } from '../../lib/api';
import { startDownload } from '../../lib/download';
import type { IdLibelle, ComposterType, TypeSite, Ville } from '../../../shared/schemas/reference';
import type {
  Requester,
  RequesterUpdate,
  SiteAdd,
  SiteCell,
  CellsAddInput,
  CellUpdateInput,
  SiteDetail,
  SiteUpdate,
} from '../../../shared/schemas/sites';

export const sitesKeys = {
  all: ['sites'] as const,
  list: ['sites', 'list'] as const,
  detail: (id: number) => ['sites', 'detail', id] as const,
  cells: (id: number) => ['sites', 'cells', id] as const,
  requester: (id: number) => ['sites', 'requester', id] as const,
};

/** A user offered as referent (GET /api/admin/user/get/all/actif). */
export interface ActiveUser {
  id: number;
  nom: string;
  prenom: string | null;
  email: string;
}

const reference = <T>(key: string, url: string) =>
  queryOptions({ queryKey: ['reference', key] as const, queryFn: () => api.get(url).json<T>(), staleTime: 5 * 60_000 });

export const villesQuery = () => reference<Ville[]>('villes', 'ville/get/all');
export const typeSitesQuery = () => reference<TypeSite[]>('typeSites', 'typeSite/get/all');
export const composterTypesQuery = () => reference<ComposterType[]>('typeComposteurs', 'typeComposteur/get/all');
export const cellTypesQuery = () => reference<IdLibelle[]>('typeBacs', 'typeBac/get/all');
export const siteStatutsQuery = () => reference<IdLibelle[]>('siteStatuts', 'admin/statut/get/all/sites');
export const typeActionsQuery = () => reference<IdLibelle[]>('typeActions', 'typeAction/get/all');

export const ruesQuery = (ville: string) =>
  queryOptions({
    queryKey: ['reference', 'rues', ville] as const,
    queryFn: () => api.get(`rues/get/all/${encodeURIComponent(ville)}`).json<{ nom: string }[]>(),
    enabled: ville !== '',
    staleTime: 5 * 60_000,
  });

export const activeUsersQuery = () =>
  queryOptions({ queryKey: ['users', 'actifs'] as const, queryFn: () => api.get('admin/user/get/all/actif').json<ActiveUser[]>(), staleTime: 0 });

export const siteQuery = (id: number) => queryOptions({ queryKey: sitesKeys.detail(id), queryFn: () => api.get(`admin/site/get/${id}`).json<SiteDetail>(), staleTime: 0 });

export const siteCellsQuery = (siteId: number) =>
  queryOptions({
    queryKey: sitesKeys.cells(siteId),
    queryFn: () => api.get(`admin/siteComposteurs/get/by/site/${siteId}`).json<SiteCell[]>(),
    staleTime: 0,
  });

export const requesterQuery = (id: number) =>
  queryOptions({ queryKey: sitesKeys.requester(id), queryFn: () => api.get(`admin/demandeur/get/${id}`).json<Requester>(), staleTime: 0 });

type Success = { status: 'success' };

export const addSite = (payload: SiteAdd) => api.post('admin/site/add', { json: payload }).json<Success & { id: number; code: string }>();
export const updateSite = (id: number, payload: SiteUpdate) => api.put(`admin/site/update/${id}`, { json: payload }).json<Success>();
export const updateReferents = (id: number, userIds: number[]) => api.put(`admin/site/update/user/${id}`, { json: { user: userIds } }).json<Success>();
export const updateCell = (id: number, payload: CellUpdateInput) => api.put(`admin/siteComposteur/update/${id}`, { json: payload }).json<Success>();
export const addCells = (siteId: number, payload: CellsAddInput) => api.put(`admin/site/add/composteur/${siteId}`, { json: payload }).json<Success>();
export const updateRequester = (id: number, payload: RequesterUpdate) => api.put(`admin/demandeur/update/${id}`, { json: payload }).json<Success>();

/** Downloads the CSV of the list's current search, sort and filters as exportSites.csv (browser download). */
export function exportSites(queryString: string) {
  return startDownload('admin/site/export', queryString, 'exportSites.csv');
}
