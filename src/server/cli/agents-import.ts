// `npm run agents:import -- file.csv`: creates or updates internal agents (columns
// identifiant;prenom;nom;email) and prints what was done, line by line for rejected rows.
import { runImportCli } from './cli-support.js';
import { formatAgentsImportSummary, importAgents } from '../modules/account/agents-import.js';

process.exitCode = await runImportCli('agents:import', async (db, file) => formatAgentsImportSummary(await importAgents(db, file)));
