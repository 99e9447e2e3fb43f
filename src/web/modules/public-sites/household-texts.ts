// The words of the 'Je composte ici' form that the page says before sending. They are the
// households' contract (shared/schemas/households.ts, FOYER_MESSAGES and FOYER_PERSONNES_MAX)
// copied here: importing that file would bring zod, and its weight, into the page's light entry.
// household-form.test.tsx keeps the copy equal to the contract.
export const HOUSEHOLD_PERSONNES_MAX = 20;
export const HOUSEHOLD_PRENOM_MAX = 100;

export const HOUSEHOLD_TEXTS = {
  personnes: `Un nombre de personnes entre 1 et ${HOUSEHOLD_PERSONNES_MAX}`,
  email: 'Adresse mail invalide',
  consentement: 'Cochez la case pour recevoir les nouvelles du site, ou laissez l’adresse vide',
} as const;
