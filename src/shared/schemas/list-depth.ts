// How deep a list pages: at most LIST_DEPTH rows in any order. Past them a filter (or the export,
// where the list has one) is the way further: a page holding a row beyond the cap is refused with
// the list's own French message on `page`, which the screen shows too when its count passes the cap.
import type { z } from 'zod';

export const LIST_DEPTH = 10_000;

/** The list query `schema`, refusing a page whose rows go past LIST_DEPTH with `message`. */
export function withinListDepth<T extends z.ZodType<{ page: number; rowsPerPage: number }>>(schema: T, message: string): T {
  return schema.superRefine((q, ctx) => {
    if ((q.page + 1) * q.rowsPerPage > LIST_DEPTH) ctx.addIssue({ code: 'custom', path: ['page'], message });
  }) as T;
}
