// Import of streets from a Base Adresse Nationale CSV (`;`-separated, header row with
// nom_voie and code_insee). One street per (city, name), whatever its house numbers.
import fs from 'node:fs';
import readline from 'node:readline';
import type { Db } from '../../db/client.js';

export interface StreetImportResult {
  read: number;
  streets: number;
  inserted: number;
}

export async function importStreets(db: Db, file: string): Promise<StreetImportResult> {
  const rl = readline.createInterface({ input: fs.createReadStream(file, 'utf8'), crlfDelay: Infinity });
  let header: string[] | null = null;
  let read = 0;
  const streets = new Map<string, { code_insee: string; nom: string }>();
  for await (const rawLine of rl) {
    const line = rawLine.replace(/^\uFEFF/, '');
    if (!line.trim()) continue;
    const cols = line.split(';');
    if (!header) {
      header = cols.map((c) => c.trim());
      if (!header.includes('nom_voie') || !header.includes('code_insee')) {
        throw new Error(`${file} : colonnes nom_voie et code_insee attendues (format Base Adresse Nationale)`);
      }
      continue;
    }
    read++;
    const nom = cols[header.indexOf('nom_voie')]?.trim();
    const codeInsee = cols[header.indexOf('code_insee')]?.trim();
    if (!nom || !codeInsee) continue;
    streets.set(`${codeInsee}|${nom}`, { code_insee: codeInsee, nom });
  }
  const rows = [...streets.values()];
  // One transaction: a failed import leaves the street lists as they were.
  const inserted = await db.transaction().execute(async (trx) => {
    let n = 0;
    for (let i = 0; i < rows.length; i += 1000) {
      const res = await trx
        .insertInto('rue')
        .values(rows.slice(i, i + 1000))
        .onConflict((oc) => oc.columns(['code_insee', 'nom']).doNothing())
        .executeTakeFirst();
      n += Number(res.numInsertedOrUpdatedRows ?? 0);
    }
    return n;
  });
  return { read, streets: rows.length, inserted };
}
