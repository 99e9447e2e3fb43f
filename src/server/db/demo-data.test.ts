import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import { TEST_DRIVERS, openTestDatabase } from '../../../tests/helpers/test-app.js';
import { seedCities } from './seed.js';
import { seedDemoData } from './demo-data.js';
import type { DatabaseHandle } from './client.js';

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
});
