// How the app opens PGlite, in one place: on the main thread (pglite.ts), in its worker thread
// (pglite-worker.ts), and in the bench's server. The extensions the migrations create, and
// int8 and numeric parsed as numbers, as node-postgres is told to (postgres-connection.ts).
import v8 from 'node:v8';
import type { PGlite } from '@electric-sql/pglite';

/**
 * PostgreSQL's memory settings inside PGlite, sized for a 1 GB server (docs/deploy.md, "A
 * small server"). PGlite's memory is a WebAssembly heap that grows and never shrinks, and
 * PostgreSQL touches all of shared_buffers at start: its default 128 MB was a third of the
 * server's memory at 100,000 interventions. The data files stay in the operating system's page
 * cache, which PGlite reads from in microseconds, so 8 MB of buffers (the catalogues, the
 * indexes' upper pages and the counts tables) costs lists little: from 16 MB, the server took
 * 10 MB less at rest and at its peak, its lists as fast. A sort or a hash past
 * work_mem spills to a temporary file instead of growing the heap for good; index builds
 * (migrations) get 16 MB. effective_cache_size keeps its default: the page cache does hold the
 * data, so the planner's preference for index scans stays right.
 */
export const PGLITE_SETTINGS: Record<string, string> = {
  shared_buffers: '8MB',
  temp_buffers: '1MB',
  work_mem: '2MB',
  maintenance_work_mem: '16MB',
};

/**
 * V8 compiles PGlite's WebAssembly (9 MB) twice: once quickly (Liftoff), then the hot functions
 * again, optimised, in background threads whose memory the C allocator keeps. Liftoff alone
 * saved 40-75 MB for lists within the noise of their timings (docs/deploy.md). The flag is
 * per process and read at compile time; PGlite is the only WebAssembly the server runs.
 */
function liftoffOnly() {
  v8.setFlagsFromString('--liftoff-only');
}

/**
 * A database in memory writes its log in segments of 1 MB, PostgreSQL's smallest, instead of 16.
 * It holds its log in memory, and its copies (tests) carry it: a migrated copy was 44 MB, of
 * which one 16 MB segment, and is 35 MB with these. Copying memory is most of what a test
 * database's start costs (see createPGlite). A directory keeps PostgreSQL's default.
 */
const IN_MEMORY_INITDB = ['--wal-segsize=1'];

/**
 * A directory, or null for a database in memory (tests). `image` (a database in memory only)
 * starts from the files of another one, as `PGlite.dumpDataDir` wrote them: a migrated copy
 * opens in a quarter of the time a fresh database takes to initialise and migrate.
 *
 * Bytes given as an image are read in place, never copied: PGlite copies each file out of them
 * into its own memory, and leaves them as they are. A Blob would be read into a new buffer at
 * every copy, which cost about a quarter of a test database's start (memory a process touches
 * for the first time is slow to get on a virtual machine).
 */
export async function createPGlite(dir: string | null, opts: { image?: Blob | Uint8Array } = {}): Promise<PGlite> {
  const { PGlite } = await import('@electric-sql/pglite');
  const { unaccent } = await import('@electric-sql/pglite/contrib/unaccent');
  const { pg_trgm } = await import('@electric-sql/pglite/contrib/pg_trgm');
  liftoffOnly();
  return PGlite.create(dir ?? undefined, {
    extensions: { unaccent, pg_trgm },
    parsers: { 1700: (v: string) => Number(v), 20: (v: string) => Number(v) },
    startParams: [...PGlite.defaultStartParams, ...Object.entries(PGLITE_SETTINGS).flatMap(([k, v]) => ['-c', `${k}=${v}`])],
    ...(dir === null ? { initDbStartParams: IN_MEMORY_INITDB } : {}),
    ...(opts.image && dir === null ? { loadDataDir: opts.image instanceof Uint8Array ? bytesAsBlob(opts.image) : opts.image } : {}),
  });
}

/** What PGlite reads of a Blob (its bytes, once), over bytes already in memory. */
function bytesAsBlob(bytes: Uint8Array): Blob {
  const whole = bytes.byteOffset === 0 && bytes.byteLength === bytes.buffer.byteLength ? bytes.buffer : bytes.slice().buffer;
  return { size: whole.byteLength, type: '', arrayBuffer: async () => whole } as unknown as Blob;
}
