// Account and session payloads; the signup and password forms use these same schemas.
import { z } from 'zod';
import { plainString } from './common.js';
import { TYPE_USER } from '../domain.js';

export const loginSchema = z.object({
  username: plainString().trim().min(1, { message: 'Identifiant ou adresse mail obligatoire' }).max(254),
  password: plainString().min(1, { message: 'Mot de passe obligatoire' }).max(200),
});
export type LoginInput = z.infer<typeof loginSchema>;

export const currentUserSchema = z.object({
  id: z.number(),
  username: z.string(),
  nom: z.string(),
  prenom: z.string().nullable(),
  roles: z.array(z.string()),
});
export type CurrentUser = z.infer<typeof currentUserSchema>;

export const loggedSchema = z.object({ logged: z.boolean(), user: currentUserSchema.nullable() });
export type Logged = z.infer<typeof loggedSchema>;

export const loginResponseSchema = z.object({ status: z.literal('success'), user: currentUserSchema });

export const LOGIN_MESSAGES = {
  invalid: 'Identifiant ou mot de passe incorrect.',
  emailNotValidated: 'Votre adresse mail n’est pas encore validée : cliquez sur le lien du mail de validation.',
  inactive: 'Votre compte n’est pas encore activé par un administrateur.',
} as const;

export const PASSWORD_MIN = 8;
const REQUIRED = 'Champ obligatoire';
const TOO_LONG_100 = '100 caractères au plus';
const UNKNOWN_TYPE = 'Type d’utilisateur inconnu';

const passwordPair = {
  password: plainString({ message: REQUIRED })
    .min(1, { message: REQUIRED })
    .min(PASSWORD_MIN, { message: `Le mot de passe doit contenir au moins ${PASSWORD_MIN} caractères` })
    .max(200, { message: 'Mot de passe trop long (200 caractères au plus)' }),
  confirmPassword: plainString({ message: REQUIRED }).min(1, { message: REQUIRED }).max(200, { message: 'Mot de passe trop long (200 caractères au plus)' }),
};

function passwordsMatch(v: { password: string; confirmPassword: string }, ctx: z.RefinementCtx) {
  if (v.password && v.confirmPassword && v.password !== v.confirmPassword) {
    ctx.addIssue({ code: 'custom', path: ['confirmPassword'], message: 'Les mots de passe ne correspondent pas' });
  }
}

/** A Select gives '2', an API client 2; a cleared field (null, '') is missing, not type 0. */
const typeUserField = z.preprocess(
  (v) => (v === null || v === '' ? undefined : typeof v === 'string' && /^\s*\d+\s*$/.test(v) ? Number(v) : v),
  z
    .number({ error: (issue) => (issue.input === undefined ? REQUIRED : UNKNOWN_TYPE) })
    .refine((t) => [1, 2, 3].includes(t), { message: UNKNOWN_TYPE }),
);

/** Optional text: absent, null and '' all mean "not given" and come out as ''. */
const optionalText = plainString({ message: 'Texte attendu' })
  .trim()
  .max(100, { message: TOO_LONG_100 })
  .nullish()
  .transform((v) => v ?? '');

export const signupSchema = z
  .object({
    type: typeUserField,
    organisme: optionalText,
    nom: plainString({ message: REQUIRED }).trim().min(1, { message: REQUIRED }).max(100, { message: TOO_LONG_100 }),
    prenom: optionalText,
    tel: plainString({ message: REQUIRED })
      .trim()
      .min(1, { message: REQUIRED })
      .regex(/^\d{1,10}$/, { message: 'Le téléphone ne contient que des chiffres (10 au plus)' }),
    email: plainString({ message: REQUIRED })
      .trim()
      .min(1, { message: REQUIRED })
      .max(254, { message: 'Adresse mail trop longue (254 caractères au plus)' })
      .pipe(z.email({ message: 'Adresse mail invalide' })),
    ...passwordPair,
  })
  .superRefine((v, ctx) => {
    if (v.type === TYPE_USER.organisme && !v.organisme) ctx.addIssue({ code: 'custom', path: ['organisme'], message: REQUIRED });
    if (v.type !== TYPE_USER.organisme && !v.prenom) ctx.addIssue({ code: 'custom', path: ['prenom'], message: REQUIRED });
    passwordsMatch(v, ctx);
  });
export type SignupInput = z.input<typeof signupSchema>;

/** Any string: the answer is the same whatever the address, so there is nothing to reject. */
export const passwordRequestSchema = z.object({
  mail: plainString({ message: REQUIRED }).trim().max(254, { message: 'Adresse mail trop longue (254 caractères au plus)' }),
});

export const passwordUpdateSchema = z.object(passwordPair).superRefine(passwordsMatch);
export type PasswordUpdateInput = z.infer<typeof passwordUpdateSchema>;

export const SIGNUP_MESSAGES = {
} as const;

/** Upper-cases a last name while typing (the forms' input rules). */
export function formatNom(v: string): string {
  return v.toUpperCase();
}

/** Capitalises each word of a first name while typing (Jean-pierre -> Jean-Pierre). */
export function formatPrenom(v: string): string {
  return v.toLowerCase().replace(/(^|[\s-])(\p{L})/gu, (_m, sep: string, ch: string) => sep + ch.toUpperCase());
}

/** Phone input: longer input is truncated to 10 characters, otherwise the first non-digit is removed. */
export function formatTel(v: string): string {
  if (v.length > 10) return v.slice(0, 10);
  return v.replace(/\D/, '');
}
