import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TEST_DRIVERS, createTestApp, loggedAs } from '../../../../tests/helpers/test-app.js';

describe.each(TEST_DRIVERS)('reference lists (%s)', (driver) => {
  let ctx: Awaited<ReturnType<typeof createTestApp>>;
  beforeAll(async () => {
    ctx = await createTestApp(driver);
  });
  afterAll(() => ctx.close());

  it('gives the application name and the master-composter contact', async () => {
    const res = await ctx.app.inject('/api/app/info/get');
    expect(res.json()).toEqual({ appName: 'Compost test', contact: '02 98 00 00 00' });
  });

  it('lists the three user types with their contract ids', async () => {
    const res = await ctx.app.inject('/api/typeUser/get/all');
    expect(res.json()).toEqual([
      { id: 1, libelle: 'Particulier' },
      { id: 2, libelle: 'Organisme' },
      { id: 3, libelle: 'Prestataire' },
    ]);
  });

  it('lists action types with their allowed cell types and whether they carry constants', async () => {
    const list = (await ctx.app.inject('/api/typeAction/get/all')).json() as { id: number; typeBac: number[]; aConstantes: boolean; valueKind: string }[];
    expect(list).toHaveLength(19);
    const transfer = list.find((a) => a.id === 3)!;
    expect(transfer).toMatchObject({ typeBac: [1], valueKind: 'transfer', aConstantes: false });
    expect(list.find((a) => a.id === 9)).toMatchObject({ typeBac: [1, 2, 3], aConstantes: true });
  });

  it('lists action constants per action', async () => {
    const list = (await ctx.app.inject('/api/typeActionConstante/get/all')).json() as { idConstante: number; idAction: number; constante: string }[];
    expect(list.filter((c) => c.idAction === 8).map((c) => c.constante)).toEqual(['Sec', 'Correct', 'Humide', 'Moisi']);
    expect(list.filter((c) => c.idConstante === 5)).toHaveLength(3);
  });

  it('lists the cities of the territory with their postal codes and the streets of one city', async () => {
    const villes = (await ctx.app.inject('/api/ville/get/all')).json() as { nom: string; cp: string }[];
    expect(villes.map((v) => v.nom)).toContain('Brest');
    expect(villes.find((v) => v.nom === 'Guipavas')?.cp).toBe('29490');
    await ctx.db.insertInto('rue').values([{ code_insee: '29019', nom: 'Rue de Siam' }, { code_insee: '29075', nom: 'Rue de Paris' }]).execute();
    const rues = (await ctx.app.inject('/api/rues/get/all/Brest')).json();
    expect(rues).toEqual([{ nom: 'Rue de Siam' }]);
  });

  it('lists site types, composter types and cell types', async () => {
    expect(((await ctx.app.inject('/api/typeSite/get/all')).json() as { code: string }[]).map((t) => t.code).sort()).toEqual(['JAR', 'PIM', 'QUA', 'SCO']);
    expect((await ctx.app.inject('/api/typeBac/get/all')).json()).toEqual([
      { id: 1, libelle: 'Apport' },
      { id: 2, libelle: 'Broyat' },
      { id: 3, libelle: 'Maturation' },
    ]);
    expect(((await ctx.app.inject('/api/typeComposteur/get/all')).json() as unknown[]).length).toBeGreaterThan(0);
  });

  it('keeps admin reference lists behind a session', async () => {
    expect((await ctx.app.inject('/api/admin/annee/get/all')).statusCode).toBe(401);
    expect((await ctx.app.inject('/api/admin/statut/get/all/sites')).statusCode).toBe(401);
    const user = await loggedAs(ctx, ['ROLE_USER']);
    const years = (await ctx.app.inject({ url: '/api/admin/annee/get/all', headers: { cookie: user.cookie } })).json();
    expect(years).toEqual([{ annee: new Date().getFullYear() }]);
    const statuts = (await ctx.app.inject({ url: '/api/admin/statut/get/all/demandes/interventions', headers: { cookie: user.cookie } })).json();
    expect(statuts.map((s: { id: number }) => s.id)).toEqual([3, 4, 5, 6]);
    const sites = (await ctx.app.inject({ url: '/api/admin/statut/get/all/sites', headers: { cookie: user.cookie } })).json();
    expect(sites).toEqual([
      { id: 1, libelle: 'Actif' },
      { id: 2, libelle: 'Demande' },
    ]);
  });
});
