// What other modules may use of the field entry (lint: a module reaches another only through
// its public.ts). The interventions administration edits one block with the sheet's own inputs
// and conversion; the requests board opens the sheet with requests to process and warms its
// site data; the request rules list the action constants.
export { constantesQuery, siteInfosQuery } from './field-entry.api';
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
