import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TEST_CONFIG, TEST_DRIVERS, createTestApp, loggedAs } from '../../../../tests/helpers/test-app.js';
import { createCell, createEquippedSite, createSite } from '../field-entry/test-factories.js';
import { sql } from 'kysely';
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
  /** The reporters' addresses still kept for a report. */
  const contactsOf = async (id: number) =>
    (await sql<{ email: string }>`SELECT email FROM signalement_public_contact WHERE signalement_id = ${id} ORDER BY email`.execute(ctx.db)).rows.map((r) => r.email);
  const columnsOf = async (id: number) =>
    (await sql<{ occurrences: number; visible_le: Date; fusionne_dans_id: number | null }>`SELECT occurrences, visible_le, fusionne_dans_id FROM signalement_public WHERE id = ${id}`.execute(ctx.db)).rows[0];

  beforeAll(async () => {
    ctx = await createTestApp(driver);
    admin = await loggedAs(ctx, ['ROLE_ADMIN'], { nom: 'DURAND', prenom: 'Alice' });
    referent = await loggedAs(ctx, ['ROLE_USER'], { nom: 'LEGALL', prenom: 'Yann' });
    provider = await loggedAs(ctx, ['ROLE_PRESTATAIRE'], { typeUser: 3 });
    site = await createEquippedSite(ctx.db, { nom: 'Jardin des Capucins', referents: [referent.id] });
    other = await createEquippedSite(ctx.db, { nom: 'Square Nord' });
  }, 120_000);
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
          'permanences',
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
      expect(stored).toMatchObject({ categorie: 'odeur', texte: 'Forte odeur alert(1) près du bac n°1', reponse_demandee: true, statut: 'nouveau' });
      expect(await contactsOf(stored.id)).toEqual(['voisin@exemple.fr']);
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
      // The same text five times: one report, sent five times.
      const [only] = await reportsOf(s.id);
      expect((await reportsOf(s.id)).length).toBe(1);
      expect((await columnsOf(only.id)).occurrences).toBe(5);
      // An IPv6 subscriber counts as its /64: another address of the same line is refused too.
      for (let i = 0; i < 5; i++) expect((await report(s.code, validReport, `2001:db8:1:2::${i + 1}`)).statusCode).toBe(200);
      expect((await report(s.code, validReport, '2001:db8:1:2:ffff::9')).statusCode).toBe(429);
      expect((await report(s.code, validReport, '192.0.2.78')).statusCode).toBe(200);
    });

    it('never closes a site to a new sender: past 50 new reports in 24 hours, the next ones wait for their place on the board', async () => {
      const s = await createEquippedSite(ctx.db);
      for (let i = 0; i < 50; i++) expect((await report(s.code, { ...validReport, texte: `Le bac n°${i} déborde ce matin.` })).statusCode).toBe(200);
      const onBoard = async () => (await list(admin, `?filter[statut]=nouveau&filter[site]=${s.id}&rowsPerPage=100`)).count;
      expect(await onBoard()).toBe(50);
      // Ten more senders, each with their first report of the day: all taken, none shown yet.
      for (let i = 0; i < 10; i++) {
        const res = await report(s.code, { ...validReport, texte: `Autre problème n°${i} sur le site.` });
        expect(res.statusCode).toBe(200);
        expect(res.json().message).toBe('Merci ! Votre signalement a été transmis à l’équipe du site.');
      }
      const rows = await reportsOf(s.id);
      expect(rows).toHaveLength(60);
      expect(await onBoard()).toBe(50);
      const firstWaiting = await columnsOf(rows[50].id);
      expect(firstWaiting.visible_le.getTime()).toBeGreaterThan(Date.now() + 23.9 * 3600_000);
      // Once the first entries are a day old, the waiting reports come onto the board.
      await sql`UPDATE signalement_public SET visible_le = visible_le - interval '24 hours' WHERE site_id = ${s.id}`.execute(ctx.db);
      expect(await onBoard()).toBe(60);
      // Another site is not affected.
      const before = await list(admin, `?filter[statut]=nouveau&filter[site]=${other.id}&rowsPerPage=100`);
      expect((await report(other.code, { ...validReport, texte: 'Le couvercle ne ferme plus du tout.' })).statusCode).toBe(200);
      expect((await list(admin, `?filter[statut]=nouveau&filter[site]=${other.id}&rowsPerPage=100`)).count).toBe(before.count + 1);
    });

    it('counts the same text sent again on a site into its open report, with every reporter to answer', async () => {
      const s = await createEquippedSite(ctx.db);
      const texte = 'Des rats autour du bac de maturation.';
      expect((await report(s.code, { categorie: 'nuisibles', texte })).statusCode).toBe(200);
      expect((await report(s.code, { categorie: 'nuisibles', texte: `  <i>${texte}</i> `, email: 'a@exemple.fr', consentement: true })).statusCode).toBe(200);
      expect((await report(s.code, { categorie: 'autre', texte, email: 'b@exemple.fr', consentement: true })).statusCode).toBe(200);
      expect((await report(other.code, { categorie: 'nuisibles', texte })).statusCode).toBe(200);
      const rows = await reportsOf(s.id);
      expect(rows).toHaveLength(1);
      expect(rows[0]).toMatchObject({ categorie: 'nuisibles', reponse_demandee: true });
      expect((await columnsOf(rows[0].id)).occurrences).toBe(3);
      expect(await contactsOf(rows[0].id)).toEqual(['a@exemple.fr', 'b@exemple.fr']);
      const row = (await list(admin, `?filter[site]=${s.id}`)).signalements[0];
      expect(row).toMatchObject({ id: rows[0].id, occurrences: 3, fusionneDans: null });

      // Handled, it answers each reporter once, and the next identical report opens a new one.
      const sent = ctx.mailer.sent.length;
      expect((await call('PUT', `/api/admin/signalement/classer/${rows[0].id}`, { cookie: admin.cookie, payload: { motif: 'Dératisation prévue.' } })).statusCode).toBe(200);
      expect(ctx.mailer.sent.slice(sent).map((m) => [m.to, m.erase])).toEqual([
        ['a@exemple.fr', true],
        ['b@exemple.fr', true],
      ]);
      expect(await contactsOf(rows[0].id)).toEqual([]);
      expect((await report(s.code, { categorie: 'nuisibles', texte })).statusCode).toBe(200);
      expect(await reportsOf(s.id)).toHaveLength(2);
    });

    it('charges a sender only for reports taken: refused input and unknown sites leave the quota whole', async () => {
      const s = await createEquippedSite(ctx.db);
      const address = '192.0.2.90';
      for (let i = 0; i < 6; i++) {
        expect((await report(s.code, { categorie: 'autre', texte: 'court' }, address)).statusCode).toBe(400);
        expect((await report('ZZZ999', validReport, address)).statusCode).toBe(404);
      }
      for (let i = 0; i < 5; i++) expect((await report(s.code, { ...validReport, texte: `Problème numéro ${i} sur le bac.` }, address)).statusCode).toBe(200);
      expect((await report(s.code, validReport, address)).statusCode).toBe(429);
    });

    it('keeps the hidden field out of the API description', async () => {
      const doc = (await call('GET', '/api/docs/json')).body;
      expect(doc).toContain('/api/public/site/{code}/signalement');
      expect(doc).toContain('consentement');
      expect(doc).not.toMatch(/siteWeb|site_web/i);
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
      expect(stored).toMatchObject({ statut: 'transforme', demande_intervention_id: idDemande, traite_par_id: admin.id, reponse_demandee: true });
      expect(await contactsOf(id)).toEqual([]);
      const handled = (await list(admin, `?filter[statut]=traite&filter[site]=${site.id}&sort[direction]=desc`)).signalements.find((r) => r.id === id);
      expect(handled).toMatchObject({ statut: 'transforme', traitePar: 'DURAND Alice', idDemande, actionProgrammee: 'Transfert' });

      expect(ctx.mailer.sent.length).toBe(sent + 1);
      const mail = ctx.mailer.sent.at(-1)!;
      expect(mail.to).toBe('riverain@exemple.fr');
      expect(mail.subject).toBe('Votre signalement sur un site de compostage');
      // The mailer is told to keep no copy: the address was promised erasure.
      expect(mail.erase).toBe(true);
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
      expect(stored).toMatchObject({ statut: 'classe', motif: 'Le bac a été vidé ce matin.', traite_par_id: referent.id });
      expect(await contactsOf(mine)).toEqual([]);
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

    it('closes several reports in one action, all or none, and answers each reporter once', async () => {
      const s = await createEquippedSite(ctx.db, { referents: [referent.id] });
      const ids = [
        await newReport(s, { ...validReport, texte: 'Premier signalement du lot.', email: 'un@exemple.fr', consentement: true }),
        await newReport(s, { ...validReport, texte: 'Deuxième signalement du lot.' }),
        await newReport(s, { ...validReport, texte: 'Troisième signalement du lot.', email: 'trois@exemple.fr', consentement: true }),
      ];
      const theirs = await newReport(other, { ...validReport, texte: 'Signalement d’un autre site.' });
      const done = await newReport(s, { ...validReport, texte: 'Déjà classé avant le lot.' });
      await call('PUT', `/api/admin/signalement/classer/${done}`, { cookie: admin.cookie, payload: { motif: 'Doublon' } });
      const bulk = (who: Logged, payload: object) => call('PUT', '/api/admin/signalement/classer', { cookie: who.cookie, payload });
      const statuts = async () => (await reportsOf(s.id)).filter((r) => ids.includes(r.id)).map((r) => r.statut);
      const sent = ctx.mailer.sent.length;

      const invalid = await bulk(admin, { ids: [], motif: '' });
      expect(invalid.statusCode).toBe(400);
      expect(invalid.json().errors).toEqual([
        { key: 'motif', error: 'Entre 3 et 500 caractères' },
        { key: 'ids', error: 'Choisissez au moins un signalement' },
      ]);
      expect((await bulk(admin, { ids: [ids[0], ids[0]], motif: 'Vu' })).json().errors).toEqual([
        { key: 'motif', error: 'Entre 3 et 500 caractères' },
        { key: 'ids', error: 'Un signalement est choisi deux fois' },
      ]);
      // One report already handled, or of a site the referent does not follow: nothing changes.
      const conflict = await bulk(admin, { ids: [...ids, done], motif: 'Réglé sur place.' });
      expect(conflict.statusCode).toBe(409);
      expect((await bulk(referent, { ids: [...ids, theirs], motif: 'Réglé sur place.' })).statusCode).toBe(404);
      expect((await bulk(admin, { ids: [...ids, 2_000_000_000], motif: 'Réglé sur place.' })).statusCode).toBe(404);
      expect(await statuts()).toEqual(['nouveau', 'nouveau', 'nouveau']);
      expect(ctx.mailer.sent.length).toBe(sent);

      const res = await bulk(referent, { ids, motif: 'Réglé sur place.' });
      expect(res.statusCode, res.body).toBe(200);
      expect(res.json()).toEqual({ status: 'success', message: '3 signalements clôturés', count: 3 });
      expect(await statuts()).toEqual(['classe', 'classe', 'classe']);
      for (const id of ids) expect(await contactsOf(id)).toEqual([]);
      expect(ctx.mailer.sent.slice(sent).map((m) => [m.to, m.erase, m.text.includes('Motif : Réglé sur place.')])).toEqual([
        ['un@exemple.fr', true, true],
        ['trois@exemple.fr', true, true],
      ]);
      const one = await bulk(admin, { ids: [theirs], motif: 'Réglé sur place.' });
      expect(one.json()).toEqual({ status: 'success', message: '1 signalement clôturé', count: 1 });
    });

    it('merges reports of one site into the one kept: counted, linked, closed, their reporters answered with it', async () => {
      const s = await createEquippedSite(ctx.db);
      const kept = await newReport(s, { ...validReport, texte: 'Le bac est plein à ras bord.', email: 'garde@exemple.fr', consentement: true });
      const twice = { ...validReport, texte: 'Bac complètement plein ce matin.', email: 'deux@exemple.fr', consentement: true };
      const a = await newReport(s, twice);
      expect((await report(s.code, { ...twice, email: 'garde@exemple.fr' })).statusCode).toBe(200);
      const b = await newReport(s, { ...validReport, texte: 'Plus de place dans le bac.' });
      const elsewhere = await newReport(other, { ...validReport, texte: 'Plein aussi sur ce site.' });
      const merge = (payload: object) => call('PUT', '/api/admin/signalement/fusionner', { cookie: admin.cookie, payload });

      expect((await merge({ idConserve: kept, ids: [a, kept] })).json().errors).toEqual([
        { key: 'ids', error: 'Le signalement conservé ne peut pas être fusionné avec lui-même' },
      ]);
      const otherSite = await merge({ idConserve: kept, ids: [a, elsewhere] });
      expect(otherSite.statusCode).toBe(400);
      expect(otherSite.json().errors).toEqual([{ key: 'ids', error: 'Seuls des signalements du même site peuvent être fusionnés' }]);
      expect((await reportsOf(s.id)).map((r) => r.statut)).toEqual(['nouveau', 'nouveau', 'nouveau']);

      const sent = ctx.mailer.sent.length;
      const res = await merge({ idConserve: kept, ids: [a, b] });
      expect(res.statusCode, res.body).toBe(200);
      expect(res.json()).toEqual({ status: 'success', message: `2 signalements fusionnés dans le signalement n° ${kept}`, count: 2 });
      expect(ctx.mailer.sent.length).toBe(sent);
      expect(await columnsOf(kept)).toMatchObject({ occurrences: 4, fusionne_dans_id: null });
      expect(await contactsOf(kept)).toEqual(['deux@exemple.fr', 'garde@exemple.fr']);
      for (const id of [a, b]) {
        expect(await columnsOf(id)).toMatchObject({ fusionne_dans_id: kept });
        expect(await contactsOf(id)).toEqual([]);
      }
      const handled = (await list(admin, `?filter[statut]=traite&filter[site]=${s.id}&sort[direction]=desc`)).signalements;
      expect(handled.map((r) => [r.id, r.statut, r.fusionneDans, r.traitePar])).toEqual([
        [b, 'classe', kept, 'DURAND Alice'],
        [a, 'classe', kept, 'DURAND Alice'],
      ]);
      expect((await merge({ idConserve: kept, ids: [a] })).statusCode).toBe(409);

      // The kept report's answer goes to every reporter it gathered.
      const due = parisDay(new Date(Date.now() + 3 * DAY_MS));
      expect((await call('PUT', `/api/admin/signalement/transformer/${kept}`, { cookie: admin.cookie, payload: { actionProgrammee: 3, composteur: s.apport, dateEcheance: due } })).statusCode).toBe(200);
      expect(ctx.mailer.sent.slice(sent).map((m) => m.to).sort()).toEqual(['deux@exemple.fr', 'garde@exemple.fr']);
      expect(await contactsOf(kept)).toEqual([]);
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
