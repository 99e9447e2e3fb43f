// Interventions: the submission of the site sheet (shared by the server and the offline form),
// its catalogue checks, the displayed value of spec.md section 9, and the API answers.
// validateBlocksAgainstCatalogue is pure so the phone can validate an entry with no network
// exactly as the server will.
import { z } from 'zod';
import type { FieldError } from '../errors.js';
import { listQuerySchema } from './list.js';
import { LITRES_MAX, TEMPERATURE_MAX, TEMPERATURE_MIN, type TypeAction, type TypeActionConstante } from './reference.js';

/** Action ids with a fixed meaning (reference-data.md). */
export const ACTION_TRANSFERT = 3;
export const ACTION_AUTRE = 13;
export const ACTION_REPARATION_A_EFFECTUER = 18;
/** The only cell type that can receive a transfer. */
export const TYPE_BAC_MATURATION = 3;

export const MAX_BLOCKS = 20;
export const OBSERVATIONS_MAX = 1000;
export const TEXT_VALUE_MAX = 500;
/** Phones drift: a date up to this far ahead of the server clock still counts as "now". */
export const CLOCK_SKEW_MS = 2 * 60 * 1000;

export const INTERVENTION_MESSAGES = {
  added: 'Intervention(s) ajouté(s)',
  conflict: 'Cette saisie a déjà été envoyée avec un contenu différent.',
  siteNotFound: 'Site introuvable',
  cellRequired: 'Veuillez choisir une cellule',
  actionRequired: 'Veuillez choisir une action',
  dateRequired: "Veuillez renseigner la date de l'intervention",
  dateInvalid: 'Date invalide',
  dateFuture: 'La date ne peut pas être dans le futur',
  siteRequired: 'Veuillez choisir un site',
  clientIdInvalid: 'Identifiant de saisie invalide',
  blocksMin: 'Veuillez ajouter au moins une action',
  blocksMax: `${MAX_BLOCKS} actions au maximum par saisie`,
  observationsMax: `Les observations ne doivent pas dépasser ${OBSERVATIONS_MAX} caractères`,
  observationsRequired: 'Les observations sont obligatoires pour cette action',
  cellUnknown: "Cette cellule n'appartient pas à ce site",
  cellInactive: 'Cette cellule est désactivée',
  actionUnknown: 'Action inconnue',
  actionNotAllowed: 'Action non autorisée sur cette cellule',
  litresRequired: 'Veuillez renseigner une quantité en litres',
  litresInvalid: 'La quantité doit être un nombre entier de litres entre 0 et 10 000',
  temperatureRequired: 'Veuillez renseigner une température',
  temperatureInvalid: `La température doit être comprise entre ${TEMPERATURE_MIN} et ${TEMPERATURE_MAX} °C`,
  constantRequired: 'Veuillez choisir une valeur',
  constantInvalid: 'Valeur non autorisée pour cette action',
  textRequired: 'Veuillez renseigner une précision',
  textMax: `La précision ne doit pas dépasser ${TEXT_VALUE_MAX} caractères`,
  noValue: 'Cette action ne prend pas de valeur',
  destinationRequired: 'Veuillez choisir une cellule de destination',
  destinationInvalid: 'La destination doit être une cellule de maturation active du site',
  destinationSame: "La destination doit être différente de la cellule d'origine",
  noDestination: 'Cette action ne prend pas de cellule de destination',
  demandeInvalid: "Cette demande d'intervention n'est pas en attente sur ce site",
} as const;

const idSchema = (message: string) =>
  z.number({ error: message }).int({ error: message }).positive({ error: message });

/** Blank observations mean "none": the column stays null rather than holding ''. */
const observationsSchema = z
  .string({ error: 'Observations invalides' })
  .trim()
  .max(OBSERVATIONS_MAX, { error: INTERVENTION_MESSAGES.observationsMax })
  .nullable()
  .optional()
  .transform((s) => (s ? s : null));

export const interventionBlockSchema = z.object({
  /** site_composteur id. */
  composteur: idSchema(INTERVENTION_MESSAGES.cellRequired),
  /** type_action id. */
  action: idSchema(INTERVENTION_MESSAGES.actionRequired),
  valeur: z
    .union([z.number(), z.string().max(TEXT_VALUE_MAX * 10, { error: INTERVENTION_MESSAGES.textMax })], { error: 'Valeur invalide' })
    .nullable()
    .optional()
    .transform((v) => v ?? null),
  bacDestination: idSchema(INTERVENTION_MESSAGES.destinationInvalid)
    .nullable()
    .optional()
    .transform((v) => v ?? null),
  observations: observationsSchema,
  /** Pending request this block processes (spec.md section 4), or null. */
  demandeIntervention: idSchema(INTERVENTION_MESSAGES.demandeInvalid)
    .nullable()
    .optional()
    .transform((v) => v ?? null),
});
export type InterventionBlock = z.infer<typeof interventionBlockSchema>;
export type InterventionBlockInput = z.input<typeof interventionBlockSchema>;

/** Whether an ISO date lies after now (plus the allowed clock skew). */
export function isFutureDate(iso: string, now: number = Date.now()): boolean {
  const t = Date.parse(iso);
  return Number.isFinite(t) && t > now + CLOCK_SKEW_MS;
}

export const interventionSubmissionSchema = z.object({
  /** UUID made on the phone when the entry is created; the server keeps it unique. */
  clientId: z.uuid({ error: INTERVENTION_MESSAGES.clientIdInvalid }),
  site: idSchema(INTERVENTION_MESSAGES.siteRequired),
  date: z
    .string({ error: INTERVENTION_MESSAGES.dateRequired })
    .min(1, { error: INTERVENTION_MESSAGES.dateRequired })
    .pipe(z.iso.datetime({ offset: true, error: INTERVENTION_MESSAGES.dateInvalid }))
    .refine((d) => !isFutureDate(d), { error: INTERVENTION_MESSAGES.dateFuture }),
  values: z
    .array(interventionBlockSchema, { error: INTERVENTION_MESSAGES.blocksMin })
    .min(1, { error: INTERVENTION_MESSAGES.blocksMin })
    .max(MAX_BLOCKS, { error: INTERVENTION_MESSAGES.blocksMax }),
});
export type InterventionSubmission = z.infer<typeof interventionSubmissionSchema>;
export type InterventionSubmissionInput = z.input<typeof interventionSubmissionSchema>;

/** A cell of the site as the site sheet knows it (siteInfosSchema.siteComposteurs). */
export const siteCellSchema = z.object({
  id: z.number(),
  numero: z.number(),
  /** Cell type id (typeBac). */
  typeBac: z.number(),
  libelleTypeBac: z.string(),
  volume: z.number(),
  actif: z.boolean(),
});
export type SiteCell = z.infer<typeof siteCellSchema>;

export const siteInfosSchema = z.object({
  id: z.number(),
  code: z.string(),
  nom: z.string().nullable(),
  numero: z.string().nullable(),
  adresse: z.string(),
  cp: z.string(),
  ville: z.string(),
  /** Site type label. */
  typeSite: z.string(),
  /** Active cells only, by numero. */
  siteComposteurs: z.array(siteCellSchema),
});
export type SiteInfos = z.infer<typeof siteInfosSchema>;

export interface CatalogueContext {
  /** From /api/typeAction/get/all. */
  typeActions: readonly Pick<TypeAction, 'id' | 'valueKind' | 'typeBac'>[];
  /** From /api/typeActionConstante/get/all. */
  constantes: readonly Pick<TypeActionConstante, 'idConstante' | 'idAction'>[];
  /** The site's cells; inactive ones may be included (they are refused with their own message). */
  cells: readonly Pick<SiteCell, 'id' | 'typeBac' | 'actif'>[];
}

/**
 * Reads a number typed on a phone: numbers pass, strings accept a decimal comma.
 * Returns null for anything that is not a finite number.
 */
export function parseValeurNumber(v: number | string | null | undefined): number | null {
  if (typeof v === 'number') return Number.isFinite(v) ? v : null;
  if (typeof v !== 'string') return null;
  const s = v.trim().replace(',', '.');
  if (!/^-?\d+(\.\d+)?$/.test(s)) return null;
  return Number(s);
}

function isBlank(v: number | string | null | undefined): boolean {
  return v === null || v === undefined || (typeof v === 'string' && v.trim() === '');
}

type BlockLike = {
  composteur: number | null | undefined;
  action: number | null | undefined;
  valeur?: number | string | null;
  bacDestination?: number | null;
  observations?: string | null;
};

/**
 * Checks blocks against the action catalogue and the site's cells. Errors are keyed
 * values{index}.{field}; one error per field, the first that applies.
 */
export function validateBlocksAgainstCatalogue(values: readonly BlockLike[], ctx: CatalogueContext): FieldError[] {
  const errors: FieldError[] = [];
  const cells = new Map(ctx.cells.map((c) => [c.id, c]));
  const actions = new Map(ctx.typeActions.map((a) => [a.id, a]));

  values.forEach((block, i) => {
    const key = (field: string) => `values${i}.${field}`;
    const push = (field: string, error: string) => errors.push({ key: key(field), error });

    const cell = block.composteur == null ? undefined : cells.get(block.composteur);
    if (block.composteur == null) push('composteur', INTERVENTION_MESSAGES.cellRequired);
    else if (!cell) push('composteur', INTERVENTION_MESSAGES.cellUnknown);
    else if (!cell.actif) push('composteur', INTERVENTION_MESSAGES.cellInactive);

    const action = block.action == null ? undefined : actions.get(block.action);
    if (block.action == null) push('action', INTERVENTION_MESSAGES.actionRequired);
    else if (!action) push('action', INTERVENTION_MESSAGES.actionUnknown);
    else if (cell && !action.typeBac.includes(cell.typeBac)) push('action', INTERVENTION_MESSAGES.actionNotAllowed);

    const observations = block.observations?.trim() ?? '';
    if (block.action === ACTION_AUTRE && observations === '') push('observations', INTERVENTION_MESSAGES.observationsRequired);

    // Without a known action the value cannot be judged; the action error already tells the user.
    if (!action) return;
    const valeurError = valueError(block.valeur, action, ctx.constantes);
    if (valeurError) push('valeur', valeurError);

    if (action.valueKind === 'transfer') {
      const dest = block.bacDestination == null ? undefined : cells.get(block.bacDestination);
      if (block.bacDestination == null) push('bacDestination', INTERVENTION_MESSAGES.destinationRequired);
      else if (block.bacDestination === block.composteur) push('bacDestination', INTERVENTION_MESSAGES.destinationSame);
      else if (!dest || !dest.actif || dest.typeBac !== TYPE_BAC_MATURATION) push('bacDestination', INTERVENTION_MESSAGES.destinationInvalid);
    } else if (block.bacDestination != null) {
      push('bacDestination', INTERVENTION_MESSAGES.noDestination);
    }
  });
  return errors;
}

function valueError(
  valeur: number | string | null | undefined,
  action: CatalogueContext['typeActions'][number],
  constantes: CatalogueContext['constantes'],
): string | null {
  switch (action.valueKind) {
    case 'litres':
    case 'transfer': {
      if (isBlank(valeur)) return INTERVENTION_MESSAGES.litresRequired;
      const n = parseValeurNumber(valeur);
      if (n === null || !Number.isInteger(n) || n < 0 || n > LITRES_MAX) return INTERVENTION_MESSAGES.litresInvalid;
      return null;
    }
    case 'temperature': {
      if (isBlank(valeur)) return INTERVENTION_MESSAGES.temperatureRequired;
      const n = parseValeurNumber(valeur);
      if (n === null || n < TEMPERATURE_MIN || n > TEMPERATURE_MAX) return INTERVENTION_MESSAGES.temperatureInvalid;
      return null;
    }
    case 'constant': {
      if (isBlank(valeur)) return INTERVENTION_MESSAGES.constantRequired;
      const n = parseValeurNumber(valeur);
      const ok = n !== null && constantes.some((c) => c.idAction === action.id && c.idConstante === n);
      return ok ? null : INTERVENTION_MESSAGES.constantInvalid;
    }
    case 'text': {
      const s = typeof valeur === 'string' ? valeur.trim() : typeof valeur === 'number' ? String(valeur) : '';
      if (s === '') return INTERVENTION_MESSAGES.textRequired;
      if (s.length > TEXT_VALUE_MAX) return INTERVENTION_MESSAGES.textMax;
      return null;
    }
    case 'none':
      return isBlank(valeur) ? null : INTERVENTION_MESSAGES.noValue;
  }
}

/** How an intervention's value is stored: the column that holds it depends on the action kind. */
export interface StoredValue {
  valeurNombre: number | null;
  valeurConstante: number | null;
  valeurTexte: string | null;
}

/** Maps a validated block value to its storage columns. */
export function storedValueOf(valeur: number | string | null, valueKind: TypeAction['valueKind']): StoredValue {
  const empty: StoredValue = { valeurNombre: null, valeurConstante: null, valeurTexte: null };
  switch (valueKind) {
    case 'litres':
    case 'transfer':
    case 'temperature':
      return { ...empty, valeurNombre: parseValeurNumber(valeur) };
    case 'constant':
      return { ...empty, valeurConstante: parseValeurNumber(valeur) };
    case 'text':
      return { ...empty, valeurTexte: valeur === null ? null : String(valeur).trim() };
    case 'none':
      return empty;
  }
}

/** Value kind of each action id, for displays that only know the id (spec.md section 9). */
export const ACTION_VALUE_KINDS: Readonly<Record<number, TypeAction['valueKind']>> = {
  1: 'none',
  2: 'none',
  3: 'transfer',
  4: 'litres',
  5: 'none',
  6: 'temperature',
  7: 'constant',
  8: 'constant',
  9: 'constant',
  10: 'litres',
  11: 'litres',
  12: 'litres',
  13: 'none',
  14: 'text',
  15: 'litres',
  16: 'constant',
  17: 'litres',
  18: 'text',
  19: 'constant',
};

export interface DisplayValueInput {
  idAction: number;
  valeurNombre: number | null;
  /** Label of the constant (typeActionConstante.constante), for constant actions. */
  constante: string | null;
  valeurTexte: string | null;
  /** numero of the destination cell, for transfers. */
  destinationNumeroBac: number | null;
}

/** The value shown in tables (spec.md section 9): '200 L vers le composteur n°3', '150 L', '54.5 °C', a constant label, free text, or ''. */
export function displayValue(row: DisplayValueInput): string {
  const kind = ACTION_VALUE_KINDS[row.idAction] ?? 'none';
  switch (kind) {
    case 'transfer': {
      if (row.valeurNombre === null) return '';
      const litres = `${formatNumber(row.valeurNombre)} L`;
      return row.destinationNumeroBac === null ? litres : `${litres} vers le composteur n°${row.destinationNumeroBac}`;
    }
    case 'litres':
      return row.valeurNombre === null ? '' : `${formatNumber(row.valeurNombre)} L`;
    case 'temperature':
      return row.valeurNombre === null ? '' : `${formatNumber(row.valeurNombre)} °C`;
    case 'constant':
      return row.constante ?? '';
    case 'text':
      return row.valeurTexte ?? '';
    case 'none':
      return '';
  }
}

function formatNumber(n: number): string {
  // numeric columns may come back as 54.50; drop the trailing zeros, keep the dot of spec.md examples.
  return String(Number(n));
}

/** The displayed value of a block not yet on the server (outbox page), from the cached catalogue. */
export function displayBlockValue(
  block: Pick<BlockLike, 'action' | 'valeur' | 'bacDestination'>,
  ctx: { constantes: readonly Pick<TypeActionConstante, 'idConstante' | 'idAction' | 'constante'>[]; cells: readonly Pick<SiteCell, 'id' | 'numero'>[] },
): string {
  if (block.action == null) return '';
  const kind = ACTION_VALUE_KINDS[block.action] ?? 'none';
  const stored = storedValueOf(block.valeur ?? null, kind);
  const constante =
    stored.valeurConstante === null
      ? null
      : (ctx.constantes.find((c) => c.idAction === block.action && c.idConstante === stored.valeurConstante)?.constante ?? null);
  const dest = block.bacDestination == null ? undefined : ctx.cells.find((c) => c.id === block.bacDestination);
  return displayValue({
    idAction: block.action,
    valeurNombre: stored.valeurNombre,
    constante,
    valeurTexte: stored.valeurTexte,
    destinationNumeroBac: dest?.numero ?? null,
  });
}

export const interventionAddResponseSchema = z.object({
  status: z.literal('success'),
  message: z.literal(INTERVENTION_MESSAGES.added),
  /** Ids of the interventions created, in block order. */
  interventions: z.array(z.number()),
  /** Ids of the requests raised by the rules. */
  demandes: z.array(z.number()),
});
export type InterventionAddResponse = z.infer<typeof interventionAddResponseSchema>;

/** Row of the public per-site table: no personal data. */
export const siteInterventionRowSchema = z.object({
  id: z.number(),
  /** ISO 8601. */
  date: z.string(),
  idAction: z.number(),
  typeAction: z.string(),
  /** Cell type label. */
  typeBac: z.string(),
  idTypeBac: z.number(),
  numeroBac: z.number(),
  /** Displayed value (displayValue). */
  valeur: z.string(),
  observations: z.string().nullable(),
});
export type SiteInterventionRow = z.infer<typeof siteInterventionRowSchema>;

export const siteInterventionListSchema = z.object({ count: z.number(), interventions: z.array(siteInterventionRowSchema) });
export type SiteInterventionList = z.infer<typeof siteInterventionListSchema>;

const optionalId = z.coerce.number({ error: 'Filtre invalide' }).int({ error: 'Filtre invalide' }).positive({ error: 'Filtre invalide' });

/** Date tables default to the most recent first, unlike the ascending default of other lists. */
function newestFirst(raw: unknown): unknown {
  if (raw && typeof raw === 'object' && !('sort' in raw)) return { ...raw, sort: { name: 'date', direction: 'desc' } };
  return raw;
}

export const siteInterventionListQuerySchema = z.preprocess(
  newestFirst,
  listQuerySchema({
    sortFields: ['date', 'action', 'typeBac', 'numeroBac'],
    defaultSort: 'date',
    filters: {
      /** Text matched against the dd/MM/yyyy HH:mm display (Europe/Paris). */
      date: z.string().max(20),
      action: optionalId,
      typeBac: optionalId,
      numeroBac: z.coerce.number({ error: 'Filtre invalide' }).int({ error: 'Filtre invalide' }).min(0, { error: 'Filtre invalide' }),
    },
  }),
);
export type SiteInterventionListQuery = z.infer<typeof siteInterventionListQuerySchema>;

/** Row of the administrators' lists (per site and global). */
export const adminInterventionRowSchema = z.object({
  id: z.number(),
  date: z.string(),
  /** 'NOM Prénom' of who recorded it. */
  intervenant: z.string(),
  typeBac: z.string(),
  numeroBac: z.number(),
  typeAction: z.string(),
  idAction: z.number(),
  valeur: z.string(),
  observations: z.string().nullable(),
  /** Global list only: the site's name, or its code when it has none. */
  site: z.string().optional(),
  idSite: z.number().optional(),
});
export type AdminInterventionRow = z.infer<typeof adminInterventionRowSchema>;

export const adminInterventionListSchema = z.object({ count: z.number(), interventions: z.array(adminInterventionRowSchema) });
export type AdminInterventionList = z.infer<typeof adminInterventionListSchema>;

export const adminInterventionListQuerySchema = z.preprocess(
  newestFirst,
  listQuerySchema({
    sortFields: ['date', 'action', 'site', 'intervenant'],
    defaultSort: 'date',
    filters: {
      date: z.string().max(20),
      action: optionalId,
      site: optionalId,
    },
  }).extend({
    /** Site id: the per-site dialog of the sites screen; absent: the global list. */
    id: optionalId.optional(),
  }),
);
export type AdminInterventionListQuery = z.infer<typeof adminInterventionListQuerySchema>;
