// State and data of one server-side admin list (the behaviour every admin table shares).
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
// With `urlState: true` the search, filters, sort and page size live in the query string
// (?recherche=ker&nom=dupont&ville=Brest&ville=Guipavas&tri=date&sens=desc&lignes=50), so a
// reload or a shared link shows the same list; defaults are left out of it. Every key other
// than recherche, tri, sens and lignes is a filter (a repeated key is a list), and the URL is
// the whole truth: `initialFilter` is not used. The URL changes in place (no history entry per
// keystroke); a navigation to the same screen with another query string (a link, the back
// button) sets the list to it. The option must not change during the life of the screen, and
// only one list of a screen may use it (the query string has room for one).
//
// Two copies of search and filters are kept: `draft` is what the inputs show, `applied` is
// what the server was asked for. A search or filter change waits DEBOUNCE_MS of quiet before
// it is applied (and goes back to the first page); sort, page, page size and a filter reset
// apply at once. The query keeps the previous page on screen while the next one loads, and a
// caller that invalidates `queryKey` after a save reloads the list with the current filters
// (stepping back a page if the change emptied the current one).
import { useCallback, useEffect, useMemo, useRef, useState } from 'react';
import { keepPreviousData, useQuery, type UseQueryResult } from '@tanstack/react-query';
import { useSearchParams, type SetURLSearchParams } from 'react-router';
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
  /** Keep search, filters, sort and page size in the query string (needs a router). */
  urlState?: boolean;
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
  /** Clears the search box at once. */
  resetSearch: () => void;
  /** Back to the screen's first state: no search, its initial filters, its default sort. */
  reset: () => void;
  /** True when search, filters and sort are those of the screen's first state. */
  isDefault: boolean;
  defaultSort: ListSort;
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

/** Query-string keys of the list state; every other key is a filter. */
export const URL_KEYS = { search: 'recherche', sort: 'tri', direction: 'sens', rowsPerPage: 'lignes' } as const;
const RESERVED: ReadonlySet<string> = new Set(Object.values(URL_KEYS));
const NAME = /^[A-Za-z][A-Za-z0-9_.]{0,63}$/;
const MAX_VALUE = 200;

type UrlListState<F extends ListFilter> = Omit<AppliedListState<F>, 'page'>;

/** What a query string says of a list; anything malformed falls back to the default. */
export function readListUrl<F extends ListFilter>(params: URLSearchParams, defaults: { sort: ListSort; rowsPerPage: number }): UrlListState<F> {
  const filter: ListFilter = {};
  for (const key of new Set(params.keys())) {
    if (RESERVED.has(key) || !NAME.test(key)) continue;
    const values = params
      .getAll(key)
      .map((v) => v.trim())
      .filter((v) => v !== '' && v.length <= MAX_VALUE);
    if (values.length > 0) filter[key] = values.length === 1 ? values[0] : values;
  }
  const sortName = params.get(URL_KEYS.sort);
  const direction = params.get(URL_KEYS.direction);
  const rows = Number(params.get(URL_KEYS.rowsPerPage));
  return {
    search: (params.get(URL_KEYS.search) ?? '').trim().slice(0, MAX_VALUE),
    filter: filter as F,
    sort: {
      name: sortName && NAME.test(sortName) ? sortName : defaults.sort.name,
      direction: direction === 'asc' || direction === 'desc' ? direction : sortName && NAME.test(sortName) ? 'asc' : defaults.sort.direction,
    },
    rowsPerPage: PAGE_SIZE_OPTIONS.includes(rows) ? rows : defaults.rowsPerPage,
  };
}

/** The query string of a list state, without what equals the defaults. */
export function writeListUrl<F extends ListFilter>(state: UrlListState<F>, defaults: { sort: ListSort; rowsPerPage: number }): URLSearchParams {
  const params = new URLSearchParams();
  if (state.search) params.set(URL_KEYS.search, state.search);
  for (const [key, value] of Object.entries(cleanFilter(state.filter))) {
    for (const v of Array.isArray(value) ? value : [value]) params.append(key, String(v));
  }
  if (state.sort.name !== defaults.sort.name || state.sort.direction !== defaults.sort.direction) {
    params.set(URL_KEYS.sort, state.sort.name);
    params.set(URL_KEYS.direction, state.sort.direction);
  }
  if (state.rowsPerPage !== defaults.rowsPerPage) params.set(URL_KEYS.rowsPerPage, String(state.rowsPerPage));
  return params;
}

const noSearchParams: [URLSearchParams | null, SetURLSearchParams | null] = [null, null];
/** Stands in for useSearchParams when the list does not keep its state in the URL. */
function useNoSearchParams() {
  return noSearchParams;
}

export function useListQuery<Row, F extends ListFilter = ListFilter>(opts: ListQueryOptions<F>): ListQuery<Row, F> {
  const { url, listKey, extraParams, enabled = true } = opts;
  const defaultRowsPerPage = opts.defaultRowsPerPage ?? 20;
  // Screens write their defaults inline: keep one object while the values stay the same.
  const { name: defaultSortName, direction: defaultDirection } = opts.defaultSort;
  const defaultSort = useMemo<ListSort>(() => ({ name: defaultSortName, direction: defaultDirection }), [defaultSortName, defaultDirection]);
  // The option is fixed for the life of the screen, so the same hook runs on every render.
  const useUrl = opts.urlState ? useSearchParams : useNoSearchParams;
  const [params, setParams] = useUrl();
  const defaults = useMemo(() => ({ sort: defaultSort, rowsPerPage: defaultRowsPerPage }), [defaultSort, defaultRowsPerPage]);
  const [initialFilter] = useState(() => (opts.urlState ? {} : (opts.initialFilter ?? {})) as F);

  const [first] = useState<UrlListState<F>>(() =>
    params ? readListUrl<F>(params, defaults) : { search: '', filter: initialFilter, sort: defaultSort, rowsPerPage: defaultRowsPerPage },
  );
  const [draft, setDraft] = useState<{ search: string; filter: F }>(() => ({ search: first.search, filter: first.filter }));
  const [applied, setApplied] = useState<AppliedListState<F>>(() => ({
    search: first.search,
    filter: cleanFilter(first.filter),
    page: 0,
    rowsPerPage: first.rowsPerPage,
    sort: first.sort,
  }));

  // URL -> state, when the query string changed under the list (a link, back or forward).
  const written = useRef(params?.toString() ?? '');
  const urlText = params?.toString() ?? '';
  useEffect(() => {
    if (!params || urlText === written.current) return;
    written.current = urlText;
    const next = readListUrl<F>(params, defaults);
    setDraft({ search: next.search, filter: next.filter });
    setApplied({ ...next, filter: cleanFilter(next.filter), page: 0 });
  }, [params, urlText, defaults]);

  // State -> URL, in place.
  useEffect(() => {
    if (!params || !setParams) return;
    const next = writeListUrl(applied, defaults).toString();
    if (next === written.current) return;
    written.current = next;
    setParams(new URLSearchParams(next), { replace: true, preventScrollReset: true });
  }, [applied, defaults, params, setParams]);

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
  const resetSearch = useCallback(() => {
    setDraft((d) => ({ ...d, search: '' }));
    setApplied((a) => ({ ...a, search: '', filter: cleanFilter(draft.filter), page: 0 }));
  }, [draft.filter]);
  const reset = useCallback(() => {
    setDraft({ search: '', filter: initialFilter });
    setApplied((a) => ({ ...a, search: '', filter: cleanFilter(initialFilter), sort: defaultSort, page: 0 }));
  }, [initialFilter, defaultSort]);
  const isDefault =
    applied.search === '' &&
    JSON.stringify(applied.filter) === JSON.stringify(cleanFilter(initialFilter)) &&
    applied.sort.name === defaultSort.name &&
    applied.sort.direction === defaultSort.direction;

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
    resetSearch,
    reset,
    isDefault,
    defaultSort,
  };
}
