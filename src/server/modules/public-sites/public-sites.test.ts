import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TEST_CONFIG, TEST_DRIVERS, createTestApp, loggedAs } from '../../../../tests/helpers/test-app.js';
import { createCell, createEquippedSite, createSite } from '../field-entry/test-factories.js';
import type { Db } from '../../db/client.js';

type Ctx = Awaited<ReturnType<typeof createTestApp>>;
type Logged = Awaited<ReturnType<typeof loggedAs>>;
type Site = Awaited<ReturnType<typeof createEquippedSite>>;

const DAY_MS = 24 * 3600 * 1000;
const PARIS_DAY = new Intl.DateTimeFormat('en-CA', { timeZone: 'Europe/Paris', year: 'numeric', month: '2-digit', day: '2-digit' });
const parisDay = (d: Date) => PARIS_DAY.format(d);
const EMAIL = /[^\s@"]+@[^\s@"]+\.[a-z]{2,}/i;
const PHONE = /(?:\+33|\b0)[1-9](?:[\s.-]?\d{2}){4}/;

/** An intervention written straight to the log (action, constant), `daysAgo` days back. */
async function intervention(db: Db, site: Site, who: number, action: number, daysAgo: number, opts: { cell?: number; constante?: number; observations?: string } = {}) {
  const row = await db
    .insertInto('intervention')
    .values({
      date: new Date(Date.now() - daysAgo * DAY_MS),
      site_id: site.id,
      site_composteur_id: opts.cell ?? site.apport,
      type_action_id: action,
      valeur_constante: opts.constante ?? null,
      observations: opts.observations ?? null,
      intervenant_id: who,
    })
    .returning(['id', 'date'])
    .executeTakeFirstOrThrow();
  return row;
}

describe.each(TEST_DRIVERS)('public site page and reports (%s)', (driver) => {
  let ctx: Ctx;
  let admin: Logged;
  let referent: Logged;
  let provider: Logged;
  let site: Site;
  let other: Site;
  let ip = 0;
  /** A new client address for each report, unless one is given: the per-address limit stays out of the way. */
  const nextIp = () => `10.1.${Math.floor(++ip / 250)}.${ip % 250}`;

  const call = (method: 'GET' | 'POST' | 'PUT', url: string, opts: { cookie?: string; payload?: unknown; ip?: string } = {}) =>
    ctx.app.inject({
      method,
      url,
      headers: opts.cookie ? { cookie: opts.cookie } : {},
      remoteAddress: opts.ip ?? '127.0.0.1',
      ...(opts.payload === undefined ? {} : { payload: opts.payload as object }),
    });
  const report = (code: string, payload: object, ipAddress = nextIp()) => call('POST', `/api/public/site/${code}/signalement`, { payload, ip: ipAddress });
  const validReport = { categorie: 'bac_plein', texte: 'Le bac d’apport déborde depuis hier soir.' };
  const list = async (who: Logged, query = '') => {
    const res = await call('GET', `/api/admin/signalement/get/list${query}`, { cookie: who.cookie });
    expect(res.statusCode, res.body).toBe(200);
    return res.json() as { count: number; signalements: Record<string, unknown>[] };
  };
  const reportsOf = (siteId: number) => ctx.db.selectFrom('signalement_public').where('site_id', '=', siteId).selectAll().orderBy('id').execute();

  beforeAll(async () => {
    ctx = await createTestApp(driver);
    admin = await loggedAs(ctx, ['ROLE_ADMIN'], { nom: 'DURAND', prenom: 'Alice' });
    referent = await loggedAs(ctx, ['ROLE_USER'], { nom: 'LEGALL', prenom: 'Yann' });
    provider = await loggedAs(ctx, ['ROLE_PRESTATAIRE'], { typeUser: 3 });
    site = await createEquippedSite(ctx.db, { nom: 'Jardin des Capucins', referents: [referent.id] });
    other = await createEquippedSite(ctx.db, { nom: 'Square Nord' });
  }, 60_000);
  afterAll(() => ctx.close());

  describe('the public page', () => {
    it('shows the site, its public texts and its latest turn, transfer and levels, and nothing about a person', async () => {
      const demandeur = await ctx.db
        .insertInto('demandeur')
        .values({ civilite: 'Madame', nom: 'KERBRAT', prenom: 'Anne', fonction: 'Mairie', telephone: '0298765432', email: 'anne.kerbrat@exemple.fr' })
        .returning('id')
        .executeTakeFirstOrThrow();
      await ctx.db
        .updateTable('site')
        .set({
          demandeur_id: demandeur.id,
          horaires: 'Tous les jours, de 8 h à 20 h',
          consignes: 'Épluchures, marc de café, coquilles d’œufs. Pas de viande ni de poisson.',
          observations: 'Clé chez M. Kerbrat, 06 11 22 33 44, kerbrat@exemple.fr',
          cadena: '4321',
          complement: 'Appeler Mme Kerbrat au 0611223344',
        })
        .where('id', '=', site.id)
        .execute();
      await intervention(ctx.db, site, referent.id, 1, 30);
      const turn = await intervention(ctx.db, site, referent.id, 1, 3, { observations: 'Fait avec yann.legall@exemple.fr' });
      const transfer = await intervention(ctx.db, site, referent.id, 3, 5);
      await intervention(ctx.db, site, referent.id, 16, 10, { constante: 5 });
      const input = await intervention(ctx.db, site, referent.id, 16, 2, { constante: 4 });
      const material = await intervention(ctx.db, site, referent.id, 19, 4, { cell: site.maturation, constante: 3 });

      const res = await call('GET', `/api/public/site/${site.code}`);
      expect(res.statusCode, res.body).toBe(200);
      const body = res.json();
      expect(body).toMatchObject({
        code: site.code,
        nom: 'Jardin des Capucins',
        typeSite: 'Quartier',
        adresse: expect.stringContaining('rue de Siam'),
        cp: '29200',
        ville: 'Brest',
        horaires: 'Tous les jours, de 8 h à 20 h',
        consignes: 'Épluchures, marc de café, coquilles d’œufs. Pas de viande ni de poisson.',
        dernierRetournement: new Date(turn.date).toISOString(),
        dernierTransfert: new Date(transfer.date).toISOString(),
        niveauApport: { niveau: '3/4', date: new Date(input.date).toISOString() },
        compostMur: { niveau: '1/2', disponible: true, date: new Date(material.date).toISOString() },
        appName: TEST_CONFIG.APP_NAME,
        contact: TEST_CONFIG.APP_CONTACT,
      });
      expect(body.categories.map((c: { libelle: string }) => c.libelle)).toEqual(['Bac plein', 'Odeur', 'Nuisibles', 'Dégradation', 'Autre']);
      // The programme's contact line is the only way to reach anyone.
      const { contact: _contact, ...rest } = body;
      const text = JSON.stringify(rest);
      expect(text).not.toMatch(EMAIL);
      expect(text).not.toMatch(PHONE);
      for (const word of ['KERBRAT', 'Kerbrat', 'LEGALL', 'Yann', '4321', 'Clé']) expect(text).not.toContain(word);
      expect(Object.keys(body).sort()).toEqual(
        [
          'appName',
          'adresse',
          'categories',
          'code',
          'compostMur',
          'consignes',
          'contact',
          'cp',
          'dernierRetournement',
          'dernierTransfert',
          'horaires',
          'niveauApport',
          'nom',
          'numero',
          'texteMax',
          'texteMin',
          'typeSite',
          'ville',
        ].sort(),
      );
    });

    it('says no mature compost is left after an empty material level, and nothing when nothing was recorded', async () => {
      const s = await createEquippedSite(ctx.db);
      let body = (await call('GET', `/api/public/site/${s.code}`)).json();
      expect(body).toMatchObject({ dernierRetournement: null, dernierTransfert: null, niveauApport: null, compostMur: null, horaires: null, consignes: null });
      await intervention(ctx.db, s, referent.id, 19, 1, { cell: s.maturation, constante: 1 });
      body = (await call('GET', `/api/public/site/${s.code.toLowerCase()}`)).json();
      expect(body.compostMur).toMatchObject({ niveau: 'Vide', disponible: false });
    });

    it('answers 404 for a requested site, a site whose bins are all retired and an unknown code', async () => {
      const requested = await createSite(ctx.db, { statut: 2 });
      const retired = await createSite(ctx.db);
      await createCell(ctx.db, retired.id, 1, 1, { actif: false });
      for (const code of [requested.code, retired.code, 'ZZZ999']) {
        const res = await call('GET', `/api/public/site/${code}`);
        expect(res.statusCode, code).toBe(404);
        expect(res.json()).toEqual({ status: 'error', message: 'Site introuvable.' });
      }
      expect((await call('GET', '/api/public/site/QUA%20012')).statusCode).toBe(400);
    });
  });

  describe('anonymous reports', () => {
    it('stores a report as plain text, with the e-mail kept only to answer', async () => {
      const res = await report(site.code, {
        categorie: 'odeur',
        texte: '  <b>Forte odeur</b> <script>alert(1)</script>près du bac   n°1  ',
        email: 'voisin@exemple.fr',
        consentement: true,
      });
      expect(res.statusCode, res.body).toBe(200);
      expect(res.json()).toEqual({ status: 'success', message: 'Merci ! Votre signalement a été transmis à l’équipe du site.' });
      const stored = (await reportsOf(site.id)).at(-1)!;
      expect(stored).toMatchObject({ categorie: 'odeur', texte: 'Forte odeur alert(1) près du bac n°1', email: 'voisin@exemple.fr', reponse_demandee: true, statut: 'nouveau' });
      const row = (await list(admin, '?filter[statut]=nouveau&sort[name]=date&sort[direction]=desc')).signalements[0];
      expect(row).toMatchObject({ id: stored.id, site: 'Jardin des Capucins', code: site.code, categorie: 'odeur', categorieLibelle: 'Odeur', reponseDemandee: true, statut: 'nouveau' });
      expect(JSON.stringify(row)).not.toContain('voisin@exemple.fr');
    });

    it('lists every error at once, in French', async () => {
      const res = await report(site.code, { texte: '<p>court</p>', email: 'pas-une-adresse', consentement: 'oui' });
      expect(res.statusCode).toBe(400);
      const errors = res.json().errors as { key: string; error: string }[];
      expect(errors.map((e) => e.key).sort()).toEqual(['categorie', 'consentement', 'email', 'texte']);
      expect(errors.find((e) => e.key === 'texte')!.error).toBe('Entre 10 et 500 caractères');
      const tooLong = await report(site.code, { categorie: 'autre', texte: 'x'.repeat(501) });
      expect(tooLong.json().errors).toEqual([{ key: 'texte', error: 'Entre 10 et 500 caractères' }]);
      const noConsent = await report(site.code, { ...validReport, email: 'voisin@exemple.fr' });
      expect(noConsent.json().errors).toEqual([{ key: 'consentement', error: 'Cochez la case pour que nous puissions vous répondre, ou laissez l’adresse vide' }]);
      const control = await report(site.code, { categorie: 'autre', texte: 'Texte avec un \u0000 caractère nul' });
      expect(control.statusCode).toBe(400);
    });

    it('drops a report whose hidden field was filled, with the usual answer', async () => {
      const before = (await reportsOf(other.id)).length;
      const res = await report(other.code, { ...validReport, siteWeb: 'https://spam.example' });
      expect(res.statusCode).toBe(200);
      expect((await reportsOf(other.id)).length).toBe(before);
    });

    it('answers 404 for a site that is not public', async () => {
      const requested = await createSite(ctx.db, { statut: 2 });
      expect((await report(requested.code, validReport)).statusCode).toBe(404);
    });

    it('takes 5 reports an hour from one address, then answers 429 in French with Retry-After', async () => {
      const s = await createEquippedSite(ctx.db);
      const address = '192.0.2.77';
      for (let i = 0; i < 5; i++) expect((await report(s.code, validReport, address)).statusCode).toBe(200);
      const refused = await report(s.code, validReport, address);
      expect(refused.statusCode).toBe(429);
      expect(refused.json().message).toBe('Trop de signalements envoyés depuis votre connexion. Réessayez dans une heure.');
      const wait = Number(refused.headers['retry-after']);
      expect(wait).toBeGreaterThan(3500);
      expect(wait).toBeLessThanOrEqual(3600);
      expect((await reportsOf(s.id)).length).toBe(5);
      // An IPv6 subscriber counts as its /64: another address of the same line is refused too.
      for (let i = 0; i < 5; i++) expect((await report(s.code, validReport, `2001:db8:1:2::${i + 1}`)).statusCode).toBe(200);
      expect((await report(s.code, validReport, '2001:db8:1:2:ffff::9')).statusCode).toBe(429);
      expect((await report(s.code, validReport, '192.0.2.78')).statusCode).toBe(200);
    });

    it('takes 50 reports a day on one site, whatever the addresses', async () => {
      const s = await createEquippedSite(ctx.db);
      for (let i = 0; i < 50; i++) expect((await report(s.code, validReport)).statusCode).toBe(200);
      const refused = await report(s.code, validReport);
      expect(refused.statusCode).toBe(429);
      expect(refused.json().message).toBe('Ce site a reçu beaucoup de signalements aujourd’hui. Réessayez demain.');
      expect(Number(refused.headers['retry-after'])).toBeGreaterThan(23 * 3600);
      expect((await reportsOf(s.id)).length).toBe(50);
      // Another site is not affected.
      expect((await report(other.code, validReport)).statusCode).toBe(200);
    });
  });

  describe('handling reports', () => {
    const tomorrow = () => parisDay(new Date(Date.now() + DAY_MS));
    const newReport = async (s: Site, payload: object = validReport) => {
      expect((await report(s.code, payload)).statusCode).toBe(200);
      return (await reportsOf(s.id)).at(-1)!.id;
    };

    it('turns a report into a pending request on the board, once, and answers the reporter once', async () => {
      const id = await newReport(site, { ...validReport, email: 'riverain@exemple.fr', consentement: true });
      const due = parisDay(new Date(Date.now() + 7 * DAY_MS));
      const sent = ctx.mailer.sent.length;
      const res = await call('PUT', `/api/admin/signalement/transformer/${id}`, { cookie: admin.cookie, payload: { actionProgrammee: 3, composteur: site.apport, dateEcheance: due } });
      expect(res.statusCode, res.body).toBe(200);
      const { idDemande } = res.json();
      expect(res.json()).toMatchObject({ status: 'success', message: 'Signalement transformé en demande d’intervention' });

      const board = await call('GET', `/api/admin/demande/intervention/get/list?filter[site]=${site.id}&rowsPerPage=100`, { cookie: provider.cookie });
      expect(board.statusCode).toBe(200);
      const card = (board.json().demandesInterventions as Record<string, unknown>[]).find((c) => c.id === idDemande);
      expect(card).toMatchObject({ idStatut: 3, idActionProgrammee: 3, actionProgrammee: 'Transfert', idSite: site.id, idBac: site.apport, numero: 1, idInterventionDeclenchante: null });
      expect(parisDay(new Date(card!.dateEcheance as string))).toBe(due);

      const stored = await ctx.db.selectFrom('signalement_public').where('id', '=', id).selectAll().executeTakeFirstOrThrow();
      expect(stored).toMatchObject({ statut: 'transforme', demande_intervention_id: idDemande, traite_par_id: admin.id, email: null, reponse_demandee: true });
      const handled = (await list(admin, `?filter[statut]=traite&filter[site]=${site.id}&sort[direction]=desc`)).signalements.find((r) => r.id === id);
      expect(handled).toMatchObject({ statut: 'transforme', traitePar: 'DURAND Alice', idDemande, actionProgrammee: 'Transfert' });

      expect(ctx.mailer.sent.length).toBe(sent + 1);
      const mail = ctx.mailer.sent.at(-1)!;
      expect(mail.to).toBe('riverain@exemple.fr');
      expect(mail.subject).toBe('Votre signalement sur un site de compostage');
      expect(mail.text).toContain('« Jardin des Capucins » a été pris en compte : une intervention (Transfert) est prévue d’ici le');
      expect(mail.text).toContain(due.split('-').reverse().join('/'));

      const again = await call('PUT', `/api/admin/signalement/transformer/${id}`, { cookie: admin.cookie, payload: { actionProgrammee: 3, composteur: site.apport, dateEcheance: due } });
      expect(again.statusCode).toBe(409);
      expect(again.json().message).toBe('Ce signalement a déjà été traité.');
      expect(ctx.mailer.sent.length).toBe(sent + 1);
    });

    it('checks the action, the cell and the due day, all at once', async () => {
      const id = await newReport(site);
      const errorsOf = async (payload: object) => {
        const res = await call('PUT', `/api/admin/signalement/transformer/${id}`, { cookie: admin.cookie, payload });
        expect(res.statusCode).toBe(400);
        return res.json().errors as { key: string; error: string }[];
      };
      expect(await errorsOf({})).toEqual([
        { key: 'actionProgrammee', error: 'Choisissez l’action à programmer' },
        { key: 'composteur', error: 'Choisissez la cellule' },
        { key: 'dateEcheance', error: 'L’échéance est obligatoire' },
      ]);
      const yesterday = parisDay(new Date(Date.now() - DAY_MS));
      expect(await errorsOf({ actionProgrammee: 999, composteur: other.apport, dateEcheance: yesterday })).toEqual([
        { key: 'actionProgrammee', error: 'Action inconnue' },
        { key: 'composteur', error: 'Cette cellule n’est pas une cellule active du site' },
        { key: 'dateEcheance', error: 'L’échéance doit être comprise entre aujourd’hui et dans un an' },
      ]);
      // Sieving is done on maturation bins only; a retired cell is no choice.
      expect(await errorsOf({ actionProgrammee: 17, composteur: site.apport, dateEcheance: tomorrow() })).toEqual([
        { key: 'actionProgrammee', error: 'Cette action n’est pas possible sur cette cellule' },
      ]);
      expect(await errorsOf({ actionProgrammee: 1, composteur: site.inactive, dateEcheance: parisDay(new Date(Date.now() + 400 * DAY_MS)) })).toEqual([
        { key: 'composteur', error: 'Cette cellule n’est pas une cellule active du site' },
        { key: 'dateEcheance', error: 'L’échéance doit être comprise entre aujourd’hui et dans un an' },
      ]);
      expect(await errorsOf({ actionProgrammee: 1, composteur: site.apport, dateEcheance: '2026-02-30' })).toEqual([{ key: 'dateEcheance', error: 'Date invalide' }]);
      const stored = await ctx.db.selectFrom('signalement_public').where('id', '=', id).select('statut').executeTakeFirstOrThrow();
      expect(stored.statut).toBe('nouveau');
    });

    it('lets a referent see and handle the reports of their own sites only', async () => {
      const mine = await newReport(site, { ...validReport, email: 'voisine@exemple.fr', consentement: true });
      const theirs = await newReport(other);
      const seen = await list(referent, '?rowsPerPage=100');
      expect(seen.signalements.every((r) => r.idSite === site.id)).toBe(true);
      expect(seen.signalements.map((r) => r.id)).toContain(mine);
      expect((await list(admin, '?rowsPerPage=100')).signalements.map((r) => r.id)).toContain(theirs);

      const refused = await call('PUT', `/api/admin/signalement/classer/${theirs}`, { cookie: referent.cookie, payload: { motif: 'Déjà vu' } });
      expect(refused.statusCode).toBe(404);
      const sent = ctx.mailer.sent.length;
      const filed = await call('PUT', `/api/admin/signalement/classer/${mine}`, { cookie: referent.cookie, payload: { motif: 'Le bac a été vidé ce matin.' } });
      expect(filed.statusCode, filed.body).toBe(200);
      expect(filed.json()).toEqual({ status: 'success', message: 'Signalement classé', idDemande: null });
      const stored = await ctx.db.selectFrom('signalement_public').where('id', '=', mine).selectAll().executeTakeFirstOrThrow();
      expect(stored).toMatchObject({ statut: 'classe', motif: 'Le bac a été vidé ce matin.', traite_par_id: referent.id, email: null });
      expect(ctx.mailer.sent.length).toBe(sent + 1);
      expect(ctx.mailer.sent.at(-1)!.text).toContain('a été examiné et classé sans intervention. Motif : Le bac a été vidé ce matin.');
      expect((await call('PUT', `/api/admin/signalement/classer/${mine}`, { cookie: referent.cookie, payload: { motif: 'Encore' } })).statusCode).toBe(409);
    });

    it('files a report without an e-mail silently and asks for a reason', async () => {
      const id = await newReport(other);
      const sent = ctx.mailer.sent.length;
      const empty = await call('PUT', `/api/admin/signalement/classer/${id}`, { cookie: admin.cookie, payload: { motif: ' ' } });
      expect(empty.json().errors).toEqual([{ key: 'motif', error: 'Entre 3 et 500 caractères' }]);
      expect((await call('PUT', `/api/admin/signalement/classer/${id}`, { cookie: admin.cookie, payload: { motif: 'Doublon' } })).statusCode).toBe(200);
      expect(ctx.mailer.sent.length).toBe(sent);
    });

    it('keeps reports from providers, other administrators and visitors', async () => {
      const siteAdmin = await loggedAs(ctx, ['ROLE_ADMIN_SITE']);
      for (const who of [provider, siteAdmin]) expect((await call('GET', '/api/admin/signalement/get/list', { cookie: who.cookie })).statusCode).toBe(403);
      expect((await call('GET', '/api/admin/signalement/get/list')).statusCode).toBe(401);
      const noSite = await loggedAs(ctx, ['ROLE_USER']);
      expect(await list(noSite)).toEqual({ count: 0, signalements: [] });
    });
  });
});
