// The rules of the day's route: which start point, which order (the hand-set one while it
// still fits, else planned), and the checks of a saved order. docs/map-and-route.md.
import type { Db } from '../../db/client.js';
import { ValidationError } from '../../errors.js';
import { MAP_MESSAGES, parseDepart, type Carte, type Etape, type SansPosition, type Tournee, type TourneeDepartBody, type TourneeOrdreBody } from '../../../shared/schemas/map.js';
import { insertCheapest, planRoute, routeLegs, type GeoPoint } from '../../../shared/route-planning.js';
import { createMapRepository, type StopRecord } from './map.repository.js';

const DEFAULT_TILES = { url: 'https://tile.openstreetmap.org/{z}/{x}/{y}.png', attribution: '© les contributeurs d’OpenStreetMap' };

type Placed = StopRecord & GeoPoint;

const toIso = (d: Date | string) => (d instanceof Date ? d : new Date(d)).toISOString();

function stopFields(r: StopRecord): SansPosition {
  return { idDemande: r.idDemande, idSite: r.idSite, site: r.site, adresse: r.adresse, action: r.action, cellule: r.cellule, dateEcheance: toIso(r.dateEcheance) };
}

/**
 * The order of the placed stops (indexes into `placed`) and whether it comes from the user's
 * hand-set order. A saved order is kept for the stops still planned that day, in its order;
 * stops planned since go where they add the least distance (insertCheapest, by request id);
 * when none of the saved stops is left, the route is planned afresh.
 */
export function orderStops(start: GeoPoint | null, placed: readonly Placed[], saved: readonly number[] | null): { order: number[]; manual: boolean } {
  if (saved && saved.length > 0) {
    const index = new Map(placed.map((p, i) => [p.idDemande, i]));
    const kept: number[] = [];
    for (const id of saved) {
      const i = index.get(id);
      if (i !== undefined && !kept.includes(i)) kept.push(i);
    }
    if (kept.length > 0) {
      const added = placed.map((_, i) => i).filter((i) => !kept.includes(i));
      return { order: insertCheapest(start, placed, kept, added), manual: true };
    }
  }
  return { order: planRoute(start, placed), manual: false };
}

export function createMapService(db: Db, tiles: { url?: string; attribution?: string } = {}) {
  const repo = createMapRepository(db);
  const tuiles = { url: tiles.url ?? DEFAULT_TILES.url, attribution: tiles.attribution ?? DEFAULT_TILES.attribution };

  /** The day's positioned pending requests, by id, as the saved order must name them. */
  async function placedIds(day: string): Promise<number[]> {
    return (await repo.dayStops(day)).filter((r) => r.latitude !== null && r.longitude !== null).map((r) => r.idDemande);
  }

  return {
    async carte(): Promise<Carte> {
      return { sites: await repo.carteSites(), tuiles };
    },

    async tournee(accountId: number, day: string, departQuery: string | undefined): Promise<Tournee> {
      const [rows, saved, savedDepart] = await Promise.all([repo.dayStops(day), repo.savedOrder(accountId, day), repo.savedDepart(accountId)]);
      const placed: Placed[] = [];
      const sansPosition: SansPosition[] = [];
      for (const r of rows) {
        if (r.latitude !== null && r.longitude !== null) placed.push({ ...r, latitude: r.latitude, longitude: r.longitude });
        else sansPosition.push(stopFields(r));
      }
      const asked = departQuery === undefined ? null : parseDepart(departQuery);
      const start: GeoPoint | null = asked ?? savedDepart;
      const { order, manual } = orderStops(start, placed, saved);
      const stops = order.map((i) => placed[i]);
      const { legsKm, totalKm } = routeLegs(start, stops);
      const etapes: Etape[] = stops.map((s, i) => ({
        ordre: i + 1,
        ...stopFields(s),
        latitude: s.latitude,
        longitude: s.longitude,
        distanceKm: legsKm[i],
      }));
      const depart: Tournee['depart'] = asked
        ? { ...asked, source: 'demande' }
        : savedDepart
          ? { ...savedDepart, source: 'enregistre' }
          : stops.length > 0
            ? { latitude: stops[0].latitude, longitude: stops[0].longitude, source: 'premiere-etape' }
            : null;
      return { date: day, depart, etapes, sansPosition, distanceTotaleKm: totalKm, ordreManuel: manual };
    },

    /** Saves the hand-set order: exactly the day's placed pending requests, each once; an empty list deletes it. */
    async saveOrder(accountId: number, body: TourneeOrdreBody) {
      if (body.demandes.length === 0) {
        await repo.deleteOrder(accountId, body.date);
        return { status: 'success' as const, message: MAP_MESSAGES.ordreCleared };
      }
      const expected = new Set(await placedIds(body.date));
      const given = new Set(body.demandes);
      const exact = given.size === body.demandes.length && given.size === expected.size && body.demandes.every((id) => expected.has(id));
      if (!exact) throw new ValidationError([{ key: 'demandes', error: MAP_MESSAGES.ordreMismatch }], MAP_MESSAGES.ordreMismatch);
      await repo.saveOrder(accountId, body.date, body.demandes);
      return { status: 'success' as const, message: MAP_MESSAGES.ordreSaved };
    },

    async saveDepart(accountId: number, body: TourneeDepartBody) {
      await repo.saveDepart(accountId, body.depart);
      return { status: 'success' as const, message: body.depart ? MAP_MESSAGES.departSaved : MAP_MESSAGES.departCleared };
    },
  };
}
