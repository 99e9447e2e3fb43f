import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TEST_DRIVERS, openTestDatabase } from '../../../../tests/helpers/test-app.js';
import { seedCities, SAMPLE_STREETS_FILE } from '../../db/seed.js';
import { createSite } from '../field-entry/test-factories.js';
import { importStreets, numberKey, streetKey } from './streets-import.js';

describe('address keys', () => {
  it('compares street names without accents, case, hyphens or extra spaces', () => {
    expect(streetKey('Rue Jean-Jaurès')).toBe('rue jean jaures');
    expect(streetKey('  rue   JEAN jaures ')).toBe('rue jean jaures');
    expect(streetKey('Allée d’Écosse')).toBe("allee d'ecosse");
  });

  it('writes a house number and its repetition index as one word', () => {
    expect(numberKey('5', 'bis')).toBe('5bis');
    expect(numberKey(' 5 bis')).toBe('5bis');
    expect(numberKey('05BIS')).toBe('5bis');
    expect(numberKey('0')).toBe('0');
  });
});

describe.each(TEST_DRIVERS)('street import with address points (%s)', (driver) => {
  let handle: Awaited<ReturnType<typeof openTestDatabase>>;
  let dir: string;
  beforeAll(async () => {
    handle = await openTestDatabase(driver);
    await seedCities(handle.db, '242900314');
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'compost-streets-'));
  });
  afterAll(async () => {
    fs.rmSync(dir, { recursive: true, force: true });
    await handle.close();
  });

  const at = (id: number) => handle.db.selectFrom('site').where('id', '=', id).select(['latitude', 'longitude', 'coordonnees_source']).executeTakeFirstOrThrow();

  it('stores one point per address of the file and places the sites still without coordinates', async () => {
    const db = handle.db;
    const onSiam = await createSite(db);
    await db.updateTable('site').set({ adresse: 'RUE DE SIAM', numero: '3' }).where('id', '=', onSiam.id).execute();
    const typed = await createSite(db);
    await db.updateTable('site').set({ adresse: 'Rue de Siam', numero: '1', latitude: 48.5, longitude: -4.6, coordonnees_source: 'saisie' }).where('id', '=', typed.id).execute();
    const nowhere = await createSite(db);
    await db.updateTable('site').set({ adresse: 'Rue de Siam', numero: '2' }).where('id', '=', nowhere.id).execute();

    const result = await importStreets(db, SAMPLE_STREETS_FILE);
    expect(result).toMatchObject({ read: 20, streets: 19, points: 20, sitesLocated: 1 });
    const point = await db.selectFrom('adresse_point').where('code_insee', '=', '29019').where('voie_cle', '=', 'boulevard gambetta').selectAll().executeTakeFirstOrThrow();
    expect(point).toEqual({ code_insee: '29019', voie_cle: 'boulevard gambetta', numero_cle: '5bis', longitude: -4.481, latitude: 48.39 });
    expect(await at(onSiam.id)).toEqual({ latitude: 48.3881, longitude: -4.489, coordonnees_source: 'ban' });
    expect(await at(typed.id)).toEqual({ latitude: 48.5, longitude: -4.6, coordonnees_source: 'saisie' });
    expect(await at(nowhere.id)).toEqual({ latitude: null, longitude: null, coordonnees_source: null });

    // Again: nothing new; a point that moved in a later file is moved.
    expect(await importStreets(db, SAMPLE_STREETS_FILE)).toMatchObject({ inserted: 0, points: 0, sitesLocated: 0 });
    const moved = path.join(dir, 'moved.csv');
    fs.writeFileSync(moved, 'numero;rep;nom_voie;code_insee;lon;lat\n3;;Rue de Siam;29019;-4.4999;48.3999\n');
    expect(await importStreets(db, moved)).toMatchObject({ points: 1 });
    const siam3 = await db.selectFrom('adresse_point').where('voie_cle', '=', 'rue de siam').where('numero_cle', '=', '3').select(['longitude', 'latitude']).executeTakeFirstOrThrow();
    expect(siam3).toEqual({ longitude: -4.4999, latitude: 48.3999 });
  });

  it('imports streets alone from a file without coordinates, and skips points out of range', async () => {
    const file = path.join(dir, 'streets.csv');
    fs.writeFileSync(file, '\uFEFFnom_voie;code_insee\nRue Neuve;29019\n');
    expect(await importStreets(handle.db, file)).toMatchObject({ read: 1, streets: 1, points: 0 });
    const bad = path.join(dir, 'bad.csv');
    fs.writeFileSync(bad, 'numero;nom_voie;code_insee;lon;lat\n4;Rue Neuve;29019;-4,48;48.39\n6;Rue Neuve;29019;200;48.39\n8;Rue Neuve;29019;-4.48;48.39\n');
    expect(await importStreets(handle.db, bad)).toMatchObject({ read: 3, points: 1 });
  });
});
