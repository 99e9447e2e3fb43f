// Calls of the intervention requests screens: the
// pending board, its site filter, the history, cancelling, scheduling and the request rules.
import { queryOptions } from '@tanstack/react-query';
import { api } from '../../lib/api';
import type { DemandeRule, DemandeRuleInput, PendingList, PendingSite, RequestSaveResponse, ScheduleItem } from '../../../shared/schemas/requests';
import type { IdLibelle } from '../../../shared/schemas/reference';
import { toQueryString } from '../../../shared/schemas/list';

export const requestsKeys = {
  all: ['requests'] as const,
  pending: (page: number, site: number | null) => ['requests', 'pending', page, site] as const,
  sites: ['requests', 'sites'] as const,
  history: ['requests', 'history'] as const,
  rules: ['requestRules'] as const,
};

export const PAGE_SIZE = 20;
export const HISTORY_URL = 'admin/demande/intervention/get/all/by/filters';

export const pendingQuery = (page: number, site: number | null) =>
  queryOptions({
    queryKey: requestsKeys.pending(page, site),
    queryFn: () =>
      api
        .get(`admin/demande/intervention/get/list?${toQueryString({ page, rowsPerPage: PAGE_SIZE, sort: { name: 'site', direction: 'asc' }, filter: { site } })}`)
        .json<PendingList>(),
  });

/** The request statuses (En attente, Programmée, Réalisée, Annulée): the history's status filter. */
export const requestStatutsQuery = () =>
  queryOptions({
    queryKey: ['reference', 'requestStatuts'] as const,
    queryFn: () => api.get('admin/statut/get/all/demandes/interventions').json<IdLibelle[]>(),
    staleTime: 5 * 60_000,
  });

export const pendingSitesQuery = () =>
  queryOptions({ queryKey: requestsKeys.sites, queryFn: () => api.get('admin/demande/intervention/get/sites').json<PendingSite[]>() });

/** All or none, with one reason for all; the answer says how many were cancelled. */
export const cancelRequests = (ids: number[], motif: string) =>
  api.put('admin/demande/intervention/delete', { json: { demandesInterventions: ids, motif } }).json<RequestSaveResponse>();

/** Each item carries the due date and action the dialog showed: the server refuses it if the request changed since. */
export const scheduleRequests = (values: ScheduleItem[]) => api.post('admin/demande/intervention/programmer', { json: { values } }).json<RequestSaveResponse>();

export const rulesQuery = () => queryOptions({ queryKey: requestsKeys.rules, queryFn: () => api.get('admin/demande/regle/get/all').json<DemandeRule[]>() });

type RuleSaved = { status: 'success'; message: string; id: number };
export const addRule = (input: DemandeRuleInput) => api.post('admin/demande/regle/add', { json: input }).json<RuleSaved>();
export const updateRule = (id: number, input: DemandeRuleInput) => api.put(`admin/demande/regle/update/${id}`, { json: input }).json<RuleSaved>();
export const deleteRule = (id: number) => api.put(`admin/demande/regle/delete/${id}`).json<RuleSaved>();
