// The error body of every API failure (the API's error convention).
import { z } from 'zod';

export const fieldErrorSchema = z.object({ key: z.string(), error: z.string() });
export type FieldError = z.infer<typeof fieldErrorSchema>;

export const errorBodySchema = z.object({
  status: z.literal('error'),
  errors: z.array(fieldErrorSchema).optional(),
  message: z.string().optional(),
});
export type ErrorBody = z.infer<typeof errorBodySchema>;

export const successBodySchema = z.object({ status: z.literal('success'), message: z.string().optional() });

export const MESSAGES = {
  generic: 'Une erreur est survenue.',
  required: 'Veuillez renseigner les champs obligatoires',
  unauthorized: 'Accès non authorisé.',
  notLogged: 'Vous devez être connecté.',
  forbidden: 'Accès non authorisé.',
  notFound: 'Ressource introuvable.',
  tooMany: 'Trop de tentatives. Veuillez réessayer dans quelques minutes.',
  crossOrigin: 'Requête refusée : origine non autorisée.',
} as const;

/** Turns zod issues into {key, error} items; array paths are joined without a dot before the index (values0.observations). */
export function issuesToFieldErrors(issues: readonly z.core.$ZodIssue[]): FieldError[] {
  const seen = new Set<string>();
  const out: FieldError[] = [];
  for (const issue of issues) {
    const key = pathToKey(issue.path);
    if (seen.has(key)) continue;
    seen.add(key);
    out.push({ key, error: issue.message });
  }
  return out;
}

export function pathToKey(path: readonly PropertyKey[]): string {
  let key = '';
  for (const part of path) {
    if (typeof part === 'number') key += String(part);
    else key += (key ? '.' : '') + String(part);
  }
  return key;
}

/** The value an error's key names in a request's input ('values0.observations' → input.values[0].observations). */
function valueAt(input: unknown, key: string): unknown {
  let value = input;
  for (const part of key ? key.split('.') : []) {
    if (value === null || typeof value !== 'object') return undefined;
    const record = value as Record<string, unknown>;
    const indexed = /^(.*?)(\d+)$/.exec(part);
    if (part in record || !indexed) value = record[part];
    else value = (indexed[1] ? (record[indexed[1]] as Record<string, unknown> | undefined) : record)?.[indexed[2]];
  }
  return value;
}

/** Nothing given at `key` in any of the inputs (absent, null, blank text, empty list): a missing field. */
export function isMissingField(inputs: unknown[], key: string): boolean {
  return inputs.every((input) => {
    const v = valueAt(input, key);
    return v === undefined || v === null || (typeof v === 'string' && v.trim() === '') || (Array.isArray(v) && v.length === 0);
  });
}

/**
 * The top-level message of a refused input: when its first error is a missing field, the
 * message for missing fields (the spec's 'Veuillez renseigner les champs obligatoires', or the
 * screen's own); otherwise that first error itself, so that the message says what is wrong.
 */
export function refusalMessage(errors: readonly FieldError[], inputs: unknown[], missingMessage: string = MESSAGES.required): string {
  const first = errors[0];
  return !first || isMissingField(inputs, first.key) ? missingMessage : first.error;
}
