// The backup file: gzip of UTF-8 JSON lines, written by backup.dump.ts and read back by
// backup.restore.ts, whatever engine (PGlite or PostgreSQL) wrote or reads it.
//
//   line 1      header: format, version, schema (highest migration id), engine, time, the
//               tables in load order with their columns and row counts, the sequences' values
//   per table   {"table": name}, then one JSON array per row: each column as PostgreSQL's own
//               text form of the value (bytea in hex, timestamptz in UTC with microseconds,
//               arrays and jsonb as their literals), or null; restore casts it back
//   last line   {"end": true, "sha256": …} of every byte before it
//
// Photos live in the database (intervention_photo), so the file holds everything: DATA_DIR
// keeps nothing else worth restoring (written e-mails are a log, not data).
import crypto from 'node:crypto';
import fs from 'node:fs';
import { StringDecoder } from 'node:string_decoder';
import zlib from 'node:zlib';

export const BACKUP_FORMAT = 'compost-sauvegarde';
export const BACKUP_VERSION = 1;

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
function checkHeader(value: unknown): BackupHeader {
  const h = value as Partial<BackupHeader> | null;
  if (!h || typeof h !== 'object' || h.format !== BACKUP_FORMAT) throw new BackupFileError(FOREIGN);
  if (h.version !== BACKUP_VERSION) throw new BackupFileError(`Cette sauvegarde est au format ${String(h.version)}, que cette version de Compost ne sait pas lire (format ${BACKUP_VERSION}).`);
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

export type BackupLine = { kind: 'table'; table: BackupTable } | { kind: 'row'; line: string };

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
  const handle = async (line: string) => {
    n++;
    if (ended) throw corrupt('données après la fin');
    if (!header) {
      // A file that is not ours fails here (binary, another JSON, another gzip).
      if (!line.startsWith('{"format"')) throw new BackupFileError(FOREIGN);
      header = checkHeader(parseLine(line, n));
    } else if (line.startsWith('[')) {
      if (table < 0) throw corrupt(`ligne ${n} hors table`);
      const row = parseLine(line, n);
      if (!Array.isArray(row) || row.length !== header.tables[table].columns.length || !row.every((v) => v === null || typeof v === 'string')) throw corrupt(`ligne ${n} invalide`);
      inTable++;
      await onLine?.({ kind: 'row', line });
    } else {
      const mark = parseLine(line, n) as { table?: string; end?: boolean; sha256?: string };
      tableDone();
      if (mark.end === true) {
        if (table !== header.tables.length - 1) throw new BackupFileError(TRUNCATED);
        if (mark.sha256 !== hash.digest('hex')) throw corrupt('somme de contrôle différente');
        ended = true;
        return;
      }
      table++;
      if (mark.table !== header.tables[table]?.name) throw corrupt(`ligne ${n} : table inattendue`);
      inTable = 0;
      await onLine?.({ kind: 'table', table: header.tables[table] });
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
    if ((e as NodeJS.ErrnoException).code?.startsWith('Z_')) throw gzipRefusal(e as Error, header !== null || rest.startsWith(`{"format":"${BACKUP_FORMAT}"`));
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

/** SHA-256 (hex) of a whole file, as `sha256sum` prints it. */
export async function fileSha256(file: string): Promise<string> {
  const hash = crypto.createHash('sha256');
  for await (const chunk of fs.createReadStream(file)) hash.update(chunk as Buffer);
  return hash.digest('hex');
}
