// API shapes of the intervention requests (demandes d'intervention; docs/domain.md, intervention
// requests): the pending board, the history, cancelling, scheduling, the sites with pending
// requests and the request rules (which interventions raise a request, kept in the
// demande_rule table).
import { z } from 'zod';
import { decimalFilterSchema, idSchema, intSchema, plainString, textSchema } from './common.js';
import { listQuerySchema } from './list.js';
import { withinListDepth } from './list-depth.js';
import { photoRefSchema } from './photos.js';

// The request statuses, defined with every status in ../domain.ts.
import { STATUT_ANNULEE, STATUT_EN_ATTENTE } from '../domain.js';
export { PENDING_STATUTS, STATUT_ANNULEE, STATUT_EN_ATTENTE, STATUT_PROGRAMMEE, STATUT_REALISEE } from '../domain.js';

/** Most requests one cancel or schedule call may name (a board page is 20). */
export const SELECTION_MAX = 100;
/** Longest cancellation reason ('Motif d'annulation'; the column's own check says the same). */
export const MOTIF_ANNULATION_MAX = 500;
export const RULE_DELAY_MIN = 1;
export const RULE_DELAY_MAX = 365;

export const REQUEST_MESSAGES = {
  cancelled: "Demande(s) d'intervention(s) annulée(s) avec succès",
  scheduled: "Demande(s) d'intervention(s) programmée(s) avec succès",
  required: 'Veuillez renseignez les champs obligatoires',
  dateRequired: 'La date prévue de réalisation est obligatoire',
  dateInvalid: 'Date invalide',
  selectionRequired: 'Sélectionnez au moins une demande',
  selectionTooLong: `${SELECTION_MAX} demandes au plus`,
  duplicate: 'Une demande est sélectionnée deux fois',
  notFound: "Demande d'intervention introuvable",
  twoSites: "Les demandes sélectionnées doivent concerner un seul site",
  closed: "Cette demande d'intervention a déjà été réalisée ou annulée",
  dateOutOfRange: "La date prévue de réalisation doit être comprise entre aujourd'hui et la date d'échéance",
  /** The board always asks for it; the API keeps it optional for older clients. */
  motifRequired: "Le motif d'annulation est obligatoire",
  motifTooLong: `Le motif d'annulation ne doit pas dépasser ${MOTIF_ANNULATION_MAX} caractères`,
  motifInvalid: "Motif d'annulation invalide",
  ruleAdded: 'Règle ajoutée',
  ruleUpdated: 'Règle modifiée',
  ruleDeleted: 'Règle supprimée',
  ruleNotFound: 'Règle introuvable',
  actionRequired: "L'action déclenchante est obligatoire",
  actionUnknown: 'Action inconnue',
  programmeeRequired: "L'action à programmer est obligatoire",
  constanteNotOfAction: "Cette valeur n'appartient pas à l'action déclenchante",
  programmeeNotAllowed: "L'action à programmer n'est possible sur aucun type de cellule de l'action déclenchante",
  delaiInvalid: `Le délai doit être un nombre entier de jours entre ${RULE_DELAY_MIN} et ${RULE_DELAY_MAX}`,
  ruleExists: 'Cette règle existe déjà',
  /** The schedule item's due date or action is not the stored request's any more. */
  changed: 'La demande a changé, rechargez la page.',
  actionProgrammeeInvalid: 'Action à programmer invalide',
  /** The intervention is gone but other entries still call for its request. */
  deletedKeptDemande: "Intervention supprimée ; la demande d'intervention liée reste ouverte pour ses autres signalements",
  /** Past the rows a list pages (list-depth.ts); neither list has an export. */
  boardTooDeep: 'Plus de 10 000 demandes en attente : seules les 10 000 premières sont paginées. Choisissez un site pour réduire la liste.',
  historyTooDeep:
    'Plus de 10 000 demandes correspondent : seules les 10 000 premières sont paginées. Précisez les filtres (site, statut, action) ou la recherche pour réduire la liste.',
} as const;

/** What a bulk change says it did: '1 demande annulée', '3 demandes annulées'. */
export function cancelledCountLabel(n: number): string {
  return n > 1 ? `${n} demandes annulées` : `${n} demande annulée`;
}

/** '1 demande programmée', '3 demandes programmées'. */
export function scheduledCountLabel(n: number): string {
  return n > 1 ? `${n} demandes programmées` : `${n} demande programmée`;
}

/** 'Échéance dépassée de 3 jours' (one day: 'de 1 jour'). */
export function overdueLabel(days: number): string {
  return `Échéance dépassée de ${days} jour${days > 1 ? 's' : ''}`;
}

/** Refusal of a planned day outside the window of an overdue request (max as dd/MM/yyyy). */
export function overdueOutOfRangeMessage(maxDay: string): string {
  const [y, m, d] = maxDay.split('-');
  return `L'échéance est dépassée : la date prévue de réalisation doit être comprise entre aujourd'hui et le ${d}/${m}/${y}`;
}

/** Refusal of a rule that a request would call again and again. */
export function ruleLoopMessage(chain: readonly string[]): string {
  return `Cette règle ferait boucler les demandes : ${chain.join(' → ')}`;
}

/** Refusal of a second rule for one trigger and value, naming the rule already there. */
export function ruleDuplicateMessage(other: Pick<DemandeRule, 'actionDeclenchante' | 'constante' | 'actionProgrammee' | 'delaiJours'>): string {
  const trigger = other.constante ? `${other.actionDeclenchante} (${other.constante})` : `${other.actionDeclenchante} (toujours)`;
  return `Une règle existe déjà pour ce déclencheur : ${trigger} → ${other.actionProgrammee} sous ${other.delaiJours} jour${other.delaiJours > 1 ? 's' : ''}`;
}

// ---- Calendar days ('YYYY-MM-DD', Europe/Paris) ----

const DAY_MS = 24 * 3600 * 1000;
const dayTime = (day: string) => Date.parse(`${day}T00:00:00Z`);

/** Whole days from `from` to `to` (negative when `to` comes first). */
export function daysBetween(from: string, to: string): number {
  return Math.round((dayTime(to) - dayTime(from)) / DAY_MS);
}

export function addDays(day: string, days: number): string {
  return new Date(dayTime(day) + days * DAY_MS).toISOString().slice(0, 10);
}

/**
 * The days a request may be planned on: today to its due day; once the due day has passed
 * that window is empty, so an overdue request gets today to today + its rule's delay.
 */
export function planningWindow(dueDay: string, today: string, delaiJours: number): { min: string; max: string; overdueDays: number } {
  const late = daysBetween(dueDay, today);
  if (late <= 0) return { min: today, max: dueDay, overdueDays: 0 };
  return { min: today, max: addDays(today, Math.max(1, delaiJours)), overdueDays: late };
}

/**
 * The chain of actions through which a rule's scheduled action leads back to its trigger
 * (processing a request records its scheduled action, which the rules may answer with a new
 * request), as action ids from the trigger back to itself; null when there is none. The rule
 * being changed (exceptId) does not count.
 */
export function ruleLoop(
  rules: readonly { id: number; idActionDeclenchante: number; idActionProgrammee: number }[],
  candidate: { actionDeclenchante: number; actionProgrammee: number },
  exceptId: number | null = null,
): number[] | null {
  const next = new Map<number, number[]>();
  for (const r of rules) {
    if (r.id === exceptId) continue;
    next.set(r.idActionDeclenchante, [...(next.get(r.idActionDeclenchante) ?? []), r.idActionProgrammee]);
  }
  // Breadth first from the scheduled action: the shortest way back is the one to show.
  const from = new Map<number, number | null>([[candidate.actionProgrammee, null]]);
  const queue = [candidate.actionProgrammee];
  while (queue.length > 0) {
    const at = queue.shift()!;
    if (at === candidate.actionDeclenchante) {
      const path: number[] = [];
      for (let x: number | null = at; x !== null; x = from.get(x) ?? null) path.unshift(x);
      return [candidate.actionDeclenchante, ...path];
    }
    for (const n of next.get(at) ?? []) {
      if (from.has(n)) continue;
      from.set(n, at);
      queue.push(n);
    }
  }
  return null;
}

const isoDate = z.string();

/** An intervention linked to a request ('Interventions liées'). */
export const linkedInterventionSchema = z.object({
  id: z.number(),
  date: isoDate,
  intervenant: z.string(),
  typeAction: z.string(),
  valeur: z.string(),
  observations: z.string().nullable(),
  /** Its photos, oldest first (the images themselves at GET /api/admin/photo/{id}). */
  photos: z.array(photoRefSchema),
});
export type LinkedIntervention = z.infer<typeof linkedInterventionSchema>;

/** An entry that called for a request: a linked intervention with its action id. */
export const signalSchema = linkedInterventionSchema.extend({ idAction: z.number() });
export type Signal = z.infer<typeof signalSchema>;

/** A pending request card (the API's intervention request shape). */
export const demandeInterventionSchema = z.object({
  id: z.number(),
  idStatut: z.number(),
  statut: z.string(),
  /** ISO 8601. */
  dateEcheance: isoDate,
  dateProgrammee: isoDate.nullable(),
  /** Who scheduled it: a referent or provider (user account) or an agent. */
  programmationReferent: z.string().nullable(),
  programmationAgent: z.string().nullable(),
  /** The triggering intervention's action (null when the trigger was deleted). */
  idAction: z.number().nullable(),
  actionDeclenchante: z.string().nullable(),
  /** Who recorded the triggering intervention ('Intervenant'): a referent/provider or an agent. */
  referent: z.string().nullable(),
  agent: z.string().nullable(),
  idActionProgrammee: z.number(),
  actionProgrammee: z.string(),
  idSite: z.number(),
  /** The site's name, or its code when it has none. */
  site: z.string(),
  /** 'numero adresse, cp ville'. */
  adresse: z.string(),
  /** Displayed value of the triggering intervention (displayValue). */
  value: z.string(),
  /** The cell of the request and its number. */
  idBac: z.number(),
  numero: z.number(),
  /** Destination cell of the triggering transfer, if any (processing prefills it). */
  destinationIdBac: z.number().nullable(),
  /** The triggering intervention's id and date. */
  idInterventionDeclenchante: z.number().nullable(),
  dateDeclenchement: isoDate.nullable(),
  /** Entries that called for this request while it was pending: the trigger and the later ones. */
  nbSignalements: z.number(),
  /** The latest of those entries (the trigger itself when it is the only one). */
  dernierSignalement: signalSchema.nullable(),
  /** The photos of those entries: the trigger's, then each later entry's by date, oldest first within each. */
  photos: z.array(photoRefSchema),
  /** The delay of the rule that raised it, in days: the planning window of an overdue request. */
  delaiJours: z.number(),
});
export type DemandeIntervention = z.infer<typeof demandeInterventionSchema>;

export const BOARD_SORT_FIELDS = ['site', 'dateEcheance'] as const;
export const pendingListQuerySchema = withinListDepth(
  listQuerySchema({ sortFields: BOARD_SORT_FIELDS, defaultSort: 'site', filters: { site: decimalFilterSchema() } }),
  REQUEST_MESSAGES.boardTooDeep,
);
export type PendingListQuery = z.output<typeof pendingListQuerySchema>;

export const pendingListSchema = z.object({ count: z.number(), demandesInterventions: z.array(demandeInterventionSchema) });
export type PendingList = z.infer<typeof pendingListSchema>;

/** A site with pending requests (the board's site filter). */
export const pendingSiteSchema = z.object({ id: z.number(), site: z.string(), ville: z.string(), count: z.number() });
export type PendingSite = z.infer<typeof pendingSiteSchema>;

/** A history row: every field of a card, and the request's life. */
export const historyRowSchema = demandeInterventionSchema.extend({
  dateCreation: isoDate,
  dateAnnulation: isoDate.nullable(),
  annuleePar: z.string().nullable(),
  /** The reason given when it was cancelled from the board (null: none given, or not cancelled). */
  motifAnnulation: z.string().nullable(),
  interventionDeclenchante: linkedInterventionSchema.nullable(),
  interventionRealisee: linkedInterventionSchema.nullable(),
});
export type HistoryRow = z.infer<typeof historyRowSchema>;

/** Newest requests first unless the table asks otherwise. */
function newestFirst(raw: unknown): unknown {
  if (raw && typeof raw === 'object' && !('sort' in raw)) return { ...raw, sort: { name: 'dateCreation', direction: 'desc' } };
  return raw;
}

export const HISTORY_SORT_FIELDS = ['dateCreation', 'actionProgrammee', 'dateEcheance', 'statut', 'dateAnnulation', 'site'] as const;
export const historyQuerySchema = z.preprocess(
  newestFirst,
  withinListDepth(
    listQuerySchema({
      sortFields: HISTORY_SORT_FIELDS,
      defaultSort: 'dateCreation',
      filters: {
        site: decimalFilterSchema(),
        statut: decimalFilterSchema({ min: STATUT_EN_ATTENTE, max: STATUT_ANNULEE }),
        actionProgrammee: decimalFilterSchema(),
      },
    }),
    REQUEST_MESSAGES.historyTooDeep,
  ),
);
export type HistoryQuery = z.output<typeof historyQuerySchema>;

export const historyListSchema = z.object({ count: z.number(), demandesInterventions: z.array(historyRowSchema) });
export type HistoryList = z.infer<typeof historyListSchema>;

const selectionSchema = z
  .array(idSchema(), { error: REQUEST_MESSAGES.selectionRequired })
  .min(1, { error: REQUEST_MESSAGES.selectionRequired })
  .max(SELECTION_MAX, { error: REQUEST_MESSAGES.selectionTooLong })
  .refine((ids) => new Set(ids).size === ids.length, { error: REQUEST_MESSAGES.duplicate });

/**
 * PUT /api/admin/demande/intervention/delete: the selected requests to cancel, all or none,
 * with one reason for all of them. The reason is plain text (tab and newlines allowed), at most
 * MOTIF_ANNULATION_MAX characters; optional here so that older clients still cancel (blank
 * means none), while the board always asks for it.
 */
export const cancelBodySchema = z.strictObject({
  demandesInterventions: selectionSchema,
  motif: textSchema(MOTIF_ANNULATION_MAX, { type: REQUEST_MESSAGES.motifInvalid, max: REQUEST_MESSAGES.motifTooLong }).nullable().optional(),
});
export type CancelBody = z.infer<typeof cancelBodySchema>;

/** 'YYYY-MM-DD', a Europe/Paris calendar day. */
const DAY = /^\d{4}-(0[1-9]|1[0-2])-(0[1-9]|[12]\d|3[01])$/;
function isRealDay(s: string): boolean {
  const d = new Date(`${s}T00:00:00Z`);
  return !Number.isNaN(d.getTime()) && d.toISOString().slice(0, 10) === s;
}

/** A calendar day (checked apart), a time of day and an offset, each field within its range. */
const ISO_INSTANT = /^\d{4}-\d{2}-\d{2}T([01]\d|2[0-3]):[0-5]\d(:[0-5]\d(\.\d{1,6})?)?(Z|[+-]([01]\d|2[0-3]):[0-5]\d)$/;

/**
 * A schedule item: the request and its planned day, with the due date and scheduled action the
 * screen showed (optional). Only the stored request is trusted: those two only tell the server
 * what the person saw, so that a request changed since is refused rather than planned blind.
 * A missing day is a field error (values{i}.date).
 */
export const scheduleItemSchema = z.strictObject({
  demandeIntervention: idSchema(),
  date: z
    .string({ error: REQUEST_MESSAGES.dateRequired })
    .nullable()
    .refine((s) => s !== null && s !== '', { error: REQUEST_MESSAGES.dateRequired })
    .refine((s) => s === null || s === '' || (DAY.test(s) && isRealDay(s)), { error: REQUEST_MESSAGES.dateInvalid }),
  /** ISO 8601 instant, or a 'YYYY-MM-DD' day. */
  dateEcheance: z
    .string({ error: REQUEST_MESSAGES.dateInvalid })
    .refine((s) => (ISO_INSTANT.test(s) || DAY.test(s)) && isRealDay(s.slice(0, 10)) && !s.startsWith('0000'), { error: REQUEST_MESSAGES.dateInvalid })
    .nullable()
    .optional(),
  /** The scheduled action's id, or its label as the card shows it. */
  actionProgrammee: z
    .union([idSchema(REQUEST_MESSAGES.actionProgrammeeInvalid), plainString().max(100, { error: REQUEST_MESSAGES.actionProgrammeeInvalid })], {
      error: REQUEST_MESSAGES.actionProgrammeeInvalid,
    })
    .nullable()
    .optional(),
});
export type ScheduleItem = { demandeIntervention: number; date: string; dateEcheance?: string | null; actionProgrammee?: number | string | null };

export const scheduleBodySchema = z.strictObject({
  values: z
    .array(scheduleItemSchema, { error: REQUEST_MESSAGES.selectionRequired })
    .min(1, { error: REQUEST_MESSAGES.selectionRequired })
    .max(SELECTION_MAX, { error: REQUEST_MESSAGES.selectionTooLong })
    .refine((items) => new Set(items.map((i) => i.demandeIntervention)).size === items.length, { error: REQUEST_MESSAGES.duplicate }),
});
export type ScheduleBody = { values: ScheduleItem[] };

/**
 * The answer of a cancel or a schedule: the contract's message, unchanged whatever the number,
 * and how many requests the call changed (every one named, since it is all or none).
 */
export const requestSaveResponseSchema = z.object({
  status: z.literal('success'),
  message: z.string(),
  count: z.number(),
});
export type RequestSaveResponse = z.infer<typeof requestSaveResponseSchema>;

// ---- Rules ----

export const demandeRuleSchema = z.object({
  id: z.number(),
  idActionDeclenchante: z.number(),
  actionDeclenchante: z.string(),
  idConstante: z.number().nullable(),
  constante: z.string().nullable(),
  idActionProgrammee: z.number(),
  actionProgrammee: z.string(),
  delaiJours: z.number(),
});
export type DemandeRule = z.infer<typeof demandeRuleSchema>;

export const demandeRuleInputSchema = z.strictObject({
  actionDeclenchante: idSchema(REQUEST_MESSAGES.actionRequired),
  constante: idSchema(REQUEST_MESSAGES.constanteNotOfAction).nullable().default(null),
  actionProgrammee: idSchema(REQUEST_MESSAGES.programmeeRequired),
  delaiJours: intSchema({ min: RULE_DELAY_MIN, max: RULE_DELAY_MAX, message: REQUEST_MESSAGES.delaiInvalid }),
});
export type DemandeRuleInput = z.infer<typeof demandeRuleInputSchema>;

export const ruleSaveResponseSchema = z.object({ status: z.literal('success'), message: z.string(), id: z.number() });
