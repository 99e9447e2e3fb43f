// External users administration (the 'Utilisateurs' screen and its API routes).
// The API validates with these schemas and the 'Type d'utilisateur' and 'Site' forms reuse them.
import { z } from 'zod';
import { decimalIntSchema, idParamsOf, idParamsSchema, isInt32Id, parseDecimal, plainString } from './common.js';
import { listQuerySchema } from './list.js';
import { withinListDepth } from './list-depth.js';

export const USER_MESSAGES = {
  notFound: 'Utilisateur introuvable.',
  deleted: 'Utilisateur supprimé',
  deleteActive: 'Impossible de supprimer un compte actif',
  deleteLinked: 'Impossible de supprimer cet utilisateur : des interventions ou des demandes lui sont liées.',
  alreadyActive: 'Ce compte est déjà actif.',
  emailNotValidated: "L'adresse mail de cet utilisateur n'est pas encore validée.",
  activated: 'Compte activé',
  deactivated: 'Compte désactivé',
  typeUpdated: "Type de l'utilisateur modifié",
  sitesUpdated: "Sites(s) de l'utilisateur modifié(s)",
  sitesForbidden: "Les sites ne se modifient que pour un compte actif qui n'est pas prestataire.",
  typeRequired: 'Le type est obligatoire',
  typeUnknown: "Type d'utilisateur inconnu",
  siteRequired: 'Veuillez sélectionner au moins un site',
  siteUnknown: 'Site inconnu',
  /** Past the rows the list pages (list-depth.ts); the list has no export. */
  listTooDeep: 'Plus de 10 000 utilisateurs correspondent : seuls les 10 000 premiers sont paginés. Précisez les filtres ou la recherche pour réduire la liste.',
} as const;

/** User type 3: service providers (ROLE_PRESTATAIRE), who see every site (../domain.ts). */
export { TYPE_PRESTATAIRE } from '../domain.js';
/** Shown in the Site column when the user is referent of no site. */
export const NO_SITE = 'Aucun';

export const userListQuerySchema = withinListDepth(listQuerySchema({
  sortFields: ['date', 'organisme', 'nom', 'prenom', 'email', 'tel', 'type', 'actif', 'emailValide'],
  defaultSort: 'nom',
  filters: {
    date: plainString().trim().max(20),
    organisme: plainString().trim().max(100),
    nom: plainString().trim().max(100),
    prenom: plainString().trim().max(100),
    email: plainString().trim().max(254),
    tel: plainString().trim().max(20),
    type: plainString().trim().max(50),
  },
}), USER_MESSAGES.listTooDeep);
export type UserListQuery = z.input<typeof userListQuerySchema>;

export const userRowSchema = z.object({
  id: z.number(),
  /** Signup date, ISO 8601. */
  date: z.string(),
  organisme: z.string().nullable(),
  nom: z.string(),
  prenom: z.string().nullable(),
  email: z.string(),
  tel: z.string().nullable(),
  typeUser: z.string().nullable(),
  idTypeUser: z.number().nullable(),
  /** Comma-joined site codes and names, or 'Aucun'. */
  site: z.string(),
  actif: z.boolean(),
  emailValide: z.boolean(),
});
export type UserRow = z.infer<typeof userRowSchema>;

export const userListSchema = z.object({ count: z.number(), users: z.array(userRowSchema) });

export const userIdParamsSchema = idParamsSchema;
export const userIdAltParamsSchema = idParamsOf('userId');

export const userTypeUpdateSchema = z.object({
  // A Select gives '2', an API client 2; no number at all is a missing type, a number that
  // is no id (1.5, 0, beyond int32) an unknown one.
  type: z.union([z.string(), z.number()], { error: USER_MESSAGES.typeRequired }).transform((v, ctx) => {
    const n = typeof v === 'number' ? v : parseDecimal(v.trim());
    if (Number.isNaN(n)) ctx.addIssue({ code: 'custom', message: USER_MESSAGES.typeRequired });
    else if (!isInt32Id(n)) ctx.addIssue({ code: 'custom', message: USER_MESSAGES.typeUnknown });
    else return n;
    return z.NEVER;
  }),
});
export type UserTypeUpdate = z.infer<typeof userTypeUpdateSchema>;

export const userSitesUpdateSchema = z.object({
  site: z
    .array(decimalIntSchema({ message: USER_MESSAGES.siteUnknown }), { message: USER_MESSAGES.siteRequired })
    .min(1, { message: USER_MESSAGES.siteRequired })
    .max(500),
});
export type UserSitesUpdate = z.infer<typeof userSitesUpdateSchema>;

export const referentSchema = z.object({ id: z.number(), nom: z.string(), prenom: z.string().nullable() });
export type Referent = z.infer<typeof referentSchema>;

export const activeUserSchema = referentSchema.extend({ email: z.string() });
export type ActiveUser = z.infer<typeof activeUserSchema>;

/** A site offered in the user 'Site' dialog. */
export const siteOptionSchema = z.object({ id: z.number(), code: z.string(), nom: z.string().nullable(), ville: z.string() });
export type SiteOption = z.infer<typeof siteOptionSchema>;

/** Sites of one user (current sites of the 'Site' dialog). */
export const userSitesSchema = z.array(siteOptionSchema);

export function siteLabel(s: { code: string; nom: string | null; ville?: string }): string {
  const base = s.nom ? `${s.code} - ${s.nom}` : s.code;
  return s.ville ? `${base} (${s.ville})` : base;
}
