// Messages of the site sheet that the shell shows too (field-entry.setup.tsx, when a queued
// entry reaches the server): apart, so that the shell does not load the site sheet for them.

/** After processing requests from the board (the contract's wording), online or once replayed. */
export const PROCESSED_MESSAGE = 'Intervention(s) enregistrée(s) avec succès';
