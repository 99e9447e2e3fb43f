// The neighbourhood's side of the sites: the public page of a site (/s/{code}), the anonymous
// reports sent from it and their handling on the 'Signalements' panel. The payloads the API
// accepts, the answers it gives, and the limits the forms apply before sending.
import { z } from 'zod';
import { publicPermanenceSchema } from './permanences.js';
import { listQuerySchema } from './list.js';
import { INT32_MAX, decimalFilterSchema, idSchema, plainString } from './common.js';

const emptyToUndefined = (v: unknown) => (v === '' || v === null ? undefined : v);

/** What a household may report from a site's public page, in the order the form offers. */
export const SIGNALEMENT_CATEGORIES = [
  { value: 'bac_plein', libelle: 'Bac plein' },
  { value: 'odeur', libelle: 'Odeur' },
  { value: 'nuisibles', libelle: 'Nuisibles' },
  { value: 'degradation', libelle: 'Dégradation' },
  { value: 'autre', libelle: 'Autre' },
] as const;
export type SignalementCategorie = (typeof SIGNALEMENT_CATEGORIES)[number]['value'];
const CATEGORIE_VALUES = SIGNALEMENT_CATEGORIES.map((c) => c.value) as [SignalementCategorie, ...SignalementCategorie[]];

export function categorieLibelle(value: string): string {
  return SIGNALEMENT_CATEGORIES.find((c) => c.value === value)?.libelle ?? value;
}

export const SIGNALEMENT_TEXTE_MIN = 10;
export const SIGNALEMENT_TEXTE_MAX = 500;
export const SIGNALEMENT_MOTIF_MAX = 500;
/** How many reports one bulk action may change. */
export const SIGNALEMENT_LOT_MAX = 100;

export const SIGNALEMENT_MESSAGES = {
  categorie: 'Choisissez une catégorie',
  texteRequired: 'Décrivez le problème',
  texteLength: `Entre ${SIGNALEMENT_TEXTE_MIN} et ${SIGNALEMENT_TEXTE_MAX} caractères`,
  email: 'Adresse mail invalide',
  consentement: 'Cochez la case pour que nous puissions vous répondre, ou laissez l’adresse vide',
  sent: 'Merci ! Votre signalement a été transmis à l’équipe du site.',
  perAddress: 'Trop de signalements envoyés depuis votre connexion. Réessayez dans une heure.',
  perSite: 'Ce site a reçu beaucoup de signalements aujourd’hui. Réessayez demain.',
  siteNotFound: 'Site introuvable.',
  notFound: 'Signalement introuvable.',
  alreadyHandled: 'Ce signalement a déjà été traité.',
  transformed: 'Signalement transformé en demande d’intervention',
  filed: 'Signalement classé',
  actionRequired: 'Choisissez l’action à programmer',
  actionUnknown: 'Action inconnue',
  cellRequired: 'Choisissez la cellule',
  cellUnknown: 'Cette cellule n’est pas une cellule active du site',
  actionNotOnCell: 'Cette action n’est pas possible sur cette cellule',
  dateRequired: 'L’échéance est obligatoire',
  dateInvalid: 'Date invalide',
  dateRange: 'L’échéance doit être comprise entre aujourd’hui et dans un an',
  motifLength: `Entre 3 et ${SIGNALEMENT_MOTIF_MAX} caractères`,
  idsRequired: 'Choisissez au moins un signalement',
  idsMax: `Au plus ${SIGNALEMENT_LOT_MAX} signalements à la fois`,
  idsDuplicate: 'Un signalement est choisi deux fois',
  keptInList: 'Le signalement conservé ne peut pas être fusionné avec lui-même',
  mergeOtherSite: 'Seuls des signalements du même site peuvent être fusionnés',
  transformOtherSite: 'Seuls des signalements du même site peuvent devenir une même demande',
} as const;

/** The notifications of the bulk actions: how many reports they changed. */
export const bulkTransformedMessage = (n: number) => (n > 1 ? `${n} signalements transformés en une demande d’intervention` : 'Signalement transformé en demande d’intervention');
export const bulkClosedMessage = (n: number) => (n > 1 ? `${n} signalements clôturés` : '1 signalement clôturé');
export const bulkMergedMessage = (n: number, keptId: number) =>
  `${n > 1 ? `${n} signalements fusionnés` : '1 signalement fusionné'} dans le signalement n° ${keptId}`;

/** Tags out, spaces tidied: a report is plain text whatever was pasted into it. */
export function plainReportText(v: string): string {
  return v
    .replace(/<[^>]*>/g, ' ')
    .replace(/[ \t]+/g, ' ')
    .replace(/ *\r?\n */g, '\n')
    .replace(/\n{3,}/g, '\n\n')
    .trim();
}

/**
 * POST /api/public/site/{code}/signalement. The form also sends a field people never see: a
 * robot that fills every field fills it too, and its report is dropped. That field is read
 * from the keys this shape lets through undeclared, so the API description never names it.
 */
export const signalementInputSchema = z
  .looseObject({
    categorie: z.enum(CATEGORIE_VALUES, { message: SIGNALEMENT_MESSAGES.categorie }),
    texte: plainString({ message: SIGNALEMENT_MESSAGES.texteRequired })
      .max(5000, { message: SIGNALEMENT_MESSAGES.texteLength })
      .transform(plainReportText)
      .pipe(z.string().min(SIGNALEMENT_TEXTE_MIN, { message: SIGNALEMENT_MESSAGES.texteLength }).max(SIGNALEMENT_TEXTE_MAX, { message: SIGNALEMENT_MESSAGES.texteLength })),
    email: plainString({ message: SIGNALEMENT_MESSAGES.email })
      .trim()
      .max(254, { message: SIGNALEMENT_MESSAGES.email })
      .nullish()
      .transform((v) => (v ? v : null))
      .pipe(z.email({ message: SIGNALEMENT_MESSAGES.email }).nullable()),
    consentement: z.boolean({ message: 'Valeur invalide' }).optional().default(false),
  })
  .superRefine(
    (v, ctx) => {
      if (v && typeof v.email === 'string' && v.email && v.consentement !== true) {
        ctx.addIssue({ code: 'custom', path: ['consentement'], message: SIGNALEMENT_MESSAGES.consentement });
      }
    },
    { when: () => true },
  );
export type SignalementInput = z.input<typeof signalementInputSchema>;

/** A site code in a public address: letters and digits (QUA012). */
export const publicSiteParamsSchema = z.object({
  code: z.string().regex(/^[A-Za-z0-9_-]{1,32}$/, { message: SIGNALEMENT_MESSAGES.siteNotFound }),
});

const levelSchema = z.object({ niveau: z.string(), date: z.string() });

/**
 * GET /api/public/site/{code}: what anyone holding the site's label may read. Nothing about a
 * person: no referent, requester, intervenant or free text other than the site's public texts.
 */
export const publicSiteSchema = z.object({
  code: z.string(),
  nom: z.string().nullable(),
  typeSite: z.string(),
  numero: z.string().nullable(),
  adresse: z.string(),
  cp: z.string(),
  ville: z.string(),
  horaires: z.string().nullable(),
  consignes: z.string().nullable(),
  /** ISO date-times of the latest turn (action 1) and transfer (action 3). */
  dernierRetournement: z.string().nullable(),
  dernierTransfert: z.string().nullable(),
  /** Latest input level (action 16). */
  niveauApport: levelSchema.nullable(),
  /** Latest material level (action 19): mature compost is available above 'Vide'. */
  compostMur: levelSchema.extend({ disponible: z.boolean() }).nullable(),
  appName: z.string(),
  /** The programme's contact line (APP_CONTACT). */
  contact: z.string(),
  categories: z.array(z.object({ value: z.string(), libelle: z.string() })),
  texteMin: z.number(),
  texteMax: z.number(),
  /** The next openings not ended (at most three), soonest first; a cancelled one stays, marked. */
  permanences: z.array(publicPermanenceSchema),
});
export type PublicSite = z.infer<typeof publicSiteSchema>;

export const signalementSentSchema = z.object({ status: z.literal('success'), message: z.string() });

export const SIGNALEMENT_STATUTS = { nouveau: 'Nouveau', transforme: 'Transformé en demande', classe: 'Classé' } as const;
export type SignalementStatut = keyof typeof SIGNALEMENT_STATUTS;

/** GET /api/admin/signalement/get/list: new reports ('nouveau') or handled ones ('traite'). */
export const signalementListQuerySchema = listQuerySchema({
  sortFields: ['date', 'site'],
  defaultSort: 'date',
  filters: {
    statut: z.enum(['nouveau', 'traite'], { message: 'Filtre invalide' }),
    site: decimalFilterSchema(),
  },
});
export type SignalementListQuery = z.output<typeof signalementListQuerySchema>;

export const signalementRowSchema = z.object({
  id: z.number(),
  /** ISO date-time of the report. */
  date: z.string(),
  idSite: z.number(),
  /** The site's name, or its code. */
  site: z.string(),
  code: z.string(),
  /** 'numero adresse, cp ville'. */
  adresse: z.string(),
  categorie: z.string(),
  categorieLibelle: z.string(),
  texte: z.string(),
  /** The reporter left an e-mail to be answered (the address itself is never shown). */
  reponseDemandee: z.boolean(),
  statut: z.enum(['nouveau', 'transforme', 'classe']),
  traiteLe: z.string().nullable(),
  /** 'NOM Prénom' of who handled it. */
  traitePar: z.string().nullable(),
  motif: z.string().nullable(),
  idDemande: z.number().nullable(),
  actionProgrammee: z.string().nullable(),
  dateEcheance: z.string().nullable(),
  /** How many times it was sent (identical texts on one site count into the open report), merged reports included. */
  occurrences: z.number(),
  /** The report it was merged into (then it is 'classe'). */
  fusionneDans: z.number().nullable(),
});
export type SignalementRow = z.infer<typeof signalementRowSchema>;

export const signalementListSchema = z.object({ count: z.number(), signalements: z.array(signalementRowSchema) });
export type SignalementList = z.infer<typeof signalementListSchema>;

/** PUT /api/admin/signalement/transformer/{id}: a request on a cell of the site, due on that day (Europe/Paris). */
/** An id that must be there: 'required' when missing or empty, 'invalid' when it is no id. */
function requiredId(required: string, invalid: string) {
  return z.preprocess(
    emptyToUndefined,
    z
      .number({ error: (issue) => (issue.input === undefined ? required : invalid) })
      .int({ error: invalid })
      .min(1, { error: invalid })
      .max(INT32_MAX, { error: invalid }),
  );
}

export const signalementTransformSchema = z.object({
  actionProgrammee: requiredId(SIGNALEMENT_MESSAGES.actionRequired, SIGNALEMENT_MESSAGES.actionUnknown),
  composteur: requiredId(SIGNALEMENT_MESSAGES.cellRequired, SIGNALEMENT_MESSAGES.cellUnknown),
  dateEcheance: z.preprocess(
    emptyToUndefined,
    z
      .string({ error: (issue) => (issue.input === undefined ? SIGNALEMENT_MESSAGES.dateRequired : SIGNALEMENT_MESSAGES.dateInvalid) })
      .refine((s) => isCalendarDay(s) && s >= '1900' && s < '3000', { message: SIGNALEMENT_MESSAGES.dateInvalid }),
  ),
});
export type SignalementTransformInput = z.input<typeof signalementTransformSchema>;
export type SignalementTransform = z.output<typeof signalementTransformSchema>;

/** PUT /api/admin/signalement/classer/{id}: the reason, sent to the reporter when they asked for an answer. */
export const signalementClasserSchema = z.object({
  motif: plainString({ message: SIGNALEMENT_MESSAGES.motifLength })
    .trim()
    .min(3, { message: SIGNALEMENT_MESSAGES.motifLength })
    .max(SIGNALEMENT_MOTIF_MAX, { message: SIGNALEMENT_MESSAGES.motifLength }),
});
export type SignalementClasserInput = z.input<typeof signalementClasserSchema>;

export const signalementHandledSchema = z.object({ status: z.literal('success'), message: z.string(), idDemande: z.number().nullable() });

/** Several distinct reports, chosen on the panel. */
const idListSchema = z
  .array(idSchema(), { error: SIGNALEMENT_MESSAGES.idsRequired })
  .min(1, { error: SIGNALEMENT_MESSAGES.idsRequired })
  .max(SIGNALEMENT_LOT_MAX, { error: SIGNALEMENT_MESSAGES.idsMax })
  .refine((ids) => new Set(ids).size === ids.length, { error: SIGNALEMENT_MESSAGES.idsDuplicate });

/** PUT /api/admin/signalement/classer: close several new reports at once, with one reason (all or none). */
export const signalementClasserLotSchema = signalementClasserSchema.extend({ ids: idListSchema });
export type SignalementClasserLotInput = z.input<typeof signalementClasserLotSchema>;

/**
 * PUT /api/admin/signalement/fusionner: new reports of one site folded into the one kept (its
 * count grows by theirs, their reporters are answered with it); they are closed, linked to it.
 */
export const signalementFusionnerSchema = z
  .object({ idConserve: idSchema(), ids: idListSchema })
  .refine((v) => !v.ids.includes(v.idConserve), { path: ['ids'], error: SIGNALEMENT_MESSAGES.keptInList });
export type SignalementFusionnerInput = z.input<typeof signalementFusionnerSchema>;

/** PUT /api/admin/signalement/transformer: new reports of one site turned into one request. */
export const signalementTransformerLotSchema = signalementTransformSchema.extend({ ids: idListSchema });
export type SignalementTransformerLotInput = z.input<typeof signalementTransformerLotSchema>;

export const signalementTransformedLotSchema = z.object({ status: z.literal('success'), message: z.string(), count: z.number(), idDemande: z.number() });

export const signalementLotSchema = z.object({ status: z.literal('success'), message: z.string(), count: z.number() });

/** Whether 'YYYY-MM-DD' is a real calendar day (2026-02-30 is not). */
export function isCalendarDay(day: string): boolean {
  if (!/^\d{4}-\d{2}-\d{2}$/.test(day)) return false;
  const t = Date.parse(`${day}T00:00:00Z`);
  return Number.isFinite(t) && new Date(t).toISOString().slice(0, 10) === day;
}
