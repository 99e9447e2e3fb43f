// What other modules may use of the public side of the sites (lint: a module reaches another
// only through its public.ts): the public reports panel the requests board shows, loaded lazily.
export { ReportsPanel } from './reports-panel';
