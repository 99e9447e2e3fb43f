import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import { TEST_DRIVERS, openTestDatabase } from '../../../tests/helpers/test-app.js';
import { verifyPassword } from '../passwords.js';
import type { DatabaseHandle } from './client.js';
import { seedAdmin, seedCities, territoryCommunes } from './seed.js';
import { seedStreetsSample } from '../modules/reference/public.js';

const BREST_METROPOLE = ['Bohars', 'Brest', 'Gouesnou', 'Guilers', 'Guipavas', 'Le Relecq-Kerhuon', 'Plougastel-Daoulas', 'Plouzané'];

describe('territory communes', () => {
  it('gives the eight communes of Brest Métropole for its SIREN, with INSEE codes and postal codes', () => {
    const rows = territoryCommunes('242900314');
    expect([...new Set(rows.map((r) => r.nom))].sort()).toEqual(BREST_METROPOLE);
    expect(rows).toContainEqual({ code_insee: '29019', nom: 'Brest', cp: '29200' });
    expect(rows).toContainEqual({ code_insee: '29075', nom: 'Guipavas', cp: '29490' });
  });

  it('gives every current commune of the listed départements', () => {
    const finistere = territoryCommunes('29');
    expect(new Set(finistere.map((r) => r.code_insee)).size).toBeGreaterThan(250);
    expect(finistere.every((r) => r.code_insee.startsWith('29'))).toBe(true);
    expect(finistere.map((r) => r.nom)).toContain('Quimper');
    const two = territoryCommunes('29,56');
    expect(two.map((r) => r.nom)).toContain('Vannes');
    expect(two.length).toBeGreaterThan(finistere.length);
  });

  it('stops on a SIREN that is no EPCI', () => {
    expect(() => territoryCommunes('123456789')).toThrow('TERRITORY : aucun EPCI de SIREN 123456789');
  });
});

describe.each(TEST_DRIVERS)('start-time seeding (%s)', (driver) => {
  let h: DatabaseHandle;
  beforeAll(async () => {
    h = await openTestDatabase(driver);
  });
  afterAll(() => h.close());

  const villes = () => h.db.selectFrom('ville').select(['code_insee', 'nom', 'cp']).orderBy('nom').orderBy('cp').execute();

  it('seeds the cities of the territory, and replaces them when the territory changes', async () => {
    expect(await seedCities(h.db, '242900314')).toBe(territoryCommunes('242900314').length);
    expect([...new Set((await villes()).map((v) => v.nom))]).toEqual(BREST_METROPOLE);
    // A second start changes nothing.
    await seedCities(h.db, '242900314');
    expect((await villes()).length).toBe(territoryCommunes('242900314').length);

    await seedCities(h.db, '29');
    const finistere = await villes();
    expect(finistere.length).toBe(territoryCommunes('29').length);
    expect(finistere.map((v) => v.nom)).toContain('Quimper');

    await seedCities(h.db, '242900314');
    expect([...new Set((await villes()).map((v) => v.nom))]).toEqual(BREST_METROPOLE);
  });

  it('seeds the sample streets once', async () => {
    const first = await seedStreetsSample(h.db);
    expect(first).toBeGreaterThan(0);
    const brest = await h.db.selectFrom('rue').select('nom').where('code_insee', '=', '29019').execute();
    expect(brest.map((r) => r.nom)).toContain('Rue de Siam');
    expect(await seedStreetsSample(h.db)).toBe(0);
    const total = await h.db.selectFrom('rue').select(sql<number>`count(*)::int`.as('n')).executeTakeFirstOrThrow();
    expect(total.n).toBe(first);
  });

  describe('first administrator', () => {
    const admins = () =>
      h.db
        .selectFrom('account')
        .innerJoin('account_role', 'account_role.account_id', 'account.id')
        .innerJoin('role', 'role.id', 'account_role.role_id')
        .where('role.code', '=', 'ROLE_ADMIN')
        .select(['account.id', 'account.kind', 'account.identifiant', 'account.email', 'account.password_hash', 'account.actif', 'account.email_valide'])
        .execute();

    it('creates one active agent with ROLE_ADMIN and a generated password, then never again', async () => {
      const first = await seedAdmin(h.db, {});
      expect(first.created).toBe(true);
      expect(first.login).toBe('admin');
      expect(first.generatedPassword).toMatch(/^[\w-]{16}$/);
      const rows = await admins();
      expect(rows).toHaveLength(1);
      expect(rows[0]).toMatchObject({ kind: 'agent', identifiant: 'admin', email: 'admin@compost.local', actif: true, email_valide: true });
      expect(rows[0].password_hash).not.toContain(first.generatedPassword);
      expect(await verifyPassword(rows[0].password_hash, first.generatedPassword!)).toBe(true);

      const again = await seedAdmin(h.db, { ADMIN_LOGIN: 'autre', ADMIN_PASSWORD: 'un-autre-secret' });
      expect(again).toEqual({ created: false });
      expect(await admins()).toHaveLength(1);
      expect(await verifyPassword((await admins())[0].password_hash, first.generatedPassword!)).toBe(true);
    });

    it('gives ROLE_ADMIN back to the agent holding ADMIN_LOGIN when no administrator is left, without a duplicate', async () => {
      const [admin] = await admins();
      await h.db.deleteFrom('account_role').where('account_id', '=', admin.id).execute();
      await h.db.updateTable('account').set({ actif: false }).where('id', '=', admin.id).execute();
      const res = await seedAdmin(h.db, { ADMIN_LOGIN: 'ADMIN', ADMIN_PASSWORD: 'mot-de-passe-repris' });
      expect(res).toMatchObject({ created: true, login: 'ADMIN' });
      const rows = await admins();
      expect(rows).toHaveLength(1);
      expect(rows[0]).toMatchObject({ id: admin.id, actif: true, email_valide: true });
      expect(await verifyPassword(rows[0].password_hash, 'mot-de-passe-repris')).toBe(true);
      const agents = await h.db.selectFrom('account').select('id').where('kind', '=', 'agent').execute();
      expect(agents).toHaveLength(1);
    });
  });
});

describe.each(TEST_DRIVERS)('first administrator from the environment (%s)', (driver) => {
  let h: DatabaseHandle;
  beforeAll(async () => {
    h = await openTestDatabase(driver);
  });
  afterAll(() => h.close());

  it('uses ADMIN_LOGIN, ADMIN_PASSWORD and ADMIN_EMAIL without printing a password', async () => {
    const res = await seedAdmin(h.db, { ADMIN_LOGIN: 'chef', ADMIN_PASSWORD: 'mot-de-passe-choisi', ADMIN_EMAIL: 'chef@exemple.fr' });
    expect(res).toEqual({ created: true, login: 'chef', generatedPassword: undefined });
    const row = await h.db.selectFrom('account').selectAll().where('identifiant', '=', 'chef').executeTakeFirstOrThrow();
    expect(row.email).toBe('chef@exemple.fr');
    expect(await verifyPassword(row.password_hash, 'mot-de-passe-choisi')).toBe(true);
  });
});
