// Import of streets from a Base Adresse Nationale CSV (`;`-separated, header row with
// nom_voie and code_insee). One street per (city, name), whatever its house numbers; and, when
// the file has them (numero, rep, lon, lat), one address point per (city, street, number), which
// places the sites on a map: after the import, every site still without coordinates whose city,
// street and number match a point takes that point's.
import fs from 'node:fs';
import readline from 'node:readline';
import { sql } from 'kysely';
import type { Db } from '../../db/client.js';
import { SAMPLE_STREETS_FILE } from '../../db/seed.js';

export interface StreetImportResult {
  read: number;
  streets: number;
  inserted: number;
  /** Address points written (new or moved). */
  points: number;
  /** Sites that had no coordinates and got those of their address. */
  sitesLocated: number;
}

const strip = (s: string) => s.normalize('NFD').replace(/[\u0300-\u036f]/g, '');

/**
 * How a street name is compared: no accents, lower case, hyphens and apostrophes as in the
 * file or typed, single spaces ('Rue Jean-Jaurès' and 'rue jean jaures' are one street).
 */
export function streetKey(nom: string): string {
  return strip(nom)
    .toLowerCase()
    .replace(/[’‘`]/g, "'")
    .replace(/[-‐–]/g, ' ')
    .replace(/\s+/g, ' ')
    .trim();
}

/** A house number with its repetition index: '5', ' 5 bis', '05BIS' are all '5bis'. */
export function numberKey(numero: string, rep = ''): string {
  return strip(`${numero}${rep}`)
    .toLowerCase()
    .replace(/\s+/g, '')
    .replace(/^0+(?=\d)/, '');
}

/** The keys under which a site's address is looked up among the points. */
export function addressKeys(site: { code_insee: string | null; adresse: string; numero: string | null }) {
  if (!site.code_insee || !site.numero || !site.adresse) return null;
  const voie = streetKey(site.adresse);
  const numero = numberKey(site.numero);
  if (!voie || !numero) return null;
  return { code_insee: site.code_insee, voie_cle: voie, numero_cle: numero };
}

const coordinate = (v: string | undefined, limit: number) => {
  const s = v?.trim();
  if (!s || !/^-?\d+(\.\d+)?$/.test(s)) return null;
  const n = Number(s);
  return Math.abs(n) <= limit ? n : null;
};

type Point = { code_insee: string; voie_cle: string; numero_cle: string; longitude: number; latitude: number };

export async function importStreets(db: Db, file: string): Promise<StreetImportResult> {
  const rl = readline.createInterface({ input: fs.createReadStream(file, 'utf8'), crlfDelay: Infinity });
  let header: string[] | null = null;
  let read = 0;
  const streets = new Map<string, { code_insee: string; nom: string }>();
  const points = new Map<string, Point>();
  const col = { nom: -1, insee: -1, numero: -1, rep: -1, lon: -1, lat: -1 };
  for await (const rawLine of rl) {
    const line = rawLine.replace(/^\uFEFF/, '');
    if (!line.trim()) continue;
    const cols = line.split(';');
    if (!header) {
      header = cols.map((c) => c.trim());
      if (!header.includes('nom_voie') || !header.includes('code_insee')) {
        throw new Error(`${file} : colonnes nom_voie et code_insee attendues (format Base Adresse Nationale)`);
      }
      Object.assign(col, {
        nom: header.indexOf('nom_voie'),
        insee: header.indexOf('code_insee'),
        numero: header.indexOf('numero'),
        rep: header.indexOf('rep'),
        lon: header.indexOf('lon'),
        lat: header.indexOf('lat'),
      });
      continue;
    }
    read++;
    const nom = cols[col.nom]?.trim();
    const codeInsee = cols[col.insee]?.trim();
    if (!nom || !codeInsee) continue;
    streets.set(`${codeInsee}|${nom}`, { code_insee: codeInsee, nom });
    if (col.numero < 0 || col.lon < 0 || col.lat < 0) continue;
    const numero = numberKey(cols[col.numero] ?? '', col.rep >= 0 ? (cols[col.rep] ?? '') : '');
    const longitude = coordinate(cols[col.lon], 180);
    const latitude = coordinate(cols[col.lat], 90);
    if (!numero || longitude === null || latitude === null) continue;
    const point = { code_insee: codeInsee, voie_cle: streetKey(nom), numero_cle: numero, longitude, latitude };
    // The last line of an address wins, as a later file would.
    points.set(`${point.code_insee}|${point.voie_cle}|${point.numero_cle}`, point);
  }
  const rows = [...streets.values()];
  const pointRows = [...points.values()];
  // One transaction: a failed import leaves the street lists, the points and the sites as they were.
  return db.transaction().execute(async (trx) => {
    let inserted = 0;
    for (let i = 0; i < rows.length; i += 1000) {
      const res = await trx
        .insertInto('rue')
        .values(rows.slice(i, i + 1000))
        .onConflict((oc) => oc.columns(['code_insee', 'nom']).doNothing())
        .executeTakeFirst();
      inserted += Number(res.numInsertedOrUpdatedRows ?? 0);
    }
    let written = 0;
    for (let i = 0; i < pointRows.length; i += 1000) {
      const res = await trx
        .insertInto('adresse_point')
        .values(pointRows.slice(i, i + 1000))
        .onConflict((oc) =>
          oc
            .columns(['code_insee', 'voie_cle', 'numero_cle'])
            .doUpdateSet((eb) => ({ longitude: eb.ref('excluded.longitude'), latitude: eb.ref('excluded.latitude') }))
            .where((eb) =>
              eb.or([eb('adresse_point.longitude', '<>', eb.ref('excluded.longitude')), eb('adresse_point.latitude', '<>', eb.ref('excluded.latitude'))]),
            ),
        )
        .executeTakeFirst();
      written += Number(res.numInsertedOrUpdatedRows ?? 0);
    }
    const sitesLocated = pointRows.length > 0 ? await locateSites(trx, points) : 0;
    return { read, streets: rows.length, inserted, points: written, sitesLocated };
  });
}

/** Gives the sites without coordinates those of their address, when this import has it. */
async function locateSites(db: Db, points: Map<string, Point>): Promise<number> {
  let located = 0;
  let after = 0;
  for (;;) {
    const sites = await db
      .selectFrom('site')
      .where('latitude', 'is', null)
      .where('id', '>', after)
      .select(['id', 'code_insee', 'adresse', 'numero'])
      .orderBy('id')
      .limit(1000)
      .execute();
    for (const site of sites) {
      const keys = addressKeys(site);
      const point = keys && points.get(`${keys.code_insee}|${keys.voie_cle}|${keys.numero_cle}`);
      if (!point) continue;
      await db
        .updateTable('site')
        .set({ latitude: point.latitude, longitude: point.longitude, coordonnees_source: 'ban' })
        .where('id', '=', site.id)
        .where('latitude', 'is', null)
        .execute();
      located++;
    }
    if (sites.length < 1000) return located;
    after = sites[sites.length - 1].id;
  }
}

/** The small sample of streets shipped with the code, imported on a start that finds none. */
export async function seedStreetsSample(db: Db) {
  const count = await db.selectFrom('rue').select(sql<number>`count(*)::int`.as('n')).executeTakeFirstOrThrow();
  if (count.n > 0 || !fs.existsSync(SAMPLE_STREETS_FILE)) return 0;
  return (await importStreets(db, SAMPLE_STREETS_FILE)).inserted;
}
