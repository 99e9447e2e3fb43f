import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TEST_DRIVERS, createAccount, createTestApp, loggedAs } from '../../../../tests/helpers/test-app.js';

/** The action catalogue, written out by hand: id, libelle, allowed cell types, value. */
const ACTIONS: [number, string, number[], string][] = [
  [1, 'Retournement', [1, 3], 'none'],
  [2, 'Brassage', [1], 'none'],
  [3, 'Transfert', [1], 'transfer'],
  [4, 'Vider la cellule', [1, 2, 3], 'litres'],
  [5, 'Nettoyage du site', [1, 2, 3], 'none'],
  [6, 'Température', [1, 3], 'temperature'],
  [7, 'Niveau de broyat', [2], 'constant'],
  [8, 'État du broyat', [2], 'constant'],
  [9, 'État du composteur', [1, 2, 3], 'constant'],
  [10, 'Prélèvement', [3], 'litres'],
  [11, 'Distribution de compost', [3], 'litres'],
  [12, 'Apport de broyat', [2], 'litres'],
  [13, 'Autre intervention', [1, 2, 3], 'none'],
  [14, 'Réparation effectuée', [1, 2, 3], 'text'],
  [15, 'Arrosage', [1, 3], 'litres'],
  [16, 'Niveau d\'apport', [1], 'constant'],
  [17, 'Tamisage', [3], 'litres'],
  [18, 'Réparation à effectuer', [1, 2, 3], 'text'],
  [19, 'Niveau de matière', [3], 'constant'],
];
const LEVELS = ['Vide', '1/4', '1/2', '3/4', 'Plein'];
const CONSTANTS_BY_ACTION: Record<number, [number, string][]> = {
  7: LEVELS.map((c, i) => [i + 1, c]),
  16: LEVELS.map((c, i) => [i + 1, c]),
  19: LEVELS.map((c, i) => [i + 1, c]),
  8: [[6, 'Sec'], [7, 'Correct'], [8, 'Humide'], [9, 'Moisi']],
  9: [[10, 'Bon état'], [11, 'Usé'], [12, 'Endommagé']],
};

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

  it('lists the 19 action types of the catalogue with their allowed cell types, value kind and constants', async () => {
    type Action = { id: number; libelle: string; valeur: boolean; typeBac: number[]; valueKind: string; aConstantes: boolean; constantes: { idConstante: number; constante: string }[] };
    const list = (await ctx.app.inject('/api/typeAction/get/all')).json() as Action[];
    expect(list.map((a) => [a.id, a.libelle, a.typeBac, a.valueKind])).toEqual(ACTIONS);
    for (const a of list) {
      const expected = CONSTANTS_BY_ACTION[a.id] ?? [];
      expect(a.constantes.map((c) => [c.idConstante, c.constante]), `action ${a.id}`).toEqual(expected);
      expect(a.aConstantes).toBe(expected.length > 0);
      expect(a.valeur).toBe(a.valueKind !== 'none');
    }
  });

  it('seeds the request rules, statuses and site types of the reference data', async () => {
    const rules = await ctx.db
      .selectFrom('demande_rule')
      .select(['type_action_declenchante_id', 'id_constante', 'type_action_programmee_id', 'delai_jours'])
      .orderBy('type_action_declenchante_id')
      .orderBy('id_constante')
      .execute();
    expect(rules.map((r) => [r.type_action_declenchante_id, r.id_constante, r.type_action_programmee_id, r.delai_jours])).toEqual([
      [7, 1, 12, 7],
      [7, 2, 12, 7],
      [9, 12, 14, 14],
      [16, 4, 3, 7],
      [16, 5, 3, 7],
      [18, null, 14, 14],
      [19, 5, 17, 30],
    ]);
    expect(await ctx.db.selectFrom('statut').select(['id', 'libelle']).orderBy('id').execute()).toEqual([
      { id: 1, libelle: 'Actif' },
      { id: 2, libelle: 'Demande' },
      { id: 3, libelle: 'En attente' },
      { id: 4, libelle: 'Programmée' },
      { id: 5, libelle: 'Réalisée' },
      { id: 6, libelle: 'Annulée' },
    ]);
    const types = (await ctx.app.inject('/api/typeSite/get/all')).json() as { libelle: string; code: string }[];
    expect(types.map((t) => [t.libelle, t.code])).toEqual(
      expect.arrayContaining([
        ['Pied d\'immeuble', 'PIM'],
        ['Quartier', 'QUA'],
        ['Établissement scolaire', 'SCO'],
        ['Jardin partagé', 'JAR'],
      ]),
    );
    const roles = await ctx.db.selectFrom('role').select('code').orderBy('id').execute();
    expect(roles.map((r) => r.code)).toEqual(['ROLE_ADMIN', 'ROLE_ADMIN_SITE', 'ROLE_ADMIN_USER', 'ROLE_ADMIN_ROLE', 'ROLE_ADMIN_COMPOSTEUR', 'ROLE_ADMIN_UPDATE', 'ROLE_ADMIN_DELETE', 'ROLE_USER', 'ROLE_PRESTATAIRE']);
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
    // By INSEE code as well; a city outside the territory has none.
    expect((await ctx.app.inject('/api/rues/get/all/29075')).json()).toEqual([{ nom: 'Rue de Paris' }]);
    expect((await ctx.app.inject('/api/rues/get/all/Quimper')).json()).toEqual([]);
  });

  it('answers a city name too long to be one, or a malformed address, with a French error', async () => {
    for (const url of [`/api/rues/get/all/${'x'.repeat(101)}`, '/api/rues/get/all/%E0%A4%A']) {
      const res = await ctx.app.inject(url);
      expect(res.statusCode, url).toBe(400);
      expect(res.json()).toEqual({ status: 'error', message: 'Requête invalide.' });
    }
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
    const noRole = await loggedAs(ctx, [], { kind: 'agent' });
    expect((await ctx.app.inject({ url: '/api/admin/annee/get/all', headers: { cookie: noRole.cookie } })).statusCode).toBe(403);
    expect((await ctx.app.inject({ url: '/api/admin/statut/get/all/sites', headers: { cookie: noRole.cookie } })).statusCode).toBe(403);
    const statuts = (await ctx.app.inject({ url: '/api/admin/statut/get/all/demandes/interventions', headers: { cookie: user.cookie } })).json();
    expect(statuts.map((s: { id: number }) => s.id)).toEqual([3, 4, 5, 6]);
    const sites = (await ctx.app.inject({ url: '/api/admin/statut/get/all/sites', headers: { cookie: user.cookie } })).json();
    expect(sites).toEqual([
      { id: 1, libelle: 'Actif' },
      { id: 2, libelle: 'Demande' },
    ]);
  });

  it('lists the years that have interventions, in Paris time, newest first (the current year only when there are none)', async () => {
    const agent = await createAccount(ctx.db, { roles: ['ROLE_ADMIN'] });
    const typeSite = await ctx.db.selectFrom('type_site').select('id').where('code', '=', 'QUA').executeTakeFirstOrThrow();
    const site = await ctx.db
      .insertInto('site')
      .values({ code: 'QUA900', ville: 'Brest', cp: '29200', adresse: 'Rue de Siam', type_site_id: typeSite.id, statut_id: 1 })
      .returning('id')
      .executeTakeFirstOrThrow();
    const bac = await ctx.db
      .insertInto('site_composteur')
      .values({ site_id: site.id, type_composteur_id: (await ctx.db.selectFrom('type_composteur').select('id').executeTakeFirstOrThrow()).id, type_bac_id: 1, numero: 1 })
      .returning('id')
      .executeTakeFirstOrThrow();
    // 31 December 2021 23:30 UTC is already 2022 in Paris.
    for (const date of ['2019-06-01T10:00:00Z', '2021-12-31T23:30:00Z', '2019-07-01T10:00:00Z']) {
      await ctx.db.insertInto('intervention').values({ date: new Date(date), site_id: site.id, site_composteur_id: bac.id, type_action_id: 1, intervenant_id: agent.id }).execute();
    }
    const user = await loggedAs(ctx, ['ROLE_ADMIN_SITE']);
    const years = (await ctx.app.inject({ url: '/api/admin/annee/get/all', headers: { cookie: user.cookie } })).json();
    expect(years).toEqual([{ annee: 2022 }, { annee: 2019 }]);
  });
});
