// The server's garbage-collector settings: one applied once when the process starts (main.ts, and
// the bench's server, which must measure the same process as `npm start`), and V8's small-heap
// mode where memory matters more than speed (the end of this file).
//
// V8 "pretenures" the objects of a code site when most of those it saw survived a young
// collection: it then creates them directly in the old generation. A request's rows, cards and
// response are such objects as soon as a young collection happens to fall while a request is
// under way, which on a server it always does. Created old, they die old, and until the next
// full collection every young object they point to (row values, strings) is kept alive and
// copied by each young collection: measured on the requests history at 1,000,000 interventions,
// 1.8 MB copied and an 8-10 ms pause every 15 requests, so that one request in fifteen took
// twice its time. Without pretenuring: 1.3 MB and 3-6 ms, and 0.13 MB and 1.6-2 ms once the
// history's rows were no longer built by spreading an object (docs/sizing.md). The setting is
// read by the collector at each collection, so setting it at start-up, after the modules have
// loaded, is enough.
import v8 from 'node:v8';

export function tuneGarbageCollector() {
  v8.setFlagsFromString('--no-allocation-site-pretenuring');
}

// V8's small-heap mode (`--optimize-for-size`): heaps grow by smaller steps and are collected
// sooner. The flag is per process and read as heaps grow, so it can be turned on and off while
// the server runs, and both threads take it. With the embedded database it is always on: a
// server peaked at 375 MB without it and 282 MB with it at 100,000 interventions, its lists as
// fast (docs/deploy.md, "A small server"). On PostgreSQL it cost 15-20 % of the field
// submissions a second, so there it is only on while an import runs: 100,000 lines peaked at
// 364 MB without it, 218 MB with it.
let smallAlways = false;
let smallWork = 0;

/** From now on, for good (the embedded database: pglite-worker-client.ts, before its thread starts). */
export function favourSmallHeap() {
  smallAlways = true;
  v8.setFlagsFromString('--optimize-for-size');
}

/** V8 favours a small heap while `work` runs, then speed again (unless it always does). */
export async function withSmallHeap<T>(work: () => Promise<T>): Promise<T> {
  if (smallWork++ === 0) v8.setFlagsFromString('--optimize-for-size');
  try {
    return await work();
  } finally {
    if (--smallWork === 0 && !smallAlways) v8.setFlagsFromString('--no-optimize-for-size');
  }
}
