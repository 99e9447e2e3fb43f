// How the app opens PGlite, in one place: on the main thread (pglite.ts), in its worker thread
// (pglite-worker.ts), and in the bench's server. The extensions the migrations create, and
// int8 and numeric parsed as numbers, as node-postgres is told to (postgres-connection.ts).
import type { PGlite } from '@electric-sql/pglite';

/** A directory, or null for a database in memory (tests). */
export async function createPGlite(dir: string | null): Promise<PGlite> {
  const { PGlite } = await import('@electric-sql/pglite');
  const { unaccent } = await import('@electric-sql/pglite/contrib/unaccent');
  const { pg_trgm } = await import('@electric-sql/pglite/contrib/pg_trgm');
  return PGlite.create(dir ?? undefined, {
    extensions: { unaccent, pg_trgm },
    parsers: { 1700: (v: string) => Number(v), 20: (v: string) => Number(v) },
  });
}
