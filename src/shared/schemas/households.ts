// Households (foyers): who composts at a site, registered from its public page and confirmed by
// its referents, and the short news the referents send them. What the API accepts and answers.
// Personal data: a household's first name and e-mail reach only the site's referents and the
// administrators, never an export other than the programme's own, never open data.
import { z } from 'zod';
import { idSchema, intSchema, plainString, textSchema } from './common.js';

export const FOYER_PERSONNES_MAX = 20;
export const FOYER_PRENOM_MAX = 100;
export const NOUVELLE_SUJET_MAX = 120;
export const NOUVELLE_TEXTE_MAX = 2000;

export const FOYER_STATUTS = { en_attente: 'À confirmer', confirme: 'Confirmé', refuse: 'Refusé' } as const;
export type FoyerStatut = keyof typeof FOYER_STATUTS;

export const FOYER_MESSAGES = {
  personnes: `Un nombre de personnes entre 1 et ${FOYER_PERSONNES_MAX}`,
  bioseau: 'Indiquez si vous avez reçu un bio-seau',
  prenom: `${FOYER_PRENOM_MAX} caractères maximum`,
  email: 'Adresse mail invalide',
  consentement: 'Cochez la case pour recevoir les nouvelles du site, ou laissez l’adresse vide',
  sent: 'Merci ! Votre foyer est inscrit : les référents du site le confirmeront.',
  perAddress: 'Trop d’inscriptions envoyées depuis votre connexion. Réessayez dans une heure.',
  perSite: 'Ce site a reçu beaucoup d’inscriptions aujourd’hui. Réessayez demain.',
  siteNotFound: 'Site introuvable.',
  notFound: 'Foyer introuvable.',
  alreadyHandled: 'Ce foyer a déjà été traité.',
  confirmed: 'Foyer confirmé',
  refused: 'Foyer refusé',
  left: 'Votre foyer a quitté le site : vos données ont été supprimées.',
  unsubscribed: 'Vous ne recevrez plus les nouvelles de ce site.',
  linkInvalid: 'Ce lien n’est plus valide.',
  sujet: `Entre 1 et ${NOUVELLE_SUJET_MAX} caractères`,
  texte: `Entre 1 et ${NOUVELLE_TEXTE_MAX} caractères`,
  onePerDay: 'Une nouvelle a déjà été envoyée aujourd’hui aux foyers de ce site. Réessayez demain.',
  noRecipient: 'Aucun foyer confirmé de ce site ne reçoit les nouvelles.',
  newsSent: (n: number) => (n > 1 ? `Nouvelle envoyée à ${n} foyers` : 'Nouvelle envoyée à 1 foyer'),
} as const;

/**
 * POST /api/public/site/{code}/foyer ('Je composte ici'). Like the anonymous reports, the form
 * also sends a field people never see (a robot fills it and its registration is dropped), read
 * from the keys this shape lets through undeclared.
 */
export const foyerInputSchema = z
  .looseObject({
    prenom: plainString({ error: FOYER_MESSAGES.prenom })
      .trim()
      .max(FOYER_PRENOM_MAX, { error: FOYER_MESSAGES.prenom })
      .nullish()
      .transform((v) => (v ? v : null)),
    email: plainString({ error: FOYER_MESSAGES.email })
      .trim()
      .max(254, { error: FOYER_MESSAGES.email })
      .nullish()
      .transform((v) => (v ? v : null))
      .pipe(z.email({ error: FOYER_MESSAGES.email }).nullable()),
    personnes: intSchema({ min: 1, max: FOYER_PERSONNES_MAX, message: FOYER_MESSAGES.personnes }),
    bioseau: z.boolean({ error: FOYER_MESSAGES.bioseau }),
    consentement: z.boolean({ error: 'Valeur invalide' }).optional().default(false),
  })
  .superRefine(
    (v, ctx) => {
      if (v && typeof v.email === 'string' && v.email && v.consentement !== true) {
        ctx.addIssue({ code: 'custom', path: ['consentement'], message: FOYER_MESSAGES.consentement });
      }
    },
    { when: () => true },
  );
export type FoyerInput = z.input<typeof foyerInputSchema>;

export const foyerRowSchema = z.object({
  id: z.number(),
  idSite: z.number(),
  prenom: z.string().nullable(),
  email: z.string().nullable(),
  personnes: z.number(),
  bioseau: z.boolean(),
  statut: z.enum(['en_attente', 'confirme', 'refuse']),
  /** ISO date-times. */
  inscritLe: z.string(),
  traiteLe: z.string().nullable(),
  /** Receives the site's news. */
  nouvelles: z.boolean(),
});
export type FoyerRow = z.infer<typeof foyerRowSchema>;

/** GET /api/admin/foyer/get/list/by/site/{id}: every household of the site, the waiting ones first. */
export const foyerListSchema = z.object({
  count: z.number(),
  /** Confirmed households and the people in them. */
  confirmes: z.number(),
  personnes: z.number(),
  foyers: z.array(foyerRowSchema),
});
export type FoyerList = z.infer<typeof foyerListSchema>;

/** POST /api/admin/foyer/nouvelle: a short news message to the site's subscribed households, at most one a day per site. */
export const nouvelleSchema = z.strictObject({
  site: idSchema('Site invalide'),
  sujet: textSchema(NOUVELLE_SUJET_MAX, { max: FOYER_MESSAGES.sujet })
    .transform((v) => v.trim())
    .pipe(z.string().min(1, { error: FOYER_MESSAGES.sujet })),
  texte: textSchema(NOUVELLE_TEXTE_MAX, { max: FOYER_MESSAGES.texte })
    .transform((v) => v.trim())
    .pipe(z.string().min(1, { error: FOYER_MESSAGES.texte })),
});
export type NouvelleInput = z.input<typeof nouvelleSchema>;

/** The signed token of a household's links (leave, unsubscribe). */
export const foyerJetonSchema = z.strictObject({ jeton: z.string().regex(/^[A-Za-z0-9_.-]{10,200}$/, { error: FOYER_MESSAGES.linkInvalid }) });

export const foyerDoneSchema = z.object({ status: z.literal('success'), message: z.string() });
export const nouvelleSentSchema = z.object({ status: z.literal('success'), message: z.string(), destinataires: z.number() });
