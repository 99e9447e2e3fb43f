// Bounds every API input shares (conventions.md "Robustness rules"): ids and integers are
// positive int32 (PostgreSQL's integer), texts refuse NUL and control characters other than
// tab and newline, path and query ids are strict decimal ('0x10', '1e3', ' 7' are refused).
// Every schema builds its ids, integers and texts from these, so a bound is written once.
// The plain values live in bounds.ts, which the field screen loads without zod.
import { z } from 'zod';
import { COMMON_MESSAGES, INT32_MAX, hasControlChars, parseDecimal } from './bounds.js';

export { COMMON_MESSAGES, INT32_MAX, hasControlChars, isInt32Id, parseDecimal } from './bounds.js';

/** A JSON id: a whole number from 1 to INT32_MAX. */
export function idSchema(message: string = COMMON_MESSAGES.idInvalid) {
  return z.number({ error: message }).int({ error: message }).min(1, { error: message }).max(INT32_MAX, { error: message });
}

/** A JSON integer within [min, max] (both clamped to the int32 range; default: any int32). */
export function intSchema(opts: { min?: number; max?: number; message?: string } = {}) {
  const message = opts.message ?? COMMON_MESSAGES.integerInvalid;
  return z
    .number({ error: message })
    .int({ error: message })
    .min(Math.max(opts.min ?? -INT32_MAX, -INT32_MAX - 1), { error: message })
    .max(Math.min(opts.max ?? INT32_MAX, INT32_MAX), { error: message });
}

/**
 * An integer sent as text (path parameter, query string): strict decimal digits only, then
 * within [min, max] (default: a positive id). A number already parsed (a JSON body) is
 * accepted too, when whole and within bounds.
 */
export function decimalIntSchema(opts: { min?: number; max?: number; message?: string } = {}) {
  const message = opts.message ?? COMMON_MESSAGES.idInvalid;
  const min = opts.min ?? 1;
  const max = Math.min(opts.max ?? INT32_MAX, INT32_MAX);
  return z
    .union([z.string(), z.number()], { error: message })
    .transform((v, ctx) => {
      const n = typeof v === 'number' ? v : parseDecimal(v);
      if (!Number.isInteger(n) || n < min || n > max) {
        ctx.addIssue({ code: 'custom', message });
        return z.NEVER;
      }
      return n;
    });
}

/** Path parameters `{ id }` of every `/…/{id}` route. */
export const idParamsSchema = z.object({ id: decimalIntSchema() });

/** Path parameters named otherwise (`{ userId }`...): `idParamsOf('userId')`. */
export function idParamsOf<K extends string>(name: K) {
  return z.object({ [name]: decimalIntSchema() } as { [P in K]: ReturnType<typeof decimalIntSchema> });
}

/** A whole-number query filter ('filter[site]=12'): strict decimal, within [min, max] (default: an id). */
export function decimalFilterSchema(opts: { min?: number; max?: number } = {}) {
  return decimalIntSchema({ ...opts, message: COMMON_MESSAGES.filterInvalid });
}

/**
 * Any string input: refuses NUL and control characters (tab and newlines aside) with a
 * French field error. Chain .trim(), .min(), .max() on it as on z.string().
 */
export function plainString(params?: Parameters<typeof z.string>[0]) {
  return z.string(params).refine((s) => !hasControlChars(s), { error: COMMON_MESSAGES.controlChars });
}

/**
 * A text field: refuses NUL and control characters (tab and newlines aside) with a French
 * field error, and texts longer than max.
 */
export function textSchema(max: number, messages: { type?: string; max?: string } = {}) {
  return z
    .string({ error: messages.type ?? 'Texte invalide' })
    .max(max, { error: messages.max ?? `${max} caractères maximum` })
    .refine((s) => !hasControlChars(s), { error: COMMON_MESSAGES.controlChars });
}
