// Fast paths of the lists are opt-in: each names the filters ('search' for the search) and sorts
// it was written and tested for; any other query takes the list's plain query. What no fast path
// takes is named in `plainOnly`: a test checks every field of a list's schema is one or the other.

export interface FastPath<F extends string = string, S extends string = string> {
  filters: readonly F[];
  sorts: readonly S[];
}

export interface ListPaths<F extends string = string, S extends string = string> {
  fast: Record<string, FastPath<F, S>>;
  plainOnly: FastPath<F, S>;
}

interface ListQuery {
  search?: string;
  filter: Record<string, unknown>;
  sort: { name: string };
}

/** The filters a query sets: those with a value, and 'search' for a term. */
export function activeFilters(q: ListQuery): string[] {
  const set = Object.entries(q.filter).filter(([, v]) => v !== undefined && v !== '' && !(Array.isArray(v) && v.length === 0));
  return [...set.map(([k]) => k), ...(q.search?.trim() ? ['search'] : [])];
}

/** Whether `path` takes this query: its sort and every filter it sets are on the path's list. */
export function takes(path: FastPath, q: ListQuery): boolean {
  return path.sorts.includes(q.sort.name) && activeFilters(q).every((f) => path.filters.includes(f));
}
