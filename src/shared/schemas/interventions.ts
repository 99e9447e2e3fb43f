// Interventions: the submission of the site sheet (its schema here, its rules in
// intervention-rules.ts), the value as the tables display it, and the API answers.
import { z } from 'zod';
import {
  INTERVENTION_MESSAGES,
  MAX_BLOCKS,
  OBSERVATIONS_MAX,
  TEXT_VALUE_MAX,
  isTooOldDate,
  parseValeurNumber,
  type BlockLike,
} from './intervention-rules.js';
import { decimalFilterSchema, idSchema, plainString } from './common.js';
import { listQuerySchema } from './list.js';
import { withinListDepth } from './list-depth.js';
import type { TypeAction, TypeActionConstante } from './reference.js';
import { ACTION_VALUE_KINDS } from '../domain.js';

// The rules of a submission live in intervention-rules.ts (plain functions the field screen
// loads without zod); they are re-exported here for the server and the other screens.
export * from './intervention-rules.js';

/** Blank observations mean "none": the column stays null rather than holding ''. */
const observationsSchema = plainString({ error: 'Observations invalides' })
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
    .union([z.number(), plainString().max(TEXT_VALUE_MAX * 10, { error: INTERVENTION_MESSAGES.textMax })], { error: 'Valeur invalide' })
    .nullable()
    .optional()
    .transform((v) => v ?? null),
  bacDestination: idSchema(INTERVENTION_MESSAGES.destinationInvalid)
    .nullable()
    .optional()
    .transform((v) => v ?? null),
  observations: observationsSchema,
  /** Pending request this block processes (docs/domain.md, intervention requests), or null. */
  demandeIntervention: idSchema(INTERVENTION_MESSAGES.demandeInvalid)
    .nullable()
    .optional()
    .transform((v) => v ?? null),
});
export type InterventionBlock = z.infer<typeof interventionBlockSchema>;
export type InterventionBlockInput = z.input<typeof interventionBlockSchema>;

/** The date of an intervention: ISO 8601 with an offset, from 2000 on (a future date is the service's check). */
export const interventionDateSchema = z
  .string({ error: INTERVENTION_MESSAGES.dateRequired })
  .min(1, { error: INTERVENTION_MESSAGES.dateRequired })
  .pipe(z.iso.datetime({ offset: true, error: INTERVENTION_MESSAGES.dateInvalid }).refine((d) => !isTooOldDate(d), { error: INTERVENTION_MESSAGES.dateInvalid }));

/**
 * The shape of a submission. A date in the future is not refused here but by the service,
 * together with the catalogue checks, so that a refused entry lists all its errors at once
 * (the field screen does the same with checkSubmission).
 */
export const interventionSubmissionSchema = z.object({
  /** UUID made on the phone when the entry is created; the server keeps it unique. */
  clientId: z.uuid({ error: INTERVENTION_MESSAGES.clientIdInvalid }),
  site: idSchema(INTERVENTION_MESSAGES.siteRequired),
  date: interventionDateSchema,
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

/** Value kind of each action id, for displays that only know the id (from the catalogue of ../domain.ts). */
export { ACTION_VALUE_KINDS } from '../domain.js';

export interface DisplayValueInput {
  idAction: number;
  valeurNombre: number | null;
  /** Label of the constant (typeActionConstante.constante), for constant actions. */
  constante: string | null;
  valeurTexte: string | null;
  /** numero of the destination cell, for transfers. */
  destinationNumeroBac: number | null;
}

/** The value shown in tables (the contract's display rule): '200 L vers le composteur n°3', '150 L', '54.5 °C', a constant label, free text, or ''. */
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
  // numeric columns may come back as 54.50; drop the trailing zeros, keep the dot of the contract's examples.
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

const optionalId = decimalFilterSchema();
const dateFilter = plainString({ error: 'Filtre invalide' }).max(20, { error: 'Filtre invalide' });

/** Date tables default to the most recent first, unlike the ascending default of other lists. */
function newestFirst(raw: unknown): unknown {
  if (raw && typeof raw === 'object' && !('sort' in raw)) return { ...raw, sort: { name: 'date', direction: 'desc' } };
  return raw;
}

/** The public table pages its first 10,000 rows (list-depth.ts); it has no export. */
export const SITE_INTERVENTIONS_TOO_DEEP = 'Plus de 10 000 interventions correspondent : seules les 10 000 premières sont paginées. Précisez les filtres pour réduire la liste.';

export const siteInterventionListQuerySchema = withinListDepth(z.preprocess(
  newestFirst,
  listQuerySchema({
    sortFields: ['date', 'action', 'typeBac', 'numeroBac'],
    defaultSort: 'date',
    filters: {
      /** Text matched against the dd/MM/yyyy HH:mm display (Europe/Paris). */
      date: dateFilter,
      action: optionalId,
      typeBac: optionalId,
      numeroBac: decimalFilterSchema({ min: 0 }),
    },
  }),
), SITE_INTERVENTIONS_TOO_DEEP);
export type SiteInterventionListQuery = z.infer<typeof siteInterventionListQuerySchema>;

// The administrators' lists (global and per site) live in interventions-admin.ts.
