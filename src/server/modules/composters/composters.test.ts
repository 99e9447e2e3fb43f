import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TEST_DRIVERS, createTestApp, loggedAs } from '../../../../tests/helpers/test-app.js';

type Ctx = Awaited<ReturnType<typeof createTestApp>>;

describe.each(TEST_DRIVERS)('composter types (%s)', (driver) => {
  let ctx: Ctx;
  let admin: string;
  const get = (url: string, cookie = admin) => ctx.app.inject({ method: 'GET', url, headers: { cookie } });
  const add = (payload: unknown, cookie = admin) => ctx.app.inject({ method: 'POST', url: '/api/admin/typeComposteur/add', payload: payload as object, headers: { cookie } });

  beforeAll(async () => {
    ctx = await createTestApp(driver);
    admin = (await loggedAs(ctx, ['ROLE_ADMIN'])).cookie;
  });
  afterAll(() => ctx.close());

  it('lists the seeded types sorted by volume', async () => {
    const res = await get('/api/admin/typeComposteur/get/list/by/filters');
    expect(res.statusCode).toBe(200);
    const body = res.json() as { count: number; composteurs: { id: number; volume: number; precisions: string }[] };
    expect(body.count).toBe(4);
    expect(body.composteurs.map((c) => c.volume)).toEqual([400, 600, 800, 1000]);
    expect(Object.keys(body.composteurs[0]).sort()).toEqual(['id', 'precisions', 'volume']);
    const desc = (await get('/api/admin/typeComposteur/get/list/by/filters?sort[name]=volume&sort[direction]=desc')).json();
    expect(desc.composteurs[0].volume).toBe(1000);
  });

  it('adds a type that the list then shows', async () => {
    const res = await add({ volume: 250, precisions: '  Bac plastique  ' });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toMatchObject({ status: 'success', message: 'Site ajouté' });
    const listed = (await get('/api/admin/typeComposteur/get/list/by/filters?filter[volume]=250')).json();
    expect(listed).toEqual({ count: 1, composteurs: [{ id: res.json().id, volume: 250, precisions: 'Bac plastique' }] });
    expect((await add({ volume: 0, precisions: 'Sans volume' })).statusCode).toBe(200);
  });

  it('filters by volume, searches precisions and sorts by precisions', async () => {
    expect((await get('/api/admin/typeComposteur/get/list/by/filters?filter[volume]=600')).json().composteurs.map((c: { volume: number }) => c.volume)).toEqual([600]);
    expect((await get('/api/admin/typeComposteur/get/list/by/filters?filter[volume]=601')).json().count).toBe(0);
    expect((await get('/api/admin/typeComposteur/get/list/by/filters?search=BOIS 8')).json().composteurs.map((c: { volume: number }) => c.volume)).toEqual([800]);
    // A whole number is looked for both as a volume and in the precisions.
    const other = await add({ volume: 300, precisions: 'Modèle 600 compact' });
    const bySix = (await get('/api/admin/typeComposteur/get/list/by/filters?search=600')).json();
    expect(bySix.composteurs.map((c: { id: number; volume: number }) => c.volume)).toEqual([300, 600]);
    expect(bySix.composteurs[0].id).toBe(other.json().id);
    expect((await get('/api/admin/typeComposteur/get/list/by/filters?search=modele')).json().count).toBe(1);
    expect((await get('/api/admin/typeComposteur/get/list/by/filters?filter[volume]=300&search=compact')).json().count).toBe(1);
    expect((await get('/api/admin/typeComposteur/get/list/by/filters?filter[volume]=400&search=compact')).json().count).toBe(0);
    const byPrecisions = (await get('/api/admin/typeComposteur/get/list/by/filters?sort[name]=precisions&rowsPerPage=100')).json();
    const names = byPrecisions.composteurs.map((c: { precisions: string }) => c.precisions.toLowerCase());
    expect(names).toEqual([...names].sort());
  });

  it('rejects a bad volume filter, unknown sorts and unknown filters', async () => {
    for (const qs of ['filter[volume]=abc', 'filter[volume]=-5', 'sort[name]=id', 'filter[precisions]=x']) {
      expect((await get(`/api/admin/typeComposteur/get/list/by/filters?${qs}`)).statusCode, qs).toBe(400);
    }
  });

  it('says which field is wrong when adding', async () => {
    // The last value: the answer's message, general for a missing field, else the error itself.
    const missing = 'Veuillez renseigner les champs obligatoires';
    const cases: [unknown, string, string, string][] = [
      [{ precisions: 'x' }, 'volume', 'Le volume est obligatoire', missing],
      [{ volume: 'beaucoup', precisions: 'x' }, 'volume', 'Le volume doit être un nombre entier de litres', 'Le volume doit être un nombre entier de litres'],
      [{ volume: 12.5, precisions: 'x' }, 'volume', 'Le volume doit être un nombre entier de litres', 'Le volume doit être un nombre entier de litres'],
      [{ volume: -1, precisions: 'x' }, 'volume', 'Le volume doit être supérieur ou égal à 0', 'Le volume doit être supérieur ou égal à 0'],
      [{ volume: 400 }, 'precisions', 'Les précisions sont obligatoires', missing],
      [{ volume: 400, precisions: '   ' }, 'precisions', 'Les précisions sont obligatoires', missing],
      [{ volume: 400, precisions: 'x'.repeat(51) }, 'precisions', '50 caractères au plus', '50 caractères au plus'],
    ];
    for (const [payload, key, error, message] of cases) {
      const res = await add(payload);
      expect(res.statusCode, JSON.stringify(payload)).toBe(400);
      expect(res.json()).toMatchObject({ status: 'error', errors: [{ key, error }], message });
    }
    expect((await add({ volume: 400, precisions: 'x'.repeat(50) })).statusCode).toBe(200);
  });

  it('lets ROLE_ADMIN and ROLE_ADMIN_COMPOSTEUR manage types, and nobody else', async () => {
    expect((await ctx.app.inject('/api/admin/typeComposteur/get/list/by/filters')).statusCode).toBe(401);
    expect((await ctx.app.inject({ method: 'POST', url: '/api/admin/typeComposteur/add', payload: { volume: 1, precisions: 'x' } })).statusCode).toBe(401);
    const composterAdmin = await loggedAs(ctx, ['ROLE_ADMIN_COMPOSTEUR']);
    expect((await get('/api/admin/typeComposteur/get/list/by/filters', composterAdmin.cookie)).statusCode).toBe(200);
    expect((await add({ volume: 300, precisions: 'Bac 300' }, composterAdmin.cookie)).statusCode).toBe(200);
    for (const roles of [['ROLE_ADMIN_SITE'], ['ROLE_ADMIN_USER'], ['ROLE_ADMIN_ROLE'], ['ROLE_USER'], ['ROLE_PRESTATAIRE']]) {
      const who = await loggedAs(ctx, roles);
      expect((await get('/api/admin/typeComposteur/get/list/by/filters', who.cookie)).statusCode, roles[0]).toBe(403);
      expect((await add({ volume: 300, precisions: 'Bac 300' }, who.cookie)).statusCode).toBe(403);
    }
  });
});
