// Validation of the site sheet with the SAME rules as the server: the submission's shape
// (required cell and action, date not in the future...) and the catalogue checks (cell of the
// site, action allowed on the cell type, value by action, transfer destination, observations
// for action 13), so an entry recorded offline is checked before it is queued. Only
// intervention-rules.ts is imported for its values: the shared zod schemas would add zod to
// the field screen's first load.
import type { FieldError } from '../../../shared/errors';
import { checkSubmission } from '../../../shared/schemas/intervention-rules';
import type { InterventionSubmission, SiteInfos } from '../../../shared/schemas/interventions';
import type { TypeAction, TypeActionConstante } from '../../../shared/schemas/reference';
import type { SubmissionDraft } from './site-sheet-form';

export interface SheetCatalogue {
  typeActions: readonly TypeAction[];
  constantes: readonly TypeActionConstante[];
  site: SiteInfos;
}

/** Server-shaped errors (values0.valeur, date), the shape's rules first, then the catalogue's. */
export function validateSubmission(payload: SubmissionDraft, ctx: SheetCatalogue): FieldError[] {
  return checkSubmission(payload, { typeActions: ctx.typeActions, constantes: ctx.constantes, cells: ctx.site.siteComposteurs });
}

/** A draft that passed validateSubmission is a submission. */
export function asSubmission(draft: SubmissionDraft, errors: readonly FieldError[]): InterventionSubmission {
  if (errors.length > 0) throw new Error('Submission is not valid');
  return draft as InterventionSubmission;
}
