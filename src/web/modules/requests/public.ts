// What other modules may use of the requests (lint: a module reaches another only through its
// public.ts): the query keys, so that a screen that changes requests (turning a public report
// into one) refreshes the board; the board's pending list and the prefill its 'Traiter' puts
// in the site sheet, for the map's site card and the day's route, which process a request the
// same way.
export { pendingQuery, requestsKeys } from './requests.api';
export { requestPrefill } from './request-prefill';
