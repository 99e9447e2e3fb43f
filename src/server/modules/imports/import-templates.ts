// The templates of moving in: the header of each kind and one example line built from the
// instance's own reference lists (a city of its territory, its site and composter types), or,
// with ?donnees=1, the instance's data in the same layout, which is how a programme takes all
// its data away. The interventions file is the interventions CSV export itself.
import { Readable } from 'node:stream';
import type { Db } from '../../db/client.js';
import { csvHeader, csvLine, formatCsvCell, type CsvValue } from '../../csv.js';
import { IMPORT_COLUMNS, type ImportKind } from '../../../shared/schemas/imports.js';
import { interventionAdminListQuerySchema } from '../../../shared/schemas/interventions-admin.js';
import { createInterventionTablesService } from '../interventions/public.js';
import { createImportsRepository } from './imports.repository.js';

const line = (cells: CsvValue[]) => csvLine(cells.map((c) => formatCsvCell(c)));
const headerOf = (kind: ImportKind) => csvHeader(IMPORT_COLUMNS[kind].map((c) => c.header));

async function example(db: Db, kind: ImportKind): Promise<CsvValue[]> {
  const repo = createImportsRepository(db);
  if (kind === 'utilisateurs') return ['Particulier', 'DUPONT', 'Jean', 'jean.dupont@exemple.fr', '06 12 34 56 78', '', 'QUA001'];
  if (kind === 'interventions') return ['15/03/2024 09:30', 'QUA001', 'DUPONT Jean', 'Apport', 1, 'Arrosage', 20, 'L', 'Après un gros apport', ''];
  const [villes, types, composteurs] = await Promise.all([repo.villes(), repo.typeSites(), repo.typeComposteurs()]);
  const ville = villes[0];
  const composteur = composteurs[0] ? `${composteurs[0].volume} L - ${composteurs[0].precisions}` : '400 L - Bois';
  return [
    'QUA001',
    'Jardin des Lilas',
    '12',
    'rue des Lilas',
    'Entrée côté parc',
    ville?.cp ?? '29200',
    ville?.nom ?? 'Brest',
    types[0]?.libelle ?? 'Quartier',
    'Actif',
    '1234',
    '15/03/2021',
    '02/04/2021',
    '20/05/2021',
    '',
    '',
    'Clé chez le gardien',
    'jean.dupont@exemple.fr',
    `n°1 Apport (${composteur}) | n°2 Maturation (${composteur})`,
  ];
}

/** The template of a kind (`withData`: the instance's data, no example line) as a CSV stream. */
export async function templateCsv(db: Db, kind: ImportKind, withData: boolean): Promise<Readable> {
  if (!withData) return Readable.from([headerOf(kind) + line(await example(db, kind))]);
  if (kind === 'interventions') return createInterventionTablesService(db).exportCsv(interventionAdminListQuerySchema.parse({}));
  const repo = createImportsRepository(db);
  if (kind === 'sites') {
    const rows = await repo.exportSites();
    const body = rows.map((s) =>
      line([
        s.code, s.nom, s.numero, s.adresse, s.complement, s.cp, s.ville, s.type, s.statut, s.cadena,
        s.date_convention, s.date_implantation, s.date_inauguration,
        s.latitude === null ? null : String(s.latitude), s.longitude === null ? null : String(s.longitude),
        s.observations, s.referents, s.cellules,
      ]),
    );
    return Readable.from([headerOf(kind), ...body]);
  }
  const rows = await repo.exportUsers();
  return Readable.from([headerOf(kind), ...rows.map((u) => line([u.type, u.nom, u.prenom, u.email, u.tel, u.organisme, u.sites]))]);
}
