// The day's route as the page shows it: the start point, the stops in an order set by hand
// with their distances recomputed on the phone (the same rules as the server,
// shared/route-planning.ts), and the links that open the way to a stop.
import { routeLegs, type GeoPoint } from '../../../shared/route-planning';
import type { Tournee } from '../../../shared/schemas/map';
import { formatNumber } from '../../lib/format';

/** '1,2 km'. */
export const formatKm = (km: number) => `${formatNumber(km)}\u00a0km`;

/** Where the distances start from: the start point asked or saved; null when the route starts at its first stop. */
export function startOf(t: Pick<Tournee, 'depart'>): GeoPoint | null {
  return t.depart && t.depart.source !== 'premiere-etape' ? { latitude: t.depart.latitude, longitude: t.depart.longitude } : null;
}

/**
 * The route with its stops in the order of `ids` (request ids; ids not in the route are
 * ignored, stops missing from `ids` keep their place after the others), numbered again, each
 * distance and the total recomputed, marked as ordered by hand.
 */
export function withOrder(t: Tournee, ids: readonly number[]): Tournee {
  const byId = new Map(t.etapes.map((e) => [e.idDemande, e]));
  const picked = ids.flatMap((id) => {
    const e = byId.get(id);
    if (!e) return [];
    byId.delete(id);
    return [e];
  });
  const ordered = [...picked, ...byId.values()];
  const start = startOf(t);
  const { legsKm, totalKm } = routeLegs(start, ordered);
  const etapes = ordered.map((e, i) => ({ ...e, ordre: i + 1, distanceKm: legsKm[i] }));
  const depart = start === null && etapes.length > 0 ? { latitude: etapes[0].latitude, longitude: etapes[0].longitude, source: 'premiere-etape' as const } : t.depart;
  return { ...t, etapes, depart, distanceTotaleKm: totalKm, ordreManuel: true };
}

/** `ids` with the one at `index` moved by `delta` places (bounded). */
export function moved(ids: readonly number[], index: number, delta: number): number[] {
  const to = Math.max(0, Math.min(ids.length - 1, index + delta));
  const out = [...ids];
  const [id] = out.splice(index, 1);
  out.splice(to, 0, id);
  return out;
}

/** A `geo:` URI: the phone's navigation app opens on the point. */
export const geoUri = (p: GeoPoint) => `geo:${p.latitude},${p.longitude}`;

/** OpenStreetMap's directions from `from` to `to` (from left blank when there is no point to start from). */
export function osmDirections(from: GeoPoint | null, to: GeoPoint): string {
  const point = (p: GeoPoint) => `${p.latitude}%2C${p.longitude}`;
  return `https://www.openstreetmap.org/directions?route=${from ? point(from) : ''}%3B${point(to)}`;
}

/** 'lat,lon' as the start point field shows it. */
export const departText = (p: GeoPoint) => `${p.latitude},${p.longitude}`;
