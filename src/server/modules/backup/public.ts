// What the start and the metrics may use of the backup module: the refusal of a schema newer
// than the code, and the backups made.
export { assertSchemaKnown } from './backup.restore.js';
export { listBackups } from './backup.service.js';
export type { BackupConfig } from './backup.config.js';
