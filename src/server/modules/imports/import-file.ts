// Reading a file as people have it: CSV with ';' or ',' in UTF-8 (with or without BOM) or
// Windows-1252 (Excel's "CSV"), or an Excel workbook (.xlsx, first sheet). The result is the
// header and the lines as text cells with their line number in the file; every reason a file
// cannot be read at all is a 400 that says why. The cell readers (dates, numbers) are here too.
import { isUtf8 } from 'node:buffer';
import { Readable } from 'node:stream';
import { CsvError, parse } from 'csv-parse';
import chardet from 'chardet';
import iconv from 'iconv-lite';
import type { CellValue } from 'exceljs';
import { ValidationError } from '../../errors.js';
import { IMPORT_MAX_BYTES, IMPORT_MAX_LINES, IMPORT_MESSAGES, type ImportColumn } from '../../../shared/schemas/imports.js';

export interface FileLine {
  /** Line number in the file (the header is line 1), as a spreadsheet shows it. */
  ligne: number;
  cells: Record<string, string>;
}

export interface ParsedFile {
  /** Header names as written, by column key. */
  headers: Record<string, string>;
  /** The lines, unless a reader took them one by one (ReadOptions.onLine). */
  lines: FileLine[];
  /** How many lines the file has (the header and blank lines aside). */
  count: number;
}

export interface ReadOptions {
  /** Where the read lets the server answer other requests (see pacer()). */
  pause?: () => Promise<void> | undefined;
  /** Called once the header is mapped, before the first line. */
  onHeader?: (headers: Record<string, string>) => void;
  /**
   * Takes each line as it is read, which is then not kept: a file of 100,000 lines is checked
   * without holding them all. `estimate`: about how many lines the file has (for a progress bar).
   */
  onLine?: (line: FileLine, estimate: number) => Promise<void> | void;
}

const refuse = (message: string): never => {
  throw new ValidationError([{ key: 'fichier', error: message }], message);
};

/** 'N° Cellule' -> 'ncellule', 'E-mail' -> 'email', 'Référent(s)' -> 'referents': headers compared without case, accents nor signs. */
export function headerKey(h: string): string {
  return h
    .normalize('NFD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^a-z0-9]/g, '');
}

/** Other names people give the same columns. */
const ALIASES: Record<string, string> = { mail: 'email', adressemail: 'email', courriel: 'email', tel: 'telephone', codepostal: 'cp', referent: 'referents', numerocellule: 'ncellule', ncell: 'ncellule' };

/**
 * The file as UTF-8 bytes: as it is when it is UTF-8 (with or without BOM: no copy of it as
 * text is made), else decoded from a Western single-byte encoding (Excel's "CSV" on Windows)
 * unless told otherwise, and encoded again.
 */
function utf8Bytes(buf: Buffer): Buffer {
  if (buf[0] === 0xef && buf[1] === 0xbb && buf[2] === 0xbf) return buf.subarray(3);
  if (isUtf8(buf)) return buf;
  // The guess reads the first 64 KB: a whole 10 MB file kept the server busy for nothing.
  const guess = (chardet.detect(buf.subarray(0, 1 << 16)) ?? '').toLowerCase();
  const enc = /^(windows-125\d|iso-8859-\d+|koi8-r)$/.test(guess) && guess !== 'iso-8859-1' ? guess : 'windows-1252';
  return Buffer.from(iconv.decode(buf, enc), 'utf8');
}

/** The separator of the header line: the more frequent of ';' and ',' (tabs too, for pasted sheets). */
function detectDelimiter(text: string): string {
  const first = text.slice(0, text.search(/\r?\n|$/));
  const count = (c: string) => first.split(c).length - 1;
  return [';', ',', '\t'].reduce((best, c) => (count(c) > count(best) ? c : best), ';');
}

/**
 * Lets the server answer others during a long read or check: after `ms` of work, the next call
 * waits for the event loop's next turn.
 */
export function pacer(ms = 10): () => Promise<void> | undefined {
  let since = performance.now();
  return () => {
    if (performance.now() - since < ms) return undefined;
    return new Promise<void>((resolve) =>
      setImmediate(() => {
        since = performance.now();
        resolve();
      }),
    );
  };
}

/**
 * The rows of a file become lines as they are read: the first row that is not blank is the
 * header, mapped on the kind's columns (a missing one is a 400 at once), the others keep their
 * mapped cells only. A file past the line limit is refused as soon as it passes it.
 */
class LineSink {
  readonly headers: Record<string, string> = {};
  readonly lines: FileLine[] = [];
  count = 0;
  /** About how many lines the file has, set by the reader. */
  estimate = 0;
  private indexOf: [string, number][] | null = null;
  constructor(
    private readonly columns: readonly ImportColumn[],
    private readonly opts: ReadOptions,
  ) {}

  add(row: string[], ligne: number): Promise<void> | void {
    if (!row.some((c) => c.trim() !== '')) return;
    if (this.indexOf === null) {
      this.indexOf = this.mapHeader(row);
      this.opts.onHeader?.(this.headers);
      return;
    }
    if (this.count === IMPORT_MAX_LINES) refuse(IMPORT_MESSAGES.tooManyLines);
    this.count++;
    const cells: Record<string, string> = {};
    for (const [key, idx] of this.indexOf) cells[key] = unguard((row[idx] ?? '').trim());
    if (this.opts.onLine) return this.opts.onLine({ ligne, cells }, Math.max(this.estimate, this.count));
    this.lines.push({ ligne, cells });
  }

  private mapHeader(row: string[]): [string, number][] {
    const byKey = new Map(this.columns.map((c) => [headerKey(c.header), c]));
    const indexOf = new Map<string, number>();
    row.forEach((h, i) => {
      const k = headerKey(h);
      const col = byKey.get(k) ?? byKey.get(ALIASES[k] ?? '');
      if (col && !indexOf.has(col.key)) {
        indexOf.set(col.key, i);
        this.headers[col.key] = h.trim();
      }
    });
    const missing = this.columns.filter((c) => c.required && !indexOf.has(c.key)).map((c) => c.header);
    if (missing.length > 0) refuse(IMPORT_MESSAGES.missingColumns(missing));
    return [...indexOf];
  }

  done(): ParsedFile {
    if (this.indexOf === null) return refuse(IMPORT_MESSAGES.empty);
    if (this.count === 0) return refuse(IMPORT_MESSAGES.noLines);
    return { headers: this.headers, lines: this.lines, count: this.count };
  }
}

/**
 * The bytes in pieces of 4 KB (views, not copies), for the streaming parser: a record may span
 * two. Small pieces keep few parsed records waiting at once, which the garbage collector then
 * finds dead while they are still young.
 */
function* pieces(bytes: Buffer) {
  for (let i = 0; i < bytes.length; i += 1 << 12) yield bytes.subarray(i, i + (1 << 12));
}

function countNewlines(bytes: Buffer): number {
  let n = 0;
  for (let i = bytes.indexOf(10); i !== -1; i = bytes.indexOf(10, i + 1)) n++;
  return n;
}

async function readCsv(buf: Buffer, sink: LineSink, pause: () => Promise<void> | undefined) {
  const bytes = utf8Bytes(buf);
  if (bytes.includes(0)) refuse(IMPORT_MESSAGES.binary);
  sink.estimate = countNewlines(bytes);
  // Streamed, one record at a time: the whole file's rows are never held at once.
  const head = bytes.subarray(0, 1 << 16).toString('utf8');
  const parser = Readable.from(pieces(bytes)).pipe(parse({ delimiter: detectDelimiter(head), relax_column_count: true, info: true, skip_empty_lines: true, bom: true }));
  try {
    for await (const { record, info } of parser as AsyncIterable<{ record: string[]; info: { lines: number } }>) {
      await sink.add(record, info.lines);
      await pause();
    }
  } catch (e) {
    // The parser's own errors say the file is broken; any other (a refusal, the checks' reader) goes on.
    if (!(e instanceof CsvError)) throw e;
    refuse(IMPORT_MESSAGES.csvBroken((e as { lines?: number }).lines ?? 1));
  }
}

/** The text of a workbook cell; a formula is kept as its text, never as its computed result. */
function xlsxText(v: CellValue): string {
  if (v === null || v === undefined) return '';
  if (v instanceof Date) {
    // Excel dates have no zone: the clock reading is stored as UTC.
    const p = (n: number) => String(n).padStart(2, '0');
    const day = `${p(v.getUTCDate())}/${p(v.getUTCMonth() + 1)}/${v.getUTCFullYear()}`;
    return v.getUTCHours() || v.getUTCMinutes() ? `${day} ${p(v.getUTCHours())}:${p(v.getUTCMinutes())}` : day;
  }
  if (typeof v === 'object') {
    if ('formula' in v || 'sharedFormula' in v) return `=${(v as { formula?: string }).formula ?? (v as { sharedFormula?: string }).sharedFormula ?? ''}`;
    if ('richText' in v) return v.richText.map((t) => t.text).join('');
    if ('text' in v) return String(v.text);
    if ('error' in v) return String(v.error);
    return '';
  }
  return String(v);
}

async function readXlsx(buf: Buffer, sink: LineSink, pause: () => Promise<void> | undefined) {
  // exceljs (about 26 MB once loaded) comes with the first workbook: a server that only ever
  // reads CSV files, or none, never holds it.
  const { default: ExcelJS } = await import('exceljs');
  const wb = new ExcelJS.Workbook();
  try {
    await wb.xlsx.load(buf as unknown as ArrayBuffer);
  } catch {
    return refuse(IMPORT_MESSAGES.xlsxBroken);
  }
  const sheet = wb.worksheets[0];
  if (!sheet) return refuse(IMPORT_MESSAGES.noSheet);
  sink.estimate = sheet.actualRowCount - 1;
  for (let n = 1; n <= sheet.rowCount; n++) {
    const row = sheet.findRow(n);
    if (!row) continue;
    const cells: string[] = [];
    row.eachCell({ includeEmpty: true }, (cell, col) => (cells[col - 1] = xlsxText(cell.value)));
    await sink.add(Array.from(cells, (c) => c ?? ''), n);
    await pause();
  }
}

/** Reads the file and maps its header on the kind's columns; the columns it lacks are a 400. */
export async function readImportFile(buf: Buffer, columns: readonly ImportColumn[], opts: ReadOptions = {}): Promise<ParsedFile> {
  const pause = opts.pause ?? pacer();
  if (buf.length > IMPORT_MAX_BYTES) refuse(IMPORT_MESSAGES.tooLarge);
  if (buf.length === 0) refuse(IMPORT_MESSAGES.empty);
  const isZip = buf[0] === 0x50 && buf[1] === 0x4b && buf[2] === 0x03 && buf[3] === 0x04;
  // Other binary formats (an old .xls, a PDF, an image) have NUL bytes early on.
  if (!isZip && buf.subarray(0, 4096).includes(0)) refuse(IMPORT_MESSAGES.binary);
  const sink = new LineSink(columns, opts);
  if (isZip) await readXlsx(buf, sink, pause);
  else await readCsv(buf, sink, pause);
  return sink.done();
}

/** Our exports prefix a formula-looking text with "'" (csv.ts): the text itself comes back. */
function unguard(s: string): string {
  return /^'[=+\-@]/.test(s) ? s.slice(1) : s;
}

// ---- Cells ----

const HOUR_MS = 3600_000;
const offsets = new Map<number, number>();
const PARIS = new Intl.DateTimeFormat('en-GB', { timeZone: 'Europe/Paris', year: 'numeric', month: '2-digit', day: '2-digit', hour: '2-digit', minute: '2-digit', hourCycle: 'h23' });

/** Paris's offset from UTC at a UTC instant, cached by hour (DST switches fall on whole hours). */
function parisOffset(t: number): number {
  const hour = Math.floor(t / HOUR_MS);
  let o = offsets.get(hour);
  if (o === undefined) {
    const p = Object.fromEntries(PARIS.formatToParts(new Date(hour * HOUR_MS)).map((x) => [x.type, x.value]));
    o = Date.UTC(+p.year, +p.month - 1, +p.day, +p.hour, +p.minute) - hour * HOUR_MS;
    if (offsets.size > 100_000) offsets.clear();
    offsets.set(hour, o);
  }
  return o;
}

/** A wall-clock time in Paris as an instant (the first one when the clock goes back). */
function fromParis(y: number, mo: number, d: number, h: number, mi: number): Date | null {
  const wall = Date.UTC(y, mo - 1, d, h, mi);
  const check = new Date(wall);
  if (check.getUTCFullYear() !== y || check.getUTCMonth() !== mo - 1 || check.getUTCDate() !== d || h > 23 || mi > 59) return null;
  const t = wall - parisOffset(wall - parisOffset(wall));
  return new Date(t);
}

const FR_DATE = /^(\d{1,2})\/(\d{1,2})\/(\d{4})(?:\s+(\d{1,2})[:h](\d{2})(?::\d{2})?)?$/;
const ISO_DAY = /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::\d{2}(?:\.\d+)?)?)?$/;
const ISO_ZONED = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:Z|[+-]\d{2}:?\d{2})$/;

/** dd/MM/yyyy, dd/MM/yyyy HH:mm, or ISO (with a zone, or else Paris time); null when unreadable. */
export function parseDate(s: string): { date: Date; hasTime: boolean } | null {
  let m = FR_DATE.exec(s);
  if (m) {
    const date = fromParis(+m[3], +m[2], +m[1], m[4] ? +m[4] : 0, m[5] ? +m[5] : 0);
    return date && { date, hasTime: m[4] !== undefined };
  }
  if (ISO_ZONED.test(s)) {
    const t = Date.parse(s);
    return Number.isNaN(t) ? null : { date: new Date(t), hasTime: true };
  }
  m = ISO_DAY.exec(s);
  if (m) {
    const date = fromParis(+m[1], +m[2], +m[3], m[4] ? +m[4] : 0, m[5] ? +m[5] : 0);
    return date && { date, hasTime: m[4] !== undefined };
  }
  return null;
}

/** A calendar day as 'YYYY-MM-DD' (the sites' dates), from any accepted date text. */
export function parseDay(s: string): string | null {
  const m = FR_DATE.exec(s) ?? null;
  if (m) {
    const d = new Date(Date.UTC(+m[3], +m[2] - 1, +m[1]));
    return d.getUTCDate() === +m[1] && d.getUTCMonth() === +m[2] - 1 ? d.toISOString().slice(0, 10) : null;
  }
  const p = parseDate(s);
  if (!p) return null;
  const local = new Date(p.date.getTime() + parisOffset(p.date.getTime()));
  return local.toISOString().slice(0, 10);
}

/** '12,5', '12.5', '1 200' or '-3' as a number; null when not a number. */
export function parseNumber(s: string): number | null {
  const t = s.replace(/[\s\u00a0\u202f]/g, '').replace(',', '.');
  return /^-?\d+(\.\d+)?$/.test(t) ? Number(t) : null;
}

/** Compares labels the way people type them: no case, no accents, spaces collapsed. */
export function labelKey(s: string): string {
  return s
    .normalize('NFD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[’`]/g, "'")
    .replace(/\s+/g, ' ')
    .trim();
}
