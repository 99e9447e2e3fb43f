// Validation of the site sheet with the SAME rules as the server: the shared submission schema
// (required cell and action, date not in the future...) and validateBlocksAgainstCatalogue
// (cell of the site, action allowed on the cell type, value by action, transfer destination,
// observations for action 13), so an entry recorded offline is checked before it is queued.
// Loaded after the form has rendered (it brings zod along).
import { issuesToFieldErrors, type FieldError } from '../../../shared/errors';
import {
  interventionSubmissionSchema,
  validateBlocksAgainstCatalogue,
  type InterventionSubmission,
  type SiteInfos,
} from '../../../shared/schemas/interventions';
import type { TypeAction, TypeActionConstante } from '../../../shared/schemas/reference';
import type { SubmissionDraft } from './site-sheet-form';

export interface SheetCatalogue {
  typeActions: readonly TypeAction[];
  constantes: readonly TypeActionConstante[];
  site: SiteInfos;
}

/** Server-shaped errors (values0.valeur, date), the shape's rules first, then the catalogue's. */
export function validateSubmission(payload: SubmissionDraft, ctx: SheetCatalogue): FieldError[] {
  const errors: FieldError[] = [];
  const parsed = interventionSubmissionSchema.safeParse(payload);
  if (!parsed.success) errors.push(...issuesToFieldErrors(parsed.error.issues));
  const catalogue = validateBlocksAgainstCatalogue(payload.values, {
    typeActions: ctx.typeActions,
    constantes: ctx.constantes,
    cells: ctx.site.siteComposteurs,
  });
  const seen = new Set(errors.map((e) => e.key));
  for (const e of catalogue) {
    if (!seen.has(e.key)) {
      seen.add(e.key);
      errors.push(e);
    }
  }
  return errors;
}

/** A draft that passed validateSubmission is a submission. */
export function asSubmission(draft: SubmissionDraft, errors: readonly FieldError[]): InterventionSubmission {
  if (errors.length > 0) throw new Error('Submission is not valid');
  return draft as InterventionSubmission;
}
