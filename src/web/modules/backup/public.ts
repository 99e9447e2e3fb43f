// What other modules use of the backup module: the notice on the administrator's home.
export { BackupNotice } from './backup-notice';
