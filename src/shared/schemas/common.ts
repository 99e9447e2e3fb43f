// Bounds every API input shares (conventions.md "Robustness rules"): ids and integers are
// positive int32 (PostgreSQL's integer), texts refuse NUL and control characters other than
// tab and newline, path and query ids are strict decimal ('0x10', '1e3', ' 7' are refused).
// Every schema builds its ids, integers and texts from these, so a bound is written once.
import { z } from 'zod';

/** Largest value of a PostgreSQL integer column. */
export const INT32_MAX = 2_147_483_647;

export const COMMON_MESSAGES = {
  idInvalid: 'Identifiant invalide',
  integerInvalid: 'Nombre entier invalide',
  controlChars: 'Caractères non autorisés',
} as const;

/** NUL and the C0 controls except tab (\t), line feed (\n) and carriage return (\r), and DEL. */
// eslint-disable-next-line no-control-regex
const CONTROL_CHARS = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\u007F]/;

export function hasControlChars(s: string): boolean {
  return CONTROL_CHARS.test(s);
}

/** A JSON id: a whole number from 1 to INT32_MAX. */
export function idSchema(message: string = COMMON_MESSAGES.idInvalid) {
  return z.number({ error: message }).int({ error: message }).min(1, { error: message }).max(INT32_MAX, { error: message });
}

/** A JSON integer within [min, max] (max at most INT32_MAX). */
export function intSchema(opts: { min?: number; max?: number; message?: string } = {}) {
  const message = opts.message ?? COMMON_MESSAGES.integerInvalid;
  return z
    .number({ error: message })
    .int({ error: message })
    .min(opts.min ?? -INT32_MAX, { error: message })
    .max(Math.min(opts.max ?? INT32_MAX, INT32_MAX), { error: message });
}

const DECIMAL = /^(0|[1-9][0-9]{0,9})$/;

/**
 * An integer sent as text (path parameter, query string): strict decimal digits only, then
 * within [min, max]. A number already parsed (a JSON body) is accepted too.
 */
export function decimalIntSchema(opts: { min?: number; max?: number; message?: string } = {}) {
  const message = opts.message ?? COMMON_MESSAGES.idInvalid;
  const min = opts.min ?? 1;
  const max = Math.min(opts.max ?? INT32_MAX, INT32_MAX);
  return z
    .union([z.string(), z.number()], { error: message })
    .transform((v, ctx) => {
      const n = typeof v === 'number' ? v : DECIMAL.test(v) ? Number(v) : NaN;
      if (!Number.isInteger(n) || n < min || n > max) {
        ctx.addIssue({ code: 'custom', message });
        return z.NEVER;
      }
      return n;
    });
}

/** Path parameters `{ id }` of every `/…/{id}` route. */
export const idParamsSchema = z.object({ id: decimalIntSchema() });

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
