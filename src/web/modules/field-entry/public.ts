// What other modules may use of the field entry (lint: a module reaches another only through
// its public.ts). The interventions administration edits one block with the sheet's own inputs
// and conversion; the requests board opens the sheet with requests to process and warms its
// site data; the request rules list the action constants; a permanence's tally says a refusal
// with the sheet's banner.
export { constantesQuery, siteInfosQuery } from './field-entry.api';
export { EntryBanner } from './entry-banner';
export { PageAlert } from './page-alert';
export { InterventionBlockFields, type BlockField } from './intervention-block-fields';
export {
  DATE_FORMAT,
  prefillOf,
  requestSheetValues,
  toSubmission,
  type BlockFormValues,
  type RequestPrefill,
  type SheetNavigationState,
} from './site-sheet-form';
