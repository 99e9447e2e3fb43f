// The backup file: gzip of a plain SQL script (UTF-8), written by backup.dump.ts and read back by
// backup.restore.ts, whatever engine (PGlite or PostgreSQL) wrote or reads it.
//
//   line 1      -- compost-sauvegarde {header}: format, version, schema (highest migration id),
//               engine, time, the tables in load order with their columns and row counts, the
//               sequences' values
//   then        SET lines, BEGIN and one TRUNCATE of every table (the reference rows the
//               migrations seeded give way to the saved ones)
//   per table   COPY "table" ("column", ...) FROM stdin; then one line per row in COPY's text
//               format (tab between columns, \N for null, backslash escapes), each value as
//               PostgreSQL's own text form (bytea in hex, timestamptz in UTC with microseconds,
//               arrays and jsonb as their literals); then \.
//   then        one setval per sequence, COMMIT
//   last line   -- fin {"sha256": …} of every byte before it
//
// It reads and greps like any SQL dump, and psql can load it into a database the migrations
// built up to its schema (as a superuser: `session_replication_role = replica` keeps the
// triggers and foreign keys from firing while the rows go in). `npm run restore` parses it
// instead, checking every line first. Files of the first format (JSON lines, '.jsonl.gz')
// are still read.
//
// Photos live in the database (intervention_photo), so the file holds everything: DATA_DIR
// keeps nothing else worth restoring (written e-mails are a log, not data).
import crypto from 'node:crypto';
import fs from 'node:fs';
import { StringDecoder } from 'node:string_decoder';
import zlib from 'node:zlib';

export const BACKUP_FORMAT = 'compost-sauvegarde';
export const BACKUP_VERSION = 2;
/** The first format: gzip of JSON lines. */
const JSON_LINES_VERSION = 1;
export const HEADER_PREFIX = '-- compost-sauvegarde ';
export const END_PREFIX = '-- fin ';
export const COPY_END = '\\.';

export interface BackupTable {
  name: string;
  columns: string[];
  rows: number;
}

export interface BackupHeader {
  format: typeof BACKUP_FORMAT;
  version: number;
  /** Highest id of schema_migration when the backup was made. */
  schema: number;
  engine: 'pglite' | 'postgres';
  createdAt: string;
  tables: BackupTable[];
  sequences: { name: string; value: number; called: boolean }[];
}

/** A file refused before anything is written; the message is for the operator, in French. */
export class BackupFileError extends Error {}

const FOREIGN = 'Ce fichier n’est pas une sauvegarde Compost (format inconnu).';
const TRUNCATED = 'La sauvegarde est tronquée (fichier incomplet) : elle ne peut pas être restaurée.';
const corrupt = (why: string) => new BackupFileError(`La sauvegarde est corrompue (${why}) : elle ne peut pas être restaurée.`);

function parseLine(line: string, at: number): unknown {
  try {
    return JSON.parse(line);
  } catch {
    throw corrupt(`ligne ${at} illisible`);
  }
}

/** Checks the header's shape: names and counts are used to build the restore's statements. */
function checkHeader(value: unknown, expectedVersion: number): BackupHeader {
  const h = value as Partial<BackupHeader> | null;
  if (!h || typeof h !== 'object' || h.format !== BACKUP_FORMAT) throw new BackupFileError(FOREIGN);
  if (h.version !== expectedVersion) throw new BackupFileError(`Cette sauvegarde est au format ${String(h.version)}, que cette version de Compost ne sait pas lire (formats ${JSON_LINES_VERSION} et ${BACKUP_VERSION}).`);
  const name = (n: unknown) => typeof n === 'string' && /^[a-z_][a-z0-9_]{0,62}$/.test(n);
  const ok =
    Number.isInteger(h.schema) &&
    Array.isArray(h.tables) &&
    h.tables.every((t) => name(t?.name) && Array.isArray(t.columns) && t.columns.every(name) && Number.isInteger(t.rows) && t.rows >= 0) &&
    Array.isArray(h.sequences) &&
    h.sequences.every((s) => name(s?.name) && Number.isSafeInteger(s.value) && typeof s.called === 'boolean');
  if (!ok) throw corrupt('en-tête invalide');
  return h as BackupHeader;
}

/** A row comes as its values (text forms or null) and as its COPY text line (`copy`). */
export type BackupLine = { kind: 'table'; table: BackupTable } | { kind: 'row'; values: (string | null)[]; copy: string };

/**
 * Reads a backup file from start to end and checks it: gzip integrity, header, every line, row
 * counts against the header, and the checksum of the trailer. `onLine` (the restore's load) gets
 * each table and row as it is read; without it, the file is only checked. Throws
 * BackupFileError with the French reason.
 */
export async function readBackup(file: string, onLine?: (l: BackupLine) => Promise<void>): Promise<BackupHeader> {
  try {
    await fs.promises.access(file, fs.constants.R_OK);
  } catch {
    throw new BackupFileError(`Fichier introuvable ou illisible : ${file}`);
  }
  const input = fs.createReadStream(file);
  const gunzip = zlib.createGunzip();
  // A read error ends the decompression with it: the loop below sees one failure either way.
  input.on('error', (e) => gunzip.destroy(e));
  input.pipe(gunzip);
  const hash = crypto.createHash('sha256');
  let header: BackupHeader | null = null;
  let table = -1;
  let inTable = 0;
  let n = 0;
  let ended = false;
  const tableDone = () => {
    if (header && table >= 0 && inTable !== header.tables[table].rows) throw corrupt(`table ${header.tables[table].name} : ${inTable} lignes au lieu de ${header.tables[table].rows}`);
  };
  let sqlFormat = false;
  let inCopy = false;
  const endOf = (mark: { sha256?: unknown }) => {
    if (!header || table !== header.tables.length - 1) throw new BackupFileError(TRUNCATED);
    if (mark.sha256 !== hash.digest('hex')) throw corrupt('somme de contrôle différente');
    ended = true;
  };
  const nextTable = async (name: unknown) => {
    table++;
    if (name !== header!.tables[table]?.name) throw corrupt(`ligne ${n} : table inattendue`);
    inTable = 0;
    await onLine?.({ kind: 'table', table: header!.tables[table] });
  };
  const row = async (values: unknown, copy?: string) => {
    if (table < 0) throw corrupt(`ligne ${n} hors table`);
    const columns = header!.tables[table].columns.length;
    if (!Array.isArray(values) || values.length !== columns || !values.every((v) => v === null || typeof v === 'string')) throw corrupt(`ligne ${n} invalide`);
    inTable++;
    if (onLine) await onLine({ kind: 'row', values: values as (string | null)[], copy: copy ?? copyLine(values as (string | null)[]) });
  };
  /** The SQL format: COPY blocks between statements the restore does not need to run. */
  const handleSql = async (line: string) => {
    if (inCopy) {
      if (line === COPY_END) {
        tableDone();
        inCopy = false;
      } else {
        await row(parseCopyLine(line), line);
      }
    } else if (line.startsWith('COPY ')) {
      const next = header!.tables[table + 1];
      if (!next || line !== copyStatement(next)) throw corrupt(`ligne ${n} : table inattendue`);
      await nextTable(next.name);
      inCopy = true;
    } else if (line.startsWith(END_PREFIX)) {
      return endOf(parseLine(line.slice(END_PREFIX.length), n) as { sha256?: unknown });
    }
    hash.update(line + '\n');
  };
  /** The first format: one JSON value per line. */
  const handleJson = async (line: string) => {
    if (line.startsWith('[')) {
      await row(parseLine(line, n));
    } else {
      const mark = parseLine(line, n) as { table?: string; end?: boolean; sha256?: string };
      tableDone();
      if (mark.end === true) return endOf(mark);
      await nextTable(mark.table);
    }
    hash.update(line + '\n');
  };
  const handle = async (line: string) => {
    n++;
    if (ended) throw corrupt('données après la fin');
    if (header) return sqlFormat ? handleSql(line) : handleJson(line);
    // A file that is not ours fails here (binary, another JSON, another gzip).
    if (line.startsWith(HEADER_PREFIX)) {
      sqlFormat = true;
      header = checkHeader(parseLine(line.slice(HEADER_PREFIX.length), n), BACKUP_VERSION);
    } else if (line.startsWith('{"format"')) {
      header = checkHeader(parseLine(line, n), JSON_LINES_VERSION);
    } else {
      throw new BackupFileError(FOREIGN);
    }
    hash.update(line + '\n');
  };
  let rest = '';
  const utf8 = new StringDecoder('utf8');
  try {
    for await (const chunk of gunzip) {
      const text = rest + utf8.write(chunk as Buffer);
      const parts = text.split('\n');
      rest = parts.pop()!;
      for (const line of parts) await handle(line);
    }
    if (rest) await handle(rest);
  } catch (e) {
    input.destroy();
    gunzip.destroy();
    if (e instanceof BackupFileError) throw e;
    if ((e as NodeJS.ErrnoException).code?.startsWith('Z_')) throw gzipRefusal(e as Error, header !== null || rest.startsWith(HEADER_PREFIX) || rest.startsWith(`{"format":"${BACKUP_FORMAT}"`));
    throw e;
  }
  if (!header) throw new BackupFileError(FOREIGN);
  if (!ended) throw new BackupFileError(TRUNCATED);
  return header;
}

function gzipRefusal(e: Error, ours: boolean): BackupFileError {
  const code = (e as NodeJS.ErrnoException).code;
  if (!ours) return new BackupFileError(FOREIGN);
  if (code === 'Z_BUF_ERROR' || /unexpected end/i.test(e.message)) return new BackupFileError(TRUNCATED);
  if (code === 'Z_DATA_ERROR') return corrupt('données compressées invalides');
  return new BackupFileError(`Lecture de la sauvegarde impossible : ${e.message}`);
}

/** A quoted SQL identifier. */
export const ident = (name: string) => `"${name.replace(/"/g, '""')}"`;

/** The line that opens a table's rows. */
export function copyStatement(t: Pick<BackupTable, 'name' | 'columns'>): string {
  return `COPY ${ident(t.name)} (${t.columns.map(ident).join(', ')}) FROM stdin;`;
}

const COPY_ESCAPES: Record<string, string> = { '\\': '\\\\', '\n': '\\n', '\r': '\\r', '\t': '\\t' };
const COPY_UNESCAPES: Record<string, string> = { '\\': '\\', n: '\n', r: '\r', t: '\t', b: '\b', f: '\f', v: '\v' };

/** One row in COPY's text format: tab-separated, \N for null, backslash, newline, CR and tab escaped. */
export function copyLine(values: readonly (string | null)[]): string {
  return values.map((v) => (v === null ? '\\N' : v.replace(/[\\\n\r\t]/g, (c) => COPY_ESCAPES[c]))).join('\t');
}

/** A COPY text line back into its values; null when a backslash sequence is not one COPY writes. */
export function parseCopyLine(line: string): (string | null)[] | null {
  const out: (string | null)[] = [];
  for (const field of line.split('\t')) {
    if (field === '\\N') {
      out.push(null);
      continue;
    }
    let bad = false;
    out.push(field.replace(/\\(.?)/g, (_, c: string) => COPY_UNESCAPES[c] ?? ((bad = true), '')));
    if (bad) return null;
  }
  return out;
}

/** What comes between the header and the first table: session settings, BEGIN, the TRUNCATE. */
export function sqlPreamble(tables: readonly Pick<BackupTable, 'name'>[]): string[] {
  return [
    '-- Sauvegarde Compost : npm run restore -- FICHIER la recharge ; psql aussi, dans une base créée par les migrations jusqu’à ce schéma (superutilisateur).',
    "SET client_encoding = 'UTF8';",
    'SET standard_conforming_strings = on;',
    "SET TimeZone = 'UTC';",
    'SET session_replication_role = replica;',
    'BEGIN;',
    `TRUNCATE ${tables.map((t) => ident(t.name)).join(', ')};`,
  ];
}

/** After the last table: the sequences where they stood, COMMIT. */
export function sqlEpilogue(sequences: BackupHeader['sequences']): string[] {
  return [...sequences.map((q) => `SELECT pg_catalog.setval('public.${ident(q.name)}', ${q.value}, ${q.called});`), 'COMMIT;'];
}

/** SHA-256 (hex) of a whole file, as `sha256sum` prints it. */
export async function fileSha256(file: string): Promise<string> {
  const hash = crypto.createHash('sha256');
  for await (const chunk of fs.createReadStream(file)) hash.update(chunk as Buffer);
  return hash.digest('hex');
}
