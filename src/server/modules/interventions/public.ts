// What other modules may use of the interventions module: the tables service (the export lines).
export { createInterventionTablesService } from './interventions-tables.service.js';
