// What the three kinds of import share: the report of a file (its errors and warnings with line
// and column, its counts) and small helpers to read and compare cells.
import type { CurrentUser } from '../../plugins/auth.js';
import { hasControlChars } from '../../../shared/schemas/bounds.js';
import {
  IMPORT_COLUMNS,
  IMPORT_MESSAGES as M,
  type ImportKind,
  type ImportLineError,
  type ImportProgress,
} from '../../../shared/schemas/imports.js';
import { labelKey, type FileLine, type ParsedFile } from './import-file.js';


export const DAY_MS = 24 * 3600 * 1000;
/** Rows per INSERT (one array parameter per column): a statement holds a second or so of the database at most, and its arrays stay small. */
export const INSERT_BATCH = 1000;
export const tick = () => new Promise<void>((resolve) => setImmediate(resolve));
export const EMAIL_RE = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

export interface ImportOptions {
  mode: 'essai' | 'import';
  user: CurrentUser;
  invite?: boolean;
  onProgress?: (p: ImportProgress) => void;
}

/** Errors and warnings of a file, each with its line and the column as the file names it. */
export class Report {
  erreurs: ImportLineError[] = [];
  avertissements: ImportLineError[] = [];
  crees = 0;
  modifies = 0;
  inchanges = 0;
  /** The file's header names by column key, once its header is read. */
  headers: Record<string, string> = {};
  constructor(private readonly kind: ImportKind) {}
  colonne(key: string) {
    return this.headers[key] ?? IMPORT_COLUMNS[this.kind].find((c) => c.key === key)?.header ?? key;
  }
  err(ligne: number, key: string, message: string) {
    this.erreurs.push({ ligne, colonne: this.colonne(key), message });
  }
  warn(ligne: number, key: string, message: string) {
    this.avertissements.push({ ligne, colonne: this.colonne(key), message });
  }
  count(state: 'new' | 'changed' | 'same') {
    if (state === 'new') this.crees++;
    else if (state === 'changed') this.modifies++;
    else this.inchanges++;
  }
  /** A text cell: null when empty; an error when too long, required and missing, or with control characters. */
  text(line: FileLine, key: string, max: number, required = false): string | null {
    const v = line.cells[key] ?? '';
    if (v === '') {
      if (required) this.err(line.ligne, key, M.required);
      return null;
    }
    if (hasControlChars(v)) this.err(line.ligne, key, M.controlChars);
    else if (v.length > max) this.err(line.ligne, key, M.tooLong(max));
    return v;
  }
}

export const has = (file: ParsedFile, key: string) => key in file.headers;
export const splitList = (s: string) => s.split(/[\s,;|]+/).filter(Boolean);
export const same = (a: unknown, b: unknown) => (a instanceof Date || b instanceof Date ? (a as Date | null)?.getTime?.() === (b as Date | null)?.getTime?.() : (a ?? null) === (b ?? null));
export const composteurKey = (s: string) => labelKey(s).replace(/\s+/g, '');

/** A label -> id map that forgets labels shared by several ids. */
export function uniqueMap<T>(items: T[], keyOf: (t: T) => string[], idOf: (t: T) => number): Map<string, number> {
  const out = new Map<string, number | null>();
  for (const t of items)
    for (const k of keyOf(t)) {
      const prev = out.get(k);
      out.set(k, prev === undefined || prev === idOf(t) ? idOf(t) : null);
    }
  return new Map([...out].filter((e): e is [string, number] => e[1] !== null));
}

// ---------------------------------------------------------------------------------------------
// Sites
