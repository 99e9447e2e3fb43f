// The bounds every input shares, as plain values and functions with no zod: the field
// screen's checks (intervention-rules.ts) load this file without pulling zod into its bundle,
// and common.ts builds the zod schemas of every other input from the same values.

/** Largest value of a PostgreSQL integer column. */
export const INT32_MAX = 2_147_483_647;

export const COMMON_MESSAGES = {
  idInvalid: 'Identifiant invalide',
  integerInvalid: 'Nombre entier invalide',
  controlChars: 'Caractères non autorisés',
  pageInvalid: 'Page invalide',
  filterInvalid: 'Filtre invalide',
} as const;

/** NUL and the C0 controls except tab (\t), line feed (\n) and carriage return (\r), and DEL. */
// eslint-disable-next-line no-control-regex
const CONTROL_CHARS = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\u007F]/;

export function hasControlChars(s: string): boolean {
  return CONTROL_CHARS.test(s);
}

/** A JSON id: a whole number from 1 to INT32_MAX. */
export function isInt32Id(v: unknown): v is number {
  return typeof v === 'number' && Number.isInteger(v) && v >= 1 && v <= INT32_MAX;
}

const DECIMAL = /^(0|[1-9][0-9]{0,9})$/;

/** Strict decimal text ('12'; not '012', '0x10', '1e3', ' 7', '+1') as a number, or NaN. */
export function parseDecimal(s: string): number {
  return DECIMAL.test(s) ? Number(s) : NaN;
}
