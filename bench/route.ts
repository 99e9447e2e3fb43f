// The planning of a day's route (src/shared/route-planning.ts) on 60 stops scattered over a
// metropolis-sized box (about 25 × 25 km around Brest), seeded so that every run times the
// same instances: with a start point (the provider's usual case) and without one (every
// first stop is considered, the slower case). Prints p50, p95 and max over the runs after a
// warm-up; the target is under 50 ms a route. Run alone with `npx tsx bench/route.ts [--runs n]`,
// or as part of `npm run bench`.
import { seededRandom } from '../tests/helpers/seeded-random.js';
import { planRoute, type GeoPoint } from '../src/shared/route-planning.js';

export const ROUTE_STOPS = 60;
export const ROUTE_TARGET_MS = 50;

/** Seeded, so a failing instance replays identically. */
const rng = (seed: number) => seededRandom(seed).next;

/** A point in the box 48.30–48.52 N, 4.65–4.31 W (about 24 × 25 km). */
const inBox = (next: () => number): GeoPoint => ({ latitude: 48.3 + next() * 0.22, longitude: -4.65 + next() * 0.34 });

const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];

export interface RouteBenchRow {
  name: string;
  p50: number;
  p95: number;
  max: number;
  runs: number;
}

export function routeBenchmark(opts: { runs?: number; warmup?: number } = {}): RouteBenchRow[] {
  const runs = opts.runs ?? 200;
  const warmup = opts.warmup ?? 20;
  const rows: RouteBenchRow[] = [];
  for (const withStart of [true, false]) {
    const next = rng(withStart ? 60 : 61);
    const instances = Array.from({ length: warmup + runs }, () => ({
      start: withStart ? inBox(next) : null,
      stops: Array.from({ length: ROUTE_STOPS }, () => inBox(next)),
    }));
    const times: number[] = [];
    for (const [i, { start, stops }] of instances.entries()) {
      const t0 = performance.now();
      const order = planRoute(start, stops);
      const ms = performance.now() - t0;
      if (order.length !== ROUTE_STOPS) throw new Error(`route of ${order.length} stops for ${ROUTE_STOPS}`);
      if (i >= warmup) times.push(ms);
    }
    times.sort((a, b) => a - b);
    rows.push({
      name: `route of ${ROUTE_STOPS} stops, ${withStart ? 'from a start point' : 'no start point'}`,
      p50: percentile(times, 50),
      p95: percentile(times, 95),
      max: times[times.length - 1],
      runs,
    });
  }
  return rows;
}

export function printRouteBench(rows: RouteBenchRow[]) {
  for (const r of rows) console.log(`      ${r.name}: p50 ${r.p50.toFixed(1)} ms, p95 ${r.p95.toFixed(1)} ms, max ${r.max.toFixed(1)} ms over ${r.runs} runs`);
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const i = process.argv.indexOf('--runs');
  const rows = routeBenchmark({ runs: i > 0 ? Math.max(10, Number(process.argv[i + 1]) || 200) : 200 });
  printRouteBench(rows);
  const worst = Math.max(...rows.map((r) => r.p95));
  console.log(`${worst < ROUTE_TARGET_MS ? 'PASS' : 'FAIL'}  route planning p95 ${worst.toFixed(1)} ms (target < ${ROUTE_TARGET_MS} ms)`);
  process.exit(worst < ROUTE_TARGET_MS ? 0 : 1);
}
