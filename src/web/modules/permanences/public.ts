// What other modules may use of the permanences: the outbox page says a queued tally the same
// way as the permanences screen, and links back to it to correct one.
export { bilanLines, bilanTitle, formatPermanenceWhen, permanencesPath } from './permanence-format';
