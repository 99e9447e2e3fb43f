// Roles and agents administration (the 'Roles' screen, what each role allows, and its API routes).
import { z } from 'zod';
import { decimalIntSchema, idParamsSchema, plainString } from './common.js';
import { listQuerySchema } from './list.js';

export const ROLE_MESSAGES = {
  notFound: 'Rôle introuvable.',
  saved: 'Enregistrement effectué',
  externalRole: 'Ce rôle est réservé aux utilisateurs externes : il ne peut pas être donné à un agent.',
  lastAdmin: 'Impossible de retirer le dernier administrateur (ROLE_ADMIN) : ajoutez d’abord un autre agent actif.',
  agentUnknown: 'Agent inconnu',
  agentsRequired: 'La liste des agents est obligatoire',
  selectAgent: 'Veuillez sélectionner un agent',
} as const;

/** What each role allows, as the roles screen explains it (the product's role table). */
export const ROLE_MEANINGS: readonly { role: string; meaning: string }[] = [
  { role: 'ROLE_ADMIN*', meaning: 'Tous les rôles ROLE_ADMIN donnent accès aux statistiques.' },
  { role: 'ROLE_ADMIN', meaning: 'Toutes les fonctionnalités, sauf la modification et la suppression des interventions.' },
  { role: 'ROLE_ADMIN_SITE', meaning: 'Voir les interventions, gérer les types de site, gérer les sites, ajouter des interventions sur tous les sites.' },
  { role: 'ROLE_ADMIN_UPDATE', meaning: 'Modifier les interventions.' },
  { role: 'ROLE_ADMIN_DELETE', meaning: 'Supprimer les interventions.' },
  { role: 'ROLE_ADMIN_ROLE', meaning: 'Ajouter des utilisateurs internes et gérer les rôles des utilisateurs internes.' },
  { role: 'ROLE_ADMIN_USER', meaning: 'Gérer les utilisateurs externes (référents de site et prestataires).' },
  { role: 'ROLE_ADMIN_COMPOSTEUR', meaning: 'Gérer les types de composteurs.' },
  { role: 'ROLE_USER / ROLE_PRESTATAIRE', meaning: 'Référents de site et prestataires : utilisateurs externes uniquement, jamais à donner au personnel interne.' },
];

export const roleListQuerySchema = listQuerySchema({
  sortFields: ['libelle'],
  defaultSort: 'libelle',
  defaultRowsPerPage: 10,
  filters: { libelle: plainString().trim().max(100) },
});

export const roleRowSchema = z.object({ id: z.number(), libelle: z.string() });
export type RoleRow = z.infer<typeof roleRowSchema>;
export const roleListSchema = z.object({ count: z.number(), roles: z.array(roleRowSchema) });

export const agentSchema = z.object({ id: z.number(), prenom: z.string().nullable(), nom: z.string(), photo: z.string().nullable() });
export type Agent = z.infer<typeof agentSchema>;

export const roleDetailSchema = roleRowSchema.extend({ agents: z.array(agentSchema) });
export type RoleDetail = z.infer<typeof roleDetailSchema>;

export const roleIdParamsSchema = idParamsSchema;

export const roleUpdateSchema = z.object({
  agents: z.array(decimalIntSchema({ message: ROLE_MESSAGES.agentUnknown }), { message: ROLE_MESSAGES.agentsRequired }).max(1000),
});
export type RoleUpdate = z.infer<typeof roleUpdateSchema>;

export const agentSearchQuerySchema = z.strictObject({ name: plainString().trim().max(100).optional().default('') }, { error: 'Paramètre inconnu' });
export const AGENT_SEARCH_LIMIT = 20;

/** 'Jean Dupont' -> 'JD'; used by the avatar of an agent without a photo. */
export function initials(a: { prenom: string | null; nom: string }): string {
  const first = (a.prenom ?? '').trim().charAt(0);
  const last = a.nom.trim().charAt(0);
  return `${first}${last}`.toUpperCase() || '?';
}

export function agentName(a: { prenom: string | null; nom: string }): string {
  return [a.prenom, a.nom].filter(Boolean).join(' ');
}
