// Messages of the site sheet that the shell shows too (interventions.setup.tsx, when a queued
// entry reaches the server): apart, so that the shell does not load the site sheet for them.

/** After processing requests from the board (spec.md section 8), online or once replayed. */
export const PROCESSED_MESSAGE = 'Intervention(s) enregistrée(s) avec succès';
