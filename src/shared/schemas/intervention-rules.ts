// The rules an intervention submission must pass, as plain functions with no zod: the server
// runs them (interventions.ts schema, then the catalogue checks in the transaction) and so
// does the phone, which validates an entry offline before queueing it. This file is on the
// first load of the field screen: importing zod there would cost 14 to 23 KB gzip
// (npm run bench), so nothing here may import a value from another shared module, except
// bounds.ts and ../domain.ts, which are plain values and functions written for this very reason.
// checkSubmissionShape repeats, by hand, what interventionSubmissionSchema checks;
// intervention-rules.test.ts proves on a corpus that both give the same errors.
import type { FieldError } from '../errors.js';
import { COMMON_MESSAGES, hasControlChars, isInt32Id } from './bounds.js';
import { ACTION_AUTRE, TYPE_BAC_MATURATION } from '../domain.js';
import type { TypeAction, TypeActionConstante } from './reference.js';

/** Action ids and the cell type with a fixed meaning in these rules (defined in ../domain.ts). */
export { ACTION_AUTRE, ACTION_REPARATION_A_EFFECTUER, ACTION_TRANSFERT, TYPE_BAC_MATURATION } from '../domain.js';

/** Bounds of the values (the same values as reference.ts, which would bring full zod along). */
export const VALUE_LITRES_MAX = 10_000;
export const VALUE_TEMPERATURE_MIN = -20;
export const VALUE_TEMPERATURE_MAX = 90;

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
  temperatureInvalid: `La température doit être comprise entre ${VALUE_TEMPERATURE_MIN} et ${VALUE_TEMPERATURE_MAX} °C`,
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
  demandeClosed: "Cette demande d'intervention a déjà été traitée ou annulée",
  demandeForbidden: "Seuls les prestataires et les administrateurs peuvent traiter une demande d'intervention",
} as const;

/** A block that names a request but not the action or the cell that request asks for. */
export function demandeMismatchMessage(actionProgrammee: string, numeroBac: number): string {
  return `Cette demande d'intervention attend l'action « ${actionProgrammee} » sur la cellule n°${numeroBac}`;
}

/**
 * Earliest date an intervention may carry: older is a typing or clock error, and years
 * before 1 AD cannot even be stored (PGlite fails on them).
 */
export const DATE_MIN_ISO = '2000-01-01T00:00:00Z';
const DATE_MIN = Date.parse(DATE_MIN_ISO);

/** Whether a well-formed ISO date lies before DATE_MIN_ISO. */
export function isTooOldDate(iso: string): boolean {
  return Date.parse(iso) < DATE_MIN;
}

/** Whether an ISO date lies after now (plus the allowed clock skew). */
export function isFutureDate(iso: string, now: number = Date.now()): boolean {
  const t = Date.parse(iso);
  return Number.isFinite(t) && t > now + CLOCK_SKEW_MS;
}

/** A cell of the site as the catalogue checks know it. */
export interface CatalogueCell {
  id: number;
  typeBac: number;
  actif: boolean;
}

export interface CatalogueContext {
  /** From /api/typeAction/get/all. */
  typeActions: readonly Pick<TypeAction, 'id' | 'valueKind' | 'typeBac'>[];
  /** From /api/typeActionConstante/get/all. */
  constantes: readonly Pick<TypeActionConstante, 'idConstante' | 'idAction'>[];
  /** The site's cells; inactive ones may be included (they are refused with their own message). */
  cells: readonly CatalogueCell[];
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

export type BlockLike = {
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
    const push = (field: string, error: string) => errors.push({ key: `values${i}.${field}`, error });

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
      if (n === null || !Number.isInteger(n) || n < 0 || n > VALUE_LITRES_MAX) return INTERVENTION_MESSAGES.litresInvalid;
      return null;
    }
    case 'temperature': {
      if (isBlank(valeur)) return INTERVENTION_MESSAGES.temperatureRequired;
      const n = parseValeurNumber(valeur);
      if (n === null || n < VALUE_TEMPERATURE_MIN || n > VALUE_TEMPERATURE_MAX) return INTERVENTION_MESSAGES.temperatureInvalid;
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

/** zod's z.uuid(): RFC 9562 versions 1 to 8, and the nil and max UUIDs. */
const UUID = /^([0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[1-8][0-9a-fA-F]{3}-[89abAB][0-9a-fA-F]{3}-[0-9a-fA-F]{12}|00000000-0000-0000-0000-000000000000|ffffffff-ffff-ffff-ffff-ffffffffffff)$/;
/** zod's z.iso.datetime({ offset: true }): a calendar date, a time with seconds (fraction optional), then Z or a ±hh:mm offset. */
const ISO_DATETIME =
  /^(?:(?:\d\d[2468][048]|\d\d[13579][26]|\d\d0[48]|[02468][048]00|[13579][26]00)-02-29|\d{4}-(?:(?:0[13578]|1[02])-(?:0[1-9]|[12]\d|3[01])|(?:0[469]|11)-(?:0[1-9]|[12]\d|30)|(?:02)-(?:0[1-9]|1\d|2[0-8])))T(?:[01]\d|2[0-3]):[0-5]\d:[0-5]\d(?:\.\d+)?(?:Z|[+-](?:[01]\d|2[0-3]):[0-5]\d)$/;

const isId = isInt32Id;
const isAbsent = (v: unknown): boolean => v === null || v === undefined;

/**
 * What interventionSubmissionSchema refuses, as {key, error} in its order: the shape of the
 * entry (types, the clientId, the date's format, one to twenty blocks, lengths, control
 * characters), not the catalogue nor a date in the future (submissionDateError).
 */
export function checkSubmissionShape(input: unknown): FieldError[] {
  const errors: FieldError[] = [];
  const push = (key: string, error: string) => errors.push({ key, error });
  if (typeof input !== 'object' || input === null || Array.isArray(input)) {
    push('', 'Saisie invalide');
    return errors;
  }
  const s = input as Record<string, unknown>;
  if (typeof s.clientId !== 'string' || !UUID.test(s.clientId)) push('clientId', INTERVENTION_MESSAGES.clientIdInvalid);
  if (!isId(s.site)) push('site', INTERVENTION_MESSAGES.siteRequired);
  if (typeof s.date !== 'string' || s.date === '') push('date', INTERVENTION_MESSAGES.dateRequired);
  else if (!ISO_DATETIME.test(s.date) || isTooOldDate(s.date)) push('date', INTERVENTION_MESSAGES.dateInvalid);

  if (!Array.isArray(s.values)) {
    push('values', INTERVENTION_MESSAGES.blocksMin);
    return errors;
  }
  s.values.forEach((raw: unknown, i) => {
    const key = (field: string) => `values${i}.${field}`;
    if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) {
      push(`values${i}`, 'Action invalide');
      return;
    }
    const b = raw as Record<string, unknown>;
    if (!isId(b.composteur)) push(key('composteur'), INTERVENTION_MESSAGES.cellRequired);
    if (!isId(b.action)) push(key('action'), INTERVENTION_MESSAGES.actionRequired);
    const v = b.valeur;
    if (typeof v === 'string') {
      if (hasControlChars(v)) push(key('valeur'), COMMON_MESSAGES.controlChars);
      else if (v.length > TEXT_VALUE_MAX * 10) push(key('valeur'), INTERVENTION_MESSAGES.textMax);
    } else if (!isAbsent(v) && !(typeof v === 'number' && !Number.isNaN(v))) {
      push(key('valeur'), 'Valeur invalide');
    }
    if (!isAbsent(b.bacDestination) && !isId(b.bacDestination)) push(key('bacDestination'), INTERVENTION_MESSAGES.destinationInvalid);
    if (typeof b.observations === 'string') {
      if (hasControlChars(b.observations)) push(key('observations'), COMMON_MESSAGES.controlChars);
      else if (b.observations.trim().length > OBSERVATIONS_MAX) push(key('observations'), INTERVENTION_MESSAGES.observationsMax);
    } else if (!isAbsent(b.observations)) {
      push(key('observations'), 'Observations invalides');
    }
    if (!isAbsent(b.demandeIntervention) && !isId(b.demandeIntervention)) push(key('demandeIntervention'), INTERVENTION_MESSAGES.demandeInvalid);
  });
  if (s.values.length < 1) push('values', INTERVENTION_MESSAGES.blocksMin);
  else if (s.values.length > MAX_BLOCKS) push('values', INTERVENTION_MESSAGES.blocksMax);
  return errors;
}

/** The date error a well-formed date may still have: in the future (beyond the clock skew). */
export function submissionDateError(iso: string, now: number = Date.now()): FieldError | null {
  return isFutureDate(iso, now) ? { key: 'date', error: INTERVENTION_MESSAGES.dateFuture } : null;
}

/**
 * Everything the server checks before it writes, minus what only the database knows (the
 * clientId already taken, who may record on the site, the pending requests): the shape's
 * rules first, then the date in the future, then the catalogue's; one error per key,
 * server-shaped (values0.valeur, date).
 */
export function checkSubmission(input: unknown, ctx: CatalogueContext): FieldError[] {
  const errors: FieldError[] = [];
  const seen = new Set<string>();
  const shape = checkSubmissionShape(input);
  const date = typeof input === 'object' && input !== null ? (input as { date?: unknown }).date : undefined;
  const dateError = typeof date === 'string' && !shape.some((e) => e.key === 'date') ? submissionDateError(date) : null;
  for (const e of dateError ? [...shape, dateError] : shape) {
    if (seen.has(e.key)) continue;
    seen.add(e.key);
    errors.push(e);
  }
  const raw = typeof input === 'object' && input !== null ? (input as { values?: unknown }).values : undefined;
  // A block that is not even an object already has its shape error; the catalogue skips it.
  const blocks: BlockLike[] = Array.isArray(raw)
    ? raw.map((b: unknown) => (typeof b === 'object' && b !== null ? (b as BlockLike) : { composteur: undefined, action: undefined }))
    : [];
  for (const e of validateBlocksAgainstCatalogue(blocks, ctx)) {
    if (seen.has(e.key)) continue;
    seen.add(e.key);
    errors.push(e);
  }
  return errors;
}
