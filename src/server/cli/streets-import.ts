// `npm run streets:import -- file.csv`: adds the streets of a Base Adresse Nationale CSV
// (adresses-XX.csv) to the street lists of the address fields.
import { runImportCli } from './cli-support.js';
import { importStreets } from '../modules/reference/streets-import.js';

process.exitCode = await runImportCli('streets:import', async (db, file) => {
  const r = await importStreets(db, file);
  return `Import des rues terminé : ${r.read} ligne(s) d’adresse lue(s), ${r.streets} rue(s) distincte(s), ${r.inserted} nouvelle(s) rue(s) enregistrée(s), ${r.points} point(s) d’adresse enregistré(s), ${r.sitesLocated} site(s) localisé(s).`;
});
