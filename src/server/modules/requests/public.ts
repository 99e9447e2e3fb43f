// What other modules may use of the requests module: the lifecycle that raises, links and
// closes requests around a recorded intervention.
export { createRequestLifecycle, isPendingStatut, type RequestLifecycle, type SavedEntry } from './request-lifecycle.service.js';
export { rulesJson, type Rule, type SignalRow } from './request-lifecycle.repository.js';
