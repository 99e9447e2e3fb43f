// The list query of every admin table (the API's list conventions): search,
// 0-based page, rowsPerPage, sort[name|direction], filter[<field>]. Unknown sort names
// and unknown filters are rejected, not ignored.
import { z } from 'zod';
import { COMMON_MESSAGES, decimalIntSchema, plainString } from './common.js';

export const PAGE_SIZES = [5, 10, 20, 50, 100] as const;
/** Highest page accepted: with 100 rows a page, a million rows deep, far past any real list. */
export const PAGE_MAX = 10_000;

export function listQuerySchema<S extends string, F extends z.ZodRawShape>(opts: {
  sortFields: readonly [S, ...S[]];
  defaultSort: S;
  filters: F;
  defaultRowsPerPage?: (typeof PAGE_SIZES)[number];
}) {
  return z
    .strictObject({
      search: plainString({ error: 'Recherche invalide' }).max(200, { error: '200 caractères maximum' }).optional().default(''),
      page: decimalIntSchema({ min: 0, max: PAGE_MAX, message: COMMON_MESSAGES.pageInvalid }).default(0),
      rowsPerPage: decimalIntSchema({ min: 1, max: 100, message: 'Taille de page invalide (5, 10, 20, 50 ou 100)' })
        .refine((n) => (PAGE_SIZES as readonly number[]).includes(n), { message: 'Taille de page invalide (5, 10, 20, 50 ou 100)' })
        .default(opts.defaultRowsPerPage ?? 20),
      sort: z
        .object({
          name: z.enum(opts.sortFields, { message: 'Tri inconnu' }).default(opts.defaultSort),
          direction: z.enum(['asc', 'desc'], { message: 'Sens de tri invalide' }).default('asc'),
        })
        .default({ name: opts.defaultSort, direction: 'asc' } as never),
      filter: z.strictObject(opts.filters, { error: 'Filtre inconnu' }).partial().default({} as never),
    }, { error: 'Paramètre inconnu' });
}

/** Serialises a list query in bracket style, as the server parses it. */
export function toQueryString(query: {
  search?: string;
  page?: number;
  rowsPerPage?: number;
  sort?: { name: string; direction: 'asc' | 'desc' };
  filter?: Record<string, string | number | boolean | (string | number)[] | null | undefined>;
  [key: string]: unknown;
}): string {
  const parts: string[] = [];
  const add = (k: string, v: string | number | boolean) => parts.push(`${encodeURIComponent(k)}=${encodeURIComponent(String(v))}`);
  for (const [k, v] of Object.entries(query)) {
    if (v === undefined || v === null || v === '') continue;
    if (k === 'sort' && typeof v === 'object') {
      const s = v as { name: string; direction: string };
      add('sort[name]', s.name);
      add('sort[direction]', s.direction);
    } else if (k === 'filter' && typeof v === 'object') {
      for (const [fk, fv] of Object.entries(v as Record<string, unknown>)) {
        if (fv === undefined || fv === null || fv === '') continue;
        if (Array.isArray(fv)) fv.forEach((item) => add(`filter[${fk}][]`, item as string));
        else add(`filter[${fk}]`, fv as string);
      }
    } else if (typeof v !== 'object') add(k, v as string);
  }
  return parts.join('&');
}
