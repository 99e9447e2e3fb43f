// What the start and the backup job may use of the alerts module: the daily job's scheduler and
// its Paris-time slots.
export { lastSlot, nextSlot, startAlertScheduler, type AlertScheduler } from './alerts.scheduler.js';
