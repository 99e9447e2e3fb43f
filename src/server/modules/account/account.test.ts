import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { sql } from 'kysely';
import { TEST_DRIVERS, createAccount, createTestApp, login } from '../../../../tests/helpers/test-app.js';
import { hashToken } from '../../tokens.js';
import { LOGIN_MESSAGES } from '../../../shared/schemas/account.js';

type Ctx = Awaited<ReturnType<typeof createTestApp>>;

let ipCounter = 0;
/** Each test speaks from its own address, so per-address limits only bite where tested. */
const freshIp = () => `10.1.${Math.floor(++ipCounter / 250)}.${(ipCounter % 250) + 1}`;

let emailCounter = 0;
const freshEmail = () => `inscrit${++emailCounter}-${Math.random().toString(36).slice(2, 7)}@exemple.fr`;

const validSignup = (over: Record<string, unknown> = {}) => ({
  type: 1,
  organisme: '',
  nom: 'le gall',
  prenom: 'jean-pierre',
  tel: '0298000000',
  email: freshEmail(),
  password: 'un-bon-mot-de-passe',
  confirmPassword: 'un-bon-mot-de-passe',
  ...over,
});

function tokenFrom(text: string, route: 'confirmation' | 'reset'): string {
  const m = text.match(new RegExp(`http://localhost:3000/${route}/([A-Za-z0-9_-]+)`));
  if (!m) throw new Error(`no ${route} link in: ${text}`);
  return m[1];
}

describe.each(TEST_DRIVERS)('account API (%s)', (driver) => {
  let ctx: Ctx;
  beforeAll(async () => {
    ctx = await createTestApp(driver);
  });
  afterAll(() => ctx.close());

  const signup = (payload: Record<string, unknown>, ip = freshIp()) =>
    ctx.app.inject({ method: 'POST', url: '/api/signup', payload, remoteAddress: ip });
  const put = (url: string, payload?: Record<string, unknown>, ip = freshIp()) => ctx.app.inject({ method: 'PUT', url, payload, remoteAddress: ip });
  const get = (url: string, ip = freshIp()) => ctx.app.inject({ method: 'GET', url, remoteAddress: ip });
  const accountByEmail = (email: string) => ctx.db.selectFrom('account').selectAll().where(sql`lower(email)`, '=', email.toLowerCase()).executeTakeFirst();
  const lastMailTo = (email: string) => ctx.mailer.sent.filter((m) => m.to === email).at(-1);

  async function signedUp(over: Record<string, unknown> = {}) {
    const payload = validSignup(over);
    const res = await signup(payload);
    expect(res.statusCode).toBe(200);
    const mail = lastMailTo(payload.email as string)!;
    return { payload, token: tokenFrom(mail.text, 'confirmation') };
  }

  async function resetLinkFor(email: string) {
    const before = ctx.mailer.sent.length;
    expect((await put('/api/password', { mail: email })).json()).toEqual({ status: 'success' });
    await vi.waitFor(() => expect(ctx.mailer.sent.length).toBe(before + 1));
    return tokenFrom(ctx.mailer.sent.at(-1)!.text, 'reset');
  }

  describe('signup', () => {
    it('creates an inactive external account with a formatted name and an argon2id hash', async () => {
      const payload = validSignup();
      const res = await signup(payload);
      expect(res.statusCode).toBe(200);
      expect(res.json()).toEqual({ status: 'success' });
      const row = (await accountByEmail(payload.email))!;
      expect(row).toMatchObject({
        kind: 'user',
        type_user_id: 1,
        organisme: null,
        nom: 'LE GALL',
        prenom: 'Jean-Pierre',
        tel: '0298000000',
        email: payload.email,
        identifiant: null,
        email_valide: false,
        actif: false,
      });
      // OWASP's argon2id parameters: 19 MiB, 2 passes, 1 lane.
      const params = row.password_hash!.match(/^\$argon2id\$v=19\$([^$]+)\$/)?.[1].split(',').sort();
      expect(params).toEqual(['m=19456', 'p=1', 't=2']);
      expect(row.password_hash).not.toContain(payload.password);
      const roles = await ctx.db.selectFrom('account_role').where('account_id', '=', row.id).selectAll().execute();
      expect(roles).toEqual([]);
    });

    it('mails a French validation link whose token is stored only as a hash and lasts 7 days', async () => {
      const payload = validSignup();
      await signup(payload);
      const mail = lastMailTo(payload.email)!;
      expect(mail.subject).toBe('Validation de votre adresse mail');
      expect(mail.text).toContain('Vous venez de créer un compte sur Compost test.');
      expect(mail.text).toContain('Bonjour Jean-Pierre LE GALL,');
      const token = tokenFrom(mail.text, 'confirmation');
      expect(mail.html).toContain(`http://localhost:3000/confirmation/${token}`);
      // At least 128 random bits in base64url.
      expect(token.length).toBeGreaterThanOrEqual(22);
      const row = (await accountByEmail(payload.email))!;
      const tokens = await ctx.db.selectFrom('account_token').selectAll().where('account_id', '=', row.id).execute();
      expect(tokens).toHaveLength(1);
      expect(tokens[0]).toMatchObject({ token_hash: hashToken(token), purpose: 'confirm', used_at: null });
      expect(tokens[0].token_hash).not.toBe(token);
      const ttl = new Date(tokens[0].expires_at).getTime() - Date.now();
      expect(ttl).toBeGreaterThan(7 * 24 * 3600_000 - 60_000);
      expect(ttl).toBeLessThanOrEqual(7 * 24 * 3600_000);
    });

    it('escapes the name in the HTML version of the mail', async () => {
      const payload = validSignup({ nom: '<img src=x>', prenom: 'anne' });
      await signup(payload);
      const mail = lastMailTo(payload.email)!;
      expect(mail.html).toContain('Bonjour Anne &lt;IMG SRC=X&gt;,');
      expect(mail.html).not.toContain('<IMG');
    });

    it('lets an organisation sign up without a first name and keeps its organisme', async () => {
      const payload = validSignup({ type: '2', organisme: 'Bretagne Vivante', prenom: '' });
      expect((await signup(payload)).statusCode).toBe(200);
      expect(await accountByEmail(payload.email)).toMatchObject({ type_user_id: 2, organisme: 'Bretagne Vivante', prenom: null, nom: 'LE GALL' });
    });

    it('drops an organisme sent for a non-organisation type', async () => {
      const payload = validSignup({ type: 3, organisme: 'Broyage Service' });
      expect((await signup(payload)).statusCode).toBe(200);
      expect(await accountByEmail(payload.email)).toMatchObject({ type_user_id: 3, organisme: null });
    });

    it.each([
      ['a missing type', { type: undefined }, 'type', 'Champ obligatoire'],
      ['an unknown type', { type: 7 }, 'type', 'Type d’utilisateur inconnu'],
      ['an organisation without organisme', { type: 2, organisme: '', prenom: '' }, 'organisme', 'Champ obligatoire'],
      ['a private person without first name', { type: 1, prenom: '  ' }, 'prenom', 'Champ obligatoire'],
      ['a missing last name', { nom: '' }, 'nom', 'Champ obligatoire'],
      ['a missing phone', { tel: '' }, 'tel', 'Champ obligatoire'],
      ['a phone with letters', { tel: '02 98 00' }, 'tel', 'Le téléphone ne contient que des chiffres (10 au plus)'],
      ['a phone of 11 digits', { tel: '02980000000' }, 'tel', 'Le téléphone ne contient que des chiffres (10 au plus)'],
      ['a missing e-mail', { email: '' }, 'email', 'Champ obligatoire'],
      ['a malformed e-mail', { email: 'jean.exemple.fr' }, 'email', 'Adresse mail invalide'],
      ['a short password', { password: 'court', confirmPassword: 'court' }, 'password', 'Le mot de passe doit contenir au moins 8 caractères'],
      ['a missing confirmation', { confirmPassword: '' }, 'confirmPassword', 'Champ obligatoire'],
      ['a confirmation that differs', { confirmPassword: 'un-autre-mot-de-passe' }, 'confirmPassword', 'Les mots de passe ne correspondent pas'],
    ])('refuses %s with a French error on its field', async (_name, over, key, error) => {
      const payload = validSignup(over);
      const res = await signup(payload);
      expect(res.statusCode).toBe(400);
      const body = res.json();
      expect(body.status).toBe('error');
      // A missing field keeps the general message; any other error is named at the top.
      expect(body.message).toBe(error === 'Champ obligatoire' ? 'Veuillez renseigner les champs obligatoires' : error);
      expect(body.errors).toEqual([{ key, error }]);
      if (typeof payload.email === 'string' && payload.email) expect(await accountByEmail(payload.email)).toBeUndefined();
    });

    it('reports every invalid field of an empty form at once', async () => {
      const res = await signup({});
      expect(res.statusCode).toBe(400);
      expect(res.json().errors.map((e: { key: string }) => e.key).sort()).toEqual(['confirmPassword', 'email', 'nom', 'password', 'tel', 'type']);
    });

    it('answers a known address exactly as a new one, creates nothing and tells the owner by mail', async () => {
      const existing = await createAccount(ctx.db, { nom: 'RIOU', prenom: 'Gaëlle' });
      const fresh = await signup(validSignup());
      const sentBefore = ctx.mailer.sent.length;
      const known = await signup(validSignup({ email: existing.email.toUpperCase() }));
      expect(known.statusCode).toBe(fresh.statusCode);
      expect(known.statusCode).toBe(200);
      expect(known.body).toBe(fresh.body);
      expect(known.json()).toEqual({ status: 'success' });
      expect(ctx.mailer.sent.length).toBe(sentBefore + 1);
      const mail = ctx.mailer.sent.at(-1)!;
      expect(mail.to).toBe(existing.email);
      expect(mail.subject).toBe('Tentative d’inscription avec votre adresse mail');
      expect(mail.text).toContain('Bonjour Gaëlle RIOU,');
      expect(mail.text).toContain('Quelqu’un vient d’essayer de créer un compte sur Compost test avec votre adresse mail');
      expect(mail.text).toContain('http://localhost:3000/login');
      expect(mail.text).toContain('http://localhost:3000/password');
      expect(mail.html).toContain('<a href="http://localhost:3000/password">');
      expect(mail.text).not.toContain('/confirmation/');
      const count = await ctx.db.selectFrom('account').where(sql`lower(email)`, '=', existing.email).select(sql<number>`count(*)::int`.as('n')).executeTakeFirstOrThrow();
      expect(count.n).toBe(1);
      const tokens = await ctx.db.selectFrom('account_token').where('account_id', '=', existing.id).selectAll().execute();
      expect(tokens).toEqual([]);
    });

    it('removes the new account when its validation mail cannot be sent, so the address can sign up again', async () => {
      const payload = validSignup();
      const send = ctx.mailer.send;
      ctx.mailer.send = async () => {
        throw new Error('SMTP indisponible');
      };
      try {
        const res = await signup(payload);
        expect(res.statusCode).toBe(500);
        expect(res.json()).toEqual({ status: 'error', message: 'Une erreur est survenue.' });
      } finally {
        ctx.mailer.send = send;
      }
      expect(await accountByEmail(payload.email)).toBeUndefined();
      expect((await signup(payload)).statusCode).toBe(200);
    });

    it('limits signups for one e-mail address', async () => {
      const existing = await createAccount(ctx.db);
      for (let i = 0; i < 5; i++) expect((await signup(validSignup({ email: existing.email }))).statusCode).toBe(200);
      const res = await signup(validSignup({ email: existing.email }));
      expect(res.statusCode).toBe(429);
      expect(res.json()).toEqual({ status: 'error', message: 'Trop de tentatives. Veuillez réessayer dans quelques minutes.' });
      expect(Number(res.headers['retry-after'])).toBeGreaterThan(0);
    });

    it('limits signups from one client address', async () => {
      const ip = freshIp();
      for (let i = 0; i < 20; i++) {
        const existing = await createAccount(ctx.db);
        expect((await signup(validSignup({ email: existing.email }), ip)).statusCode).toBe(200);
      }
      expect((await signup(validSignup(), ip)).statusCode).toBe(429);
      expect((await signup(validSignup())).statusCode).toBe(200);
    });
  });

  describe('e-mail confirmation', () => {
    it('validates the address once; the account then waits for an administrator', async () => {
      const { payload, token } = await signedUp();
      expect((await login(ctx.app, payload.email as string, payload.password as string).catch((e: Error) => e.message))).toContain(LOGIN_MESSAGES.emailNotValidated);
      const res = await put(`/api/confirmation/${token}`);
      expect(res.statusCode).toBe(200);
      expect(res.json()).toEqual({ status: 'success' });
      const row = (await accountByEmail(payload.email as string))!;
      expect(row).toMatchObject({ email_valide: true, actif: false });
      const stored = await ctx.db.selectFrom('account_token').select('used_at').where('token_hash', '=', hashToken(token)).executeTakeFirstOrThrow();
      expect(stored.used_at).not.toBeNull();
      expect((await login(ctx.app, payload.email as string, payload.password as string).catch((e: Error) => e.message))).toContain(LOGIN_MESSAGES.inactive);
      await ctx.db.updateTable('account').set({ actif: true }).where('id', '=', row.id).execute();
      expect(await login(ctx.app, payload.email as string, payload.password as string)).toMatch(/^compost_sid=/);
    });

    it('refuses a link that was already used', async () => {
      const { token } = await signedUp();
      expect((await put(`/api/confirmation/${token}`)).statusCode).toBe(200);
      const again = await put(`/api/confirmation/${token}`);
      expect(again.statusCode).toBe(404);
      expect(again.json()).toEqual({ status: 'error', message: 'Compte introuvable' });
    });

    it('refuses an unknown token', async () => {
      const res = await put('/api/confirmation/pas-un-jeton-valide');
      expect(res.statusCode).toBe(404);
      expect(res.json()).toEqual({ status: 'error', message: 'Compte introuvable' });
    });

    it('refuses an expired link and leaves the address unvalidated', async () => {
      const { payload, token } = await signedUp();
      await ctx.db
        .updateTable('account_token')
        .set({ expires_at: new Date(Date.now() - 1000) })
        .where('token_hash', '=', hashToken(token))
        .execute();
      const res = await put(`/api/confirmation/${token}`);
      expect(res.statusCode).toBe(404);
      expect(res.json().message).toBe('Compte introuvable');
      expect(await accountByEmail(payload.email as string)).toMatchObject({ email_valide: false });
    });

    it('does not accept a password reset token as a confirmation', async () => {
      const acc = await createAccount(ctx.db, { emailValide: false });
      const resetToken = await resetLinkFor(acc.email);
      expect((await put(`/api/confirmation/${resetToken}`)).statusCode).toBe(404);
      expect(await accountByEmail(acc.email)).toMatchObject({ email_valide: false });
    });

    it('limits attempts on one token', async () => {
      const ip = freshIp();
      for (let i = 0; i < 10; i++) expect((await put('/api/confirmation/jeton-devine', undefined, ip)).statusCode).toBe(404);
      expect((await put('/api/confirmation/jeton-devine', undefined, freshIp())).statusCode).toBe(429);
    });

    it('limits token attempts from one client address', async () => {
      const ip = freshIp();
      for (let i = 0; i < 30; i++) expect((await put(`/api/confirmation/jeton-${i}`, undefined, ip)).statusCode).toBe(404);
      const res = await put('/api/confirmation/jeton-suivant', undefined, ip);
      expect(res.statusCode).toBe(429);
      expect(res.json().message).toBe('Trop de tentatives. Veuillez réessayer dans quelques minutes.');
    });
  });

  describe('forgotten password', () => {
    it('answers the same for a known and an unknown address, and mails only the known one', async () => {
      const acc = await createAccount(ctx.db);
      const before = ctx.mailer.sent.length;
      const unknown = await put('/api/password', { mail: 'personne@exemple.fr' });
      const known = await put('/api/password', { mail: `  ${acc.email.toUpperCase()} ` });
      expect(unknown.statusCode).toBe(200);
      expect(known.statusCode).toBe(200);
      expect(unknown.body).toBe(known.body);
      expect(known.json()).toEqual({ status: 'success' });
      await vi.waitFor(() => expect(ctx.mailer.sent.length).toBe(before + 1));
      expect(ctx.mailer.sent.at(-1)!.to).toBe(acc.email);
      const tokens = await ctx.db.selectFrom('account_token').innerJoin('account', 'account.id', 'account_token.account_id').select('account.email').where('purpose', '=', 'reset').execute();
      expect(tokens.map((t) => t.email)).not.toContain('personne@exemple.fr');
    });

    it('answers success to an empty or odd address without mailing anyone', async () => {
      const before = ctx.mailer.sent.length;
      expect((await put('/api/password', { mail: '' })).json()).toEqual({ status: 'success' });
      expect((await put('/api/password', { mail: 'pas une adresse' })).json()).toEqual({ status: 'success' });
      expect(ctx.mailer.sent.length).toBe(before);
    });

    it('mails a French reset link valid for 60 minutes, for agents as well', async () => {
      const agent = await createAccount(ctx.db, { kind: 'agent', nom: 'KERMARREC', prenom: 'Anne' });
      const token = await resetLinkFor(agent.email);
      const mail = ctx.mailer.sent.at(-1)!;
      expect(mail.to).toBe(agent.email);
      expect(mail.subject).toBe('Réinitialisation de votre mot de passe');
      expect(mail.text).toContain('votre compte Compost test');
      expect(mail.text).toContain('Bonjour Anne KERMARREC,');
      expect(mail.text).toContain('60 minutes');
      expect(mail.html).toContain(`http://localhost:3000/reset/${token}`);
      const stored = await ctx.db.selectFrom('account_token').selectAll().where('token_hash', '=', hashToken(token)).executeTakeFirstOrThrow();
      expect(stored).toMatchObject({ account_id: agent.id, purpose: 'reset', used_at: null });
      const ttl = new Date(stored.expires_at).getTime() - Date.now();
      expect(ttl).toBeGreaterThan(59 * 60_000);
      expect(ttl).toBeLessThanOrEqual(60 * 60_000);
    });

    it('checks a reset token without using it', async () => {
      const acc = await createAccount(ctx.db);
      const token = await resetLinkFor(acc.email);
      expect((await get(`/api/password/reset/${token}`)).json()).toEqual({ status: 'success' });
      expect((await get(`/api/password/reset/${token}`)).statusCode).toBe(200);
      const unknown = await get('/api/password/reset/inconnu');
      expect(unknown.statusCode).toBe(404);
      expect(unknown.json()).toEqual({ status: 'error', message: 'Compte introuvable' });
    });

    it('refuses an expired reset token on check and on update', async () => {
      const acc = await createAccount(ctx.db);
      const token = await resetLinkFor(acc.email);
      await ctx.db
        .updateTable('account_token')
        .set({ expires_at: new Date(Date.now() - 1000) })
        .where('token_hash', '=', hashToken(token))
        .execute();
      expect((await get(`/api/password/reset/${token}`)).statusCode).toBe(404);
      const res = await put(`/api/password/update/${token}`, { password: 'nouveau-secret', confirmPassword: 'nouveau-secret' });
      expect(res.statusCode).toBe(404);
      expect(res.json().message).toBe('Compte introuvable');
      expect(await login(ctx.app, acc.login)).toMatch(/^compost_sid=/);
    });

    it('does not accept a confirmation token as a reset token', async () => {
      const { token } = await signedUp();
      expect((await get(`/api/password/reset/${token}`)).statusCode).toBe(404);
      expect((await put(`/api/password/update/${token}`, { password: 'nouveau-secret', confirmPassword: 'nouveau-secret' })).statusCode).toBe(404);
    });

    it('sets the new password, ends every session of the account and works only once', async () => {
      const acc = await createAccount(ctx.db);
      const phone = await login(ctx.app, acc.login);
      const desktop = await login(ctx.app, acc.login);
      const older = await resetLinkFor(acc.email);
      const token = await resetLinkFor(acc.email);
      const res = await put(`/api/password/update/${token}`, { password: 'nouveau-secret', confirmPassword: 'nouveau-secret' });
      expect(res.statusCode).toBe(200);
      expect(res.json()).toEqual({ status: 'success' });

      const sessions = await ctx.db.selectFrom('session').select('id_hash').where('account_id', '=', acc.id).execute();
      expect(sessions).toEqual([]);
      for (const cookie of [phone, desktop]) {
        expect((await ctx.app.inject({ url: '/api/logged', headers: { cookie } })).json()).toEqual({ logged: false, user: null });
      }
      const row = (await accountByEmail(acc.email))!;
      expect(row.password_hash).toMatch(/^\$argon2id\$/);
      await expect(login(ctx.app, acc.login)).rejects.toThrow(LOGIN_MESSAGES.invalid);
      expect(await login(ctx.app, acc.login, 'nouveau-secret')).toMatch(/^compost_sid=/);

      const reused = await put(`/api/password/update/${token}`, { password: 'encore-autre', confirmPassword: 'encore-autre' });
      expect(reused.statusCode).toBe(404);
      expect(reused.json()).toEqual({ status: 'error', message: 'Compte introuvable' });
      expect((await get(`/api/password/reset/${token}`)).statusCode).toBe(404);
      // The other link mailed before the change no longer works either.
      expect((await get(`/api/password/reset/${older}`)).statusCode).toBe(404);
      expect(await login(ctx.app, acc.login, 'nouveau-secret')).toMatch(/^compost_sid=/);
    });

    it('counts a completed reset as proof of the address', async () => {
      const acc = await createAccount(ctx.db, { emailValide: false, actif: false });
      const token = await resetLinkFor(acc.email);
      expect((await put(`/api/password/update/${token}`, { password: 'nouveau-secret', confirmPassword: 'nouveau-secret' })).statusCode).toBe(200);
      expect(await accountByEmail(acc.email)).toMatchObject({ email_valide: true, actif: false });
    });

    it.each([
      ['a missing password', { password: '', confirmPassword: '' }, [{ key: 'password', error: 'Champ obligatoire' }, { key: 'confirmPassword', error: 'Champ obligatoire' }]],
      ['a short password', { password: 'court', confirmPassword: 'court' }, [{ key: 'password', error: 'Le mot de passe doit contenir au moins 8 caractères' }]],
      ['a confirmation that differs', { password: 'nouveau-secret', confirmPassword: 'nouveau-secrex' }, [{ key: 'confirmPassword', error: 'Les mots de passe ne correspondent pas' }]],
    ])('refuses %s field by field and keeps the link usable', async (_name, body, errors) => {
      const acc = await createAccount(ctx.db);
      const token = await resetLinkFor(acc.email);
      const res = await put(`/api/password/update/${token}`, body);
      expect(res.statusCode).toBe(400);
      expect(res.json()).toEqual({ status: 'error', errors, message: errors[0].error === 'Champ obligatoire' ? 'Veuillez renseigner les champs obligatoires' : errors[0].error });
      expect((await get(`/api/password/reset/${token}`)).statusCode).toBe(200);
    });

    it('limits reset requests for one address, known or not', async () => {
      const acc = await createAccount(ctx.db);
      for (const mail of [acc.email, 'inconnu@exemple.fr']) {
        for (let i = 0; i < 5; i++) expect((await put('/api/password', { mail })).statusCode).toBe(200);
        const res = await put('/api/password', { mail: mail.toUpperCase() });
        expect(res.statusCode).toBe(429);
        expect(res.json().message).toBe('Trop de tentatives. Veuillez réessayer dans quelques minutes.');
      }
    });

    it('limits reset requests from one client address', async () => {
      const ip = freshIp();
      for (let i = 0; i < 20; i++) expect((await put('/api/password', { mail: `x${i}@exemple.fr` }, ip)).statusCode).toBe(200);
      expect((await put('/api/password', { mail: 'y@exemple.fr' }, ip)).statusCode).toBe(429);
    });

    it('limits reset token checks from one client address', async () => {
      const ip = freshIp();
      for (let i = 0; i < 30; i++) expect((await get(`/api/password/reset/jeton-${i}`, ip)).statusCode).toBe(404);
      const res = await get('/api/password/reset/jeton-suivant', ip);
      expect(res.statusCode).toBe(429);
      expect(res.json().message).toBe('Trop de tentatives. Veuillez réessayer dans quelques minutes.');
    });

    it('limits password updates on one token', async () => {
      const acc = await createAccount(ctx.db);
      const token = await resetLinkFor(acc.email);
      for (let i = 0; i < 10; i++) expect((await put(`/api/password/update/${token}`, { password: 'court', confirmPassword: 'court' })).statusCode).toBe(400);
      expect((await put(`/api/password/update/${token}`, { password: 'nouveau-secret', confirmPassword: 'nouveau-secret' })).statusCode).toBe(429);
    });
  });
});
