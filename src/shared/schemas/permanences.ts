// Permanences: the openings of a site to its households. What the API accepts and answers, and
// the limits the forms apply before sending. Times a person types are Paris wall-clock times
// ('2026-11-28T17:00'); the answers give instants in ISO 8601 with their offset.
import { z } from 'zod';
import { decimalIntSchema, idSchema, intSchema, textSchema } from './common.js';

export const PERMANENCE_FREQUENCES = [
  { value: 'hebdomadaire', libelle: 'Chaque semaine' },
  { value: 'bimensuelle', libelle: 'Toutes les deux semaines' },
  { value: 'mensuelle', libelle: 'Chaque mois, le même jour de la semaine' },
] as const;
export type PermanenceFrequence = (typeof PERMANENCE_FREQUENCES)[number]['value'];
const FREQUENCE_VALUES = PERMANENCE_FREQUENCES.map((f) => f.value) as [PermanenceFrequence, ...PermanenceFrequence[]];

export const PERMANENCE_TITRE_MAX = 120;
export const PERMANENCE_MESSAGE_MAX = 1000;
export const PERMANENCE_MOTIF_MIN = 3;
export const PERMANENCE_MOTIF_MAX = 500;
/** An opening that was not scheduled may be recorded this many days back. */
export const PERMANENCE_APRES_COUP_JOURS = 7;
/** A series may run this many days ahead at most (about a year). */
export const PERMANENCE_SERIE_JOURS_MAX = 366;
/** An opening lasts at most this many hours. */
export const PERMANENCE_DUREE_MAX_HEURES = 12;
export const BILAN_FOYERS_MAX = 1000;
export const BILAN_SEAUX_MAX = 1000;
export const BILAN_KG_MAX = 5000;

export const PERMANENCE_MESSAGES = {
  site: 'Site invalide',
  debutRequired: 'Le début est obligatoire',
  finRequired: 'La fin est obligatoire',
  dateInvalid: 'Date invalide',
  finAfterDebut: 'La fin doit être après le début',
  tooLong: `Une permanence dure au plus ${PERMANENCE_DUREE_MAX_HEURES} heures`,
  tooOld: `Une permanence passée peut être ajoutée jusqu’à ${PERMANENCE_APRES_COUP_JOURS} jours en arrière`,
  frequence: 'Choisissez une fréquence',
  jusquaRequired: 'Indiquez jusqu’à quand la permanence se répète',
  jusquaBeforeDebut: 'La date de fin de la répétition doit être après la première permanence',
  jusquaTooFar: 'Une répétition dure au plus un an',
  recurrencePast: 'Une permanence passée ne se répète pas',
  motifLength: `Entre ${PERMANENCE_MOTIF_MIN} et ${PERMANENCE_MOTIF_MAX} caractères`,
  notFound: 'Permanence introuvable.',
  siteNotFound: 'Site introuvable.',
  ended: 'Cette permanence est terminée.',
  hasBilan: 'Cette permanence a déjà son bilan : elle a eu lieu.',
  clientIdUsed: 'Cette saisie a déjà été enregistrée pour une autre permanence.',
  cancelled: 'Cette permanence est annulée.',
  alreadyCancelled: 'Cette permanence est déjà annulée.',
  notReferent: 'Seuls les référents du site peuvent tenir ses permanences.',
  notStarted: 'Le bilan se saisit une fois la permanence commencée.',
  foyers: `Un nombre entier entre 0 et ${BILAN_FOYERS_MAX}`,
  seaux: `Un nombre entier entre 0 et ${BILAN_SEAUX_MAX}`,
  kg: `Un poids entre 0 et ${BILAN_KG_MAX} kg`,
  temperature: 'Température invalide (entre -30 et 99 °C)',
  added: 'Permanence enregistrée',
  updated: 'Permanence modifiée',
  cancelledDone: 'Permanence annulée : les ouvreurs et les foyers inscrits sont prévenus',
  signedUp: 'Vous tenez cette permanence',
  withdrawn: 'Vous ne tenez plus cette permanence',
  bilanSaved: 'Bilan enregistré',
} as const;

/** 'YYYY-MM-DDTHH:mm' (seconds allowed), read as Paris wall-clock time. */
export const PARIS_LOCAL_DATETIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2})?$/;
const DAY = /^\d{4}-\d{2}-\d{2}$/;

function localDateTime(required: string) {
  return z
    .string({ error: (issue) => (issue.input === undefined || issue.input === null ? required : PERMANENCE_MESSAGES.dateInvalid) })
    .min(1, { error: required })
    .regex(PARIS_LOCAL_DATETIME, { error: PERMANENCE_MESSAGES.dateInvalid });
}

const optionalText = (max: number) =>
  textSchema(max)
    .nullish()
    .transform((v) => (v && v.trim() ? v.trim() : null));

export const recurrenceSchema = z.strictObject({
  frequence: z.enum(FREQUENCE_VALUES, { error: PERMANENCE_MESSAGES.frequence }),
  jusqua: z.string({ error: PERMANENCE_MESSAGES.jusquaRequired }).regex(DAY, { error: PERMANENCE_MESSAGES.dateInvalid }),
});
export type Recurrence = z.infer<typeof recurrenceSchema>;

/**
 * POST /api/admin/permanence/add. A start in the past (up to PERMANENCE_APRES_COUP_JOURS days)
 * records an opening that was not scheduled; it cannot repeat. The server checks the dates
 * against the clock and lists every error at once.
 */
export const permanenceAddSchema = z.strictObject({
  site: idSchema(PERMANENCE_MESSAGES.site),
  debut: localDateTime(PERMANENCE_MESSAGES.debutRequired),
  fin: localDateTime(PERMANENCE_MESSAGES.finRequired),
  titre: optionalText(PERMANENCE_TITRE_MAX),
  message: optionalText(PERMANENCE_MESSAGE_MAX),
  recurrence: recurrenceSchema.nullish(),
});
export type PermanenceAdd = z.input<typeof permanenceAddSchema>;

/** PUT /api/admin/permanence/update/{id}: one occurrence, moved or retitled. */
export const permanenceUpdateSchema = z.strictObject({
  debut: localDateTime(PERMANENCE_MESSAGES.debutRequired),
  fin: localDateTime(PERMANENCE_MESSAGES.finRequired),
  titre: optionalText(PERMANENCE_TITRE_MAX),
  message: optionalText(PERMANENCE_MESSAGE_MAX),
});
export type PermanenceUpdate = z.input<typeof permanenceUpdateSchema>;

/** PUT /api/admin/permanence/annuler/{id}. */
export const permanenceAnnulerSchema = z.strictObject({
  motif: textSchema(2000)
    .transform((v) => v.trim())
    .pipe(z.string().min(PERMANENCE_MOTIF_MIN, { error: PERMANENCE_MESSAGES.motifLength }).max(PERMANENCE_MOTIF_MAX, { error: PERMANENCE_MESSAGES.motifLength })),
});

/**
 * PUT /api/permanence/{id}/bilan, sent through the phone's outbox: clientId is the UUID made on
 * the phone, so a replay stores the tally once. Without kg, the kilos are estimated from the
 * buckets and the programme's kilos per bucket, and said to be an estimate.
 */
export const bilanSchema = z.strictObject({
  clientId: z.uuid({ error: 'Identifiant de saisie invalide' }),
  foyers: intSchema({ min: 0, max: BILAN_FOYERS_MAX, message: PERMANENCE_MESSAGES.foyers }),
  seaux: intSchema({ min: 0, max: BILAN_SEAUX_MAX, message: PERMANENCE_MESSAGES.seaux }),
  kg: z.number({ error: PERMANENCE_MESSAGES.kg }).min(0, { error: PERMANENCE_MESSAGES.kg }).max(BILAN_KG_MAX, { error: PERMANENCE_MESSAGES.kg }).nullish(),
  temperature: z.number({ error: PERMANENCE_MESSAGES.temperature }).min(-30, { error: PERMANENCE_MESSAGES.temperature }).max(99, { error: PERMANENCE_MESSAGES.temperature }).nullish(),
});
export type BilanInput = z.input<typeof bilanSchema>;

/** ?periode=a_venir (default: from 7 days back, so the tallies still to record show) or passees. */
export const permanenceListQuerySchema = z.strictObject({
  periode: z.enum(['a_venir', 'passees'], { error: 'Période invalide' }).optional().default('a_venir'),
});

export const bilanRowSchema = z.object({
  foyers: z.number(),
  seaux: z.number(),
  kg: z.number(),
  /** The kilos are buckets x the programme's kilos per bucket, not weighed. */
  kgEstime: z.boolean(),
  temperature: z.number().nullable(),
  /** ISO date-time it was recorded. */
  le: z.string(),
});

export const permanenceRowSchema = z.object({
  id: z.number(),
  idSite: z.number(),
  /** ISO 8601 instants with their offset. */
  debut: z.string(),
  fin: z.string(),
  titre: z.string().nullable(),
  message: z.string().nullable(),
  serie: z.object({ id: z.number(), frequence: z.enum(FREQUENCE_VALUES), jusqua: z.string() }).nullable(),
  apresCoup: z.boolean(),
  annulee: z.boolean(),
  motifAnnulation: z.string().nullable(),
  /** 'Prénom NOM' of each opener. */
  ouvreurs: z.array(z.object({ id: z.number(), nom: z.string() })),
  /** The current user holds it. */
  jeTiens: z.boolean(),
  bilan: bilanRowSchema.nullable(),
});
export type PermanenceRow = z.infer<typeof permanenceRowSchema>;

export const permanenceListSchema = z.object({ count: z.number(), permanences: z.array(permanenceRowSchema) });
export type PermanenceList = z.infer<typeof permanenceListSchema>;

/** The answer of add: the occurrences written (one, or each of a series). */
export const permanenceAddedSchema = z.object({ status: z.literal('success'), message: z.string(), count: z.number(), ids: z.array(z.number()) });
export const permanenceDoneSchema = z.object({ status: z.literal('success'), message: z.string() });
/** The answer of a tally (a replay answers the tally stored the first time). */
export const bilanSavedSchema = z.object({ status: z.literal('success'), message: z.string(), bilan: bilanRowSchema });

/** The next openings as the public page shows them: no person, no message. */
export const publicPermanenceSchema = z.object({ debut: z.string(), fin: z.string(), titre: z.string().nullable(), annulee: z.boolean() });
export type PublicPermanence = z.infer<typeof publicPermanenceSchema>;

export const permanenceSiteParamsSchema = z.object({ id: decimalIntSchema() });
