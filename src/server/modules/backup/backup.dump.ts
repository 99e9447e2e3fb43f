// Writes a backup (backup.format.ts) through the app's own database client, on PGlite as on
// PostgreSQL: one REPEATABLE READ transaction, so every table is read at the same instant
// while the server keeps serving; the rows leave through a cursor, a batch at a time. The file
// is written under a temporary name and renamed once complete and flushed, so a full disk or a
// crash never leaves a half backup under a backup's name.
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';
import { once } from 'node:events';
import { CompiledQuery, sql, type Transaction } from 'kysely';
import pgCopyStreams from 'pg-copy-streams';
import type { Db } from '../../db/client.js';
import type { Database } from '../../db/schema.js';
import { BACKUP_FORMAT, BACKUP_VERSION, COPY_END, END_PREFIX, HEADER_PREFIX, copyLine, copyStatement, fileSha256, ident, sqlEpilogue, sqlPreamble, type BackupHeader } from './backup.format.js';

const FETCH_ROWS = 500;

export interface BackupResult {
  path: string;
  size: number;
  sha256: string;
  header: BackupHeader;
}

/** Quotes an identifier read from the catalogue. */
export { ident };

/**
 * The tables of the public schema (schema_migration aside: a restore writes its own) with their
 * stored columns (generated ones are computed again), parents before children where the foreign
 * keys allow it (restore does not depend on it).
 */
export async function userTables(trx: Transaction<Database> | Db): Promise<{ name: string; columns: string[]; types: string[] }[]> {
  const { rows } = await sql<{ name: string; columns: string[]; types: string[] }>`
    SELECT c.relname AS name,
           array_agg(a.attname::text ORDER BY a.attnum) AS columns,
           array_agg(format_type(a.atttypid, a.atttypmod) ORDER BY a.attnum) AS types
    FROM pg_class c
    JOIN pg_namespace n ON n.oid = c.relnamespace AND n.nspname = 'public'
    JOIN pg_attribute a ON a.attrelid = c.oid AND a.attnum > 0 AND NOT a.attisdropped AND a.attgenerated = ''
    WHERE c.relkind IN ('r', 'p') AND c.relname <> 'schema_migration'
      AND NOT EXISTS (SELECT 1 FROM pg_depend d WHERE d.objid = c.oid AND d.deptype = 'e')
    GROUP BY c.relname ORDER BY c.relname`.execute(trx);
  const refs = await sql<{ child: string; parent: string }>`
    SELECT conrelid::regclass::text AS child, confrelid::regclass::text AS parent
    FROM pg_constraint WHERE contype = 'f' AND connamespace = 'public'::regnamespace`.execute(trx);
  // Depth-first: a table after the tables it references (cycles are cut where they close).
  const parents = new Map<string, string[]>();
  for (const r of refs.rows) parents.set(r.child, [...(parents.get(r.child) ?? []), r.parent]);
  const order: string[] = [];
  const seen = new Set<string>();
  const visit = (t: string) => {
    if (seen.has(t)) return;
    seen.add(t);
    for (const p of parents.get(t) ?? []) visit(p);
    order.push(t);
  };
  rows.forEach((r) => visit(r.name));
  const byName = new Map(rows.map((r) => [r.name, r]));
  return order.filter((t) => byName.has(t)).map((t) => byName.get(t)!);
}

/** Highest migration recorded in the database; 0 when it has none. */
export async function schemaVersion(db: Transaction<Database> | Db): Promise<number> {
  const { rows } = await sql<{ v: number | null }>`SELECT max(id) AS v FROM schema_migration`.execute(db);
  return Number(rows[0]?.v ?? 0);
}

/**
 * Runs a `COPY … TO STDOUT` on the transaction's connection (PostgreSQL only) and hands each
 * chunk of its text to `take`, which may wait (the file's back-pressure) before the next.
 */
async function copyOut(trx: Transaction<Database>, statement: string, take: (chunk: Buffer) => Promise<void>): Promise<void> {
  const copy = pgCopyStreams.to(statement);
  // node-postgres runs a query object (the COPY stream) as it is, on this connection.
  await trx.executeQuery(CompiledQuery.raw(copy as unknown as string));
  for await (const chunk of copy as AsyncIterable<Buffer>) await take(chunk);
}

export async function engineOf(trx: Transaction<Database>): Promise<'pglite' | 'postgres'> {
  const { rows } = await sql<{ v: string }>`SELECT version() AS v`.execute(trx);
  return /emscripten|wasm/i.test(rows[0].v) ? 'pglite' : 'postgres';
}

/**
 * Writes a backup of `db` to `file` (created or replaced at the end, never half written).
 * With `lock`, the backup first takes that advisory lock for its transaction and returns null
 * when another process holds it (one daily backup for several processes).
 */
export async function writeBackup(db: Db, file: string, opts: { lock?: number } = {}): Promise<BackupResult | null> {
  const target = path.resolve(file);
  fs.mkdirSync(path.dirname(target), { recursive: true });
  const temp = `${target}.${process.pid}-${crypto.randomBytes(4).toString('hex')}.tmp`;
  try {
    const header = await db
      .transaction()
      .setIsolationLevel('repeatable read')
      .execute(async (trx) => {
        await sql`SET TRANSACTION READ ONLY`.execute(trx);
        // A large table outlasts a request's statement limit; the text forms must not depend on the session.
        await sql`SET LOCAL statement_timeout = 0`.execute(trx);
        await sql`SELECT set_config('TimeZone', 'UTC', true), set_config('DateStyle', 'ISO, YMD', true), set_config('IntervalStyle', 'postgres', true), set_config('bytea_output', 'hex', true), set_config('extra_float_digits', '3', true)`.execute(trx);
        if (opts.lock !== undefined) {
          const got = await sql<{ ok: boolean }>`SELECT pg_try_advisory_xact_lock(${sql.lit(opts.lock)}) AS ok`.execute(trx);
          if (!got.rows[0].ok) return null;
        }
        return dumpTo(trx, temp);
      });
    if (!header) return null;
    fs.renameSync(temp, target);
    return { path: target, size: fs.statSync(target).size, sha256: await fileSha256(target), header };
  } finally {
    fs.rmSync(temp, { force: true });
  }
}

async function dumpTo(trx: Transaction<Database>, temp: string): Promise<BackupHeader> {
  const tables = await userTables(trx);
  const engine = await engineOf(trx);
  const counts: number[] = [];
  // The first read fixes the snapshot; sequences only go up, so read after it they cover every row it sees.
  for (const t of tables) counts.push(Number((await sql<{ n: number }>`SELECT count(*)::int AS n FROM ${sql.table(t.name)}`.execute(trx)).rows[0].n));
  const seqs = await sql<{ name: string }>`
    SELECT c.relname AS name FROM pg_class c WHERE c.relkind = 'S' AND c.relnamespace = 'public'::regnamespace ORDER BY 1`.execute(trx);
  const sequences: BackupHeader['sequences'] = [];
  for (const s of seqs.rows) {
    const v = await sql<{ last_value: number; is_called: boolean }>`SELECT last_value::bigint AS last_value, is_called FROM ${sql.table(s.name)}`.execute(trx);
    sequences.push({ name: s.name, value: Number(v.rows[0].last_value), called: v.rows[0].is_called });
  }
  const header: BackupHeader = {
    format: BACKUP_FORMAT,
    version: BACKUP_VERSION,
    schema: await schemaVersion(trx),
    engine,
    createdAt: new Date().toISOString(),
    tables: tables.map((t, i) => ({ name: t.name, columns: t.columns, rows: counts[i] })),
    sequences,
  };

  const gzip = zlib.createGzip({ level: 6 });
  const out = fs.createWriteStream(temp, { flags: 'wx', mode: 0o600 });
  const done = new Promise<void>((resolve, reject) => {
    out.on('finish', resolve);
    out.on('error', reject);
    gzip.on('error', reject);
  });
  gzip.pipe(out);
  const hash = crypto.createHash('sha256');
  const write = async (line: string, hashed = true) => {
    if (hashed) hash.update(line + '\n');
    if (!gzip.write(line + '\n')) await Promise.race([once(gzip, 'drain'), done]);
  };
  try {
    await write(HEADER_PREFIX + JSON.stringify(header));
    for (const line of sqlPreamble(tables)) await write(line);
    for (const t of tables) {
      await write(copyStatement(t));
      if (engine === 'postgres') {
        // PostgreSQL writes the table's COPY text itself: the rows go straight to the file.
        await copyOut(trx, `COPY ${ident(t.name)} (${t.columns.map(ident).join(', ')}) TO STDOUT`, async (chunk) => {
          hash.update(chunk);
          if (!gzip.write(chunk)) await Promise.race([once(gzip, 'drain'), done]);
        });
        await write(COPY_END);
        continue;
      }
      const values = t.columns.map((c) => `${ident(c)}::text`).join(', ');
      await sql.raw(`DECLARE compost_backup NO SCROLL CURSOR FOR SELECT array_to_json(ARRAY[${values}]::text[])::text AS r FROM ${ident(t.name)}`).execute(trx);
      for (;;) {
        const batch = await sql.raw<{ r: string }>(`FETCH ${FETCH_ROWS} FROM compost_backup`).execute(trx);
        for (const row of batch.rows) await write(copyLine(JSON.parse(row.r) as (string | null)[]));
        if (batch.rows.length < FETCH_ROWS) break;
      }
      await sql.raw('CLOSE compost_backup').execute(trx);
      await write(COPY_END);
    }
    for (const line of sqlEpilogue(sequences)) await write(line);
    await write(END_PREFIX + JSON.stringify({ sha256: hash.digest('hex') }), false);
    gzip.end();
    await done;
    // On disk before the rename makes it a backup.
    const fd = fs.openSync(temp, 'r');
    try {
      fs.fsyncSync(fd);
    } finally {
      fs.closeSync(fd);
    }
  } catch (e) {
    gzip.destroy();
    out.destroy();
    throw e;
  }
  return header;
}
