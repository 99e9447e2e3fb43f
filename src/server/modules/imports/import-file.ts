// Reading a file as people have it: CSV with ';' or ',' in UTF-8 (with or without BOM) or
// Windows-1252 (Excel's "CSV"), or an Excel workbook (.xlsx, first sheet). The result is the
// header and the lines as text cells with their line number in the file; every reason a file
// cannot be read at all is a 400 that says why. The cell readers (dates, numbers) are here too.
import { parse } from 'csv-parse/sync';
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
  lines: FileLine[];
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

function decode(buf: Buffer): string {
  if (buf[0] === 0xef && buf[1] === 0xbb && buf[2] === 0xbf) return buf.subarray(3).toString('utf8');
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(buf);
  } catch {
    // Not UTF-8: a Western single-byte encoding (Excel's "CSV" on Windows) unless told otherwise.
    const guess = (chardet.detect(buf) ?? '').toLowerCase();
    const enc = /^(windows-125\d|iso-8859-\d+|koi8-r)$/.test(guess) && guess !== 'iso-8859-1' ? guess : 'windows-1252';
    return iconv.decode(buf, enc);
  }
}

/** The separator of the header line: the more frequent of ';' and ',' (tabs too, for pasted sheets). */
function detectDelimiter(text: string): string {
  const first = text.slice(0, text.search(/\r?\n|$/));
  const count = (c: string) => first.split(c).length - 1;
  return [';', ',', '\t'].reduce((best, c) => (count(c) > count(best) ? c : best), ';');
}

function readCsv(buf: Buffer): { rows: string[][]; lineOf: number[] } {
  const text = decode(buf);
  if (text.includes('\u0000')) refuse(IMPORT_MESSAGES.binary);
  let records: { record: string[]; info: { lines: number } }[];
  try {
    records = parse(text, { delimiter: detectDelimiter(text), relax_column_count: true, info: true, skip_empty_lines: true, bom: true }) as unknown as typeof records;
  } catch (e) {
    const lines = (e as { lines?: number }).lines;
    return refuse(IMPORT_MESSAGES.csvBroken(lines ?? 1));
  }
  return { rows: records.map((r) => r.record), lineOf: records.map((r) => r.info.lines) };
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

async function readXlsx(buf: Buffer): Promise<{ rows: string[][]; lineOf: number[] }> {
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
  const rows: string[][] = [];
  const lineOf: number[] = [];
  sheet.eachRow({ includeEmpty: false }, (row, n) => {
    const cells: string[] = [];
    row.eachCell({ includeEmpty: true }, (cell, col) => (cells[col - 1] = xlsxText(cell.value)));
    rows.push(Array.from(cells, (c) => c ?? ''));
    lineOf.push(n);
  });
  return { rows, lineOf };
}

/** Reads the file and maps its header on the kind's columns; the columns it lacks are a 400. */
export async function readImportFile(buf: Buffer, columns: readonly ImportColumn[]): Promise<ParsedFile> {
  if (buf.length > IMPORT_MAX_BYTES) refuse(IMPORT_MESSAGES.tooLarge);
  if (buf.length === 0) refuse(IMPORT_MESSAGES.empty);
  const isZip = buf[0] === 0x50 && buf[1] === 0x4b && buf[2] === 0x03 && buf[3] === 0x04;
  // Other binary formats (an old .xls, a PDF, an image) have NUL bytes early on.
  if (!isZip && buf.subarray(0, 4096).includes(0)) refuse(IMPORT_MESSAGES.binary);
  const { rows, lineOf } = isZip ? await readXlsx(buf) : readCsv(buf);
  const nonEmpty = rows.map((r, i) => ({ r, i })).filter(({ r }) => r.some((c) => c.trim() !== ''));
  if (nonEmpty.length === 0) refuse(IMPORT_MESSAGES.empty);
  if (nonEmpty.length - 1 > IMPORT_MAX_LINES) refuse(IMPORT_MESSAGES.tooManyLines);

  const [head, ...data] = nonEmpty;
  const byKey = new Map(columns.map((c) => [headerKey(c.header), c]));
  const indexOf = new Map<string, number>();
  const headers: Record<string, string> = {};
  head.r.forEach((h, i) => {
    const k = headerKey(h);
    const col = byKey.get(k) ?? byKey.get(ALIASES[k] ?? '');
    if (col && !indexOf.has(col.key)) {
      indexOf.set(col.key, i);
      headers[col.key] = h.trim();
    }
  });
  const missing = columns.filter((c) => c.required && !indexOf.has(c.key)).map((c) => c.header);
  if (missing.length > 0) refuse(IMPORT_MESSAGES.missingColumns(missing));
  if (data.length === 0) refuse(IMPORT_MESSAGES.noLines);

  const lines = data.map(({ r, i }) => {
    const cells: Record<string, string> = {};
    for (const [key, idx] of indexOf) cells[key] = unguard((r[idx] ?? '').trim());
    return { ligne: lineOf[i], cells };
  });
  return { headers, lines };
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
