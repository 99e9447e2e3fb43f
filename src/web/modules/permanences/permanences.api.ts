// The only calls of the permanences screens: query keys, the list of a site's openings, and the
// writes (schedule, move, cancel, sign up or withdraw). A tally is not sent from here: it goes through
// the phone's outbox (offline/outbox-runner.ts submitBilan), so it is kept without network.
// The list's keys start with ['permanences', 'site']: the phone keeps them
// (offline/query-persist-keys.ts), so a referent at the bin without signal still sees them.
import { queryOptions } from '@tanstack/react-query';
import { api } from '../../lib/api';
import type { PermanenceAdd, PermanenceList, PermanenceUpdate } from '../../../shared/schemas/permanences';

export type Periode = 'a_venir' | 'passees';

export const permanenceKeys = {
  all: ['permanences'] as const,
  site: (siteId: number, periode: Periode) => ['permanences', 'site', siteId, periode] as const,
};

export const permanencesQuery = (siteId: number, periode: Periode) =>
  queryOptions({
    queryKey: permanenceKeys.site(siteId, periode),
    queryFn: () => api.get(`admin/permanence/get/list/by/site/${siteId}`, { searchParams: { periode } }).json<PermanenceList>(),
    staleTime: 30_000,
  });

export const addPermanence = (body: PermanenceAdd) => api.post('admin/permanence/add', { json: body }).json<{ count: number; ids: number[]; message: string }>();

export const updatePermanence = (id: number, body: PermanenceUpdate) => api.put(`admin/permanence/update/${id}`, { json: body }).json<{ message: string }>();

export const cancelPermanence = (id: number, motif: string) => api.put(`admin/permanence/annuler/${id}`, { json: { motif } }).json<{ message: string }>();

export const signUp = (id: number) => api.post(`permanence/${id}/ouvreur`).json<{ message: string }>();

export const withdraw = (id: number) => api.delete(`permanence/${id}/ouvreur`).json<{ message: string }>();
