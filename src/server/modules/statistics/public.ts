// What other modules may use of the statistics module: its repository of monthly summaries.
export { createStatisticsRepository } from './statistics.repository.js';
