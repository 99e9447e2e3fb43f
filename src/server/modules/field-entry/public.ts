// What other modules may use of the field-entry module: the reads an entry is checked
// against (site, cells, action catalogue).
export { createFieldEntryRepository } from './field-entry.repository.js';
