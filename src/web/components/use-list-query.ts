// State and data of one server-side admin list (spec.md "Common table behaviour").
//
//   const list = useListQuery<UserRow, UserFilter>({
//     queryKey: ['users', 'list'],               // prefix: invalidate it after a change to reload
//     url: 'admin/user/get/list/by/filters',     // under /api, no leading slash
//     listKey: 'users',                          // the answer is {count, users: [...]}
//     defaultSort: { name: 'nom', direction: 'asc' },
//     defaultRowsPerPage: 20,                     // 10 for roles and sites
//     extraParams: { id: siteId },               // optional fixed parameters (not filters)
//   });
//   <DataTable list={list} columns={...} />     // components/data-table.tsx
//
// Two copies of search and filters are kept: `draft` is what the inputs show, `applied` is
// what the server was asked for. A search or filter change waits DEBOUNCE_MS of quiet before
// it is applied (and goes back to the first page); sort, page, page size and a filter reset
// apply at once. The query keeps the previous page on screen while the next one loads, and a
// caller that invalidates `queryKey` after a save reloads the list with the current filters
// (stepping back a page if the change emptied the current one).
import { useCallback, useEffect, useMemo, useState } from 'react';
import { keepPreviousData, useQuery, type UseQueryResult } from '@tanstack/react-query';
import { api } from '../lib/api';
import { PAGE_SIZES, toQueryString } from '../../shared/schemas/list';

export const DEBOUNCE_MS = 1000;
export const PAGE_SIZE_OPTIONS: number[] = [...PAGE_SIZES];

export type FilterValue = string | number | (string | number)[] | null | undefined;
export type ListFilter = Record<string, FilterValue>;
export interface ListSort {
  name: string;
  direction: 'asc' | 'desc';
}

export interface AppliedListState<F extends ListFilter> {
  search: string;
  filter: F;
  page: number;
  rowsPerPage: number;
  sort: ListSort;
}

export interface ListQueryOptions<F extends ListFilter> {
  queryKey: readonly unknown[];
  url: string;
  listKey: string;
  defaultSort: ListSort;
  defaultRowsPerPage?: number;
  initialFilter?: F;
  extraParams?: Record<string, string | number | undefined>;
  /** false: do not load (for example while a parent id is not known yet). */
  enabled?: boolean;
}

export interface ListQuery<Row, F extends ListFilter = ListFilter> {
  records: Row[];
  count: number;
  query: UseQueryResult<{ count: number; records: Row[] }>;
  /** What the inputs show (may be ahead of `applied` during the debounce). */
  draft: { search: string; filter: F };
  applied: AppliedListState<F>;
  /** The applied state serialised as the server expects it, for CSV exports. */
  queryString: string;
  setSearch: (search: string) => void;
  setFilter: <K extends keyof F & string>(name: K, value: F[K]) => void;
  resetFilter: (name: keyof F & string) => void;
  setPage: (page: number) => void;
  setRowsPerPage: (rowsPerPage: number) => void;
  setSort: (sort: ListSort) => void;
}

function isBlank(v: FilterValue): boolean {
  return v === undefined || v === null || v === '' || (Array.isArray(v) && v.length === 0);
}

/** Filters without their blank entries, so '' and a missing filter compare equal. */
export function cleanFilter<F extends ListFilter>(filter: F): F {
  const out: ListFilter = {};
  for (const [k, v] of Object.entries(filter)) if (!isBlank(v)) out[k] = typeof v === 'string' ? v.trim() : v;
  return out as F;
}

export function useListQuery<Row, F extends ListFilter = ListFilter>(opts: ListQueryOptions<F>): ListQuery<Row, F> {
  const { url, listKey, extraParams, enabled = true } = opts;
  const [draft, setDraft] = useState<{ search: string; filter: F }>(() => ({ search: '', filter: (opts.initialFilter ?? {}) as F }));
  const [applied, setApplied] = useState<AppliedListState<F>>(() => ({
    search: '',
    filter: cleanFilter((opts.initialFilter ?? {}) as F),
    page: 0,
    rowsPerPage: opts.defaultRowsPerPage ?? 20,
    sort: opts.defaultSort,
  }));

  const draftKey = JSON.stringify([draft.search.trim(), cleanFilter(draft.filter)]);
  const appliedKey = JSON.stringify([applied.search, applied.filter]);

  useEffect(() => {
    if (draftKey === appliedKey) return;
    const timer = setTimeout(() => {
      setApplied((a) => ({ ...a, search: draft.search.trim(), filter: cleanFilter(draft.filter), page: 0 }));
    }, DEBOUNCE_MS);
    return () => clearTimeout(timer);
  }, [draft, draftKey, appliedKey]);

  const queryString = useMemo(
    () => toQueryString({ ...(extraParams ?? {}), search: applied.search, page: applied.page, rowsPerPage: applied.rowsPerPage, sort: applied.sort, filter: applied.filter }),
    [applied, extraParams],
  );

  const query = useQuery({
    queryKey: [...opts.queryKey, queryString],
    enabled,
    // Opening the screen always reloads: another screen may have changed these rows.
    staleTime: 0,
    placeholderData: keepPreviousData,
    queryFn: async ({ signal }) => {
      const body = await api.get(url, { searchParams: queryString, signal }).json<Record<string, unknown>>();
      return { count: Number(body.count ?? 0), records: (body[listKey] ?? []) as Row[] };
    },
  });

  // A reload after a deletion can leave the current page past the end (its last row gone):
  // step back to the last page that still has rows instead of saying 'Aucun résultat'.
  const lastPage = query.data && query.data.count > 0 ? Math.ceil(query.data.count / applied.rowsPerPage) - 1 : 0;
  const pastTheEnd = !query.isPlaceholderData && query.data !== undefined && query.data.records.length === 0 && applied.page > lastPage;
  useEffect(() => {
    if (pastTheEnd) setApplied((a) => ({ ...a, page: lastPage }));
  }, [pastTheEnd, lastPage]);

  const setSearch = useCallback((search: string) => setDraft((d) => ({ ...d, search })), []);
  const setFilter = useCallback(<K extends keyof F & string>(name: K, value: F[K]) => setDraft((d) => ({ ...d, filter: { ...d.filter, [name]: value } })), []);
  const resetFilter = useCallback(
    (name: keyof F & string) => {
      // A reset applies at once, together with whatever else the user typed meanwhile.
      const filter = { ...draft.filter };
      delete filter[name];
      setDraft({ search: draft.search, filter });
      setApplied((a) => ({ ...a, search: draft.search.trim(), filter: cleanFilter(filter), page: 0 }));
    },
    [draft],
  );
  const setPage = useCallback((page: number) => setApplied((a) => ({ ...a, page })), []);
  const setRowsPerPage = useCallback((rowsPerPage: number) => setApplied((a) => ({ ...a, rowsPerPage, page: 0 })), []);
  const setSort = useCallback((sort: ListSort) => setApplied((a) => ({ ...a, sort, page: 0 })), []);

  return {
    records: query.data?.records ?? [],
    count: query.data?.count ?? 0,
    query,
    draft,
    applied,
    queryString,
    setSearch,
    setFilter,
    resetFilter,
    setPage,
    setRowsPerPage,
    setSort,
  };
}
