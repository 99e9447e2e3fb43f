// The server's garbage-collector setting, applied once when the process starts (main.ts, and the
// bench's server, which must measure the same process as `npm start`).
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
