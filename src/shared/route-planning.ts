// The order of a day's route through its stops, on great-circle distances: pure functions
// shared by the server (GET /api/admin/tournee) and the web app (distances recomputed offline
// after a stop is moved by hand). docs/map-and-route.md explains the choices.
//
// The route is an open path: it starts at a start point when there is one (then fixed), else
// at whichever stop makes the route shortest, and ends at its last stop (no way back).
// Planning: nearest neighbour, then 2-opt (reverse a stretch) and Or-opt (move a stretch of
// one to three stops elsewhere) until neither shortens the route, tried from several first
// stops, the shortest result kept.

export interface GeoPoint {
  latitude: number;
  longitude: number;
}

/** Mean Earth radius (IUGG), in km. */
export const EARTH_RADIUS_KM = 6371.0088;

/** An improvement smaller than this (km) is noise: it stops the search on identical points. */
const EPSILON = 1e-9;

const RAD = Math.PI / 180;

/** Great-circle distance in km (haversine formula). */
export function haversineKm(a: GeoPoint, b: GeoPoint): number {
  const dLat = (b.latitude - a.latitude) * RAD;
  const dLon = (b.longitude - a.longitude) * RAD;
  const h = Math.sin(dLat / 2) ** 2 + Math.cos(a.latitude * RAD) * Math.cos(b.latitude * RAD) * Math.sin(dLon / 2) ** 2;
  return 2 * EARTH_RADIUS_KM * Math.asin(Math.min(1, Math.sqrt(h)));
}

/** Rounded to 0.1 km, as the route shows it. */
export function roundKm(km: number): number {
  return Math.round(km * 10) / 10;
}

/** Length in km of the open path start → stops[0] → … → last stop (from the first stop when start is null). */
export function routeLengthKm(start: GeoPoint | null, stops: readonly GeoPoint[]): number {
  let total = 0;
  let prev = start;
  for (const s of stops) {
    if (prev) total += haversineKm(prev, s);
    prev = s;
  }
  return total;
}

/**
 * Each stop's distance from the one before (the first from the start point; 0 without one),
 * rounded to 0.1 km, and the total: the exact sum, rounded once (so it may differ by a few
 * tenths from the sum of the rounded legs).
 */
export function routeLegs(start: GeoPoint | null, stops: readonly GeoPoint[]): { legsKm: number[]; totalKm: number } {
  const legsKm: number[] = [];
  let total = 0;
  let prev = start;
  for (const s of stops) {
    const d = prev ? haversineKm(prev, s) : 0;
    legsKm.push(roundKm(d));
    total += d;
    prev = s;
  }
  return { legsKm, totalKm: roundKm(total) };
}

/**
 * Distances between the stops (indexes 0..n-1) and, when there is a start point, from it
 * (index n). A flat row-major array: dist[i * size + j].
 */
export interface DistanceTable {
  /** Number of stops. */
  n: number;
  /** Index of the start point (n), or -1 without one. */
  start: number;
  size: number;
  dist: Float64Array;
}

export function distanceTable(start: GeoPoint | null, stops: readonly GeoPoint[]): DistanceTable {
  const points = start ? [...stops, start] : [...stops];
  const size = points.length;
  const dist = new Float64Array(size * size);
  for (let i = 0; i < size; i++) {
    for (let j = i + 1; j < size; j++) {
      const d = haversineKm(points[i], points[j]);
      dist[i * size + j] = d;
      dist[j * size + i] = d;
    }
  }
  return { n: stops.length, start: start ? stops.length : -1, size, dist };
}

/** Length of an order of stops (indexes) in the table, from its start point when it has one. */
export function orderLength(t: DistanceTable, order: readonly number[]): number {
  let total = 0;
  let prev = t.start;
  for (const s of order) {
    if (prev >= 0) total += t.dist[prev * t.size + s];
    prev = s;
  }
  return total;
}

/**
 * Nearest neighbour: from the start point, or from the stop `first` when given (after the start
 * point when there is one) or when there is no start point (default 0), go each time to the
 * nearest stop not visited yet; ties go to the lower index.
 */
export function nearestNeighbour(t: DistanceTable, first?: number): number[] {
  const { n, size, dist } = t;
  if (n === 0) return [];
  const visited = new Uint8Array(n);
  const order: number[] = [];
  let current = t.start;
  if (first !== undefined || current < 0) {
    current = first ?? 0;
    visited[current] = 1;
    order.push(current);
  }
  while (order.length < n) {
    let best = -1;
    let bestD = Infinity;
    const row = current * size;
    for (let j = 0; j < n; j++) {
      if (!visited[j] && dist[row + j] < bestD) {
        bestD = dist[row + j];
        best = j;
      }
    }
    visited[best] = 1;
    order.push(best);
    current = best;
  }
  return order;
}

/**
 * 2-opt on an open path: reverse the stretch order[i..j] whenever that shortens the route, until
 * no reversal does. The path's ends are free (no edge after the last stop; none before the first
 * when there is no start point), so a reversal touching an end changes one edge only. Never
 * longer than the order it is given. Returns a new array.
 */
export function twoOpt(t: DistanceTable, order: readonly number[]): number[] {
  const o = [...order];
  const { size, dist, start } = t;
  const n = o.length;
  let improved = true;
  while (improved) {
    improved = false;
    for (let i = 0; i < n - 1; i++) {
      const prev = i === 0 ? start : o[i - 1];
      for (let j = i + 1; j < n; j++) {
        const a = o[i];
        const b = o[j];
        const next = j === n - 1 ? -1 : o[j + 1];
        let before = 0;
        let after = 0;
        if (prev >= 0) {
          before += dist[prev * size + a];
          after += dist[prev * size + b];
        }
        if (next >= 0) {
          before += dist[b * size + next];
          after += dist[a * size + next];
        }
        if (after < before - EPSILON) {
          for (let l = i, r = j; l < r; l++, r--) [o[l], o[r]] = [o[r], o[l]];
          improved = true;
        }
      }
    }
  }
  return o;
}

/** How many nearest stops Or-opt looks beside for a new place of a stretch. */
export const OR_OPT_NEIGHBOURS = 10;

/** Each stop's nearest other stops, nearest first (at most k; ties: the lower index). */
function nearestStops(t: DistanceTable, k: number): number[][] {
  const { n, size, dist } = t;
  const out: number[][] = [];
  for (let i = 0; i < n; i++) {
    const row = i * size;
    const near: number[] = [];
    for (let j = 0; j < n; j++) {
      if (j === i) continue;
      const dj = dist[row + j];
      if (near.length === k && dj >= dist[row + near[k - 1]]) continue;
      let at = near.length === k ? k - 1 : near.length;
      while (at > 0 && dist[row + near[at - 1]] > dj) {
        near[at] = near[at - 1];
        at--;
      }
      near[at] = j;
    }
    out.push(near);
  }
  return out;
}

/**
 * Or-opt: move a stretch of 1 to 3 consecutive stops (kept in its direction or reversed) to a
 * place where it shortens the route, until no move does. The places tried are beside the
 * OR_OPT_NEIGHBOURS nearest stops of either end of the stretch, and right after the start
 * point (a stretch worth moving goes next to a near stop; this keeps a pass linear in the
 * number of stops). Returns a new array, never longer.
 */
export function orOpt(t: DistanceTable, order: readonly number[], neighbours: number[][] = nearestStops(t, OR_OPT_NEIGHBOURS)): number[] {
  let o = [...order];
  const { size, dist, start } = t;
  const d = (x: number, y: number) => (x < 0 || y < 0 ? 0 : dist[x * size + y]);
  const n = o.length;
  const pos = new Int32Array(t.n);
  const place = () => o.forEach((s, i) => (pos[s] = i));
  place();
  const places: number[] = [];
  let improved = true;
  while (improved) {
    improved = false;
    for (let len = 1; len <= Math.min(3, n - 1); len++) {
      for (let i = 0; i + len <= n; i++) {
        const first = o[i];
        const last = o[i + len - 1];
        const prev = i === 0 ? start : o[i - 1];
        const next = i + len === n ? -1 : o[i + len];
        // What taking the stretch out saves (prev and next then meet).
        const removeGain = d(prev, first) + d(last, next) - d(prev, next);
        if (removeGain <= EPSILON) continue;
        // Places k: between o[k-1] (the start point when k = 0) and o[k] (the open end when
        // k = n), outside the stretch and its own two edges.
        places.length = 0;
        places.push(0);
        for (const c of neighbours[first]) places.push(pos[c], pos[c] + 1);
        if (len > 1) for (const c of neighbours[last]) places.push(pos[c], pos[c] + 1);
        for (const k of places) {
          if (k >= i && k <= i + len) continue;
          const p = k === 0 ? start : o[k - 1];
          const q = k === n ? -1 : o[k];
          const base = d(p, q);
          const forward = d(p, first) + d(last, q) - base;
          const backward = d(p, last) + d(first, q) - base;
          if (Math.min(forward, backward) < removeGain - EPSILON) {
            const stretch = o.slice(i, i + len);
            if (backward < forward) stretch.reverse();
            o = k < i ? [...o.slice(0, k), ...stretch, ...o.slice(k, i), ...o.slice(i + len)] : [...o.slice(0, i), ...o.slice(i + len, k), ...stretch, ...o.slice(k)];
            place();
            improved = true;
            // The scan goes on over the changed order (the next i).
            break;
          }
        }
      }
    }
  }
  return o;
}

/** 2-opt and Or-opt in turn until neither shortens the route. */
function improve(t: DistanceTable, order: readonly number[], neighbours: number[][]): number[] {
  let o = twoOpt(t, order);
  for (;;) {
    const before = orderLength(t, o);
    o = twoOpt(t, orOpt(t, o, neighbours));
    if (orderLength(t, o) >= before - EPSILON) return o;
  }
}

/**
 * How many first stops the improvement is run from: every one up to 12 stops, then fewer as the
 * route grows (4 from 30 stops on), so that 60 stops stay well under 50 ms (bench/route.ts).
 */
export function firstStopTries(n: number): number {
  return n <= 12 ? n : Math.max(4, Math.ceil(144 / n));
}

/**
 * The planned order of the stops, as indexes into `stops`: nearest neighbour, then improved
 * by 2-opt and Or-opt. One nearest-neighbour route per possible first stop (from the start
 * point to it when there is one, then always to the nearest stop left); the firstStopTries(n)
 * shortest of them, and always the plain nearest-neighbour route from the start point, are
 * improved and the shortest result kept (ties: the earlier tried).
 */
export function planRoute(start: GeoPoint | null, stops: readonly GeoPoint[]): number[] {
  const t = distanceTable(start, stops);
  if (t.n <= 1) return t.n === 1 ? [0] : [];
  const byFirst = Array.from({ length: t.n }, (_, first) => {
    const order = nearestNeighbour(t, first);
    return { order, length: orderLength(t, order) };
  }).sort((a, b) => a.length - b.length);
  let tries = byFirst.slice(0, firstStopTries(t.n)).map((c) => c.order);
  if (t.start >= 0) {
    // The plain route from the start point is the one whose first stop is the nearest to it.
    const plain = nearestNeighbour(t);
    tries = [plain, ...tries.filter((o) => o[0] !== plain[0])];
  }
  const neighbours = nearestStops(t, OR_OPT_NEIGHBOURS);
  let best: number[] = [];
  let bestLength = Infinity;
  for (const order of tries) {
    const o = improve(t, order, neighbours);
    const length = orderLength(t, o);
    if (length < bestLength - EPSILON) {
      best = o;
      bestLength = length;
    }
  }
  return best;
}

/**
 * A kept order with new stops added: each new stop (in the order given) goes where it adds
 * the least length, between two stops, after the start point or at the end. `order` and
 * `added` are indexes into `stops`.
 */
export function insertCheapest(start: GeoPoint | null, stops: readonly GeoPoint[], order: readonly number[], added: readonly number[]): number[] {
  const o = [...order];
  const d = (x: number | null, y: number | null) => {
    if (y === null) return 0;
    if (x === null) return start ? haversineKm(start, stops[y]) : 0;
    return haversineKm(stops[x], stops[y]);
  };
  for (const s of added) {
    let bestK = o.length;
    let bestCost = Infinity;
    for (let k = 0; k <= o.length; k++) {
      const p = k === 0 ? null : o[k - 1];
      const q = k === o.length ? null : o[k];
      // Without a start point, a stop put first costs only its edge to the next one.
      const cost = (p === null && !start ? 0 : d(p, s)) + (q === null ? 0 : d(s, q)) - (q === null || (p === null && !start) ? 0 : d(p, q));
      if (cost < bestCost - EPSILON) {
        bestCost = cost;
        bestK = k;
      }
    }
    o.splice(bestK, 0, s);
  }
  return o;
}
