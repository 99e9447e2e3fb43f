import { describe, expect, it } from 'vitest';
import { seededRandom } from '../../tests/helpers/seeded-random.js';
import {
  distanceTable,
  haversineKm,
  insertCheapest,
  nearestNeighbour,
  orOpt,
  orderLength,
  planRoute,
  routeLegs,
  routeLengthKm,
  roundKm,
  twoOpt,
  type DistanceTable,
  type GeoPoint,
} from './route-planning.js';

/** Seeded, so a failing instance replays identically. */
const rng = (seed: number) => seededRandom(seed).next;

/** Points in a 25 km box around Brest (a metropolis). */
function randomPoints(next: () => number, n: number): GeoPoint[] {
  return Array.from({ length: n }, () => ({ latitude: 48.3 + next() * 0.22, longitude: -4.65 + next() * 0.34 }));
}

/** Every order of the stops, for the exact optimum of small instances. */
function bruteForce(t: DistanceTable): number {
  let best = Infinity;
  const order: number[] = [];
  const used = new Array<boolean>(t.n).fill(false);
  const walk = (length: number) => {
    if (length >= best) return;
    if (order.length === t.n) {
      best = length;
      return;
    }
    const prev = order.length ? order[order.length - 1] : t.start;
    for (let j = 0; j < t.n; j++) {
      if (used[j]) continue;
      used[j] = true;
      order.push(j);
      walk(length + (prev >= 0 ? t.dist[prev * t.size + j] : 0));
      order.pop();
      used[j] = false;
    }
  };
  walk(0);
  return t.n === 0 ? 0 : best;
}

/** Held-Karp: the exact shortest open path (from the start point when there is one), O(2^n n²). */
function exactOptimum(t: DistanceTable): number {
  const { n, size, dist, start } = t;
  if (n === 0) return 0;
  const full = 1 << n;
  const dp = new Float64Array(full * n).fill(Infinity);
  for (let i = 0; i < n; i++) dp[(1 << i) * n + i] = start >= 0 ? dist[start * size + i] : 0;
  for (let mask = 1; mask < full; mask++) {
    for (let last = 0; last < n; last++) {
      const v = dp[mask * n + last];
      if (v === Infinity || !(mask & (1 << last))) continue;
      for (let j = 0; j < n; j++) {
        if (mask & (1 << j)) continue;
        const m = mask | (1 << j);
        const w = v + dist[last * size + j];
        if (w < dp[m * n + j]) dp[m * n + j] = w;
      }
    }
  }
  let best = Infinity;
  for (let i = 0; i < n; i++) best = Math.min(best, dp[(full - 1) * n + i]);
  return best;
}

const isPermutation = (order: number[], n: number) => order.length === n && [...order].sort((a, b) => a - b).every((v, i) => v === i);

describe('haversineKm', () => {
  it('measures a great-circle distance: Brest to Quimper is about 58 km as the crow flies, one degree of meridian 111.2 km', () => {
    const brest = { latitude: 48.3904, longitude: -4.4861 };
    const quimper = { latitude: 47.9961, longitude: -4.1025 };
    expect(haversineKm(brest, quimper)).toBeGreaterThan(51);
    expect(haversineKm(brest, quimper)).toBeLessThan(53);
    expect(haversineKm({ latitude: 0, longitude: 0 }, { latitude: 1, longitude: 0 })).toBeCloseTo(111.19, 1);
    expect(haversineKm(brest, brest)).toBe(0);
    expect(haversineKm(brest, quimper)).toBeCloseTo(haversineKm(quimper, brest), 12);
  });

  it('stays finite for antipodes', () => {
    expect(haversineKm({ latitude: 0, longitude: 0 }, { latitude: 0, longitude: 180 })).toBeCloseTo(Math.PI * 6371.0088, 3);
  });
});

describe('route length and legs', () => {
  const a = { latitude: 0, longitude: 0 };
  const b = { latitude: 1, longitude: 0 };
  const c = { latitude: 2, longitude: 0 };

  it('counts from the start point, or from the first stop without one', () => {
    expect(routeLengthKm(null, [b, c])).toBeCloseTo(111.19, 1);
    expect(routeLengthKm(a, [b, c])).toBeCloseTo(222.39, 1);
    expect(routeLengthKm(a, [])).toBe(0);
  });

  it('gives each leg rounded to 0.1 km, the first 0 without a start point, and the total rounded once', () => {
    expect(routeLegs(null, [b, c])).toEqual({ legsKm: [0, 111.2], totalKm: 111.2 });
    expect(routeLegs(a, [b, c])).toEqual({ legsKm: [111.2, 111.2], totalKm: 222.4 });
    expect(routeLegs(null, [])).toEqual({ legsKm: [], totalKm: 0 });
    expect(roundKm(0.05)).toBe(0.1);
    expect(roundKm(12.34)).toBe(12.3);
  });
});

describe('planRoute edge cases', () => {
  const start = { latitude: 48.39, longitude: -4.49 };

  it('plans nothing for no stop, the stop itself for one', () => {
    expect(planRoute(null, [])).toEqual([]);
    expect(planRoute(start, [])).toEqual([]);
    expect(planRoute(null, [start])).toEqual([0]);
    expect(planRoute(start, [{ latitude: 48.4, longitude: -4.5 }])).toEqual([0]);
  });

  it('with two stops, goes first to the one nearer the start point', () => {
    const near = { latitude: 48.391, longitude: -4.49 };
    const far = { latitude: 48.45, longitude: -4.49 };
    expect(planRoute(start, [far, near])).toEqual([1, 0]);
    expect(planRoute(start, [near, far])).toEqual([0, 1]);
    expect(planRoute(null, [far, near])).toHaveLength(2);
  });

  it('terminates on identical points and keeps every stop once', () => {
    const same = Array.from({ length: 7 }, () => ({ ...start }));
    for (const s of [null, start]) {
      const order = planRoute(s, same);
      expect(isPermutation(order, 7)).toBe(true);
      expect(routeLengthKm(s, order.map((i) => same[i]))).toBe(0);
    }
    const twoPlaces = [start, { latitude: 48.4, longitude: -4.4 }, start, { latitude: 48.4, longitude: -4.4 }, start];
    const order = planRoute(start, twoPlaces);
    // All three stops at the start point first, then the two at the other place: one crossing.
    expect(order.slice(0, 3).sort()).toEqual([0, 2, 4]);
    expect(routeLengthKm(start, order.map((i) => twoPlaces[i]))).toBeCloseTo(haversineKm(start, twoPlaces[1]), 9);
  });

  it('walks points on a line in their order along it, from either end of the line', () => {
    const line = [5, 1, 4, 2, 3].map((k) => ({ latitude: 48.4, longitude: -4.6 + k * 0.01 }));
    const order = planRoute({ latitude: 48.4, longitude: -4.6 }, line);
    expect(order.map((i) => [5, 1, 4, 2, 3][i])).toEqual([1, 2, 3, 4, 5]);
    const free = planRoute(null, line).map((i) => [5, 1, 4, 2, 3][i]);
    expect([free, [...free].reverse()]).toContainEqual([1, 2, 3, 4, 5]);
  });
});

describe('planRoute against the exact optimum', () => {
  it('agrees with brute force on what the exact optimum is (the reference of the next tests)', () => {
    const next = rng(7);
    for (let k = 0; k < 40; k++) {
      const n = 1 + (k % 7);
      const stops = randomPoints(next, n);
      for (const start of [null, randomPoints(next, 1)[0]]) {
        const t = distanceTable(start, stops);
        expect(exactOptimum(t)).toBeCloseTo(bruteForce(t), 9);
      }
    }
  });

  it('is within 10 % of the shortest open path from a fixed start point, on 600 random instances of up to 12 stops', () => {
    const next = rng(20240601);
    let worst = 1;
    for (let k = 0; k < 600; k++) {
      const n = 3 + (k % 10);
      const [start, ...stops] = randomPoints(next, n + 1);
      const order = planRoute(start, stops);
      expect(isPermutation(order, n)).toBe(true);
      const t = distanceTable(start, stops);
      const ratio = orderLength(t, order) / exactOptimum(t);
      worst = Math.max(worst, ratio);
      expect(ratio, `instance ${k} (${n} stops)`).toBeLessThanOrEqual(1.1);
    }
    // Not an assertion of the target, a guard against a test that would check nothing.
    expect(worst).toBeGreaterThanOrEqual(1);
  });

  it('is within 10 % of the shortest open path when the start is free, on 300 random instances of up to 12 stops', () => {
    const next = rng(99);
    for (let k = 0; k < 300; k++) {
      const n = 3 + (k % 10);
      const stops = randomPoints(next, n);
      const order = planRoute(null, stops);
      expect(isPermutation(order, n)).toBe(true);
      const t = distanceTable(null, stops);
      expect(orderLength(t, order) / exactOptimum(t), `instance ${k} (${n} stops)`).toBeLessThanOrEqual(1.1);
    }
  });

  it('2-opt never lengthens the nearest-neighbour route, Or-opt never lengthens 2-opt’s, and the plan is never longer than NN + 2-opt', () => {
    const next = rng(4242);
    for (let k = 0; k < 300; k++) {
      const n = 2 + (k % 40);
      const start = k % 3 === 0 ? null : randomPoints(next, 1)[0];
      const stops = randomPoints(next, n);
      const t = distanceTable(start, stops);
      const nn = nearestNeighbour(t);
      const opt = twoOpt(t, nn);
      expect(isPermutation(nn, n) && isPermutation(opt, n)).toBe(true);
      expect(orderLength(t, opt)).toBeLessThanOrEqual(orderLength(t, nn) + 1e-9);
      const moved = orOpt(t, opt);
      expect(isPermutation(moved, n)).toBe(true);
      expect(orderLength(t, moved)).toBeLessThanOrEqual(orderLength(t, opt) + 1e-9);
      if (start) expect(orderLength(t, planRoute(start, stops))).toBeLessThanOrEqual(orderLength(t, opt) + 1e-9);
    }
  });

  it('2-opt removes a crossing that nearest neighbour leaves', () => {
    // From the start at the origin, NN takes A (nearest), then B, then C, then D; crossing.
    const start = { latitude: 0, longitude: 0 };
    const stops = [
      { latitude: 0, longitude: 0.1 },
      { latitude: 0, longitude: 0.25 },
      { latitude: 0.2, longitude: 0.05 },
      { latitude: 0.2, longitude: 0.3 },
    ];
    const t = distanceTable(start, stops);
    const nn = nearestNeighbour(t);
    const opt = twoOpt(t, nn);
    expect(orderLength(t, opt)).toBeLessThanOrEqual(orderLength(t, nn));
    expect(orderLength(t, planRoute(start, stops))).toBeCloseTo(exactOptimum(t), 9);
  });
});

describe('insertCheapest', () => {
  const start = { latitude: 48.4, longitude: -4.6 };
  const line = [1, 2, 3, 4, 5].map((k) => ({ latitude: 48.4, longitude: -4.6 + k * 0.01 }));

  it('keeps the given order and puts each new stop where it adds the least', () => {
    // Kept: 1, 2, 4 (indexes 0, 1, 3); new: 3 (index 2) goes between 2 and 4, 5 (index 4) at the end.
    expect(insertCheapest(start, line, [0, 1, 3], [2, 4])).toEqual([0, 1, 2, 3, 4]);
    // An order the user reversed stays reversed: 5 4 2 1, then 3 between 4 and 2.
    expect(insertCheapest(start, line, [4, 3, 1, 0], [2])).toEqual([4, 3, 2, 1, 0]);
  });

  it('may put a new stop first, after the start point, or first of a route without one', () => {
    expect(insertCheapest(start, line, [1, 2], [0])).toEqual([0, 1, 2]);
    expect(insertCheapest(null, line, [2, 3], [4])).toEqual([2, 3, 4]);
    expect(insertCheapest(null, line, [2, 3], [1])).toEqual([1, 2, 3]);
    expect(insertCheapest(null, line, [], [1])).toEqual([1]);
  });
});
