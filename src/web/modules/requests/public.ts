// What other modules may use of the requests (lint: a module reaches another only through its
// public.ts): the query keys, so that a screen that changes requests (turning a public report
// into one) refreshes the board.
export { requestsKeys } from './requests.api';
