import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TEST_DRIVERS, createAccount, createTestApp, login, loggedAs } from '../../../../tests/helpers/test-app.js';
import type { UserRow } from '../../../shared/schemas/users.js';

type Ctx = Awaited<ReturnType<typeof createTestApp>>;

async function addSite(ctx: Ctx, code: string, nom: string | null, ville = 'Brest') {
  const type = await ctx.db.selectFrom('type_site').select('id').where('code', '=', 'QUA').executeTakeFirstOrThrow();
  const row = await ctx.db
    .insertInto('site')
    .values({ code, nom, ville, cp: '29200', adresse: 'Rue de Siam', type_site_id: type.id, statut_id: 1 })
    .returning('id')
    .executeTakeFirstOrThrow();
  return row.id;
}

async function rolesOf(ctx: Ctx, id: number) {
  const rows = await ctx.db
    .selectFrom('account_role')
    .innerJoin('role', 'role.id', 'account_role.role_id')
    .where('account_id', '=', id)
    .select('role.code')
    .execute();
  return rows.map((r) => r.code).sort();
}

describe.each(TEST_DRIVERS)('users administration (%s)', (driver) => {
  let ctx: Ctx;
  let admin: string;
  const get = (url: string, cookie = admin) => ctx.app.inject({ method: 'GET', url, headers: { cookie } });
  const put = (url: string, payload?: unknown, cookie = admin) => ctx.app.inject({ method: 'PUT', url, payload: payload as object, headers: { cookie } });
  const list = async (qs: string) => {
    const res = await get(`/api/admin/user/get/list/by/filters?${qs}`);
    expect(res.statusCode, res.body).toBe(200);
    return res.json() as { count: number; users: UserRow[] };
  };

  beforeAll(async () => {
    ctx = await createTestApp(driver);
    admin = (await loggedAs(ctx, ['ROLE_ADMIN'])).cookie;
  });
  afterAll(() => ctx.close());

  describe('list', () => {
    let ids: Record<string, number>;
    beforeAll(async () => {
      const mk = async (key: string, o: Parameters<typeof createAccount>[1], extra: Record<string, unknown> = {}) => {
        const acc = await createAccount(ctx.db, o);
        await ctx.db.updateTable('account').set(extra).where('id', '=', acc.id).execute();
        return [key, acc.id] as const;
      };
      ids = Object.fromEntries(
        await Promise.all([
          mk('helene', { nom: 'LEBRETON', prenom: 'Hélène', typeUser: 1 }, { organisme: null, tel: '0298123456', created_at: new Date('2024-03-12T10:00:00Z'), email: 'helene@quimper.fr' }),
          mk('mairie', { nom: 'ÉLORN', prenom: 'Yann', typeUser: 2, actif: false }, { organisme: 'Mairie de Plougastel', tel: '0611111111', created_at: new Date('2024-05-01T10:00:00Z') }),
          mk('presta', { nom: 'ZÉPHYR', prenom: 'Anne', typeUser: 3, emailValide: false, actif: false }, { organisme: 'Compost Services', tel: '0722222222', created_at: new Date('2023-12-31T23:30:00Z') }),
        ]),
      );
      await createAccount(ctx.db, { kind: 'agent', roles: ['ROLE_ADMIN_SITE'], nom: 'AGENTINTERNE' });
      const s1 = await addSite(ctx, 'QUA001', 'Jardin du Port');
      const s2 = await addSite(ctx, 'QUA002', null);
      await ctx.db.insertInto('site_referent').values([{ site_id: s1, account_id: ids.helene }, { site_id: s2, account_id: ids.helene }]).execute();
    });

    it('lists external users only, with their type, sites and states', async () => {
      const { users, count } = await list('filter[nom]=LEBRETON');
      expect(count).toBe(1);
      expect(users[0]).toEqual({
        id: ids.helene,
        date: '2024-03-12T10:00:00.000Z',
        organisme: null,
        nom: 'LEBRETON',
        prenom: 'Hélène',
        email: 'helene@quimper.fr',
        tel: '0298123456',
        typeUser: 'Particulier',
        idTypeUser: 1,
        site: 'QUA001 - Jardin du Port, QUA002',
        actif: true,
        emailValide: true,
      });
      const all = await list('rowsPerPage=100');
      expect(all.users.some((u) => u.nom === 'AGENTINTERNE')).toBe(false);
      expect(all.users.find((u) => u.id === ids.mairie)?.site).toBe('Aucun');
    });

    it('filters each column ignoring accents and case', async () => {
      expect((await list('filter[nom]=elorn')).users.map((u) => u.id)).toEqual([ids.mairie]);
      expect((await list('filter[prenom]=helene')).users.map((u) => u.id)).toEqual([ids.helene]);
      expect((await list('filter[organisme]=plougastel')).users.map((u) => u.id)).toEqual([ids.mairie]);
      expect((await list('filter[email]=QUIMPER')).users.map((u) => u.id)).toEqual([ids.helene]);
      expect((await list('filter[tel]=0722')).users.map((u) => u.id)).toEqual([ids.presta]);
      expect((await list('filter[type]=prestat')).users.map((u) => u.id)).toEqual([ids.presta]);
      // 23:30 UTC on 31/12/2023 is already 2024 in Paris, where the table shows its dates.
      expect((await list('filter[date]=01/01/2024')).users.map((u) => u.id)).toEqual([ids.presta]);
      expect((await list('filter[date]=03/2024')).users.map((u) => u.id)).toEqual([ids.helene]);
      expect((await list('filter[date]=2024&sort[name]=date')).users.map((u) => u.id)).toEqual([ids.presta, ids.helene, ids.mairie]);
      // A partial or impossible date is matched against the displayed text, never an error.
      expect((await list('filter[date]=12/03')).users.map((u) => u.id)).toEqual([ids.helene]);
      expect((await list('filter[date]=31/02/2024')).count).toBe(0);
      expect((await list('filter[nom]=zephyr&filter[type]=particulier')).count).toBe(0);
    });

    it('searches names, organisations and e-mails at once', async () => {
      expect((await list('search=compost services')).users.map((u) => u.id)).toEqual([ids.presta]);
      expect((await list('search=yann')).users.map((u) => u.id)).toEqual([ids.mairie]);
      expect((await list('search=QUIMPER.FR')).users.map((u) => u.id)).toEqual([ids.helene]);
      // One or two letters, accents and case ignored, as with longer terms.
      expect((await list('search=zé')).users.map((u) => u.id)).toEqual([ids.presta]);
      expect((await list('search=YA')).users.map((u) => u.id)).toEqual([ids.mairie]);
      expect((await list('search=helene&filter[type]=organisme')).count).toBe(0);
      expect((await list('search=%25')).count).toBe(0);
      // Each field on its own, as the per-field filters: a term never spans two fields.
      expect((await list('search=lebreton hel')).count).toBe(0);
    });

    it('finds the words starting with a one- or two-letter term, and phone numbers by their start', async () => {
      expect((await list('search=l&sort[name]=nom')).users.map((u) => u.id)).toEqual([ids.helene]);
      // 'Plougastel' holds 'pl' at the start of a word, 'Compost' holds 'po' only inside one.
      expect((await list('search=pl')).users.map((u) => u.id)).toEqual([ids.mairie]);
      expect((await list('search=po')).count).toBe(0);
      expect((await list('filter[nom]=e')).users.map((u) => u.id)).toEqual([ids.mairie]);
      expect((await list('filter[prenom]=h')).users.map((u) => u.id)).toEqual([ids.helene]);
      expect((await list('filter[organisme]=se')).users.map((u) => u.id)).toEqual([ids.presta]);
      expect((await list('filter[email]=q')).users.map((u) => u.id)).toEqual([ids.helene]);
      expect((await list('filter[tel]=07')).users.map((u) => u.id)).toEqual([ids.presta]);
      expect((await list('filter[tel]=0 6')).users.map((u) => u.id)).toEqual([ids.mairie]);
      expect((await list('filter[tel]=22')).count).toBe(0);
    });

    it('keeps the search in step with a renamed account', async () => {
      await ctx.db.updateTable('account').set({ organisme: 'Régie de quartier' }).where('id', '=', ids.helene).execute();
      expect((await list('search=regie')).users.map((u) => u.id)).toEqual([ids.helene]);
      await ctx.db.updateTable('account').set({ organisme: null }).where('id', '=', ids.helene).execute();
      expect((await list('search=regie')).count).toBe(0);
    });

    it('sorts by each column in both directions and pages the result', async () => {
      const only = 'filter[tel]=0';
      const nomAsc = (await list(`${only}&rowsPerPage=100`)).users.map((u) => u.nom);
      expect(nomAsc).toEqual(['ÉLORN', 'LEBRETON', 'ZÉPHYR']);
      const byDateDesc = (await list(`${only}&sort[name]=date&sort[direction]=desc`)).users.map((u) => u.id);
      expect(byDateDesc).toEqual([ids.mairie, ids.helene, ids.presta]);
      const byTypeDesc = (await list(`${only}&sort[name]=type&sort[direction]=desc`)).users.map((u) => u.id);
      expect(byTypeDesc).toEqual([ids.presta, ids.mairie, ids.helene]);
      for (const name of ['organisme', 'prenom', 'email', 'tel', 'actif', 'emailValide']) {
        const asc = (await list(`${only}&sort[name]=${name}&sort[direction]=asc`)).users.map((u) => u.id);
        const desc = (await list(`${only}&sort[name]=${name}&sort[direction]=desc`)).users.map((u) => u.id);
        expect(asc, name).toHaveLength(3);
        expect(desc, name).toEqual([...asc].reverse());
      }
      const page1 = await list(`${only}&rowsPerPage=5&page=0`);
      expect(page1.count).toBe(3);
      const page2 = await list(`${only}&rowsPerPage=5&page=1`);
      expect(page2.users).toEqual([]);
      expect(page2.count).toBe(3);
      const second = await list(`${only}&rowsPerPage=5&page=0&sort[name]=nom&sort[direction]=desc`);
      expect(second.users.map((u) => u.nom)).toEqual(['ZÉPHYR', 'LEBRETON', 'ÉLORN']);
    });

    it('rejects unknown sorts, unknown filters and bad page sizes, naming the parameter', async () => {
      const cases: [string, string, string][] = [
        ['sort[name]=password_hash', 'sort.name', 'Tri inconnu'],
        ['sort[name]=nom&sort[direction]=up', 'sort.direction', 'Sens de tri invalide'],
        ['filter[password]=x', 'filter', 'Filtre inconnu'],
        ['rowsPerPage=7', 'rowsPerPage', 'Taille de page invalide (5, 10, 20, 50 ou 100)'],
        ['page=-1', 'page', 'Page invalide'],
        ['page=abc', 'page', 'Page invalide'],
        ['foo=bar', 'querystring', 'Paramètre inconnu'],
      ];
      for (const [qs, key, error] of cases) {
        const res = await get(`/api/admin/user/get/list/by/filters?${qs}`);
        expect(res.statusCode, qs).toBe(400);
        expect(res.json(), qs).toMatchObject({ status: 'error', errors: [{ key, error }] });
      }
    });
  });

  describe('permissions', () => {
    it('lets ROLE_ADMIN and ROLE_ADMIN_USER manage users, and nobody else', async () => {
      expect((await ctx.app.inject('/api/admin/user/get/list/by/filters')).statusCode).toBe(401);
      const userAdmin = await loggedAs(ctx, ['ROLE_ADMIN_USER']);
      expect((await get('/api/admin/user/get/list/by/filters', userAdmin.cookie)).statusCode).toBe(200);
      for (const roles of [['ROLE_ADMIN_SITE'], ['ROLE_ADMIN_ROLE'], ['ROLE_ADMIN_COMPOSTEUR'], ['ROLE_USER'], ['ROLE_PRESTATAIRE']]) {
        const other = await loggedAs(ctx, roles);
        expect((await get('/api/admin/user/get/list/by/filters', other.cookie)).statusCode, roles[0]).toBe(403);
        const target = await createAccount(ctx.db, { actif: false });
        for (const url of [`/api/admin/user/active/${target.id}`, `/api/admin/user/refuse/${target.id}`, `/api/admin/user/delete/${target.id}`]) {
          expect((await put(url, undefined, other.cookie)).statusCode, `${roles[0]} ${url}`).toBe(403);
        }
        expect((await put(`/api/admin/user/update/typeUser/${target.id}`, { type: 1 }, other.cookie)).statusCode).toBe(403);
        expect((await put(`/api/admin/user/update/site/${target.id}`, { site: [] }, other.cookie)).statusCode).toBe(403);
        expect((await get(`/api/admin/user/get/sites/${target.id}`, other.cookie)).statusCode).toBe(403);
        expect((await get('/api/admin/user/get/all/sites', other.cookie)).statusCode).toBe(403);
      }
    });

    it('lets ROLE_ADMIN_USER call every state-changing route', async () => {
      const userAdmin = await loggedAs(ctx, ['ROLE_ADMIN_USER']);
      const site = await addSite(ctx, 'PIM901', null);
      const target = await createAccount(ctx.db, { actif: false, typeUser: 1 });
      const call = async (url: string, payload?: unknown) => (await put(url, payload, userAdmin.cookie)).statusCode;
      expect(await call(`/api/admin/user/active/${target.id}`)).toBe(200);
      expect(await call(`/api/admin/user/update/site/${target.id}`, { site: [site] })).toBe(200);
      expect((await get(`/api/admin/user/get/sites/${target.id}`, userAdmin.cookie)).statusCode).toBe(200);
      expect((await get('/api/admin/user/get/all/sites', userAdmin.cookie)).statusCode).toBe(200);
      expect(await call(`/api/admin/user/update/typeUser/${target.id}`, { type: 2 })).toBe(200);
      expect(await call(`/api/admin/user/refuse/${target.id}`)).toBe(200);
      expect(await call(`/api/admin/user/delete/${target.id}`)).toBe(200);
    });

    it('answers 401 on every route without a session', async () => {
      for (const [method, url] of [
        ['PUT', '/api/admin/user/active/1'],
        ['PUT', '/api/admin/user/refuse/1'],
        ['PUT', '/api/admin/user/update/site/1'],
        ['PUT', '/api/admin/user/update/typeUser/1'],
        ['PUT', '/api/admin/user/delete/1'],
        ['GET', '/api/admin/user/get/sites/1'],
        ['GET', '/api/admin/user/get/all/sites'],
        ['GET', '/api/admin/user/get/by/site/1'],
        ['GET', '/api/admin/user/get/all/actif'],
      ] as const) {
        const res = await ctx.app.inject({ method, url, payload: method === 'PUT' ? {} : undefined });
        expect(res.statusCode, url).toBe(401);
      }
    });

    it('rejects ids that are not positive whole numbers on every route', async () => {
      for (const bad of ['abc', '0', '-3', '1.5']) {
        for (const [method, url, key, payload] of [
          ['PUT', `/api/admin/user/active/${bad}`, 'id', undefined],
          ['PUT', `/api/admin/user/refuse/${bad}`, 'id', undefined],
          ['PUT', `/api/admin/user/delete/${bad}`, 'id', undefined],
          ['PUT', `/api/admin/user/update/typeUser/${bad}`, 'id', { type: 1 }],
          ['PUT', `/api/admin/user/update/site/${bad}`, 'userId', { site: [1] }],
          ['GET', `/api/admin/user/get/sites/${bad}`, 'id', undefined],
          ['GET', `/api/admin/user/get/by/site/${bad}`, 'id', undefined],
        ] as const) {
          const res = await ctx.app.inject({ method, url, payload, headers: { cookie: admin } });
          expect(res.statusCode, url).toBe(400);
          expect(res.json().errors, url).toEqual([{ key, error: 'Identifiant invalide' }]);
        }
      }
    });

    it('lets site and user administrators read referents and active users', async () => {
      const siteId = await addSite(ctx, 'PIM900', 'Résidence');
      for (const roles of [['ROLE_ADMIN_SITE'], ['ROLE_ADMIN_USER'], ['ROLE_ADMIN']]) {
        const who = await loggedAs(ctx, roles);
        expect((await get(`/api/admin/user/get/by/site/${siteId}`, who.cookie)).statusCode).toBe(200);
        expect((await get('/api/admin/user/get/all/actif', who.cookie)).statusCode).toBe(200);
      }
      for (const roles of [['ROLE_USER'], ['ROLE_ADMIN_ROLE'], ['ROLE_ADMIN_COMPOSTEUR']]) {
        const who = await loggedAs(ctx, roles);
        expect((await get(`/api/admin/user/get/by/site/${siteId}`, who.cookie)).statusCode).toBe(403);
        expect((await get('/api/admin/user/get/all/actif', who.cookie)).statusCode).toBe(403);
      }
    });
  });

  describe('activation', () => {
    it('activates a validated account as referent, mails the login link and lets the user log in', async () => {
      const u = await createAccount(ctx.db, { actif: false, typeUser: 1, prenom: 'Jeanne', nom: 'MARTIN' });
      const sentBefore = ctx.mailer.sent.length;
      const res = await put(`/api/admin/user/active/${u.id}`);
      expect(res.statusCode, res.body).toBe(200);
      expect(res.json()).toEqual({ status: 'success', message: 'Compte activé' });
      expect(await rolesOf(ctx, u.id)).toEqual(['ROLE_USER']);
      const mail = ctx.mailer.sent[sentBefore];
      expect(mail.to).toBe(u.email);
      expect(mail.subject).toContain('activé');
      expect(mail.subject).toBe('Compost test : votre compte est activé');
      expect(mail.text).toContain('Bonjour Jeanne MARTIN');
      expect(mail.text).toContain('Votre compte Compost test a été activé par un administrateur.');
      expect(mail.text).toContain('Vous pouvez dès maintenant vous connecter avec votre adresse mail');
      expect(mail.text).toContain('http://localhost:3000/login');
      await login(ctx.app, u.login);
    });

    it('gives ROLE_PRESTATAIRE to a provider', async () => {
      const u = await createAccount(ctx.db, { actif: false, typeUser: 3 });
      expect((await put(`/api/admin/user/active/${u.id}`)).statusCode).toBe(200);
      expect(await rolesOf(ctx, u.id)).toEqual(['ROLE_PRESTATAIRE']);
    });

    it('refuses an account whose e-mail is not validated, an active one, an agent and an unknown id', async () => {
      const unvalidated = await createAccount(ctx.db, { actif: false, emailValide: false });
      const res = await put(`/api/admin/user/active/${unvalidated.id}`);
      expect(res.statusCode).toBe(409);
      expect(res.json().message).toBe("L'adresse mail de cet utilisateur n'est pas encore validée.");
      const active = await createAccount(ctx.db, { actif: true });
      expect((await put(`/api/admin/user/active/${active.id}`)).statusCode).toBe(409);
      const agent = await createAccount(ctx.db, { kind: 'agent', actif: false });
      expect((await put(`/api/admin/user/active/${agent.id}`)).json()).toEqual({ status: 'error', message: 'Utilisateur introuvable.' });
      expect((await put('/api/admin/user/active/999999')).statusCode).toBe(404);
      const bad = await put('/api/admin/user/active/abc');
      expect(bad.statusCode).toBe(400);
      expect(bad.json().errors[0].key).toBe('id');
    });
  });

  describe('refuse / deactivate', () => {
    it('deactivates an active user, removes the external role and ends the sessions', async () => {
      const u = await createAccount(ctx.db, { roles: ['ROLE_USER'] });
      const cookie = await login(ctx.app, u.login);
      expect((await get('/api/logged', cookie)).json().logged).toBe(true);
      const res = await put(`/api/admin/user/refuse/${u.id}`);
      expect(res.statusCode).toBe(200);
      expect((await get('/api/logged', cookie)).json().logged).toBe(false);
      expect(await rolesOf(ctx, u.id)).toEqual([]);
      const row = await ctx.db.selectFrom('session').where('account_id', '=', u.id).select('id_hash').execute();
      expect(row).toEqual([]);
      const listed = await list(`filter[email]=${encodeURIComponent(u.email)}`);
      expect(listed.users[0].actif).toBe(false);
    });

    it('refuses a pending account and answers 404 for an unknown one', async () => {
      const u = await createAccount(ctx.db, { actif: false });
      expect((await put(`/api/admin/user/refuse/${u.id}`)).statusCode).toBe(200);
      expect((await put('/api/admin/user/refuse/999999')).statusCode).toBe(404);
    });
  });

  describe('sites of a user', () => {
    it('replaces the sites of an active referent and shows them in the list', async () => {
      const u = await createAccount(ctx.db, { roles: ['ROLE_USER'] });
      const a = await addSite(ctx, 'JAR010', 'Potager');
      const b = await addSite(ctx, 'JAR011', null);
      let res = await put(`/api/admin/user/update/site/${u.id}`, { site: [a, b] });
      expect(res.statusCode, res.body).toBe(200);
      expect(res.json()).toEqual({ status: 'success', message: "Sites(s) de l'utilisateur modifié(s)" });
      expect((await get(`/api/admin/user/get/sites/${u.id}`)).json().map((s: { code: string }) => s.code)).toEqual(['JAR010', 'JAR011']);
      res = await put(`/api/admin/user/update/site/${u.id}`, { site: [b] });
      expect(res.statusCode).toBe(200);
      expect((await list(`filter[email]=${encodeURIComponent(u.email)}`)).users[0].site).toBe('JAR011');
    });

    it('requires at least one known site', async () => {
      const u = await createAccount(ctx.db, { roles: ['ROLE_USER'] });
      let res = await put(`/api/admin/user/update/site/${u.id}`, {});
      expect(res.statusCode).toBe(400);
      expect(res.json()).toMatchObject({ status: 'error', errors: [{ key: 'site', error: 'Veuillez sélectionner au moins un site' }], message: 'Veuillez renseigner les champs obligatoires' });
      res = await put(`/api/admin/user/update/site/${u.id}`, { site: [] });
      expect(res.statusCode).toBe(400);
      expect(res.json().errors).toEqual([{ key: 'site', error: 'Veuillez sélectionner au moins un site' }]);
      res = await put(`/api/admin/user/update/site/${u.id}`, { site: [999999] });
      expect(res.statusCode).toBe(400);
      expect(res.json().errors).toEqual([{ key: 'site', error: 'Site inconnu' }]);
      res = await put(`/api/admin/user/update/site/${u.id}`, { site: ['x'] });
      expect(res.statusCode).toBe(400);
      expect(res.json().errors[0].key).toBe('site0');
    });

    it('refuses sites for an inactive user or a provider, and 404 for an unknown user', async () => {
      const site = await addSite(ctx, 'SCO020', 'École');
      const inactive = await createAccount(ctx.db, { actif: false });
      expect((await put(`/api/admin/user/update/site/${inactive.id}`, { site: [site] })).statusCode).toBe(409);
      const presta = await createAccount(ctx.db, { typeUser: 3, roles: ['ROLE_PRESTATAIRE'] });
      expect((await put(`/api/admin/user/update/site/${presta.id}`, { site: [site] })).statusCode).toBe(409);
      expect((await put('/api/admin/user/update/site/999999', { site: [site] })).statusCode).toBe(404);
      expect((await get('/api/admin/user/get/sites/999999')).statusCode).toBe(404);
    });

    it('lists every site for the dialog', async () => {
      await addSite(ctx, 'PIM100', 'Tour Eiffel');
      const sites = (await get('/api/admin/user/get/all/sites')).json() as { code: string; nom: string | null; ville: string }[];
      expect(sites.find((s) => s.code === 'PIM100')).toMatchObject({ nom: 'Tour Eiffel', ville: 'Brest' });
    });
  });

  describe('user type', () => {
    it('changes the type and, for an active user, the role that follows from it', async () => {
      const u = await createAccount(ctx.db, { roles: ['ROLE_USER'], typeUser: 1 });
      const res = await put(`/api/admin/user/update/typeUser/${u.id}`, { type: 3 });
      expect(res.statusCode, res.body).toBe(200);
      expect(res.json()).toEqual({ status: 'success', message: "Type de l'utilisateur modifié" });
      expect(await rolesOf(ctx, u.id)).toEqual(['ROLE_PRESTATAIRE']);
      const row = (await list(`filter[email]=${encodeURIComponent(u.email)}`)).users[0];
      expect(row).toMatchObject({ idTypeUser: 3, typeUser: 'Prestataire' });
      const pending = await createAccount(ctx.db, { actif: false, typeUser: 1 });
      expect((await put(`/api/admin/user/update/typeUser/${pending.id}`, { type: 2 })).statusCode).toBe(200);
      expect(await rolesOf(ctx, pending.id)).toEqual([]);
    });

    it('requires a known type and a validated e-mail', async () => {
      const u = await createAccount(ctx.db, { actif: false });
      let res = await put(`/api/admin/user/update/typeUser/${u.id}`, {});
      expect(res.statusCode).toBe(400);
      expect(res.json().errors).toEqual([{ key: 'type', error: 'Le type est obligatoire' }]);
      res = await put(`/api/admin/user/update/typeUser/${u.id}`, { type: 'abc' });
      expect(res.statusCode).toBe(400);
      expect(res.json().errors).toEqual([{ key: 'type', error: 'Le type est obligatoire' }]);
      res = await put(`/api/admin/user/update/typeUser/${u.id}`, { type: 1.5 });
      expect(res.json().errors).toEqual([{ key: 'type', error: "Type d'utilisateur inconnu" }]);
      res = await put(`/api/admin/user/update/typeUser/${u.id}`, { type: 9 });
      expect(res.statusCode).toBe(400);
      expect(res.json().errors).toEqual([{ key: 'type', error: "Type d'utilisateur inconnu" }]);
      const unvalidated = await createAccount(ctx.db, { actif: false, emailValide: false });
      expect((await put(`/api/admin/user/update/typeUser/${unvalidated.id}`, { type: 2 })).statusCode).toBe(409);
      expect((await put('/api/admin/user/update/typeUser/999999', { type: 2 })).statusCode).toBe(404);
    });
  });

  describe('delete', () => {
    it('deletes an inactive user with their site links', async () => {
      const u = await createAccount(ctx.db, { actif: false });
      const site = await addSite(ctx, 'QUA300', null);
      await ctx.db.insertInto('site_referent').values({ site_id: site, account_id: u.id }).execute();
      const res = await put(`/api/admin/user/delete/${u.id}`);
      expect(res.statusCode).toBe(200);
      expect(res.json()).toEqual({ status: 'success', message: 'Utilisateur supprimé' });
      expect(await ctx.db.selectFrom('account').where('id', '=', u.id).select('id').executeTakeFirst()).toBeUndefined();
      expect((await put(`/api/admin/user/delete/${u.id}`)).json()).toEqual({ status: 'error', message: 'Utilisateur introuvable.' });
    });

    it('refuses to delete an active user', async () => {
      const u = await createAccount(ctx.db, { roles: ['ROLE_USER'] });
      const res = await put(`/api/admin/user/delete/${u.id}`);
      expect(res.statusCode).toBe(400);
      expect(res.json().message).toBe('Impossible de supprimer un compte actif');
    });

    it('refuses to delete a user who recorded interventions', async () => {
      const u = await createAccount(ctx.db, { roles: ['ROLE_USER'] });
      const site = await addSite(ctx, 'QUA400', null);
      const cell = await ctx.db.insertInto('site_composteur').values({ site_id: site, type_composteur_id: 1, type_bac_id: 1, numero: 1 }).returning('id').executeTakeFirstOrThrow();
      await ctx.db.insertInto('intervention').values({ date: new Date(), site_id: site, site_composteur_id: cell.id, type_action_id: 1, intervenant_id: u.id }).execute();
      await ctx.db.updateTable('account').set({ actif: false }).where('id', '=', u.id).execute();
      const res = await put(`/api/admin/user/delete/${u.id}`);
      expect(res.statusCode).toBe(409);
      expect(res.json().message).toContain('Impossible de supprimer cet utilisateur');
    });

    it('does not delete agents through this route', async () => {
      const agent = await createAccount(ctx.db, { kind: 'agent', actif: false });
      expect((await put(`/api/admin/user/delete/${agent.id}`)).statusCode).toBe(404);
    });
  });

  describe('referents and active users', () => {
    it('lists the referents of a site, 404 for an unknown site', async () => {
      const site = await addSite(ctx, 'QUA500', 'Square');
      const a = await createAccount(ctx.db, { roles: ['ROLE_USER'], nom: 'BRUNEL', prenom: 'Zoé' });
      const b = await createAccount(ctx.db, { roles: ['ROLE_USER'], nom: 'ABALAIN', prenom: 'Marc' });
      await ctx.db.insertInto('site_referent').values([{ site_id: site, account_id: a.id }, { site_id: site, account_id: b.id }]).execute();
      expect((await get(`/api/admin/user/get/by/site/${site}`)).json()).toEqual([
        { id: b.id, nom: 'ABALAIN', prenom: 'Marc' },
        { id: a.id, nom: 'BRUNEL', prenom: 'Zoé' },
      ]);
      expect((await get('/api/admin/user/get/by/site/999999')).statusCode).toBe(404);
      expect((await get('/api/admin/user/get/by/site/abc')).statusCode).toBe(400);
    });

    it('lists active external users who can be referents', async () => {
      const active = await createAccount(ctx.db, { roles: ['ROLE_USER'] });
      const inactive = await createAccount(ctx.db, { actif: false });
      const presta = await createAccount(ctx.db, { typeUser: 3, roles: ['ROLE_PRESTATAIRE'] });
      const agent = await createAccount(ctx.db, { kind: 'agent', roles: ['ROLE_ADMIN_SITE'] });
      const users = (await get('/api/admin/user/get/all/actif')).json() as { id: number; email: string }[];
      const idsListed = users.map((x) => x.id);
      expect(users.find((x) => x.id === active.id)).toMatchObject({ email: active.email });
      for (const hidden of [inactive.id, presta.id, agent.id]) expect(idsListed).not.toContain(hidden);
      expect(Object.keys(users[0]).sort()).toEqual(['email', 'id', 'nom', 'prenom']);
    });
  });
});
