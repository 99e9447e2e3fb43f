// CSV exports the way French spreadsheets open them (UTF-8 with a byte-order mark, since Excel
// otherwise guesses Windows-1252; `;` separator; CRLF lines; dates dd/MM/yyyy in Europe/Paris;
// text cells that a spreadsheet would run as a formula (= + - @ tab CR) prefixed with `'`).
//
// The rules exist twice, in the same file, and a test keeps them equal byte for byte:
// - in JavaScript (formatCsvCell, csvChunks) for exports of a few thousand rows built from
//   records (sites, statistics);
// - in SQL (sqlCsvText, sqlCsvLine...) for the interventions log, whose lines the database
//   writes itself: on PostgreSQL one COPY streams the whole file (one statement, one snapshot,
//   every row exactly once), on the embedded database keyset batches of the same lines.
import { Readable, Transform, type TransformCallback } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { FastifyReply } from 'fastify';
import { CompiledQuery, sql, type RawBuilder } from 'kysely';
import pgCopyStreams from 'pg-copy-streams';
import type { Db } from './db/client.js';
import { formatParisDate, formatParisDateTime } from '../shared/dates.js';
import { inlineParameters } from './db/sql-literal.js';

export type CsvValue = string | number | boolean | Date | null | undefined;

export interface CsvColumn<T> {
  header: string;
  value: (row: T) => CsvValue;
  /** How a Date (or ISO string) is written; default 'date'. */
  format?: 'date' | 'datetime';
}

export const CSV_BOM = '\uFEFF';
export const CSV_SEPARATOR = ';';
const EOL = '\r\n';

const FORMULA_START = /^[=+\-@\t\r]/;
const NEEDS_QUOTES = /[;"\r\n]/;

/** One cell, guarded against formula injection and quoted when needed. */
export function formatCsvCell(value: CsvValue, format: 'date' | 'datetime' = 'date'): string {
  let text: string;
  if (value === null || value === undefined) return '';
  if (value instanceof Date) text = Number.isNaN(value.getTime()) ? '' : format === 'date' ? formatParisDate(value) : formatParisDateTime(value);
  else if (typeof value === 'boolean') text = value ? 'Oui' : 'Non';
  // A number is data, never a formula: -5 stays a negative number, with a French decimal comma.
  else if (typeof value === 'number') text = Number.isFinite(value) ? String(value).replace('.', ',') : '';
  else text = FORMULA_START.test(value) ? `'${value}` : value;
  return NEEDS_QUOTES.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

export function csvLine(cells: string[]): string {
  return cells.join(CSV_SEPARATOR) + EOL;
}

/** The first bytes of every export: the byte-order mark and the header line. */
export function csvHeader(headers: readonly string[]): string {
  return CSV_BOM + csvLine(headers.map((h) => formatCsvCell(h)));
}

/** The whole file as chunks: BOM and header line first, then one chunk per batch of rows. */
export async function* csvChunks<T>(columns: readonly CsvColumn<T>[], batches: AsyncIterable<readonly T[]>): AsyncGenerator<string> {
  yield csvHeader(columns.map((c) => c.header));
  for await (const batch of batches) {
    if (batch.length === 0) continue;
    let chunk = '';
    for (const row of batch) chunk += csvLine(columns.map((c) => formatCsvCell(c.value(row), c.format)));
    yield chunk;
  }
}

/** Sends `body` (the whole file) as a download named `filename`, pulled as the client reads. */
export function sendCsvBody(reply: FastifyReply, filename: string, body: Readable) {
  return reply
    .header('content-type', 'text/csv; charset=utf-8')
    .header('content-disposition', `attachment; filename="${filename}"`)
    .header('cache-control', 'no-store')
    .send(body);
}

/** Sends the CSV as a download named `filename`; the body is pulled batch by batch as the client reads. */
export function sendCsv<T>(reply: FastifyReply, filename: string, columns: readonly CsvColumn<T>[], batches: AsyncIterable<readonly T[]>) {
  return sendCsvBody(reply, filename, Readable.from(csvChunks(columns, batches), { objectMode: false }));
}

// ---------------------------------------------------------------------------------------------
// The same rules in SQL. Each helper takes an expression and may repeat it: give it a column of
// a subquery, not an expensive expression.

/** A text cell: '' for NULL, `'` before a formula start, quotes around ; " CR LF (inner quotes doubled). */
export function sqlCsvText(v: RawBuilder<unknown>): RawBuilder<string> {
  const guarded = sql`(CASE WHEN left(${v}, 1) IN ('=', '+', '-', '@', E'\\t', E'\\r') THEN '''' || ${v} ELSE ${v} END)`;
  return sql<string>`(CASE WHEN ${v} IS NULL THEN '' WHEN ${v} ~ '[;"\\r\\n]' THEN '"' || replace(${guarded}, '"', '""') || '"' ELSE ${guarded} END)`;
}

/** 'dd/MM/yyyy HH:mm' in Paris, '' for NULL (formatParisDateTime). */
export function sqlParisDateTime(v: RawBuilder<unknown>): RawBuilder<string> {
  return sql<string>`coalesce(to_char(${v} AT TIME ZONE 'Europe/Paris', 'DD/MM/YYYY HH24:MI'), '')`;
}

/** An integer cell (never a formula, never quoted), '' for NULL. */
export function sqlCsvInteger(v: RawBuilder<unknown>): RawBuilder<string> {
  return sql<string>`coalesce((${v})::text, '')`;
}

/**
 * The cells, already formatted (never NULL: concat_ws would skip them), as one CSV line with its
 * CRLF. One concat_ws builds the line in one buffer, where a chain of || copies it once per cell
 * (a second per million rows).
 */
export function sqlCsvLine(cells: RawBuilder<string>[]): RawBuilder<string> {
  return sql<string>`(concat_ws(';', ${sql.join(cells)}) || E'\\r\\n')`;
}

// ---------------------------------------------------------------------------------------------
// Streaming a query's lines out of PostgreSQL with COPY.

const versions = new WeakMap<Db, Promise<boolean>>();

/**
 * Whether the database streams COPY (PostgreSQL through node-postgres) or not (the embedded
 * PGlite, which runs every statement to its end on the main thread). Asked once per handle.
 */
export function streamsCopy(db: Db): Promise<boolean> {
  let known = versions.get(db);
  if (!known) {
    known = sql<{ v: string }>`SELECT version() AS v`.execute(db).then(
      (r) => !/pglite|emscripten/i.test(r.rows[0]?.v ?? ''),
      (e: unknown) => {
        versions.delete(db);
        throw e;
      },
    );
    versions.set(db, known);
  }
  return known;
}

/** Longest a COPY export may run (a slow download keeps it waiting): longer than any statement of a request. */
export const COPY_TIMEOUT = '30min';

/** Bytes a COPY stream and its reader may each hold before asking the other side to wait. */
const COPY_BUFFER_BYTES = 1 << 20;

const SIGNATURE = Buffer.from('PGCOPY\n\xff\r\n\0', 'latin1');

/**
 * Reads `COPY (SELECT line ...) TO STDOUT (FORMAT binary)` of a query with one text column and
 * passes on the bytes of each line, nothing else: the lines come out exactly as the SQL wrote
 * them (the text and csv formats of COPY would escape or quote them again).
 */
export class CopyBinaryLines extends Transform {
  private rest: Buffer | null = null;
  private started = false;
  private ended = false;

  constructor(first?: string) {
    // Room for a few of PostgreSQL's 64 kB messages on each side: with the default 16 kB the
    // COPY pauses and resumes its socket at every message.
    super({ readableHighWaterMark: COPY_BUFFER_BYTES, writableHighWaterMark: COPY_BUFFER_BYTES });
    if (first) this.push(Buffer.from(first, 'utf8'));
  }

  override _transform(chunk: Buffer, _encoding: BufferEncoding, done: TransformCallback) {
    const buf = this.rest ? Buffer.concat([this.rest, chunk]) : chunk;
    this.rest = null;
    let pos = 0;
    if (!this.started) {
      // Signature, flags (int32), header extension length (int32) and the extension.
      if (buf.length >= 11 && !buf.subarray(0, 11).equals(SIGNATURE)) return done(new Error('not a binary COPY stream'));
      if (buf.length < 19 || buf.length < 19 + buf.readUInt32BE(15)) {
        this.rest = buf;
        return done();
      }
      pos = 19 + buf.readUInt32BE(15);
      this.started = true;
    }
    // Where each whole line of the chunk starts and how long it is, then one copy into one buffer.
    const starts: number[] = [];
    const lengths: number[] = [];
    let total = 0;
    while (!this.ended && buf.length - pos >= 2) {
      const fields = buf.readInt16BE(pos);
      if (fields === -1) {
        this.ended = true;
        pos += 2;
        break;
      }
      if (fields !== 1) return done(new Error(`a COPY row of ${fields} columns`));
      if (buf.length - pos < 6) break;
      const length = buf.readInt32BE(pos + 2);
      if (length < 0) {
        pos += 6;
        continue;
      }
      if (buf.length - pos - 6 < length) break;
      starts.push(pos + 6);
      lengths.push(length);
      total += length;
      pos += 6 + length;
    }
    if (pos < buf.length && !this.ended) {
      // Kept apart from the chunk it came from, so that chunk can be freed.
      this.rest = Buffer.from(buf.subarray(pos));
    }
    if (total > 0) {
      const out = Buffer.allocUnsafe(total);
      let at = 0;
      for (let i = 0; i < starts.length; i++) at += buf.copy(out, at, starts[i], starts[i] + lengths[i]);
      this.push(out);
    }
    done();
  }

  override _flush(done: TransformCallback) {
    done(this.ended ? null : new Error('COPY stream ended before its trailer'));
  }
}

interface CopySource extends Readable {
  connection?: { stream?: Readable };
}

/**
 * The lines of `query` (a SELECT of one text column, each row a whole CSV line), after `first`,
 * streamed by one COPY on a connection of its own. The COPY follows the reader: when the client
 * reads slowly, PostgreSQL waits; when it goes away, the connection is cut (the pool drops it)
 * and the server stops. PostgreSQL only (see streamsCopy).
 */
export function copyLines(db: Db, query: RawBuilder<unknown>, first: string): Readable {
  const statement = `COPY (${inlineParameters(query.compile(db))}) TO STDOUT (FORMAT binary)`;
  const out = new CopyBinaryLines(first);
  const copy: CopySource = pgCopyStreams.to(statement, { highWaterMark: COPY_BUFFER_BYTES });
  db.connection()
    .execute(async (conn) => {
      await sql`SELECT set_config('statement_timeout', ${COPY_TIMEOUT}, false)`.execute(conn);
      // node-postgres runs a query object (here the COPY stream) as it is; the app's pool passes
      // such objects through untouched, as it does cursors.
      await conn.executeQuery(CompiledQuery.raw(copy as unknown as string));
      try {
        await pipeline(copy, out);
      } catch (e) {
        // The reader left (or the COPY failed) half-way: a connection in the middle of a COPY
        // cannot be reused. Cut it, and give it back only once node-postgres knows it is dead,
        // so that the pool drops it.
        const socket = copy.connection?.stream;
        if (socket && !socket.destroyed) {
          const closed = new Promise((resolve) => socket.once('close', resolve));
          socket.destroy();
          await closed;
        }
        throw e;
      }
      await sql`RESET statement_timeout`.execute(conn);
    })
    .catch((e: unknown) => {
      if (!out.destroyed) out.destroy(e as Error);
    });
  return out;
}
