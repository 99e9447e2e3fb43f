import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TEST_DRIVERS, createAccount, createTestApp, login, loggedAs } from '../../../../tests/helpers/test-app.js';

type Ctx = Awaited<ReturnType<typeof createTestApp>>;

describe.each(TEST_DRIVERS)('roles and agents (%s)', (driver) => {
  let ctx: Ctx;
  let admin: Awaited<ReturnType<typeof loggedAs>>;
  const get = (url: string, cookie = admin.cookie) => ctx.app.inject({ method: 'GET', url, headers: { cookie } });
  const put = (url: string, payload: unknown, cookie = admin.cookie) => ctx.app.inject({ method: 'PUT', url, payload: payload as object, headers: { cookie } });
  const roleId = async (code: string) => (await ctx.db.selectFrom('role').where('code', '=', code).select('id').executeTakeFirstOrThrow()).id;

  beforeAll(async () => {
    ctx = await createTestApp(driver);
    admin = await loggedAs(ctx, ['ROLE_ADMIN'], { nom: 'ADMIN', prenom: 'Alice' });
  });
  afterAll(() => ctx.close());

  it('lists the roles ten per page by default, sorted by name', async () => {
    const res = await get('/api/admin/role/get/list/by/filters');
    expect(res.statusCode).toBe(200);
    const body = res.json() as { count: number; roles: { id: number; libelle: string }[] };
    expect(body.count).toBe(9);
    expect(body.roles.map((r) => r.libelle)).toEqual([...body.roles.map((r) => r.libelle)].sort());
    expect(body.roles[0]).toEqual({ id: 1, libelle: 'ROLE_ADMIN' });
    const desc = (await get('/api/admin/role/get/list/by/filters?sort[name]=libelle&sort[direction]=desc')).json();
    expect(desc.roles[0].libelle).toBe('ROLE_USER');
    const page = (await get('/api/admin/role/get/list/by/filters?rowsPerPage=5&page=1')).json();
    expect(page.roles).toHaveLength(4);
  });

  it('filters roles by name ignoring case', async () => {
    const body = (await get('/api/admin/role/get/list/by/filters?filter[libelle]=admin_s')).json();
    expect(body).toEqual({ count: 1, roles: [{ id: 2, libelle: 'ROLE_ADMIN_SITE' }] });
    expect((await get('/api/admin/role/get/list/by/filters?search=presta')).json().count).toBe(1);
  });

  it('rejects unknown sorts and filters', async () => {
    expect((await get('/api/admin/role/get/list/by/filters?sort[name]=code')).statusCode).toBe(400);
    expect((await get('/api/admin/role/get/list/by/filters?filter[code]=x')).statusCode).toBe(400);
  });

  it('gives one role with its agents, 404 for an unknown role', async () => {
    const res = await get('/api/admin/role/get/1');
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ id: 1, libelle: 'ROLE_ADMIN', agents: [{ id: admin.id, prenom: 'Alice', nom: 'ADMIN', photo: null }] });
    expect((await get('/api/admin/role/get/999')).json()).toEqual({ status: 'error', message: 'Rôle introuvable.' });
    expect((await get('/api/admin/role/get/abc')).statusCode).toBe(400);
  });

  it('replaces the agents of a role, and the change applies to their next request', async () => {
    const agent = await createAccount(ctx.db, { kind: 'agent', nom: 'KERGUELEN', prenom: 'Loïc' });
    const cookie = await login(ctx.app, agent.login);
    expect((await get('/api/admin/typeSite/get/list/by/filters', cookie)).statusCode).toBe(403);
    const siteRole = await roleId('ROLE_ADMIN_SITE');
    let res = await put(`/api/admin/role/update/${siteRole}`, { agents: [agent.id] });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toEqual({ status: 'success', message: 'Enregistrement effectué' });
    expect((await get(`/api/admin/role/get/${siteRole}`)).json().agents.map((a: { id: number }) => a.id)).toEqual([agent.id]);
    expect((await get('/api/admin/typeSite/get/list/by/filters', cookie)).statusCode).toBe(200);
    res = await put(`/api/admin/role/update/${siteRole}`, { agents: [] });
    expect(res.statusCode).toBe(200);
    expect((await get('/api/admin/typeSite/get/list/by/filters', cookie)).statusCode).toBe(403);
  });

  it('refuses external roles, unknown agents and external users as agents', async () => {
    const agent = await createAccount(ctx.db, { kind: 'agent' });
    for (const code of ['ROLE_USER', 'ROLE_PRESTATAIRE']) {
      const res = await put(`/api/admin/role/update/${await roleId(code)}`, { agents: [agent.id] });
      expect(res.statusCode).toBe(400);
      expect(res.json().errors).toEqual([{ key: 'agents', error: 'Ce rôle est réservé aux utilisateurs externes : il ne peut pas être donné à un agent.' }]);
    }
    const external = await createAccount(ctx.db, { kind: 'user', roles: ['ROLE_USER'] });
    const siteRole = await roleId('ROLE_ADMIN_SITE');
    let res = await put(`/api/admin/role/update/${siteRole}`, { agents: [external.id] });
    expect(res.statusCode).toBe(400);
    expect(res.json().errors).toEqual([{ key: 'agents', error: 'Agent inconnu' }]);
    res = await put(`/api/admin/role/update/${siteRole}`, { agents: [999999] });
    expect(res.json().errors).toEqual([{ key: 'agents', error: 'Agent inconnu' }]);
    res = await put(`/api/admin/role/update/${siteRole}`, {});
    expect(res.statusCode).toBe(400);
    expect(res.json().errors).toEqual([{ key: 'agents', error: 'La liste des agents est obligatoire' }]);
    res = await put(`/api/admin/role/update/${siteRole}`, { agents: ['abc'] });
    expect(res.statusCode).toBe(400);
    expect(res.json().errors[0].key).toBe('agents0');
    expect((await put('/api/admin/role/update/999', { agents: [] })).statusCode).toBe(404);
    for (const bad of ['abc', '0', '-1']) {
      res = await put(`/api/admin/role/update/${bad}`, { agents: [] });
      expect(res.statusCode, bad).toBe(400);
      expect(res.json().errors).toEqual([{ key: 'id', error: 'Identifiant invalide' }]);
    }
    expect((await get('/api/admin/role/get/0')).json().errors).toEqual([{ key: 'id', error: 'Identifiant invalide' }]);
  });

  it('keeps at least one active administrator', async () => {
    const adminRole = await roleId('ROLE_ADMIN');
    let res = await put(`/api/admin/role/update/${adminRole}`, { agents: [] });
    expect(res.statusCode).toBe(409);
    expect(res.json().status).toBe('error');
    expect(res.json().message).toBe('Impossible de retirer le dernier administrateur (ROLE_ADMIN) : ajoutez d’abord un autre agent actif.');
    const inactive = await createAccount(ctx.db, { kind: 'agent', actif: false });
    res = await put(`/api/admin/role/update/${adminRole}`, { agents: [inactive.id] });
    expect(res.statusCode).toBe(409);
    const other = await createAccount(ctx.db, { kind: 'agent' });
    res = await put(`/api/admin/role/update/${adminRole}`, { agents: [admin.id, other.id] });
    expect(res.statusCode).toBe(200);
    res = await put(`/api/admin/role/update/${adminRole}`, { agents: [admin.id] });
    expect(res.statusCode).toBe(200);
  });

  it('does not touch external users when replacing agents', async () => {
    const presta = await createAccount(ctx.db, { kind: 'user', typeUser: 3, roles: ['ROLE_PRESTATAIRE'] });
    const siteRole = await roleId('ROLE_ADMIN_SITE');
    // An external user can hold ROLE_ADMIN_SITE only through direct data: it must survive an update.
    await ctx.db.insertInto('account_role').values({ account_id: presta.id, role_id: siteRole }).execute();
    expect((await put(`/api/admin/role/update/${siteRole}`, { agents: [] })).statusCode).toBe(200);
    const kept = await ctx.db.selectFrom('account_role').where('account_id', '=', presta.id).select('role_id').execute();
    expect(kept.map((r) => r.role_id).sort()).toEqual([siteRole, await roleId('ROLE_PRESTATAIRE')].sort());
  });

  it('finds agents by first or last name ignoring accents, at most twenty', async () => {
    const a = await createAccount(ctx.db, { kind: 'agent', nom: 'LE GOFF', prenom: 'Gaëlle' });
    await createAccount(ctx.db, { kind: 'user', nom: 'LE GOFF', prenom: 'Gaelle' });
    let res = await get('/api/admin/agent/get/by/name?name=gaelle');
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual([{ id: a.id, prenom: 'Gaëlle', nom: 'LE GOFF', photo: null }]);
    expect((await get('/api/admin/agent/get/by/name?name=Gaëlle%20goff')).json().map((x: { id: number }) => x.id)).toEqual([a.id]);
    expect((await get('/api/admin/agent/get/by/name?name=goff%20zz')).json()).toEqual([]);
    for (let i = 0; i < 22; i++) await createAccount(ctx.db, { kind: 'agent', nom: `MASSE${i}` });
    res = await get('/api/admin/agent/get/by/name?name=masse');
    expect(res.json()).toHaveLength(20);
    expect((await get('/api/admin/agent/get/by/name?other=1')).statusCode).toBe(400);
  });

  it('lets ROLE_ADMIN and ROLE_ADMIN_ROLE manage roles, and nobody else', async () => {
    for (const [method, url] of [
      ['GET', '/api/admin/role/get/list/by/filters'],
      ['GET', '/api/admin/role/get/1'],
      ['PUT', '/api/admin/role/update/1'],
      ['GET', '/api/admin/agent/get/by/name?name=a'],
    ] as const) {
      expect((await ctx.app.inject({ method, url, payload: method === 'PUT' ? { agents: [] } : undefined })).statusCode, url).toBe(401);
    }
    const roleAdmin = await loggedAs(ctx, ['ROLE_ADMIN_ROLE']);
    expect((await get('/api/admin/role/get/list/by/filters', roleAdmin.cookie)).statusCode).toBe(200);
    expect((await get('/api/admin/agent/get/by/name?name=a', roleAdmin.cookie)).statusCode).toBe(200);
    expect((await get('/api/admin/role/get/1', roleAdmin.cookie)).statusCode).toBe(200);
    const deleteRole = await roleId('ROLE_ADMIN_DELETE');
    expect((await put(`/api/admin/role/update/${deleteRole}`, { agents: [roleAdmin.id] }, roleAdmin.cookie)).statusCode).toBe(200);
    for (const roles of [['ROLE_ADMIN_SITE'], ['ROLE_ADMIN_USER'], ['ROLE_ADMIN_COMPOSTEUR'], ['ROLE_USER'], ['ROLE_PRESTATAIRE']]) {
      const who = await loggedAs(ctx, roles);
      expect((await get('/api/admin/role/get/list/by/filters', who.cookie)).statusCode, roles[0]).toBe(403);
      expect((await get('/api/admin/role/get/1', who.cookie)).statusCode).toBe(403);
      expect((await get('/api/admin/agent/get/by/name?name=a', who.cookie)).statusCode).toBe(403);
      expect((await put(`/api/admin/role/update/${deleteRole}`, { agents: [who.id] }, who.cookie)).statusCode).toBe(403);
    }
  });
});
