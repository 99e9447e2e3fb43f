// Loads a backup (backup.format.ts) into an empty database, PGlite or PostgreSQL, whichever
// engine wrote it. The file is checked from end to end before anything is written. Then one
// transaction builds the schema of the backup's version, loads every row as it was (derived
// tables included, their triggers off; foreign keys taken off and put back, which checks every
// row; indexes built after the rows), sets the sequences and applies the migrations that came after the backup: a restore cut
// in the middle leaves the database as it was.
import { once } from 'node:events';
import { finished } from 'node:stream/promises';
import { CompiledQuery, sql, type Transaction } from 'kysely';
import pgCopyStreams from 'pg-copy-streams';
import type { Db } from '../../db/client.js';
import type { Database } from '../../db/schema.js';
import { loadMigrations, type Migration } from '../../db/migrate.js';
import { BackupFileError, copyStatement, readBackup, type BackupHeader, type BackupLine } from './backup.format.js';
import { engineOf, ident, schemaVersion, userTables } from './backup.dump.js';

interface CopyIn {
  write(text: string): Promise<void>;
  end(): Promise<void>;
  /** Cancels the COPY (CopyFail): the connection can then roll the transaction back. */
  abort(): Promise<void>;
}

/** A `COPY … FROM STDIN` on the transaction's connection (PostgreSQL only), fed line by line. */
async function copyIn(trx: Transaction<Database>, statement: string): Promise<CopyIn> {
  const stream = pgCopyStreams.from(statement);
  let failure: Error | null = null;
  stream.on('error', (e: Error) => (failure = e));
  // node-postgres runs a query object (the COPY stream) as it is, on this connection.
  await trx.executeQuery(CompiledQuery.raw(stream as unknown as string));
  return {
    async write(text) {
      if (failure) throw failure;
      if (stream.write(text)) return;
      await new Promise<void>((resolve, reject) => {
        const settle = (e?: Error) => {
          stream.off('drain', settle);
          stream.off('error', settle);
          if (e) reject(e);
          else resolve();
        };
        stream.on('drain', settle);
        stream.on('error', settle);
      });
    },
    async end() {
      if (failure) throw failure;
      stream.end();
      await finished(stream);
    },
    async abort() {
      const closed = once(stream, 'close').catch(() => undefined);
      stream.destroy(new Error('Restauration interrompue'));
      await closed;
    },
  };
}

/** migrate.ts's advisory lock: a server starting on this database waits for the restore. */
const MIGRATION_LOCK = 99111109;
const BATCH_ROWS = 1000;
const BATCH_BYTES = 4 * 1024 * 1024;

export const NOT_EMPTY_MESSAGE =
  'La base de destination n’est pas vide : la restauration la remplacerait entièrement. Relancez avec --force pour l’écraser, ou choisissez un DATA_DIR vide ou une base PostgreSQL vide.';

export function newerSchemaMessage(found: number, known: number, what: string): string {
  return `${what} est au schéma n°${found}, plus récent que celui que connaît cette version de Compost (n°${known}) : utilisez une version de Compost au moins aussi récente.`;
}

const known = (migrations: Migration[]) => Math.max(0, ...migrations.map((m) => m.id));

/**
 * Refuses to start on a database whose schema is newer than this code's migrations (another,
 * newer release migrated it): running older code on it would misread it. Call before migrate().
 */
export async function assertSchemaKnown(db: Db, migrations?: Migration[]): Promise<void> {
  const { rows } = await sql<{ t: string | null }>`SELECT to_regclass('public.schema_migration')::text AS t`.execute(db);
  if (!rows[0].t) return;
  const found = await schemaVersion(db);
  const max = known(migrations ?? (await loadMigrations()));
  if (found > max) throw new Error(newerSchemaMessage(found, max, 'La base de données'));
}

const EXTENSION_MEMBER = `NOT EXISTS (SELECT 1 FROM pg_depend d WHERE d.objid = x.oid AND d.deptype = 'e')`;

/** Whether the public schema holds no table, view or sequence of its own (extensions aside). */
export async function databaseIsEmpty(db: Db | Transaction<Database>): Promise<boolean> {
  const { rows } = await sql<{ n: number }>`
    SELECT count(*)::int AS n FROM pg_class x
    WHERE x.relnamespace = 'public'::regnamespace AND x.relkind IN ('r', 'p', 'v', 'm', 'S', 'f', 'c') AND ${sql.raw(EXTENSION_MEMBER)}`.execute(db);
  return rows[0].n === 0;
}

/** --force: everything the migrations create in the public schema goes (extensions stay). */
async function dropEverything(trx: Transaction<Database>) {
  const kinds: Record<string, string> = { r: 'TABLE', p: 'TABLE', v: 'VIEW', m: 'MATERIALIZED VIEW', S: 'SEQUENCE', f: 'FOREIGN TABLE', c: 'TYPE' };
  const rels = await sql<{ name: string; kind: string }>`
    SELECT x.relname AS name, x.relkind::text AS kind FROM pg_class x
    WHERE x.relnamespace = 'public'::regnamespace AND x.relkind IN ('r', 'p', 'v', 'm', 'S', 'f', 'c') AND ${sql.raw(EXTENSION_MEMBER)}`.execute(trx);
  for (const r of rels.rows) await sql.raw(`DROP ${kinds[r.kind]} IF EXISTS public.${ident(r.name)} CASCADE`).execute(trx);
  const procs = await sql<{ sig: string; kind: string }>`
    SELECT x.oid::regprocedure::text AS sig, x.prokind::text AS kind FROM pg_proc x
    WHERE x.pronamespace = 'public'::regnamespace AND ${sql.raw(EXTENSION_MEMBER)}`.execute(trx);
  for (const p of procs.rows) await sql.raw(`DROP ${p.kind === 'p' ? 'PROCEDURE' : p.kind === 'a' ? 'AGGREGATE' : 'FUNCTION'} IF EXISTS ${p.sig} CASCADE`).execute(trx);
  const types = await sql<{ name: string; kind: string }>`
    SELECT x.typname AS name, x.typtype::text AS kind FROM pg_type x
    WHERE x.typnamespace = 'public'::regnamespace AND x.typtype IN ('e', 'd') AND ${sql.raw(EXTENSION_MEMBER)}`.execute(trx);
  for (const t of types.rows) await sql.raw(`DROP ${t.kind === 'd' ? 'DOMAIN' : 'TYPE'} IF EXISTS public.${ident(t.name)} CASCADE`).execute(trx);
}

/** What migrate() does, inside the restore's own transaction. */
async function applyMigrations(trx: Transaction<Database>, list: Migration[]): Promise<number[]> {
  await sql`CREATE TABLE IF NOT EXISTS schema_migration (
    id integer PRIMARY KEY, name text NOT NULL, applied_at timestamptz NOT NULL DEFAULT now())`.execute(trx);
  const done = new Set((await trx.selectFrom('schema_migration').select('id').execute()).map((r) => r.id));
  const applied: number[] = [];
  for (const m of [...list].sort((a, b) => a.id - b.id)) {
    if (done.has(m.id)) continue;
    await sql.raw(m.up).execute(trx);
    await trx.insertInto('schema_migration').values({ id: m.id, name: m.name }).execute();
    applied.push(m.id);
  }
  return applied;
}

/** Checks a backup file and that this code can restore it; nothing is opened or written. */
export async function checkBackup(file: string, migrations?: Migration[]): Promise<BackupHeader> {
  const header = await readBackup(file);
  const max = known(migrations ?? (await loadMigrations()));
  if (header.schema > max) throw new BackupFileError(newerSchemaMessage(header.schema, max, 'La sauvegarde'));
  return header;
}

export interface RestoreResult {
  header: BackupHeader;
  /** Migrations applied after the rows, to bring an older backup to this version. */
  migrated: number[];
}

export async function restoreBackup(db: Db, file: string, opts: { force?: boolean; migrations?: Migration[] } = {}): Promise<RestoreResult> {
  const migrations = opts.migrations ?? (await loadMigrations());
  const header = await checkBackup(file, migrations);
  if (!opts.force && !(await databaseIsEmpty(db))) throw new BackupFileError(NOT_EMPTY_MESSAGE);
  const result = await db.transaction().execute(async (trx) => {
    await sql`SET LOCAL statement_timeout = 0`.execute(trx);
    await sql`SELECT set_config('DateStyle', 'ISO, YMD', true), set_config('IntervalStyle', 'postgres', true)`.execute(trx);
    await sql`SELECT pg_advisory_xact_lock(${sql.lit(MIGRATION_LOCK)})`.execute(trx);
    if (opts.force) await dropEverything(trx);
    else if (!(await databaseIsEmpty(trx))) throw new BackupFileError(NOT_EMPTY_MESSAGE);
    await applyMigrations(
      trx,
      migrations.filter((m) => m.id <= header.schema),
    );
    const tables = new Map((await userTables(trx)).map((t) => [t.name, t]));
    for (const t of header.tables) {
      const here = tables.get(t.name);
      if (!here || here.columns.join() !== t.columns.join()) {
        throw new BackupFileError(`La sauvegarde ne correspond pas au schéma n°${header.schema} de cette version de Compost (table ${t.name}) : elle ne peut pas être restaurée.`);
      }
    }
    const missing = [...tables.keys()].filter((n) => !header.tables.some((t) => t.name === n));
    if (missing.length) throw new BackupFileError(`La sauvegarde ne contient pas les tables ${missing.join(', ')} du schéma n°${header.schema} : elle ne peut pas être restaurée.`);

    // Triggers off while the rows go in: derived tables come back as they were saved. Foreign
    // keys come off too (rows that reference each other load in any order) and go back after,
    // which checks every row.
    const names = [...tables.keys()];
    for (const n of names) await sql.raw(`ALTER TABLE ${ident(n)} DISABLE TRIGGER USER`).execute(trx);
    const fks = await sql<{ tbl: string; name: string; def: string }>`
      SELECT c.relname AS tbl, k.conname AS name, pg_get_constraintdef(k.oid) AS def
      FROM pg_constraint k JOIN pg_class c ON c.oid = k.conrelid
      WHERE k.contype = 'f' AND k.connamespace = 'public'::regnamespace ORDER BY c.relname, k.conname`.execute(trx);
    for (const fk of fks.rows) await sql.raw(`ALTER TABLE ${ident(fk.tbl)} DROP CONSTRAINT ${ident(fk.name)}`).execute(trx);
    // Indexes that back no constraint are built again once the rows are in: one sorted build
    // each costs far less than keeping them up to date row by row (a million interventions
    // carry a dozen such indexes). Their definitions come from the catalog, as they were.
    const indexes = await sql<{ name: string; def: string }>`
      SELECT i.relname AS name, pg_get_indexdef(i.oid) AS def
      FROM pg_index x JOIN pg_class i ON i.oid = x.indexrelid JOIN pg_class t ON t.oid = x.indrelid
      WHERE t.relnamespace = 'public'::regnamespace AND NOT EXISTS (SELECT 1 FROM pg_constraint c WHERE c.conindid = x.indexrelid)
      ORDER BY 1`.execute(trx);
    for (const ix of indexes.rows) await sql.raw(`DROP INDEX ${ident(ix.name)}`).execute(trx);
    // The migrations seeded the reference rows: the backup's own replace them.
    await sql.raw(`TRUNCATE ${names.map(ident).join(', ')}`).execute(trx);

    let current: ReturnType<typeof tables.get>;
    let batch: string[] = [];
    let bytes = 0;
    const flush = async () => {
      if (!current || batch.length === 0) return;
      const cols = current.columns.map(ident).join(', ');
      const values = current.types.map((type, i) => `(r->>${i})::${type}`).join(', ');
      await sql`${sql.raw(`INSERT INTO ${ident(current.name)} (${cols}) OVERRIDING SYSTEM VALUE SELECT ${values} FROM json_array_elements(`)}${`[${batch.join(',')}]`}${sql.raw('::json) AS r')}`.execute(trx);
      batch = [];
      bytes = 0;
    };
    // On PostgreSQL each table's rows go in through one COPY, as the file writes them.
    const viaCopy = (await engineOf(trx)) === 'postgres';
    let copy: CopyIn | null = null;
    const endCopy = async () => {
      if (!copy) return;
      const ending = copy;
      copy = null;
      await ending.end();
    };
    const load = readBackup(file, async (l: BackupLine) => {
      if (l.kind === 'table') {
        await flush();
        await endCopy();
        current = tables.get(l.table.name);
        if (viaCopy) copy = await copyIn(trx, copyStatement(current!));
        return;
      }
      if (copy) return copy.write(`${l.copy}\n`);
      const line = JSON.stringify(l.values);
      batch.push(line);
      bytes += line.length;
      if (batch.length >= BATCH_ROWS || bytes >= BATCH_BYTES) await flush();
    });
    try {
      await load;
    } catch (e) {
      // A line refused half-way through a table: the COPY in progress is cancelled first.
      const open = copy as CopyIn | null;
      copy = null;
      await open?.abort();
      throw e;
    }
    await flush();
    await endCopy();

    if (viaCopy) await sql`SET LOCAL maintenance_work_mem = '256MB'`.execute(trx);
    for (const ix of indexes.rows) await sql.raw(ix.def).execute(trx);
    for (const fk of fks.rows) await sql.raw(`ALTER TABLE ${ident(fk.tbl)} ADD CONSTRAINT ${ident(fk.name)} ${fk.def}`).execute(trx);
    for (const n of names) await sql.raw(`ALTER TABLE ${ident(n)} ENABLE TRIGGER USER`).execute(trx);
    for (const s of header.sequences) {
      await sql`SELECT setval(${`public.${ident(s.name)}`}::regclass, ${s.value}::bigint, ${s.called})`.execute(trx);
    }
    return { header, migrated: await applyMigrations(trx, migrations) };
  });
  // Fresh statistics for the planner: the loaded tables have none yet.
  await sql`ANALYZE`.execute(db).catch(() => undefined);
  return result;
}
