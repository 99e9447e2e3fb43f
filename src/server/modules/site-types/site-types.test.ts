import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TEST_DRIVERS, createTestApp, loggedAs } from '../../../../tests/helpers/test-app.js';

type Ctx = Awaited<ReturnType<typeof createTestApp>>;

describe.each(TEST_DRIVERS)('site types (%s)', (driver) => {
  let ctx: Ctx;
  let admin: string;
  const get = (url: string, cookie = admin) => ctx.app.inject({ method: 'GET', url, headers: { cookie } });
  const add = (payload: unknown, cookie = admin) => ctx.app.inject({ method: 'POST', url: '/api/admin/typeSite/add', payload: payload as object, headers: { cookie } });

  beforeAll(async () => {
    ctx = await createTestApp(driver);
    admin = (await loggedAs(ctx, ['ROLE_ADMIN'])).cookie;
  });
  afterAll(() => ctx.close());

  it('lists the seeded types sorted by name, accents ignored', async () => {
    const res = await get('/api/admin/typeSite/get/list/by/filters');
    expect(res.statusCode).toBe(200);
    expect(res.json().count).toBe(4);
    expect(res.json().typeSites.map((t: { code: string }) => t.code)).toEqual(['SCO', 'JAR', 'PIM', 'QUA']);
    const byCode = (await get('/api/admin/typeSite/get/list/by/filters?sort[name]=code&sort[direction]=desc')).json();
    expect(byCode.typeSites.map((t: { code: string }) => t.code)).toEqual(['SCO', 'QUA', 'PIM', 'JAR']);
  });

  it('filters by name ignoring accents and case, and searches names and codes', async () => {
    expect((await get('/api/admin/typeSite/get/list/by/filters?filter[libelle]=etablissement')).json().typeSites).toEqual([
      { id: expect.any(Number), libelle: 'Établissement scolaire', code: 'SCO' },
    ]);
    expect((await get('/api/admin/typeSite/get/list/by/filters?search=jar')).json().count).toBe(1);
    expect((await get('/api/admin/typeSite/get/list/by/filters?filter[libelle]=zzz')).json()).toEqual({ count: 0, typeSites: [] });
  });

  it('rejects unknown sorts and filters', async () => {
    expect((await get('/api/admin/typeSite/get/list/by/filters?sort[name]=next_sequence')).statusCode).toBe(400);
    expect((await get('/api/admin/typeSite/get/list/by/filters?filter[code]=PIM')).statusCode).toBe(400);
  });

  it('adds a type with its code upper-cased', async () => {
    const res = await add({ libelle: 'Parc public', code: 'pa' });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toMatchObject({ status: 'success', message: 'Enregistrement effectué' });
    const row = (await get('/api/admin/typeSite/get/list/by/filters?filter[libelle]=parc')).json().typeSites[0];
    expect(row).toEqual({ id: res.json().id, libelle: 'Parc public', code: 'PA' });
    const all = (await ctx.app.inject('/api/typeSite/get/all')).json() as { code: string }[];
    expect(all.map((t) => t.code)).toContain('PA');
  });

  it('says which field is wrong', async () => {
    const cases: [unknown, string, string][] = [
      [{ code: 'ABC' }, 'libelle', 'Le libellé est obligatoire'],
      [{ libelle: '  ', code: 'ABC' }, 'libelle', 'Le libellé est obligatoire'],
      [{ libelle: 'x'.repeat(101), code: 'ABC' }, 'libelle', '100 caractères au plus'],
      [{ libelle: 'Marché' }, 'code', 'Le code est obligatoire'],
      [{ libelle: 'Marché', code: 'ABCD' }, 'code', 'Le code contient de 1 à 3 lettres (A à Z)'],
      [{ libelle: 'Marché', code: 'A1' }, 'code', 'Le code contient de 1 à 3 lettres (A à Z)'],
      [{ libelle: 'Marché', code: 'qua' }, 'code', 'Ce code est déjà utilisé par un autre type de site'],
    ];
    for (const [payload, key, error] of cases) {
      const res = await add(payload);
      expect(res.statusCode, JSON.stringify(payload)).toBe(400);
      expect(res.json()).toMatchObject({ status: 'error', errors: [{ key, error }] });
    }
  });

  it('lets ROLE_ADMIN and ROLE_ADMIN_SITE manage site types, and nobody else', async () => {
    expect((await ctx.app.inject('/api/admin/typeSite/get/list/by/filters')).statusCode).toBe(401);
    expect((await ctx.app.inject({ method: 'POST', url: '/api/admin/typeSite/add', payload: { libelle: 'x', code: 'XYZ' } })).statusCode).toBe(401);
    const siteAdmin = await loggedAs(ctx, ['ROLE_ADMIN_SITE']);
    expect((await get('/api/admin/typeSite/get/list/by/filters', siteAdmin.cookie)).statusCode).toBe(200);
    expect((await add({ libelle: 'Marché couvert', code: 'MAR' }, siteAdmin.cookie)).statusCode).toBe(200);
    for (const roles of [['ROLE_ADMIN_USER'], ['ROLE_ADMIN_ROLE'], ['ROLE_ADMIN_COMPOSTEUR'], ['ROLE_USER'], ['ROLE_PRESTATAIRE']]) {
      const who = await loggedAs(ctx, roles);
      expect((await get('/api/admin/typeSite/get/list/by/filters', who.cookie)).statusCode, roles[0]).toBe(403);
      expect((await add({ libelle: 'Autre', code: 'AUT' }, who.cookie)).statusCode).toBe(403);
    }
  });
});
