// Calls of the households' screens: the 'Foyers' screen of a site (its households, confirm or
// refuse one, a news message to the subscribed ones) and the page behind a household's leave
// link. The only fetch code of the module.
import { queryOptions } from '@tanstack/react-query';
import { api, quietApi } from '../../lib/api';
import type { FoyerList, NouvelleInput } from '../../../shared/schemas/households';
import type { SiteInfos } from '../../../shared/schemas/interventions';

type Done = { status: 'success'; message: string };

export const householdsKeys = {
  all: ['foyers'] as const,
  list: (siteId: number) => ['foyers', 'list', siteId] as const,
  site: (siteId: number) => ['foyers', 'site', siteId] as const,
};

/** Every household of the site, the waiting ones first, with the confirmed counts. */
export const householdsQuery = (siteId: number) =>
  queryOptions({
    queryKey: householdsKeys.list(siteId),
    queryFn: () => api.get(`admin/foyer/get/list/by/site/${siteId}`).json<FoyerList>(),
    staleTime: 0,
  });

/** The site's name and code for the screen's header (the site sheet's own header data). */
export const householdsSiteQuery = (siteId: number) =>
  queryOptions({
    queryKey: householdsKeys.site(siteId),
    queryFn: () => api.get(`admin/site/get/infos/pour/intervention/${siteId}`).json<SiteInfos>(),
    staleTime: 5 * 60_000,
  });

export const confirmHousehold = (id: number) => api.put(`admin/foyer/valider/${id}`).json<Done>();

export const refuseHousehold = (id: number) => api.put(`admin/foyer/refuser/${id}`).json<Done>();

export const sendNews = (payload: NouvelleInput) => api.post('admin/foyer/nouvelle', { json: payload }).json<Done & { destinataires: number }>();

/** The leave link: deletes the household's record. Nobody is logged in, so no 401 handling. */
export const leaveSite = (jeton: string) => quietApi.post('public/foyer/quitter', { json: { jeton } }).json<Done>();
