// What other modules may use of the field-entry module: the reads an entry is checked
// against (site, cells, action catalogue), and whether an entry request was a replay (metrics).
export { createFieldEntryRepository } from './field-entry.repository.js';
export { entryWasReplayed } from './replays.js';
