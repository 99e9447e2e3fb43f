// The interventions tables over HTTP: the public per-site list and the administrators' lists,
// filled through the field entry's add route as a phone would fill them.
import crypto from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TEST_DRIVERS, createAccount, createTestApp, loggedAs, login } from '../../../../tests/helpers/test-app.js';
import { createEquippedSite, createSite } from '../field-entry/test-factories.js';

type Ctx = Awaited<ReturnType<typeof createTestApp>>;
type Block = { composteur?: number | null; action?: number | null; valeur?: number | string | null; bacDestination?: number | null; observations?: string | null; demandeIntervention?: number | null };

function submission(site: number, values: Block[], extra: Partial<{ clientId: string; date: string }> = {}) {
  return { clientId: crypto.randomUUID(), site, date: new Date(Date.now() - 3600_000).toISOString(), values, ...extra };
}

describe.each(TEST_DRIVERS)('interventions API (%s)', (driver) => {
  let ctx: Ctx;
  let admin: Awaited<ReturnType<typeof loggedAs>>;

  const post = (cookie: string | undefined, payload: unknown) =>
    ctx.app.inject({ method: 'POST', url: '/api/admin/intervention/add', headers: cookie ? { cookie } : {}, payload: payload as object });

  beforeAll(async () => {
    ctx = await createTestApp(driver);
    admin = await loggedAs(ctx, ['ROLE_ADMIN_SITE'], { nom: 'MARTIN', prenom: 'Jeanne' });
  });
  afterAll(() => ctx.close());

  describe('public list of a site', () => {
    let listed: Awaited<ReturnType<typeof createEquippedSite>>;
    const list = (id: number, query = '') => ctx.app.inject(`/api/intervention/get/list/by/site/${id}${query ? `?${query}` : ''}`);

    beforeAll(async () => {
      listed = await createEquippedSite(ctx.db);
      const send = async (date: string, values: Block[]) => expect((await post(admin.cookie, submission(listed.id, values, { date }))).statusCode).toBe(200);
      // 23:30 UTC on 5 March is 00:30 on 6 March in Paris.
      await send('2024-03-05T23:30:00.000Z', [{ composteur: listed.apport, action: 3, valeur: 200, bacDestination: listed.maturation }]);
      await send('2024-04-01T08:00:00.000Z', [
        { composteur: listed.apport, action: 15, valeur: 150 },
        { composteur: listed.maturation, action: 6, valeur: 54.5, observations: 'Bonne montée' },
      ]);
      await send('2024-04-02T08:00:00.000Z', [
        { composteur: listed.maturation, action: 19, valeur: 5 },
        { composteur: listed.broyat, action: 14, valeur: 'Couvercle recollé' },
        { composteur: listed.broyat, action: 5 },
      ]);
    });

    it('needs no login, shows displayed values and no personal data, newest first', async () => {
      const res = await list(listed.id);
      expect(res.statusCode).toBe(200);
      const body = res.json();
      expect(body.count).toBe(6);
      // A repair's free text ('Couvercle recollé') can name someone: anonymous callers get none.
      expect(body.interventions.map((r: { valeur: string }) => r.valeur).sort()).toEqual(['', '', '150 L', '200 L vers le composteur n°3', '54.5 °C', 'Plein'].sort());
      const dates = body.interventions.map((r: { date: string }) => r.date);
      expect(dates).toEqual([...dates].sort().reverse());
      expect(dates.at(-1)).toBe('2024-03-05T23:30:00.000Z');
      for (const row of body.interventions) {
        // No observations, no referent nor agent who modified it: free text and names stay with logged-in users.
        expect(row).toMatchObject({ observations: null, referent: null, modificationAgent: null });
        expect(Object.keys(row)).not.toContain('intervenant');
      }
      expect(body.interventions.find((r: { idAction: number }) => r.idAction === 6)).toMatchObject({
        typeAction: 'Température',
        typeBac: 'Maturation',
        idTypeBac: 3,
        numeroBac: 3,
        valeur: '54.5 °C',
      });
    });

    it('filters by action, cell type, cell number and the day as shown in Paris', async () => {
      const ids = async (query: string) => ((await list(listed.id, query)).json().interventions as { idAction: number }[]).map((r) => r.idAction).sort((a, b) => a - b);
      expect(await ids('filter[action]=15')).toEqual([15]);
      expect(await ids('filter[typeBac]=2')).toEqual([5, 14]);
      expect(await ids('filter[numeroBac]=3')).toEqual([6, 19]);
      expect(await ids('filter[date]=06/03/2024')).toEqual([3]);
      expect(await ids('filter[date]=05/03')).toEqual([]);
      expect(await ids('filter[date]=04/2024')).toEqual([5, 6, 14, 15, 19]);
    });

    it('sorts by action label, cell number and pages', async () => {
      const byAction = (await list(listed.id, 'sort[name]=action&sort[direction]=asc')).json().interventions.map((r: { typeAction: string }) => r.typeAction);
      expect(byAction).toEqual(['Arrosage', 'Nettoyage du site', 'Niveau de matière', 'Réparation effectuée', 'Température', 'Transfert']);
      const byNumero = (await list(listed.id, 'sort[name]=numeroBac&sort[direction]=desc')).json().interventions.map((r: { numeroBac: number }) => r.numeroBac);
      expect(byNumero).toEqual([3, 3, 2, 2, 1, 1]);
      const page = (await list(listed.id, 'rowsPerPage=5&page=1')).json();
      expect(page.count).toBe(6);
      expect(page.interventions).toHaveLength(1);
    });

    it('refuses unknown sorts and filters', async () => {
      expect((await list(listed.id, 'sort[name]=intervenant')).statusCode).toBe(400);
      expect((await list(listed.id, 'filter[intervenant]=x')).statusCode).toBe(400);
    });

    it('answers 404 for a requested site or an unknown one', async () => {
      const requested = await createSite(ctx.db, { statut: 2 });
      const res = await list(requested.id);
      expect(res.statusCode).toBe(404);
      expect(res.json()).toEqual({ status: 'error', message: 'Site introuvable' });
      expect((await list(999_999)).statusCode).toBe(404);
    });
  });

  describe("administrators' lists", () => {
    let listed: Awaited<ReturnType<typeof createEquippedSite>>;
    let referent: Awaited<ReturnType<typeof createAccount>>;
    const list = (cookie: string | undefined, query: string) =>
      ctx.app.inject({ url: `/api/admin/intervention/get/list/by/filters?${query}`, headers: cookie ? { cookie } : {} });

    beforeAll(async () => {
      listed = await createEquippedSite(ctx.db, { nom: 'Jardin des Capucins' });
      referent = await createAccount(ctx.db, { roles: ['ROLE_USER'], nom: 'DURAND', prenom: 'Élodie' });
      await ctx.db.insertInto('site_referent').values({ site_id: listed.id, account_id: referent.id }).execute();
      expect((await post(admin.cookie, submission(listed.id, [{ composteur: listed.apport, action: 4, valeur: 60 }], { date: '2024-06-01T10:00:00.000Z' }))).statusCode).toBe(200);
      const referentCookie = await login(ctx.app, referent.login);
      expect((await post(referentCookie, submission(listed.id, [{ composteur: listed.broyat, action: 8, valeur: 8 }], { date: '2024-06-02T10:00:00.000Z' }))).statusCode).toBe(200);
    });

    it('lists one site with who recorded each entry and its displayed value', async () => {
      const res = await list(admin.cookie, `id=${listed.id}`);
      expect(res.statusCode).toBe(200);
      const body = res.json();
      expect(body.count).toBe(2);
      expect(body.interventions).toEqual([
        expect.objectContaining({ intervenant: 'DURAND Élodie', typeAction: 'État du broyat', valeur: 'Humide', typeBac: 'Broyat', numeroBac: 2 }),
        expect.objectContaining({ intervenant: 'MARTIN Jeanne', typeAction: 'Vider la cellule', valeur: '60 L', typeBac: 'Apport', numeroBac: 1 }),
      ]);
      const filtered = (await list(admin.cookie, `id=${listed.id}&filter[action]=4&filter[date]=01/06`)).json();
      expect(filtered.interventions.map((r: { idAction: number }) => r.idAction)).toEqual([4]);
    });

    it('lists every site with the site name when no site is given, filtered by site', async () => {
      const body = (await list(admin.cookie, `filter[site]=${listed.id}`)).json();
      expect(body.count).toBe(2);
      expect(body.interventions[0]).toMatchObject({ site: 'Jardin des Capucins', idSite: listed.id });
      const all = (await list(admin.cookie, 'rowsPerPage=100')).json();
      expect(all.count).toBeGreaterThan(2);
    });

    it('is for site administrators only', async () => {
      expect((await list(undefined, `id=${listed.id}`)).statusCode).toBe(401);
      const user = await loggedAs(ctx, ['ROLE_USER']);
      expect((await list(user.cookie, `id=${listed.id}`)).statusCode).toBe(403);
      expect((await list(admin.cookie, 'id=999999')).statusCode).toBe(404);
      expect((await list(admin.cookie, 'filter[typeBac]=1')).statusCode).toBe(400);
    });
  });
});
