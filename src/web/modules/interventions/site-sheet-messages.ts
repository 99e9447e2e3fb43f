// Messages of the site sheet that the shell shows too (interventions.setup.tsx, when a queued
// entry reaches the server): apart, so that the shell does not load the site sheet for them.

/** After processing requests from the board (the contract's wording), online or once replayed. */
export const PROCESSED_MESSAGE = 'Intervention(s) enregistrée(s) avec succès';
