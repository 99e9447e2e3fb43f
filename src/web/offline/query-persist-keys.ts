// Which of TanStack Query's queries the phone keeps (offline/query-persist.ts says where and
// why), split from the persister so that the query client knows them without loading it.
import type { QueryKey } from '@tanstack/react-query';

/** How long a saved cache is restored: a long weekend without signal, stamped with its age. */
export const PERSIST_MAX_AGE_MS = 7 * 24 * 3600 * 1000;

/** Queries that are the same for everybody: kept when another person logs in. */
const SHARED_ROOTS = [['reference']];
/** One person's field data: the board, its filter, the history, their sites and site sheets, the day's route, their sites' permanences. */
const PERSONAL_ROOTS = [
  ['requests', 'pending'],
  ['map', 'tournee'],
  ['requests', 'sites'],
  ['requests', 'history'],
  ['sites', 'active'],
  ['interventions', 'siteInfos'],
  ['permanences', 'site'],
];

/** Every root of the kept queries, for query defaults (lib/query-client.ts). */
export const PERSISTED_ROOTS: readonly (readonly string[])[] = [...PERSONAL_ROOTS, ...SHARED_ROOTS];

function startsWith(key: QueryKey, root: readonly unknown[]) {
  return root.every((part, i) => key[i] === part);
}

/** Whether a query belongs to one person's field data. */
export function isPersonalFieldQuery(key: QueryKey): boolean {
  return PERSONAL_ROOTS.some((root) => startsWith(key, root));
}

/** Whether a query is kept on the phone. */
export function isPersistedQuery(key: QueryKey): boolean {
  return isPersonalFieldQuery(key) || SHARED_ROOTS.some((root) => startsWith(key, root));
}
