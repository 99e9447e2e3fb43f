import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import { TEST_CONFIG, TEST_DRIVERS, createAccount, createTestApp, login, loggedAs } from '../../../../tests/helpers/test-app.js';
import { createEquippedSite, createSite } from '../field-entry/test-factories.js';
import { FOYER_MESSAGES, type FoyerList } from '../../../shared/schemas/households.js';
import type { Mail } from '../../mailer.js';
import { createHouseholdMailing } from './public.js';

type Ctx = Awaited<ReturnType<typeof createTestApp>>;
type Logged = Awaited<ReturnType<typeof loggedAs>>;
type Site = Awaited<ReturnType<typeof createEquippedSite>>;

let ipSeq = 0;
/** A client address of its own (TEST-NET-3), so that the per-address limit of one test does not reach another. */
const freshIp = () => `203.0.113.${++ipSeq}`;

const LEAVE_LINK = /http:\/\/localhost:3000\/foyer\/quitter\?jeton=([A-Za-z0-9_.-]+)/;
const UNSUBSCRIBE_LINK = /http:\/\/localhost:3000\/api\/public\/foyer\/desabonner\?jeton=([A-Za-z0-9_.-]+)/;

describe.each(TEST_DRIVERS)('households API (%s)', (driver) => {
  let ctx: Ctx;
  let admin: Logged;
  let siteAdmin: Logged;
  let provider: Logged;
  let referent: Logged;
  let otherReferent: Logged;
  let site: Site;
  let otherSite: Site;

  const register = (code: string, payload: Record<string, unknown>, ip = freshIp()) =>
    ctx.app.inject({ method: 'POST', url: `/api/public/site/${code}/foyer`, payload, remoteAddress: ip });

  const call = (method: 'GET' | 'PUT' | 'POST', url: string, who?: Logged, payload?: object) =>
    ctx.app.inject({ method, url, headers: who ? { cookie: who.cookie } : {}, ...(payload === undefined ? {} : { payload }) });

  /** A household written straight to the table, in the given state. */
  async function household(siteId: number, opts: { email?: string | null; prenom?: string | null; personnes?: number; statut?: 'en_attente' | 'confirme' | 'refuse'; nouvelles?: boolean; traiteLe?: string } = {}) {
    const statut = opts.statut ?? 'confirme';
    const row = await ctx.db
      .insertInto('foyer')
      .values({
        site_id: siteId,
        prenom: opts.prenom ?? null,
        email: opts.email === undefined ? `foyer${Math.random().toString(36).slice(2, 10)}@exemple.fr` : opts.email,
        personnes: opts.personnes ?? 2,
        bioseau: true,
        statut,
        traite_le: statut === 'en_attente' ? null : new Date(opts.traiteLe ?? '2025-03-01T10:00:00Z'),
        nouvelles: opts.nouvelles ?? true,
      })
      .returning('id')
      .executeTakeFirstOrThrow();
    return row.id;
  }

  const foyersOf = (siteId: number) => ctx.db.selectFrom('foyer').selectAll().where('site_id', '=', siteId).orderBy('id').execute();
  const mailsTo = (to: string) => ctx.mailer.sent.filter((m) => m.to === to);
  const tokenOf = (mail: Mail, link: RegExp) => link.exec(mail.text)![1];

  beforeAll(async () => {
    ctx = await createTestApp(driver);
    admin = await loggedAs(ctx, ['ROLE_ADMIN']);
    siteAdmin = await loggedAs(ctx, ['ROLE_ADMIN_SITE']);
    provider = await loggedAs(ctx, ['ROLE_PRESTATAIRE'], { typeUser: 3 });
    const ref = await createAccount(ctx.db, { roles: ['ROLE_USER'], typeUser: 1 });
    const otherRef = await createAccount(ctx.db, { roles: ['ROLE_USER'], typeUser: 1 });
    site = await createEquippedSite(ctx.db, { nom: 'Jardin des Capucins', referents: [ref.id] });
    otherSite = await createEquippedSite(ctx.db, { referents: [otherRef.id] });
    referent = { ...ref, cookie: await login(ctx.app, ref.login) };
    otherReferent = { ...otherRef, cookie: await login(ctx.app, otherRef.login) };
  }, 60_000);
  afterAll(() => ctx.close());

  describe("'Je composte ici'", () => {
    it('registers a waiting household and welcomes its e-mail with the links to leave and to stop the news', async () => {
      const s = await createEquippedSite(ctx.db, { nom: 'Square Wilson' });
      // The code is matched whatever its case, as on the public page.
      const res = await register(s.code.toLowerCase(), { prenom: ' Anne ', email: 'anne@exemple.fr', consentement: true, personnes: 3, bioseau: true });
      expect(res.statusCode, res.body).toBe(201);
      expect(res.json()).toEqual({ status: 'success', message: FOYER_MESSAGES.sent });
      const [row] = await foyersOf(s.id);
      expect(row).toMatchObject({ prenom: 'Anne', email: 'anne@exemple.fr', personnes: 3, bioseau: true, statut: 'en_attente', traite_le: null, nouvelles: true });

      const [mail] = mailsTo('anne@exemple.fr');
      expect(mail.subject).toBe('Votre inscription sur un site de compostage');
      expect(mail.text).toContain('Bonjour Anne,');
      expect(mail.text).toContain('« Square Wilson »');
      expect(mail.text).toMatch(LEAVE_LINK);
      expect(mail.text).toMatch(UNSUBSCRIBE_LINK);
      expect(mail.html).toContain(`href="http://localhost:3000/foyer/quitter?jeton=${tokenOf(mail, LEAVE_LINK)}"`);
      expect(mail.headers).toEqual({
        'List-Unsubscribe': `<http://localhost:3000/api/public/foyer/desabonner?jeton=${tokenOf(mail, UNSUBSCRIBE_LINK)}>`,
        'List-Unsubscribe-Post': 'List-Unsubscribe=One-Click',
      });
      // The two links are not the same token: leaving is not unsubscribing.
      expect(tokenOf(mail, LEAVE_LINK)).not.toBe(tokenOf(mail, UNSUBSCRIBE_LINK));
    });

    it('registers a household without an e-mail and sends nothing', async () => {
      const s = await createEquippedSite(ctx.db);
      const before = ctx.mailer.sent.length;
      const res = await register(s.code, { personnes: 1, bioseau: false, email: '' });
      expect(res.statusCode, res.body).toBe(201);
      expect(await foyersOf(s.id)).toMatchObject([{ prenom: null, email: null, personnes: 1, bioseau: false, statut: 'en_attente', nouvelles: false }]);
      expect(ctx.mailer.sent.length).toBe(before);
    });

    it('lists every refused field at once, in French', async () => {
      const res = await register(site.code, { prenom: 'x'.repeat(101), email: 'pas-une-adresse', personnes: 21 });
      expect(res.statusCode).toBe(400);
      const errors = (res.json() as { errors: { key: string; error: string }[] }).errors;
      expect(errors).toEqual(
        expect.arrayContaining([
          { key: 'prenom', error: FOYER_MESSAGES.prenom },
          { key: 'email', error: FOYER_MESSAGES.email },
          { key: 'personnes', error: FOYER_MESSAGES.personnes },
          { key: 'bioseau', error: FOYER_MESSAGES.bioseau },
        ]),
      );
      const noConsent = await register(site.code, { email: 'sans-accord@exemple.fr', personnes: 2, bioseau: true });
      expect(noConsent.statusCode).toBe(400);
      expect(noConsent.json().errors).toEqual([{ key: 'consentement', error: FOYER_MESSAGES.consentement }]);
      expect(await ctx.db.selectFrom('foyer').select('id').where('email', '=', 'sans-accord@exemple.fr').execute()).toEqual([]);
    });

    it('answers 404 for an unknown site, a requested one and one without an active bin', async () => {
      const requested = await createSite(ctx.db, { statut: 2 });
      const bare = await createSite(ctx.db);
      for (const code of ['NOPE404', requested.code, bare.code]) {
        const res = await register(code, { personnes: 2, bioseau: true });
        expect(res.statusCode, code).toBe(404);
        expect(res.json().message).toBe(FOYER_MESSAGES.siteNotFound);
      }
      expect(await ctx.db.selectFrom('foyer').select('id').where('site_id', 'in', [requested.id, bare.id]).execute()).toEqual([]);
    });

    it("answers a robot's registration (the hidden field filled) like a success and keeps nothing", async () => {
      const s = await createEquippedSite(ctx.db);
      const before = ctx.mailer.sent.length;
      const res = await register(s.code, { email: 'robot@exemple.fr', consentement: true, personnes: 2, bioseau: true, siteWeb: 'http://spam.example' });
      expect(res.statusCode).toBe(201);
      expect(res.json()).toEqual({ status: 'success', message: FOYER_MESSAGES.sent });
      expect(await foyersOf(s.id)).toEqual([]);
      expect(ctx.mailer.sent.length).toBe(before);
    });

    it('does not register the same address twice on a site, and does not say so', async () => {
      const s = await createEquippedSite(ctx.db);
      const first = await register(s.code, { email: 'deux-fois@exemple.fr', consentement: true, personnes: 2, bioseau: true });
      const again = await register(s.code, { email: 'Deux-Fois@Exemple.fr', consentement: true, personnes: 4, bioseau: false });
      expect([first.statusCode, again.statusCode]).toEqual([201, 201]);
      expect(again.json()).toEqual(first.json());
      expect((await foyersOf(s.id)).map((f) => f.personnes)).toEqual([2]);
      expect(mailsTo('deux-fois@exemple.fr')).toHaveLength(1);
    });

    it('takes at most 5 registrations an hour from one address; one refused for an unknown site is given back', async () => {
      const s = await createEquippedSite(ctx.db);
      const ip = freshIp();
      expect((await register('NOPE404', { personnes: 1, bioseau: true }, ip)).statusCode).toBe(404);
      for (let i = 0; i < 5; i++) expect((await register(s.code, { personnes: 1, bioseau: true }, ip)).statusCode).toBe(201);
      const refused = await register(s.code, { personnes: 1, bioseau: true }, ip);
      expect(refused.statusCode).toBe(429);
      expect(refused.json().message).toBe(FOYER_MESSAGES.perAddress);
      expect(Number(refused.headers['retry-after'])).toBeGreaterThan(3500);
      expect(Number(refused.headers['retry-after'])).toBeLessThanOrEqual(3600);
      expect(await foyersOf(s.id)).toHaveLength(5);
      // Another address still gets through.
      expect((await register(s.code, { personnes: 1, bioseau: true })).statusCode).toBe(201);
    });

    it('takes at most 50 registrations a day on one site, whoever sends them', async () => {
      const s = await createEquippedSite(ctx.db);
      for (let i = 0; i < 50; i++) expect((await register(s.code, { personnes: 1, bioseau: true })).statusCode).toBe(201);
      const ip = freshIp();
      const refused = await register(s.code, { personnes: 1, bioseau: true }, ip);
      expect(refused.statusCode).toBe(429);
      expect(refused.json().message).toBe(FOYER_MESSAGES.perSite);
      expect(await foyersOf(s.id)).toHaveLength(50);
      // The site's refusal gave the sender's allowance back: 5 more on other sites pass.
      const elsewhere = await createEquippedSite(ctx.db);
      for (let i = 0; i < 5; i++) expect((await register(elsewhere.code, { personnes: 1, bioseau: true }, ip)).statusCode).toBe(201);
    }, 60_000);
  });

  describe("the referents' list and decisions", () => {
    let s: Site;
    let waitingOld: number;
    let waitingNew: number;
    let confirmedA: number;
    let confirmedB: number;
    let refused: number;
    let ref: Logged;

    beforeAll(async () => {
      const acc = await createAccount(ctx.db, { roles: ['ROLE_USER'], typeUser: 1 });
      s = await createEquippedSite(ctx.db, { referents: [acc.id] });
      ref = { ...acc, cookie: await login(ctx.app, acc.login) };
      confirmedA = await household(s.id, { personnes: 3, prenom: 'Alice', email: 'alice@exemple.fr' });
      waitingOld = await household(s.id, { statut: 'en_attente', personnes: 1 });
      refused = await household(s.id, { statut: 'refuse', personnes: 5 });
      confirmedB = await household(s.id, { personnes: 4, email: null });
      waitingNew = await household(s.id, { statut: 'en_attente', personnes: 2 });
      await ctx.db.updateTable('foyer').set({ created_at: new Date('2025-01-01T10:00:00Z') }).where('id', '=', waitingOld).execute();
    });

    it("shows the site's households to its referent, the waiting ones first, with the confirmed households and their people", async () => {
      const res = await call('GET', `/api/admin/foyer/get/list/by/site/${s.id}`, ref);
      expect(res.statusCode, res.body).toBe(200);
      const list = res.json() as FoyerList;
      // Confirmed: 3 + 4 people in 2 households.
      expect({ count: list.count, confirmes: list.confirmes, personnes: list.personnes }).toEqual({ count: 5, confirmes: 2, personnes: 7 });
      expect(list.foyers.map((f) => f.id)).toEqual([waitingNew, waitingOld, confirmedB, confirmedA, refused]);
      expect(list.foyers.find((f) => f.id === confirmedA)).toEqual({
        id: confirmedA,
        idSite: s.id,
        prenom: 'Alice',
        email: 'alice@exemple.fr',
        personnes: 3,
        bioseau: true,
        statut: 'confirme',
        inscritLe: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
        traiteLe: '2025-03-01T10:00:00.000Z',
        nouvelles: true,
      });
    });

    it('shows them to ROLE_ADMIN and ROLE_ADMIN_SITE on any site, and answers 404 for an unknown site', async () => {
      for (const who of [admin, siteAdmin]) expect((await call('GET', `/api/admin/foyer/get/list/by/site/${s.id}`, who)).json().count).toBe(5);
      const unknown = await call('GET', '/api/admin/foyer/get/list/by/site/2147483647', admin);
      expect(unknown.statusCode).toBe(404);
      expect(unknown.json().message).toBe(FOYER_MESSAGES.siteNotFound);
    });

    it('refuses the households to a referent of another site (403), a provider (403) and an anonymous caller (401)', async () => {
      expect((await call('GET', `/api/admin/foyer/get/list/by/site/${s.id}`, otherReferent)).statusCode).toBe(403);
      expect((await call('GET', `/api/admin/foyer/get/list/by/site/${s.id}`, provider)).statusCode).toBe(403);
      expect((await call('GET', `/api/admin/foyer/get/list/by/site/${s.id}`)).statusCode).toBe(401);
      for (const action of ['valider', 'refuser']) {
        expect((await call('PUT', `/api/admin/foyer/${action}/${waitingOld}`, otherReferent)).statusCode).toBe(403);
        expect((await call('PUT', `/api/admin/foyer/${action}/${waitingOld}`, provider)).statusCode).toBe(403);
        expect((await call('PUT', `/api/admin/foyer/${action}/${waitingOld}`)).statusCode).toBe(401);
      }
      expect((await ctx.db.selectFrom('foyer').select('statut').where('id', '=', waitingOld).executeTakeFirstOrThrow()).statut).toBe('en_attente');
    });

    it('confirms or refuses a waiting household once, erasing a refused one\'s name and e-mail; a second decision is refused (409)', async () => {
      const a = await household(s.id, { statut: 'en_attente', prenom: 'Alice', email: 'alice@exemple.fr' });
      const b = await household(s.id, { statut: 'en_attente', prenom: 'Bruno', email: 'bruno@exemple.fr' });
      const ok = await call('PUT', `/api/admin/foyer/valider/${a}`, ref);
      expect(ok.statusCode, ok.body).toBe(200);
      expect(ok.json()).toEqual({ status: 'success', message: FOYER_MESSAGES.confirmed });
      const no = await call('PUT', `/api/admin/foyer/refuser/${b}`, siteAdmin);
      expect(no.json()).toEqual({ status: 'success', message: FOYER_MESSAGES.refused });
      const rows = await ctx.db.selectFrom('foyer').select(['id', 'statut', 'traite_par', 'traite_le', 'prenom', 'email', 'nouvelles']).where('id', 'in', [a, b]).orderBy('id').execute();
      expect(rows.map((r) => [r.statut, r.traite_par, r.prenom, r.email, r.nouvelles])).toEqual([
        ['confirme', ref.id, 'Alice', 'alice@exemple.fr', true],
        ['refuse', siteAdmin.id, null, null, false],
      ]);
      expect(rows.every((r) => r.traite_le !== null)).toBe(true);
      for (const [action, id] of [
        ['valider', a],
        ['refuser', a],
        ['valider', b],
      ] as const) {
        const again = await call('PUT', `/api/admin/foyer/${action}/${id}`, admin);
        expect(again.statusCode).toBe(409);
        expect(again.json().message).toBe(FOYER_MESSAGES.alreadyHandled);
      }
      const unknown = await call('PUT', '/api/admin/foyer/valider/2147483647', admin);
      expect(unknown.statusCode).toBe(404);
      expect(unknown.json().message).toBe(FOYER_MESSAGES.notFound);
    });
  });

  describe("the site's news", () => {
    it('goes to the confirmed households that receive the news, each with the one-click headers and the leave link, once a day', async () => {
      const acc = await createAccount(ctx.db, { roles: ['ROLE_USER'], typeUser: 1 });
      const s = await createEquippedSite(ctx.db, { nom: 'Place Guérin', referents: [acc.id] });
      const ref = { ...acc, cookie: await login(ctx.app, acc.login) };
      const news = { site: s.id, sujet: 'Ouverture samedi', texte: 'Bonjour à tous,\nle site ouvre samedi à 10 h.' };

      const none = await call('POST', '/api/admin/foyer/nouvelle', ref, news);
      expect(none.statusCode).toBe(409);
      expect(none.json().message).toBe(FOYER_MESSAGES.noRecipient);

      await household(s.id, { email: 'lea@exemple.fr', prenom: 'Léa' });
      const b = await household(s.id, { email: 'marc@exemple.fr' });
      await household(s.id, { email: 'parti@exemple.fr', nouvelles: false });
      await household(s.id, { email: 'attente@exemple.fr', statut: 'en_attente' });
      await household(s.id, { email: 'refuse@exemple.fr', statut: 'refuse' });
      await household(s.id, { email: null });
      await household(otherSite.id, { email: 'ailleurs@exemple.fr' });

      const before = ctx.mailer.sent.length;
      const res = await call('POST', '/api/admin/foyer/nouvelle', ref, news);
      expect(res.statusCode, res.body).toBe(200);
      expect(res.json()).toEqual({ status: 'success', message: 'Nouvelle envoyée à 2 foyers', destinataires: 2 });
      const sent = ctx.mailer.sent.slice(before);
      expect(sent.map((m) => m.to).sort()).toEqual(['lea@exemple.fr', 'marc@exemple.fr']);
      for (const mail of sent) {
        expect(mail.subject).toBe('Place Guérin : Ouverture samedi');
        expect(mail.text).toContain('le site ouvre samedi à 10 h.');
        expect(mail.headers!['List-Unsubscribe-Post']).toBe('List-Unsubscribe=One-Click');
        expect(mail.headers!['List-Unsubscribe']).toBe(`<http://localhost:3000/api/public/foyer/desabonner?jeton=${tokenOf(mail, UNSUBSCRIBE_LINK)}>`);
        expect(mail.text).toMatch(LEAVE_LINK);
      }
      expect(sent.find((m) => m.to === 'lea@exemple.fr')!.text).toContain('Bonjour Léa,');
      expect(tokenOf(sent.find((m) => m.to === 'marc@exemple.fr')!, LEAVE_LINK)).toMatch(new RegExp(`^${b}\\.`));
      expect(await ctx.db.selectFrom('foyer_nouvelle').select(['sujet', 'texte', 'envoye_par', 'destinataires']).where('site_id', '=', s.id).execute()).toEqual([
        { sujet: news.sujet, texte: news.texte, envoye_par: ref.id, destinataires: 2 },
      ]);

      const again = await call('POST', '/api/admin/foyer/nouvelle', admin, { ...news, sujet: 'Encore' });
      expect(again.statusCode).toBe(409);
      expect(again.json().message).toBe(FOYER_MESSAGES.onePerDay);
      expect(ctx.mailer.sent.length).toBe(before + 2);

      // The next Paris day, the site may send again.
      await sql`UPDATE foyer_nouvelle SET jour = jour - 1 WHERE site_id = ${s.id}`.execute(ctx.db);
      expect((await call('POST', '/api/admin/foyer/nouvelle', siteAdmin, news)).statusCode).toBe(200);
      expect(ctx.mailer.sent.length).toBe(before + 4);
    });

    it('is refused to a referent of another site, and checked field by field', async () => {
      await household(site.id);
      const res = await call('POST', '/api/admin/foyer/nouvelle', otherReferent, { site: site.id, sujet: 'Bonjour', texte: 'Texte' });
      expect(res.statusCode).toBe(403);
      const bad = await call('POST', '/api/admin/foyer/nouvelle', referent, { site: site.id, sujet: '  ', texte: 'x'.repeat(2001) });
      expect(bad.statusCode).toBe(400);
      expect(bad.json().errors).toEqual(
        expect.arrayContaining([
          { key: 'sujet', error: FOYER_MESSAGES.sujet },
          { key: 'texte', error: FOYER_MESSAGES.texte },
        ]),
      );
      const unknown = await call('POST', '/api/admin/foyer/nouvelle', admin, { site: 2147483647, sujet: 'Bonjour', texte: 'Texte' });
      expect(unknown.statusCode).toBe(404);
      expect(await ctx.db.selectFrom('foyer_nouvelle').select('id').where('site_id', '=', site.id).execute()).toEqual([]);
    });
  });

  describe("the household's links", () => {
    /** Registers from the public page, confirms as the site's referent, and gives the welcome mail. */
    async function registeredAndConfirmed(email: string, personnes: number) {
      expect((await register(site.code, { email, consentement: true, personnes, bioseau: true })).statusCode).toBe(201);
      const row = await ctx.db.selectFrom('foyer').select('id').where('email', '=', email).executeTakeFirstOrThrow();
      expect((await call('PUT', `/api/admin/foyer/valider/${row.id}`, referent)).statusCode).toBe(200);
      return { id: row.id, mail: mailsTo(email).at(-1)! };
    }

    it('leave: following the link of the welcome mail deletes the record, keeps an anonymous trace of a confirmed household, and works once', async () => {
      const { id, mail } = await registeredAndConfirmed('depart@exemple.fr', 4);
      const confirmedAt = (await ctx.db.selectFrom('foyer').select('traite_le').where('id', '=', id).executeTakeFirstOrThrow()).traite_le!;
      const jeton = tokenOf(mail, LEAVE_LINK);
      const departsBefore = await ctx.db.selectFrom('foyer_depart').select('id').where('site_id', '=', site.id).execute();

      const res = await ctx.app.inject({ method: 'POST', url: '/api/public/foyer/quitter', payload: { jeton } });
      expect(res.statusCode, res.body).toBe(200);
      expect(res.json()).toEqual({ status: 'success', message: FOYER_MESSAGES.left });
      expect(await ctx.db.selectFrom('foyer').select('id').where('id', '=', id).execute()).toEqual([]);
      const departs = await ctx.db.selectFrom('foyer_depart').selectAll().where('site_id', '=', site.id).where('id', 'not in', departsBefore.length ? departsBefore.map((d) => d.id) : [0]).execute();
      expect(departs).toHaveLength(1);
      expect(departs[0].personnes).toBe(4);
      expect(new Date(departs[0].confirme_le).getTime()).toBe(new Date(confirmedAt).getTime());
      expect(new Date(departs[0].parti_le).getTime()).toBeGreaterThanOrEqual(new Date(confirmedAt).getTime());
      // Nothing of the person stays: the trace has no column for a name or an address.
      expect(Object.keys(departs[0]).sort()).toEqual(['confirme_le', 'id', 'parti_le', 'personnes', 'site_id']);

      const twice = await ctx.app.inject({ method: 'POST', url: '/api/public/foyer/quitter', payload: { jeton } });
      expect(twice.statusCode).toBe(404);
      expect(twice.json().message).toBe(FOYER_MESSAGES.linkInvalid);
    });

    it('leave: a household that was never confirmed leaves no trace', async () => {
      const s = await createEquippedSite(ctx.db);
      expect((await register(s.code, { email: 'jamais@exemple.fr', consentement: true, personnes: 2, bioseau: false })).statusCode).toBe(201);
      const res = await ctx.app.inject({ method: 'POST', url: '/api/public/foyer/quitter', payload: { jeton: tokenOf(mailsTo('jamais@exemple.fr')[0], LEAVE_LINK) } });
      expect(res.statusCode).toBe(200);
      expect(await foyersOf(s.id)).toEqual([]);
      expect(await ctx.db.selectFrom('foyer_depart').select('id').where('site_id', '=', s.id).execute()).toEqual([]);
    });

    it('refuses a forged, malformed or misused token with linkInvalid, never a 500', async () => {
      const { id, mail } = await registeredAndConfirmed('prudent@exemple.fr', 2);
      const leave = tokenOf(mail, LEAVE_LINK);
      const unsubscribe = tokenOf(mail, UNSUBSCRIBE_LINK);
      const signature = leave.split('.')[1];
      const forged = [
        `${id}.${signature[0] === 'A' ? 'B' : 'A'}${signature.slice(1)}`,
        // The same signature on another household.
        `${id + 1}.${signature}`,
        // The unsubscribe token does not let anyone leave.
        unsubscribe,
        `99999999999.${signature}`,
      ];
      for (const jeton of forged) {
        const res = await ctx.app.inject({ method: 'POST', url: '/api/public/foyer/quitter', payload: { jeton } });
        expect(res.statusCode, jeton).toBe(404);
        expect(res.json().message).toBe(FOYER_MESSAGES.linkInvalid);
      }
      for (const jeton of ['court', 'a b c d e f g h i j', `${id}.${signature}%00`, 'x'.repeat(201)]) {
        const res = await ctx.app.inject({ method: 'POST', url: '/api/public/foyer/quitter', payload: { jeton } });
        expect(res.statusCode, jeton).toBe(400);
        expect(res.json().errors).toEqual([{ key: 'jeton', error: FOYER_MESSAGES.linkInvalid }]);
      }
      expect((await ctx.app.inject({ method: 'POST', url: `/api/public/foyer/desabonner?jeton=${encodeURIComponent(leave)}`, payload: 'List-Unsubscribe=One-Click', headers: { 'content-type': 'application/x-www-form-urlencoded' } })).statusCode).toBe(404);
      expect((await ctx.app.inject({ method: 'POST', url: '/api/public/foyer/desabonner', payload: 'List-Unsubscribe=One-Click', headers: { 'content-type': 'application/x-www-form-urlencoded' } })).statusCode).toBe(400);
      // Still there, still receiving the news.
      expect(await ctx.db.selectFrom('foyer').select('nouvelles').where('id', '=', id).executeTakeFirstOrThrow()).toEqual({ nouvelles: true });
    });

    it('one-click unsubscribe: a form-encoded POST without a cookie stops the news (RFC 8058); the GET page changes nothing', async () => {
      const { id, mail } = await registeredAndConfirmed('stop@exemple.fr', 2);
      const url = /^<(.*)>$/.exec(mail.headers!['List-Unsubscribe'])![1].replace('http://localhost:3000', '');

      const look = await ctx.app.inject({ method: 'GET', url });
      expect(look.statusCode).toBe(200);
      expect(look.headers['content-type']).toMatch(/^text\/html/);
      expect(look.body).toContain('<form method="post">');
      expect(await ctx.db.selectFrom('foyer').select('nouvelles').where('id', '=', id).executeTakeFirstOrThrow()).toEqual({ nouvelles: true });

      const res = await ctx.app.inject({ method: 'POST', url, payload: 'List-Unsubscribe=One-Click', headers: { 'content-type': 'application/x-www-form-urlencoded' } });
      expect(res.statusCode, res.body).toBe(200);
      expect(res.json()).toEqual({ status: 'success', message: FOYER_MESSAGES.unsubscribed });
      expect(await ctx.db.selectFrom('foyer').select(['nouvelles', 'statut']).where('id', '=', id).executeTakeFirstOrThrow()).toEqual({ nouvelles: false, statut: 'confirme' });
      expect((await createHouseholdMailing({ db: ctx.db, config: TEST_CONFIG }).recipients(site.id)).map((r) => r.email)).not.toContain('stop@exemple.fr');

      // Sent again (a provider retries), or from the page's button (a browser): the same outcome.
      expect((await ctx.app.inject({ method: 'POST', url, payload: 'List-Unsubscribe=One-Click', headers: { 'content-type': 'multipart/form-data; boundary=x' } })).statusCode).toBe(200);
      const browser = await ctx.app.inject({ method: 'POST', url, payload: 'List-Unsubscribe=One-Click', headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'text/html,*/*' } });
      expect(browser.statusCode).toBe(200);
      expect(browser.headers['content-type']).toMatch(/^text\/html/);
      expect(browser.body).toContain(FOYER_MESSAGES.unsubscribed);
    });
  });

  describe('personal data', () => {
    it('gives the mailing of other modules the subscribed confirmed households with their links and headers', async () => {
      const s = await createEquippedSite(ctx.db);
      const a = await household(s.id, { email: 'un@exemple.fr', prenom: 'Un' });
      await household(s.id, { email: 'deux@exemple.fr', statut: 'en_attente' });
      await household(s.id, { email: 'trois@exemple.fr', nouvelles: false });
      const recipients = await createHouseholdMailing({ db: ctx.db, config: { ...TEST_CONFIG, publicUrl: 'https://compost.exemple.fr' } }).recipients(s.id);
      expect(recipients).toHaveLength(1);
      const [r] = recipients;
      expect(r).toMatchObject({ foyerId: a, email: 'un@exemple.fr', prenom: 'Un' });
      expect(r.leaveUrl).toMatch(new RegExp(`^https://compost\\.exemple\\.fr/foyer/quitter\\?jeton=${a}\\.[A-Za-z0-9_-]{43}$`));
      expect(r.unsubscribeUrl).toMatch(new RegExp(`^https://compost\\.exemple\\.fr/api/public/foyer/desabonner\\?jeton=${a}\\.[A-Za-z0-9_-]{43}$`));
      expect(r.headers).toEqual({ 'List-Unsubscribe': `<${r.unsubscribeUrl}>`, 'List-Unsubscribe-Post': 'List-Unsubscribe=One-Click' });
    });

    it('never shows a household on the public page nor in the open-data files', async () => {
      await household(site.id, { email: 'secret@exemple.fr', prenom: 'Clandestine' });
      for (const url of [`/api/public/site/${site.code}`, '/api/open/sites.csv', '/api/open/sites.geojson']) {
        const res = await ctx.app.inject({ method: 'GET', url });
        expect(res.statusCode, url).toBe(200);
        expect(res.body).not.toContain('secret@exemple.fr');
        expect(res.body).not.toContain('Clandestine');
      }
    });
  });
});
