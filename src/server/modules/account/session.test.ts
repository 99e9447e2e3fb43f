import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TEST_CONFIG, TEST_DRIVERS, TEST_PASSWORD, createAccount, createTestApp, login } from '../../../../tests/helpers/test-app.js';
import { createApp } from '../../app.js';
import { createMemoryMailer } from '../../mailer.js';
import { hashToken } from '../../tokens.js';
import { LOGIN_MESSAGES } from '../../../shared/schemas/account.js';

type Ctx = Awaited<ReturnType<typeof createTestApp>>;

let ipCounter = 0;
const freshIp = () => `10.2.${Math.floor(++ipCounter / 250)}.${(ipCounter % 250) + 1}`;

describe.each(TEST_DRIVERS)('login, current user and logout (%s)', (driver) => {
  let ctx: Ctx;
  beforeAll(async () => {
    ctx = await createTestApp(driver);
  });
  afterAll(() => ctx.close());

  const postLogin = (username: string, password: string, opts: { ip?: string; cookie?: string } = {}) =>
    ctx.app.inject({
      method: 'POST',
      url: '/api/login',
      payload: { username, password },
      remoteAddress: opts.ip ?? freshIp(),
      headers: opts.cookie ? { cookie: opts.cookie } : {},
    });
  const sessionCookie = (res: Awaited<ReturnType<typeof postLogin>>) => res.cookies.find((c) => c.name === 'compost_sid');
  const logged = (cookie?: string) => ctx.app.inject({ url: '/api/logged', headers: cookie ? { cookie } : {} });

  describe('GET /api/logged', () => {
    it('says a visitor without session is not logged', async () => {
      const res = await logged();
      expect(res.statusCode).toBe(200);
      expect(res.json()).toEqual({ logged: false, user: null });
    });

    it('gives the logged user with its id, username and role codes', async () => {
      const acc = await createAccount(ctx.db, { roles: ['ROLE_USER'], nom: 'MADEC', prenom: 'Yann' });
      const cookie = await login(ctx.app, acc.email);
      expect((await logged(cookie)).json()).toEqual({
        logged: true,
        user: { id: acc.id, username: acc.email, nom: 'MADEC', prenom: 'Yann', roles: ['ROLE_USER'] },
      });
    });

    it('names an agent by its identifiant', async () => {
      const agent = await createAccount(ctx.db, { kind: 'agent', roles: ['ROLE_ADMIN_SITE', 'ROLE_ADMIN_UPDATE'] });
      const cookie = await login(ctx.app, agent.identifiant!);
      expect((await logged(cookie)).json().user).toMatchObject({ id: agent.id, username: agent.identifiant, roles: ['ROLE_ADMIN_SITE', 'ROLE_ADMIN_UPDATE'] });
    });

    it('ignores an unknown session cookie', async () => {
      expect((await logged('compost_sid=inconnu')).json()).toEqual({ logged: false, user: null });
    });
  });

  describe('POST /api/login', () => {
    it('logs in by e-mail, whatever its case, with an HttpOnly SameSite=Lax cookie stored only as a hash', async () => {
      const acc = await createAccount(ctx.db, { roles: ['ROLE_USER'] });
      const res = await postLogin(`  ${acc.email.toUpperCase()}`, TEST_PASSWORD);
      expect(res.statusCode).toBe(200);
      expect(res.json()).toMatchObject({ status: 'success', user: { id: acc.id, username: acc.email, roles: ['ROLE_USER'] } });
      const cookie = sessionCookie(res)!;
      expect(cookie).toMatchObject({ httpOnly: true, sameSite: 'Lax', path: '/' });
      expect(cookie.secure).toBeFalsy();
      expect(cookie.maxAge).toBeGreaterThanOrEqual(30 * 24 * 3600);
      const rows = await ctx.db.selectFrom('session').selectAll().where('account_id', '=', acc.id).execute();
      expect(rows.map((r) => r.id_hash)).toEqual([hashToken(cookie.value)]);
    });

    it('logs an agent in by identifiant', async () => {
      const agent = await createAccount(ctx.db, { kind: 'agent', roles: ['ROLE_ADMIN'] });
      const res = await postLogin(agent.identifiant!.toUpperCase(), TEST_PASSWORD);
      expect(res.statusCode).toBe(200);
      expect(res.json().user).toMatchObject({ id: agent.id, username: agent.identifiant, roles: ['ROLE_ADMIN'] });
    });

    it('gives one generic message for a wrong password and for an unknown user', async () => {
      const acc = await createAccount(ctx.db);
      const wrong = await postLogin(acc.email, 'mauvais-mot-de-passe');
      const unknown = await postLogin('personne@exemple.fr', TEST_PASSWORD);
      for (const res of [wrong, unknown]) {
        expect(res.statusCode).toBe(400);
        expect(res.json()).toEqual({ status: 'error', message: LOGIN_MESSAGES.invalid });
        expect(sessionCookie(res)).toBeUndefined();
      }
    });

    it('asks for the missing fields in French', async () => {
      const res = await ctx.app.inject({ method: 'POST', url: '/api/login', payload: { username: ' ', password: '' } });
      expect(res.statusCode).toBe(400);
      expect(res.json().errors).toEqual([
        { key: 'username', error: 'Identifiant ou adresse mail obligatoire' },
        { key: 'password', error: 'Mot de passe obligatoire' },
      ]);
    });

    it('tells an account whose address is not validated why, only once the password is right', async () => {
      const acc = await createAccount(ctx.db, { emailValide: false, actif: false });
      expect((await postLogin(acc.email, 'mauvais-mot-de-passe')).json().message).toBe(LOGIN_MESSAGES.invalid);
      const res = await postLogin(acc.email, TEST_PASSWORD);
      expect(res.statusCode).toBe(400);
      expect(res.json()).toEqual({ status: 'error', message: LOGIN_MESSAGES.emailNotValidated });
      expect(sessionCookie(res)).toBeUndefined();
    });

    it('tells an account not yet activated why, only once the password is right', async () => {
      const acc = await createAccount(ctx.db, { emailValide: true, actif: false });
      expect((await postLogin(acc.email, 'mauvais-mot-de-passe')).json().message).toBe(LOGIN_MESSAGES.invalid);
      const res = await postLogin(acc.email, TEST_PASSWORD);
      expect(res.json()).toEqual({ status: 'error', message: LOGIN_MESSAGES.inactive });
      expect(sessionCookie(res)).toBeUndefined();
      expect(await ctx.db.selectFrom('session').selectAll().where('account_id', '=', acc.id).execute()).toEqual([]);
    });

    it('refuses an agent who has not chosen a password yet with the generic message', async () => {
      const row = await ctx.db
        .insertInto('account')
        .values({ kind: 'agent', identifiant: 'sans.mdp', email: 'sans.mdp@exemple.fr', nom: 'SANS', email_valide: true, actif: true })
        .returning('id')
        .executeTakeFirstOrThrow();
      expect(row.id).toBeGreaterThan(0);
      expect((await postLogin('sans.mdp', '')).statusCode).toBe(400);
      expect((await postLogin('sans.mdp', 'nimporte-quoi')).json().message).toBe(LOGIN_MESSAGES.invalid);
    });

    it('gives a new session id at each login and ends the one the browser had', async () => {
      const acc = await createAccount(ctx.db);
      const first = sessionCookie(await postLogin(acc.email, TEST_PASSWORD))!.value;
      const second = sessionCookie(await postLogin(acc.email, TEST_PASSWORD, { cookie: `compost_sid=${first}` }))!.value;
      expect(second).not.toBe(first);
      const hashes = (await ctx.db.selectFrom('session').select('id_hash').where('account_id', '=', acc.id).execute()).map((r) => r.id_hash);
      expect(hashes).toEqual([hashToken(second)]);
      expect((await logged(`compost_sid=${first}`)).json().logged).toBe(false);
      expect((await logged(`compost_sid=${second}`)).json().logged).toBe(true);
    });

    it('blocks an account from an address after 10 failures there, by e-mail or identifiant alike, even with the right password', async () => {
      const agent = await createAccount(ctx.db, { kind: 'agent' });
      const ip = freshIp();
      for (let i = 0; i < 10; i++) {
        const username = i % 2 ? agent.email : agent.identifiant!;
        expect((await postLogin(username, `faux-${i}`, { ip })).statusCode).toBe(400);
      }
      const blocked = await postLogin(agent.identifiant!, TEST_PASSWORD, { ip });
      expect(blocked.statusCode).toBe(429);
      expect(blocked.json()).toEqual({ status: 'error', message: 'Trop de tentatives. Veuillez réessayer dans quelques minutes.' });
      expect(Number(blocked.headers['retry-after'])).toBeGreaterThan(14 * 60);
      expect(Number(blocked.headers['retry-after'])).toBeLessThanOrEqual(15 * 60);
      // Other accounts from that address, and this account from another address, are not affected.
      const other = await createAccount(ctx.db);
      expect((await postLogin(other.email, TEST_PASSWORD, { ip })).statusCode).toBe(200);
      expect((await postLogin(agent.identifiant!, TEST_PASSWORD)).statusCode).toBe(200);
    });

    it('never refuses the right password from an address that has not failed, whatever failed elsewhere', async () => {
      const admin = await createAccount(ctx.db, { kind: 'agent', roles: ['ROLE_ADMIN'] });
      // An attacker failing on the administrator from 3 addresses until each is refused.
      for (let a = 0; a < 3; a++) {
        const ip = freshIp();
        for (let i = 0; i < 10; i++) expect((await postLogin(admin.identifiant!, 'devine', { ip })).statusCode).toBe(400);
        expect((await postLogin(admin.identifiant!, 'devine', { ip })).statusCode).toBe(429);
      }
      const res = await postLogin(admin.identifiant!, TEST_PASSWORD);
      expect(res.statusCode).toBe(200);
      expect(res.json().user.roles).toEqual(['ROLE_ADMIN']);
    });

    it('forgets the failed attempts of an account from an address after a successful login there', async () => {
      const acc = await createAccount(ctx.db);
      const ip = freshIp();
      for (let i = 0; i < 9; i++) expect((await postLogin(acc.email, 'faux', { ip })).statusCode).toBe(400);
      expect((await postLogin(acc.email, TEST_PASSWORD, { ip })).statusCode).toBe(200);
      for (let i = 0; i < 10; i++) expect((await postLogin(acc.email, 'faux', { ip })).statusCode).toBe(400);
      expect((await postLogin(acc.email, 'faux', { ip })).statusCode).toBe(429);
    });

    it('counts in the database, so that two server processes share one allowance', async () => {
      // A second application on the same database stands for a second process.
      const second = await createApp({ db: ctx.db, mailer: createMemoryMailer(), config: TEST_CONFIG });
      try {
        const acc = await createAccount(ctx.db);
        const ip = freshIp();
        for (let i = 0; i < 10; i++) {
          const app = i % 2 ? second : ctx.app;
          const res = await app.inject({ method: 'POST', url: '/api/login', payload: { username: acc.email, password: 'faux' }, remoteAddress: ip });
          expect(res.statusCode).toBe(400);
        }
        for (const app of [ctx.app, second]) {
          const res = await app.inject({ method: 'POST', url: '/api/login', payload: { username: acc.email, password: TEST_PASSWORD }, remoteAddress: ip });
          expect(res.statusCode).toBe(429);
        }
        const rows = await ctx.db.selectFrom('login_attempt').selectAll().where('kind', '=', 'login-account-address').execute();
        // Keys are stored hashed: neither the account nor the address appears in clear.
        for (const row of rows) expect(row.key).not.toContain(ip);
      } finally {
        await second.close();
      }
    });

    it('counts the addresses of one IPv6 /64 network as one address', async () => {
      const acc = await createAccount(ctx.db);
      const net = `2001:db8:${(++ipCounter).toString(16)}:1`;
      for (let i = 0; i < 10; i++) expect((await postLogin(acc.email, 'faux', { ip: `${net}::${(i + 1).toString(16)}` })).statusCode).toBe(400);
      expect((await postLogin(acc.email, TEST_PASSWORD, { ip: `${net}::ff` })).statusCode).toBe(429);
      expect((await postLogin(acc.email, TEST_PASSWORD, { ip: `2001:db8:${(++ipCounter).toString(16)}:2::1` })).statusCode).toBe(200);
    });

    it('blocks a client address after 30 failed attempts, successful logins not counting', async () => {
      const ip = freshIp();
      const acc = await createAccount(ctx.db);
      for (let i = 0; i < 29; i++) expect((await postLogin(`inconnu${i}@exemple.fr`, 'faux', { ip })).statusCode).toBe(400);
      for (let i = 0; i < 3; i++) expect((await postLogin(acc.email, TEST_PASSWORD, { ip })).statusCode).toBe(200);
      expect((await postLogin('inconnu-encore@exemple.fr', 'faux', { ip })).statusCode).toBe(400);
      const blocked = await postLogin(acc.email, TEST_PASSWORD, { ip });
      expect(blocked.statusCode).toBe(429);
      expect((await postLogin(acc.email, TEST_PASSWORD, { ip: freshIp() })).statusCode).toBe(200);
    });
  });

  describe('GET /logout', () => {
    it('deletes the session, clears the cookie and goes back to /login', async () => {
      const acc = await createAccount(ctx.db);
      const cookie = await login(ctx.app, acc.email);
      const res = await ctx.app.inject({ url: '/logout', headers: { cookie } });
      expect(res.statusCode).toBe(302);
      expect(res.headers.location).toBe('/login');
      const cleared = res.cookies.find((c) => c.name === 'compost_sid')!;
      expect(cleared.value).toBe('');
      expect(cleared.expires!.getTime()).toBeLessThanOrEqual(Date.now());
      expect(await ctx.db.selectFrom('session').selectAll().where('account_id', '=', acc.id).execute()).toEqual([]);
      expect((await logged(cookie)).json()).toEqual({ logged: false, user: null });
    });

    it('ends the session from the app itself or a typed address, but not from a link on another site', async () => {
      const acc = await createAccount(ctx.db);
      const cookie = await login(ctx.app, acc.email);
      for (const site of ['cross-site', 'same-site']) {
        const res = await ctx.app.inject({ url: '/logout', headers: { cookie, 'sec-fetch-site': site } });
        expect(res.statusCode).toBe(302);
        expect(res.headers.location).toBe('/login');
        expect((await logged(cookie)).json().logged).toBe(true);
      }
      for (const site of ['same-origin', 'none']) {
        const again = await login(ctx.app, acc.email);
        expect((await ctx.app.inject({ url: '/logout', headers: { cookie: again, 'sec-fetch-site': site } })).statusCode).toBe(302);
        expect((await logged(again)).json().logged).toBe(false);
      }
    });

    it('sends a visitor without session to /login as well', async () => {
      const res = await ctx.app.inject({ url: '/logout' });
      expect(res.statusCode).toBe(302);
      expect(res.headers.location).toBe('/login');
    });
  });
});
