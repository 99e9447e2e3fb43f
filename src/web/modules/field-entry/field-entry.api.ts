// Query keys and queries of the field entry screens. The field screens' data goes through
// the offline reference cache: the network when it answers, the phone's copy when it does not.
// `networkMode: 'always'` because TanStack Query would otherwise pause these queries while the
// browser says it is offline, which is exactly when the copy is needed.
import { queryOptions } from '@tanstack/react-query';
import { api } from '../../lib/api';
import type { IdLibelle, TypeActionConstante } from '../../../shared/schemas/reference';
import type { SiteInfos } from '../../../shared/schemas/interventions';
import { networkOrCache, referenceKeys, referencePaths } from '../../offline/reference-cache';

// The keys keep their 'interventions' root: the phone keeps the site sheets' data under it
// (offline/query-persist-keys.ts).
export const fieldEntryKeys = {
  siteInfos: (siteId: number) => ['interventions', 'siteInfos', siteId] as const,
  constantes: ['reference', 'constantes'] as const,
  cellTypes: ['reference', 'typeBacs'] as const,
  publicList: (siteId: number) => ['interventions', 'site', siteId] as const,
};

export const siteInfosQuery = (siteId: number) =>
  queryOptions({
    queryKey: fieldEntryKeys.siteInfos(siteId),
    queryFn: () => networkOrCache<SiteInfos>(referenceKeys.siteInfos(siteId), () => api.get(referencePaths.siteInfos(siteId)).json<SiteInfos>()),
    networkMode: 'always',
    staleTime: 60_000,
    retry: false,
  });

export const constantesQuery = () =>
  queryOptions({
    queryKey: fieldEntryKeys.constantes,
    queryFn: async () =>
      (await networkOrCache<TypeActionConstante[]>(referenceKeys.constantes, () => api.get(referencePaths.constantes).json<TypeActionConstante[]>())).data,
    networkMode: 'always',
    staleTime: 5 * 60_000,
    retry: false,
  });

export const cellTypesQuery = () =>
  queryOptions({
    queryKey: fieldEntryKeys.cellTypes,
    queryFn: () => api.get('typeBac/get/all').json<IdLibelle[]>(),
    staleTime: 5 * 60_000,
  });

export const PUBLIC_LIST_URL = (siteId: number) => `intervention/get/list/by/site/${siteId}`;
