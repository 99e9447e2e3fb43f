import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import { TEST_DRIVERS, openTestDatabase } from '../../../tests/helpers/test-app.js';
import { seedCities } from './seed.js';
import { seedDemoData } from './demo-data.js';
import type { DatabaseHandle } from './client.js';
import { isSwapped, positionErrors, type Box } from '../../shared/schemas/territory.js';

/** Brest Métropole's extent as a map shows it (Plouzané to the Daoulas river, Plougastel's points to Gouesnou), rounded outward. */
const BREST_METROPOLE: Box = { south: 48.32, north: 48.49, west: -4.67, east: -4.26 };
/** Rough centres of its communes, by INSEE code, read on a map to two decimals. */
const CENTRES: Record<string, [number, number]> = {
  '29011': [48.43, -4.51], // Bohars
  '29019': [48.39, -4.49], // Brest
  '29061': [48.45, -4.46], // Gouesnou
  '29069': [48.43, -4.56], // Guilers
  '29075': [48.44, -4.4], // Guipavas
  '29189': [48.37, -4.37], // Plougastel-Daoulas
  '29212': [48.38, -4.62], // Plouzané
  '29235': [48.41, -4.4], // Le Relecq-Kerhuon
};
/** Kilometres between two nearby points (flat earth, fine at a city's scale). */
const km = (a: [number, number], b: [number, number]) => Math.hypot((a[0] - b[0]) * 111.2, (a[1] - b[1]) * 111.2 * Math.cos((48.4 * Math.PI) / 180));

describe.each(TEST_DRIVERS)('demo data (%s)', (driver) => {
  let h: DatabaseHandle;
  beforeAll(async () => {
    h = await openTestDatabase(driver);
    await seedCities(h.db, '242900314');
  });
  afterAll(() => h.close());

  it('creates active sites with cells and referents, requests, a provider and a year of interventions, once', async () => {
    const first = await seedDemoData(h.db);
    expect(first.created).toBe(true);
    const count = async (table: 'site' | 'site_composteur' | 'site_referent' | 'intervention' | 'demande_intervention') =>
      (await h.db.selectFrom(table).select(sql<number>`count(*)::int`.as('n')).executeTakeFirstOrThrow()).n;
    expect(await count('site')).toBeGreaterThanOrEqual(30);
    expect(await count('site_composteur')).toBeGreaterThanOrEqual(90);
    expect(await count('site_referent')).toBe(30);
    expect(await count('intervention')).toBeGreaterThan(1000);
    expect(await count('demande_intervention')).toBeGreaterThan(0);
    const provider = await h.db.selectFrom('account_role').where('role_id', '=', 9).select('account_id').execute();
    expect(provider).toHaveLength(1);
    const agents = await h.db.selectFrom('account').where('kind', '=', 'agent').where('identifiant', 'in', ['rpenven', 'tlhostis']).select('id').execute();
    expect(agents).toHaveLength(2);
    const future = await h.db.selectFrom('intervention').where('date', '>', new Date(Date.now() + 60_000)).select('id').execute();
    expect(future).toHaveLength(0);
    // Every transfer goes to a maturation cell of the same site.
    const badTransfers = await h.db
      .selectFrom('intervention')
      .innerJoin('site_composteur as dest', 'dest.id', 'intervention.bac_destination_id')
      .where((eb) => eb.or([eb('dest.type_bac_id', '!=', 3), eb('dest.site_id', '!=', eb.ref('intervention.site_id'))]))
      .select('intervention.id')
      .execute();
    expect(badTransfers).toHaveLength(0);
    expect((await seedDemoData(h.db)).created).toBe(false);
    expect(await count('site')).toBeGreaterThanOrEqual(30);
  });

  it('places every demo site in Brest Métropole, near the centre of its own commune, none swapped', async () => {
    await seedDemoData(h.db);
    const sites = await h.db.selectFrom('site').select(['code', 'code_insee', 'latitude', 'longitude', 'coordonnees_source']).execute();
    expect(sites).toHaveLength(34);
    expect(new Set(sites.map((s) => s.code_insee)).size).toBe(8);
    for (const s of sites) {
      expect(s.latitude, s.code).not.toBeNull();
      expect(s.longitude, s.code).not.toBeNull();
      expect(s.coordonnees_source).toBe('saisie');
      const at: [number, number] = [s.latitude!, s.longitude!];
      expect(positionErrors([BREST_METROPOLE], ...at), s.code).toEqual([]);
      expect(isSwapped([BREST_METROPOLE], ...at)).toBe(false);
      const nearest = Object.entries(CENTRES).sort(([, a], [, b]) => km(at, a) - km(at, b))[0][0];
      expect(nearest, `${s.code} at ${at.join(', ')}`).toBe(s.code_insee);
      expect(km(at, CENTRES[s.code_insee!]), s.code).toBeLessThan(1.5);
    }
    // Two sites never share a spot.
    expect(new Set(sites.map((s) => `${s.latitude},${s.longitude}`)).size).toBe(sites.length);
  });
});
