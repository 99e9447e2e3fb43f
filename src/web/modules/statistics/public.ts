// What other modules may use of the statistics (lint: a module reaches another only through
// its public.ts): the years that have interventions, which the yearly report offers too.
export { yearsQuery } from './statistics.api';
