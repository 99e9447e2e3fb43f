// Calls of the map screens: the sites on the map, the day's route, its order set by hand and
// the start point. The only fetch code of this module.
import { queryOptions } from '@tanstack/react-query';
import { api } from '../../lib/api';
import type { Carte, Tournee, TourneeDepartBody, TourneeOrdreBody } from '../../../shared/schemas/map';

export const mapKeys = {
  carte: ['map', 'carte'] as const,
  /** Kept on the phone (offline/query-persist-keys.ts): the route reads without network. */
  tournees: ['map', 'tournee'] as const,
  tournee: (date: string) => ['map', 'tournee', date] as const,
};

export const carteQuery = () => queryOptions({ queryKey: mapKeys.carte, queryFn: () => api.get('admin/site/get/carte').json<Carte>() });

/** The route of one day (YYYY-MM-DD, Paris), from the user's saved start point if any. */
export const tourneeQuery = (date: string) =>
  queryOptions({ queryKey: mapKeys.tournee(date), queryFn: () => api.get('admin/tournee', { searchParams: { date } }).json<Tournee>() });

type Saved = { status: 'success'; message: string };

/** The day's requests in the order wanted; an empty list goes back to the computed order. */
export const saveOrdre = (body: TourneeOrdreBody) => api.put('admin/tournee/ordre', { json: body }).json<Saved>();

export const saveDepart = (body: TourneeDepartBody) => api.put('admin/tournee/depart', { json: body }).json<Saved>();
