// The site sheet's form model, free of React: what the inputs hold and how it becomes the
// submission the API (and the outbox) expects. Validation is in site-sheet-validation.ts.
// Only types come from the shared zod schemas here (their values would pull zod into the
// first load of the field screen); intervention-rules.ts is zod-free.
import dayjs from 'dayjs';
import { ACTION_AUTRE, TYPE_BAC_MATURATION } from '../../../shared/schemas/intervention-rules';
import type { InterventionSubmission } from '../../../shared/schemas/interventions';
import type { TypeAction } from '../../../shared/schemas/reference';

/** One action block as the inputs hold it (selects give strings, number inputs number | ''). */
export interface BlockFormValues {
  composteur: string | null;
  action: string | null;
  valeur: string | number | null;
  bacDestination: string | null;
  observations: string;
  demandeIntervention: number | null;
}

export interface SheetFormValues {
  /** DateTimePicker value, local time 'YYYY-MM-DD HH:mm:ss'. */
  date: string | null;
  values: BlockFormValues[];
}

export type ValueKind = TypeAction['valueKind'];

export const OBSERVATIONS_REQUIRED_ACTION = ACTION_AUTRE;
/** Only maturation cells receive a transfer (docs/domain.md, actions and their values). */
export const TRANSFER_DESTINATION_CELL_TYPE = TYPE_BAC_MATURATION;
export const DATE_FORMAT = 'YYYY-MM-DD HH:mm:ss';

export function emptyBlock(cellId: string | null = null): BlockFormValues {
  return { composteur: cellId, action: null, valeur: null, bacDestination: null, observations: '', demandeIntervention: null };
}

export function nowValue(now: Date = new Date()): string {
  return dayjs(now).second(0).format(DATE_FORMAT);
}

export function initialSheetValues(preselectedCell: string | null, now?: Date): SheetFormValues {
  return { date: nowValue(now), values: [emptyBlock(preselectedCell)] };
}

export function valueKindOf(actionId: string | number | null, typeActions: readonly TypeAction[]): ValueKind {
  if (actionId === null || actionId === '') return 'none';
  return typeActions.find((a) => a.id === Number(actionId))?.valueKind ?? 'none';
}

function toId(value: string | null): number | null {
  if (value === null || value === '') return null;
  const n = Number(value);
  return Number.isInteger(n) ? n : null;
}

/** A typed number (54,5 on a French keyboard) as a number; anything else stays text so the shared validation can say it is not a valid value. */
function toNumber(value: string | number | null): number | string | null {
  if (value === null) return null;
  if (typeof value === 'number') return value;
  const text = value.trim();
  if (text === '') return null;
  return /^-?\d+([.,]\d+)?$/.test(text) ? Number(text.replace(',', '.')) : text;
}

function toValeur(kind: ValueKind, value: string | number | null): number | string | null {
  switch (kind) {
    case 'litres':
    case 'transfer':
    case 'temperature':
      return toNumber(value);
    case 'constant':
      return value === null || value === '' ? null : Number(value);
    case 'text': {
      const text = value === null ? '' : String(value).trim();
      return text === '' ? null : text;
    }
    default:
      return null;
  }
}

/** A submission as typed, before validation: a select may still be empty. */
export type SubmissionDraft = Omit<InterventionSubmission, 'values'> & {
  values: (Omit<InterventionSubmission['values'][number], 'composteur' | 'action'> & { composteur: number | null; action: number | null })[];
};

/** The submission sent to POST /api/admin/intervention/add (and stored in the outbox) once valid. */
export function toSubmission(form: SheetFormValues, ctx: { clientId: string; siteId: number; typeActions: readonly TypeAction[] }): SubmissionDraft {
  const date = form.date ? dayjs(form.date) : null;
  return {
    clientId: ctx.clientId,
    site: ctx.siteId,
    date: date && date.isValid() ? date.toISOString() : '',
    values: form.values.map((block) => {
      const kind = valueKindOf(block.action, ctx.typeActions);
      const observations = block.observations.trim();
      return {
        composteur: toId(block.composteur),
        action: toId(block.action),
        valeur: toValeur(kind, block.valeur),
        bacDestination: kind === 'transfer' ? toId(block.bacDestination) : null,
        observations: observations === '' ? null : observations,
        demandeIntervention: block.demandeIntervention,
      };
    }),
  };
}

/** Back from a stored submission (correcting an entry the server refused). */
export function fromSubmission(payload: SubmissionDraft): SheetFormValues {
  const date = dayjs(payload.date);
  return {
    date: date.isValid() ? date.format(DATE_FORMAT) : null,
    values: payload.values.map((b) => ({
      composteur: b.composteur === null || b.composteur === undefined ? null : String(b.composteur),
      action: b.action === null || b.action === undefined ? null : String(b.action),
      valeur: b.valeur === null || b.valeur === undefined ? null : typeof b.valeur === 'number' ? b.valeur : String(b.valeur),
      bacDestination: b.bacDestination === null || b.bacDestination === undefined ? null : String(b.bacDestination),
      observations: b.observations ?? '',
      demandeIntervention: b.demandeIntervention ?? null,
    })),
  };
}

/**
 * Form path of a server key: values0.valeur -> values.0.valeur, date -> date; null for keys no
 * input shows (the number of blocks, the clientId), which go to the banner.
 */
export function errorKeyToPath(key: string, form: SheetFormValues): string | null {
  if (key === 'date') return 'date';
  const match = /^values(\d+)\.(composteur|action|valeur|bacDestination|observations)$/.exec(key);
  if (!match || Number(match[1]) >= form.values.length) return null;
  return `values.${match[1]}.${match[2]}`;
}

/**
 * A request to process, as the requests board hands it to the site sheet through the
 * navigation state (no network call: a provider processes requests with no signal). As the
 * contract has it: the destination cell if any, else the request's cell; the scheduled action; the
 * triggering value when the trigger was action 18.
 */
export interface RequestPrefill {
  demandeIntervention: number;
  composteur: number;
  action: number;
  valeur: string | null;
}

/** The navigation state of /admin/fiche/site/{id} opened by 'Traiter'. */
export interface SheetNavigationState {
  demandes: RequestPrefill[];
}

const isId = (v: unknown): v is number => typeof v === 'number' && Number.isInteger(v) && v > 0;

/** The requests carried by a navigation state, or null (state from elsewhere, or stale and malformed). */
export function prefillOf(state: unknown): RequestPrefill[] | null {
  const list = (state as Partial<SheetNavigationState> | null)?.demandes;
  if (!Array.isArray(list) || list.length === 0) return null;
  const ok = list.every(
    (p: Partial<RequestPrefill>) => isId(p.demandeIntervention) && isId(p.composteur) && isId(p.action) && (p.valeur === null || typeof p.valeur === 'string'),
  );
  return ok ? (list as RequestPrefill[]) : null;
}

/** One block per request to process, each carrying its request. */
export function requestSheetValues(prefill: readonly RequestPrefill[], now?: Date): SheetFormValues {
  return {
    date: nowValue(now),
    values: prefill.map((p) => ({
      ...emptyBlock(String(p.composteur)),
      action: String(p.action),
      valeur: p.valeur,
      demandeIntervention: p.demandeIntervention,
    })),
  };
}
