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
