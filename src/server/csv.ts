// CSV exports the way French spreadsheets open them (reference-data.md "API conventions"):
// UTF-8 with a byte-order mark (Excel otherwise guesses Windows-1252), `;` separator, CRLF
// lines, dates dd/MM/yyyy in Europe/Paris, and text cells that a spreadsheet would run as a
// formula (= + - @ tab CR) prefixed with `'`. Rows arrive in batches from an async source
// and leave as they come, so an export of any size holds one batch in memory.
import { Readable } from 'node:stream';
import type { FastifyReply } from 'fastify';
import { formatParisDate, formatParisDateTime } from '../shared/dates.js';

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
  if (value instanceof Date) text = Number.isNaN(value.getTime()) ? '' : (format === 'date' ? formatParisDate(value) : formatParisDateTime(value));
  else if (typeof value === 'boolean') text = value ? 'Oui' : 'Non';
  // A number is data, never a formula: -5 stays a negative number, with a French decimal comma.
  else if (typeof value === 'number') text = Number.isFinite(value) ? String(value).replace('.', ',') : '';
  else text = FORMULA_START.test(value) ? `'${value}` : value;
  return NEEDS_QUOTES.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

export function csvLine(cells: string[]): string {
  return cells.join(CSV_SEPARATOR) + EOL;
}

/** The whole file as chunks: BOM and header line first, then one chunk per batch of rows. */
export async function* csvChunks<T>(columns: readonly CsvColumn<T>[], batches: AsyncIterable<readonly T[]>): AsyncGenerator<string> {
  yield CSV_BOM + csvLine(columns.map((c) => formatCsvCell(c.header)));
  for await (const batch of batches) {
    if (batch.length === 0) continue;
    let chunk = '';
    for (const row of batch) chunk += csvLine(columns.map((c) => formatCsvCell(c.value(row), c.format)));
    yield chunk;
  }
}

/** Sends the CSV as a download named `filename`; the body is pulled batch by batch as the client reads. */
export function sendCsv<T>(reply: FastifyReply, filename: string, columns: readonly CsvColumn<T>[], batches: AsyncIterable<readonly T[]>) {
  const stream = Readable.from(csvChunks(columns, batches), { objectMode: false });
  return reply
    .header('content-type', 'text/csv; charset=utf-8')
    .header('content-disposition', `attachment; filename="${filename}"`)
    .header('cache-control', 'no-store')
    .send(stream);
}
