import crypto from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import { TEST_DRIVERS, createTestApp, loggedAs } from '../../../../tests/helpers/test-app.js';
import { createEquippedSite, createPendingDemande } from '../field-entry/test-factories.js';
import { storeTestPhoto } from '../photos/test-factories.js';

type Ctx = Awaited<ReturnType<typeof createTestApp>>;
type Logged = Awaited<ReturnType<typeof loggedAs>>;

const DAY_MS = 24 * 3600 * 1000;
const PARIS_DAY = new Intl.DateTimeFormat('en-CA', { timeZone: 'Europe/Paris', year: 'numeric', month: '2-digit', day: '2-digit' });
/** 'YYYY-MM-DD' of an instant in Paris. */
const parisDay = (d: Date) => PARIS_DAY.format(d);
const ALL_ROLES = [
  'ROLE_USER',
  'ROLE_PRESTATAIRE',
  'ROLE_ADMIN_SITE',
  'ROLE_ADMIN_USER',
  'ROLE_ADMIN_ROLE',
  'ROLE_ADMIN_COMPOSTEUR',
  'ROLE_ADMIN_UPDATE',
  'ROLE_ADMIN_DELETE',
  'ROLE_ADMIN',
];

describe.each(TEST_DRIVERS)('intervention requests API (%s)', (driver) => {
  let ctx: Ctx;
  let admin: Logged;
  let provider: Logged;
  let referent: Logged;
  let site: Awaited<ReturnType<typeof createEquippedSite>>;

  const call = (method: 'GET' | 'POST' | 'PUT', url: string, cookie?: string, payload?: unknown) =>
    ctx.app.inject({ method, url, headers: cookie ? { cookie } : {}, ...(payload === undefined ? {} : { payload: payload as object }) });

  /** Records an entry through the add route; returns the answer body. */
  async function record(who: Logged, siteId: number, values: object[], date = new Date(Date.now() - 3600_000)) {
    const res = await call('POST', '/api/admin/intervention/add', who.cookie, { clientId: crypto.randomUUID(), site: siteId, date: date.toISOString(), values });
    return res;
  }

  async function raiseRepair(siteId: number, cell: number, text = 'Couvercle cassé', date?: Date, who?: Logged) {
    const res = await record(who ?? referent, siteId, [{ composteur: cell, action: 18, valeur: text, bacDestination: null, observations: null, demandeIntervention: null }], date);
    expect(res.statusCode).toBe(200);
    const body = res.json();
    expect(body.demandes).toHaveLength(1);
    return { demande: body.demandes[0] as number, intervention: body.interventions[0] as number };
  }

  const demandeRow = (id: number) => ctx.db.selectFrom('demande_intervention').where('id', '=', id).selectAll().executeTakeFirstOrThrow();
  const pending = async (query = '') => {
    const res = await call('GET', `/api/admin/demande/intervention/get/list${query}`, provider.cookie);
    expect(res.statusCode).toBe(200);
    return res.json() as { count: number; demandesInterventions: Record<string, unknown>[] };
  };

  beforeAll(async () => {
    ctx = await createTestApp(driver);
    admin = await loggedAs(ctx, ['ROLE_ADMIN'], { nom: 'DURAND', prenom: 'Alice' });
    provider = await loggedAs(ctx, ['ROLE_PRESTATAIRE'], { typeUser: 3, nom: 'VERT', prenom: 'Paul' });
    referent = await loggedAs(ctx, ['ROLE_USER'], { nom: 'MARTIN', prenom: 'Jeanne' });
    site = await createEquippedSite(ctx.db, { nom: 'Jardin des Capucins', referents: [referent.id] });
  });
  afterAll(() => ctx.close());

  describe('who may use the routes', () => {
    const board = [
      ['GET', '/api/admin/demande/intervention/get/list'],
      ['GET', '/api/admin/demande/intervention/get/sites'],
      ['GET', '/api/admin/demande/intervention/get/all/by/filters'],
      ['PUT', '/api/admin/demande/intervention/delete'],
      ['POST', '/api/admin/demande/intervention/programmer'],
    ] as const;
    const rules = [
      ['GET', '/api/admin/demande/regle/get/all'],
      ['POST', '/api/admin/demande/regle/add'],
      ['PUT', '/api/admin/demande/regle/update/1'],
      ['PUT', '/api/admin/demande/regle/delete/999999'],
    ] as const;

    it('asks anonymous callers to log in', async () => {
      for (const [method, url] of [...board, ...rules]) expect((await call(method, url)).statusCode, url).toBe(401);
    });

    it('opens the board to providers and ROLE_ADMIN only, the rules to ROLE_ADMIN only', async () => {
      const noRole = await loggedAs(ctx, []);
      for (const role of [null, ...ALL_ROLES]) {
        const who = role === null ? noRole : await loggedAs(ctx, [role], role === 'ROLE_PRESTATAIRE' ? { typeUser: 3 } : {});
        for (const [method, url] of board) {
          const status = (await call(method, url, who.cookie, method === 'GET' ? undefined : {})).statusCode;
          if (role === 'ROLE_ADMIN' || role === 'ROLE_PRESTATAIRE') expect(status, `${role} ${url}`).not.toBe(403);
          else expect(status, `${role} ${url}`).toBe(403);
        }
        for (const [method, url] of rules) {
          const status = (await call(method, url, who.cookie, method === 'GET' ? undefined : {})).statusCode;
          if (role === 'ROLE_ADMIN') expect(status, `${role} ${url}`).not.toBe(403);
          else expect(status, `${role} ${url}`).toBe(403);
        }
      }
    });
  });

  describe('pending board', () => {
    it("shows a referent's 'Réparation à effectuer' as a request with every card field", async () => {
      const date = new Date(Date.now() - 2 * 3600_000);
      const { demande, intervention } = await raiseRepair(site.id, site.apport, 'Charnière cassée', date);
      const body = await pending(`?filter[site]=${site.id}`);
      const card = body.demandesInterventions.find((d) => d.id === demande);
      expect(card).toEqual({
        id: demande,
        idStatut: 3,
        statut: 'En attente',
        dateEcheance: new Date(date.getTime() + 14 * DAY_MS).toISOString(),
        dateProgrammee: null,
        programmationReferent: null,
        programmationAgent: null,
        idAction: 18,
        actionDeclenchante: 'Réparation à effectuer',
        referent: 'MARTIN Jeanne',
        agent: null,
        idActionProgrammee: 14,
        actionProgrammee: 'Réparation effectuée',
        idSite: site.id,
        site: 'Jardin des Capucins',
        adresse: expect.stringMatching(/rue de Siam, 29200 Brest$/),
        value: 'Charnière cassée',
        idBac: site.apport,
        numero: 1,
        destinationIdBac: null,
        idInterventionDeclenchante: intervention,
        dateDeclenchement: date.toISOString(),
        nbSignalements: 1,
        dernierSignalement: { id: intervention, date: date.toISOString(), intervenant: 'MARTIN Jeanne', idAction: 18, typeAction: 'Réparation à effectuer', valeur: 'Charnière cassée', observations: null, photos: [] },
        delaiJours: 14,
        photos: [],
      });
    });

    it('pages 20 cards sorted by site name and filters by site', async () => {
      const zSite = await createEquippedSite(ctx.db, { nom: 'zz Dernier site' });
      const aSite = await createEquippedSite(ctx.db, { nom: 'AA Premier site' });
      for (let i = 0; i < 21; i++) await createPendingDemande(ctx.db, zSite.id, zSite.apport, 3);
      await createPendingDemande(ctx.db, aSite.id, aSite.broyat, 12, 4);
      const first = await pending();
      expect(first.demandesInterventions).toHaveLength(20);
      expect(first.demandesInterventions[0].site).toBe('AA Premier site');
      const names = first.demandesInterventions.map((d) => String(d.site).toLowerCase());
      expect(names).toEqual([...names].sort());
      const total = first.count;
      const last = await pending(`?page=${Math.floor((total - 1) / 20)}`);
      expect(last.demandesInterventions.at(-1)!.site).toBe('zz Dernier site');
      const only = await pending(`?filter[site]=${zSite.id}`);
      expect(only.count).toBe(21);
      expect(only.demandesInterventions.every((d) => d.idSite === zSite.id)).toBe(true);
      // The site filter offers only sites with pending requests.
      const sites = (await call('GET', '/api/admin/demande/intervention/get/sites', provider.cookie)).json() as { id: number; site: string; count: number }[];
      expect(sites.find((s) => s.id === zSite.id)).toEqual({ id: zSite.id, site: 'zz Dernier site', ville: 'Brest', count: 21 });
      const idle = await createEquippedSite(ctx.db, { nom: 'Site sans demande' });
      expect(sites.some((s) => s.id === idle.id)).toBe(false);
    });

    it('refuses unknown sorts and filters', async () => {
      expect((await call('GET', '/api/admin/demande/intervention/get/list?sort[name]=nope', provider.cookie)).statusCode).toBe(400);
      expect((await call('GET', '/api/admin/demande/intervention/get/list?filter[x]=1', provider.cookie)).statusCode).toBe(400);
      expect((await call('GET', '/api/admin/demande/intervention/get/list?filter[site]=0x1', provider.cookie)).statusCode).toBe(400);
    });
  });

  describe('cancelling', () => {
    it('records status 6, the date and who cancelled, and the request leaves the board', async () => {
      const s = await createEquippedSite(ctx.db);
      const a = await createPendingDemande(ctx.db, s.id, s.apport, 3);
      const b = await createPendingDemande(ctx.db, s.id, s.broyat, 12, 4);
      const before = Date.now();
      const res = await call('PUT', '/api/admin/demande/intervention/delete', provider.cookie, { demandesInterventions: [a, b] });
      expect(res.statusCode).toBe(200);
      expect(res.json()).toEqual({ status: 'success', message: "Demande(s) d'intervention(s) annulée(s) avec succès", count: 2 });
      const row = await demandeRow(a);
      expect(row.statut_id).toBe(6);
      expect(row.annulee_par_id).toBe(provider.id);
      expect(new Date(row.date_annulation!).getTime()).toBeGreaterThanOrEqual(before - 5000);
      expect((await demandeRow(b)).statut_id).toBe(6);
      expect((await pending(`?filter[site]=${s.id}`)).count).toBe(0);
    });

    it('refuses with 409 a selection over two sites, and changes nothing', async () => {
      const s1 = await createEquippedSite(ctx.db);
      const s2 = await createEquippedSite(ctx.db);
      const a = await createPendingDemande(ctx.db, s1.id, s1.apport, 3);
      const b = await createPendingDemande(ctx.db, s2.id, s2.apport, 3);
      const res = await call('PUT', '/api/admin/demande/intervention/delete', admin.cookie, { demandesInterventions: [a, b] });
      expect(res.statusCode).toBe(409);
      expect(res.json().message).toBe('Les demandes sélectionnées doivent concerner un seul site');
      expect((await demandeRow(a)).statut_id).toBe(3);
    });

    it('refuses with 409 a request already cancelled or processed, 404 an unknown one, 400 an empty selection', async () => {
      const s = await createEquippedSite(ctx.db);
      const done = await createPendingDemande(ctx.db, s.id, s.apport, 3, 5);
      const cancelled = await createPendingDemande(ctx.db, s.id, s.apport, 3, 6);
      for (const id of [done, cancelled]) {
        const res = await call('PUT', '/api/admin/demande/intervention/delete', admin.cookie, { demandesInterventions: [id] });
        expect(res.statusCode).toBe(409);
        expect(res.json().message).toBe("Cette demande d'intervention a déjà été réalisée ou annulée");
      }
      const unknown = await call('PUT', '/api/admin/demande/intervention/delete', admin.cookie, { demandesInterventions: [999999] });
      expect(unknown.statusCode).toBe(404);
      expect(unknown.json().message).toBe("Demande d'intervention introuvable");
      const empty = await call('PUT', '/api/admin/demande/intervention/delete', admin.cookie, { demandesInterventions: [] });
      expect(empty.statusCode).toBe(400);
      expect(empty.json().errors).toEqual([{ key: 'demandesInterventions', error: 'Sélectionnez au moins une demande' }]);
    });
  });

  describe('scheduling', () => {
    const schedule = (who: Logged, values: unknown) => call('POST', '/api/admin/demande/intervention/programmer', who.cookie, { values });

    it('records status 4, the planned day and who planned it; the card shows them', async () => {
      const s = await createEquippedSite(ctx.db);
      const { demande } = await raiseRepair(s.id, s.apport, 'Couvercle cassé', undefined, admin);
      const day = parisDay(new Date(Date.now() + 2 * DAY_MS));
      const res = await schedule(provider, [{ demandeIntervention: demande, date: day }]);
      expect(res.statusCode).toBe(200);
      const row = await demandeRow(demande);
      expect(row.statut_id).toBe(4);
      expect(row.programme_par_id).toBe(provider.id);
      expect(parisDay(new Date(row.date_programmee!))).toBe(day);
      const card = (await pending(`?filter[site]=${s.id}`)).demandesInterventions[0];
      expect(card).toMatchObject({ idStatut: 4, statut: 'Programmée', programmationReferent: 'VERT Paul', programmationAgent: null });
      // An agent's planning shows under programmationAgent; a planned request can be planned again.
      expect((await schedule(admin, [{ demandeIntervention: demande, date: parisDay(new Date()) }])).statusCode).toBe(200);
      expect((await pending(`?filter[site]=${s.id}`)).demandesInterventions[0]).toMatchObject({ programmationReferent: null, programmationAgent: 'DURAND Alice' });
    });

    it('accepts today and the due day, refuses with 409 a day before today or after the due day', async () => {
      const s = await createEquippedSite(ctx.db);
      const date = new Date(Date.now() - 3600_000);
      const res = await record(admin, s.id, [{ composteur: s.apport, action: 18, valeur: 'Trou', bacDestination: null, observations: null, demandeIntervention: null }], date);
      const demande = res.json().demandes[0] as number;
      const due = parisDay(new Date(date.getTime() + 14 * DAY_MS));
      const yesterday = parisDay(new Date(Date.now() - DAY_MS));
      const afterDue = parisDay(new Date(date.getTime() + 15 * DAY_MS));
      for (const day of [yesterday, afterDue]) {
        const r = await schedule(admin, [{ demandeIntervention: demande, date: day }]);
        expect(r.statusCode, day).toBe(409);
        expect(r.json().message).toBe("La date prévue de réalisation doit être comprise entre aujourd'hui et la date d'échéance");
      }
      expect((await demandeRow(demande)).statut_id).toBe(3);
      expect((await schedule(admin, [{ demandeIntervention: demande, date: due }])).statusCode).toBe(200);
      expect((await schedule(admin, [{ demandeIntervention: demande, date: parisDay(new Date()) }])).statusCode).toBe(200);
    });

    it('answers a field error for a missing or impossible day', async () => {
      const s = await createEquippedSite(ctx.db);
      const a = await createPendingDemande(ctx.db, s.id, s.apport, 3);
      const b = await createPendingDemande(ctx.db, s.id, s.apport, 3);
      const res = await schedule(admin, [
        { demandeIntervention: a, date: null },
        { demandeIntervention: b, date: '2025-02-30' },
      ]);
      expect(res.statusCode).toBe(400);
      expect(res.json().errors).toEqual([
        { key: 'values0.date', error: 'La date prévue de réalisation est obligatoire' },
        { key: 'values1.date', error: 'Date invalide' },
      ]);
    });

    it('refuses with 409 two sites or a closed request', async () => {
      const s1 = await createEquippedSite(ctx.db);
      const s2 = await createEquippedSite(ctx.db);
      const a = await createPendingDemande(ctx.db, s1.id, s1.apport, 3);
      const b = await createPendingDemande(ctx.db, s2.id, s2.apport, 3);
      const closed = await createPendingDemande(ctx.db, s1.id, s1.apport, 3, 6);
      const today = parisDay(new Date());
      const two = await schedule(admin, [
        { demandeIntervention: a, date: today },
        { demandeIntervention: b, date: today },
      ]);
      expect(two.statusCode).toBe(409);
      expect(two.json().message).toBe('Les demandes sélectionnées doivent concerner un seul site');
      expect((await schedule(admin, [{ demandeIntervention: closed, date: today }])).statusCode).toBe(409);
    });
  });

  describe('processing and history', () => {
    it('processes a planned request from an entry: status 5, both interventions in the history', async () => {
      const site = await createEquippedSite(ctx.db, { referents: [referent.id] });
      const { demande, intervention } = await raiseRepair(site.id, site.apport, 'Planche fendue');
      expect((await call('POST', '/api/admin/demande/intervention/programmer', provider.cookie, { values: [{ demandeIntervention: demande, date: parisDay(new Date()) }] })).statusCode).toBe(200);
      const done = await record(provider, site.id, [{ composteur: site.apport, action: 14, valeur: 'Planche changée', bacDestination: null, observations: 'RAS', demandeIntervention: demande }]);
      expect(done.statusCode).toBe(200);
      const realisee = done.json().interventions[0] as number;
      expect(await demandeRow(demande)).toMatchObject({ statut_id: 5, intervention_realisee_id: realisee });
      expect((await pending(`?filter[site]=${site.id}`)).demandesInterventions.some((d) => d.id === demande)).toBe(false);

      const history = await call('GET', `/api/admin/demande/intervention/get/all/by/filters?filter[site]=${site.id}&filter[statut]=5`, admin.cookie);
      expect(history.statusCode).toBe(200);
      const row = (history.json().demandesInterventions as Record<string, unknown>[]).find((r) => r.id === demande);
      expect(row).toMatchObject({
        actionProgrammee: 'Réparation effectuée',
        idStatut: 5,
        statut: 'Réalisée',
        dateAnnulation: null,
        annuleePar: null,
        interventionDeclenchante: { id: intervention, intervenant: 'MARTIN Jeanne', typeAction: 'Réparation à effectuer', valeur: 'Planche fendue', observations: null },
        interventionRealisee: { id: realisee, intervenant: 'VERT Paul', typeAction: 'Réparation effectuée', valeur: 'Planche changée', observations: 'RAS' },
      });
    });

    it('shows on a card the photos of every entry that called for the request, and in the history those of each linked intervention', async () => {
      const site = await createEquippedSite(ctx.db, { referents: [referent.id] });
      const first = await raiseRepair(site.id, site.apport, 'Couvercle cassé', new Date(Date.now() - 3 * 3600_000));
      // A second repair to do on the same cell only calls for that request again.
      const again = await record(referent, site.id, [{ composteur: site.apport, action: 18, valeur: 'Charnière cassée', bacDestination: null, observations: null, demandeIntervention: null }], new Date(Date.now() - 2 * 3600_000));
      expect(again.statusCode, again.body).toBe(200);
      expect(again.json().demandes).toEqual([]);
      const later = again.json().interventions[0] as number;
      // Stored in this order: the later entry's photo first.
      const p3 = await storeTestPhoto(ctx.db, later);
      const p1 = await storeTestPhoto(ctx.db, first.intervention);
      const p2 = await storeTestPhoto(ctx.db, first.intervention);
      const bare = await raiseRepair(site.id, site.broyat, 'Trappe bloquée');

      const cards = (await pending(`?filter[site]=${site.id}`)).demandesInterventions;
      expect(cards.find((d) => d.id === first.demande)).toMatchObject({
        nbSignalements: 2,
        // The trigger's, then the later entry's.
        photos: [{ id: p1 }, { id: p2 }, { id: p3 }],
        dernierSignalement: { id: later, photos: [{ id: p3 }] },
      });
      expect(cards.find((d) => d.id === bare.demande)).toMatchObject({ photos: [], dernierSignalement: { id: bare.intervention, photos: [] } });

      const done = await record(provider, site.id, [{ composteur: site.apport, action: 14, valeur: 'Couvercle changé', bacDestination: null, observations: null, demandeIntervention: first.demande }]);
      expect(done.statusCode, done.body).toBe(200);
      const realisee = done.json().interventions[0] as number;
      const p4 = await storeTestPhoto(ctx.db, realisee);
      const history = await call('GET', `/api/admin/demande/intervention/get/all/by/filters?filter[site]=${site.id}`, provider.cookie);
      expect(history.statusCode).toBe(200);
      const rows = history.json().demandesInterventions as Record<string, unknown>[];
      expect(rows.find((r) => r.id === first.demande)).toMatchObject({
        idStatut: 5,
        photos: [{ id: p1 }, { id: p2 }, { id: p3 }],
        interventionDeclenchante: { id: first.intervention, photos: [{ id: p1 }, { id: p2 }] },
        dernierSignalement: { id: later, photos: [{ id: p3 }] },
        interventionRealisee: { id: realisee, photos: [{ id: p4 }] },
      });
      expect(rows.find((r) => r.id === bare.demande)).toMatchObject({ photos: [], interventionDeclenchante: { id: bare.intervention, photos: [] }, interventionRealisee: null });
    });

    it('lists the history newest first with count, cancellations with who and when', async () => {
      const s = await createEquippedSite(ctx.db);
      const older = await createPendingDemande(ctx.db, s.id, s.apport, 3);
      await ctx.db.updateTable('demande_intervention').set({ date_creation: new Date(Date.now() - 5 * DAY_MS) }).where('id', '=', older).execute();
      const newer = await createPendingDemande(ctx.db, s.id, s.apport, 3);
      await call('PUT', '/api/admin/demande/intervention/delete', admin.cookie, { demandesInterventions: [newer] });
      const res = await call('GET', `/api/admin/demande/intervention/get/all/by/filters?filter[site]=${s.id}`, provider.cookie);
      const body = res.json();
      expect(body.count).toBe(2);
      expect(body.demandesInterventions.map((r: { id: number }) => r.id)).toEqual([newer, older]);
      expect(body.demandesInterventions[0]).toMatchObject({ statut: 'Annulée', idStatut: 6, annuleePar: 'DURAND Alice', interventionDeclenchante: null, interventionRealisee: null });
      expect(body.demandesInterventions[0].dateAnnulation).toEqual(expect.any(String));
      const asc = await call('GET', `/api/admin/demande/intervention/get/all/by/filters?filter[site]=${s.id}&sort[name]=dateCreation&sort[direction]=asc&rowsPerPage=5`, provider.cookie);
      expect(asc.json().demandesInterventions.map((r: { id: number }) => r.id)).toEqual([older, newer]);
      expect((await call('GET', '/api/admin/demande/intervention/get/all/by/filters?filter[statut]=2', provider.cookie)).statusCode).toBe(400);
    });

    it('pages the history by site name (natural order) or by programmed action in the order of a full sort, each site’s requests together, with filters', async () => {
      // Two sites of the same name (the requests of each together, the sites by code), and
      // another one that comes first in natural order ('2' before '13') and last in plain text
      // order.
      const a = await createEquippedSite(ctx.db);
      const b = await createEquippedSite(ctx.db);
      const c = await createEquippedSite(ctx.db);
      await ctx.db.updateTable('site').set({ nom: 'Zéphyr 13' }).where('id', 'in', [a.id, b.id]).execute();
      await ctx.db.updateTable('site').set({ nom: 'zéphyr 2' }).where('id', '=', c.id).execute();
      for (let i = 0; i < 4; i++) for (const x of [a, b, c]) await createPendingDemande(ctx.db, x.id, x.apport, 3);
      const ids = (rows: { id: number }[]) => rows.map((r) => r.id);
      const reference = async (name: 'site' | 'actionProgrammee', direction: 'asc' | 'desc', statut?: number) => {
        const dir = sql.raw(direction);
        const key = name === 'site' ? sql`s.nom_tri ${dir}, s.code` : sql`lower(tp.libelle) ${dir} NULLS LAST, tp.id`;
        return ids(
          (
            await sql<{ id: number }>`SELECT d.id FROM demande_intervention d JOIN site s ON s.id = d.site_id
              JOIN type_action tp ON tp.id = d.type_action_programmee_id
              WHERE ${statut === undefined ? sql`true` : sql`d.statut_id = ${statut}`}
              ORDER BY ${key} ${dir}, d.id ${dir}`.execute(ctx.db)
          ).rows,
        );
      };
      for (const name of ['site', 'actionProgrammee'] as const) {
        for (const direction of ['asc', 'desc'] as const) {
          for (const statut of [undefined, 3]) {
            const expected = await reference(name, direction, statut);
            const got: number[] = [];
            for (let page = 0; got.length < expected.length; page++) {
              const url = `/api/admin/demande/intervention/get/all/by/filters?sort[name]=${name}&sort[direction]=${direction}&rowsPerPage=5&page=${page}${statut ? `&filter[statut]=${statut}` : ''}`;
              const res = await call('GET', url, provider.cookie);
              expect(res.statusCode).toBe(200);
              const rows = ids(res.json().demandesInterventions);
              if (rows.length === 0) break;
              got.push(...rows);
            }
            expect(got, `${name} ${direction} ${statut ?? ''}`).toEqual(expected);
          }
        }
      }
    });

    it('links one intervention when two phones process the same request at once, and refuses the other', async () => {
      const site = await createEquippedSite(ctx.db, { referents: [referent.id] });
      const { demande } = await raiseRepair(site.id, site.apport, 'Vis manquante');
      const entry = () => record(provider, site.id, [{ composteur: site.apport, action: 14, valeur: 'Vis remise', bacDestination: null, observations: null, demandeIntervention: demande }]);
      const results = await Promise.all([entry(), entry()]);
      const statuses = results.map((r) => r.statusCode).sort();
      expect(statuses[0]).toBe(200);
      expect(statuses[1]).toBe(409);
      const linked = await ctx.db.selectFrom('intervention').where('demande_intervention_id', '=', demande).select('id').execute();
      expect(linked).toHaveLength(1);
      expect((await demandeRow(demande)).intervention_realisee_id).toBe(linked[0].id);
      // A request already processed cannot be cancelled or planned any more.
      expect((await call('PUT', '/api/admin/demande/intervention/delete', provider.cookie, { demandesInterventions: [demande] })).statusCode).toBe(409);
    });
  });

  describe('request rules', () => {
    const rulesList = async () => (await call('GET', '/api/admin/demande/regle/get/all', admin.cookie)).json() as Record<string, unknown>[];

    it('lists the seeded rules with the catalogue labels', async () => {
      const rules = await rulesList();
      expect(rules).toEqual(
        expect.arrayContaining([
          expect.objectContaining({ idActionDeclenchante: 18, actionDeclenchante: 'Réparation à effectuer', idConstante: null, constante: null, idActionProgrammee: 14, actionProgrammee: 'Réparation effectuée', delaiJours: 14 }),
          expect.objectContaining({ idActionDeclenchante: 9, idConstante: 12, constante: 'Endommagé', idActionProgrammee: 14, delaiJours: 14 }),
          expect.objectContaining({ idActionDeclenchante: 19, idConstante: 5, constante: 'Plein', idActionProgrammee: 17, actionProgrammee: 'Tamisage', delaiJours: 30 }),
        ]),
      );
      expect(rules.filter((r) => r.idActionDeclenchante === 16)).toHaveLength(2);
    });

    it('validates a rule against the catalogue, every error at once, in French', async () => {
      const add = (body: object) => call('POST', '/api/admin/demande/regle/add', admin.cookie, body);
      // 'Sec' (6) is a constant of 8, not of 16; Tamisage (17, maturation) is not possible on an input bin (16 is on type 1 only).
      const bad = await add({ actionDeclenchante: 16, constante: 6, actionProgrammee: 17, delaiJours: 5 });
      expect(bad.statusCode).toBe(400);
      expect(bad.json().errors).toEqual([
        { key: 'constante', error: "Cette valeur n'appartient pas à l'action déclenchante" },
        { key: 'actionProgrammee', error: "L'action à programmer n'est possible sur aucun type de cellule de l'action déclenchante" },
      ]);
      for (const delaiJours of [0, 366, 1.5]) {
        const r = await add({ actionDeclenchante: 18, constante: null, actionProgrammee: 13, delaiJours });
        expect(r.statusCode).toBe(400);
        expect(r.json().errors).toEqual([{ key: 'delaiJours', error: 'Le délai doit être un nombre entier de jours entre 1 et 365' }]);
      }
      const unknown = await add({ actionDeclenchante: 99, constante: null, actionProgrammee: 14, delaiJours: 3 });
      expect(unknown.json().errors).toEqual([{ key: 'actionDeclenchante', error: 'Action inconnue' }]);
      const dup = await add({ actionDeclenchante: 18, constante: null, actionProgrammee: 14, delaiJours: 3 });
      expect(dup.statusCode).toBe(409);
      expect(dup.json().message).toBe('Une règle existe déjà pour ce déclencheur : Réparation à effectuer (toujours) → Réparation effectuée sous 14 jours');
    });

    it('adds, changes and removes a rule; 404 for an unknown one', async () => {
      const added = await call('POST', '/api/admin/demande/regle/add', admin.cookie, { actionDeclenchante: 8, constante: 9, actionProgrammee: 13, delaiJours: 2 });
      expect(added.statusCode).toBe(200);
      const id = added.json().id as number;
      expect(added.json()).toEqual({ status: 'success', message: 'Règle ajoutée', id });
      expect((await rulesList()).find((r) => r.id === id)).toEqual({
        id,
        idActionDeclenchante: 8,
        actionDeclenchante: 'État du broyat',
        idConstante: 9,
        constante: 'Moisi',
        idActionProgrammee: 13,
        actionProgrammee: 'Autre intervention',
        delaiJours: 2,
      });
      const upd = await call('PUT', `/api/admin/demande/regle/update/${id}`, admin.cookie, { actionDeclenchante: 8, constante: 8, actionProgrammee: 13, delaiJours: 4 });
      expect(upd.json()).toEqual({ status: 'success', message: 'Règle modifiée', id });
      expect((await rulesList()).find((r) => r.id === id)).toMatchObject({ idConstante: 8, constante: 'Humide', delaiJours: 4 });
      expect((await call('PUT', `/api/admin/demande/regle/delete/${id}`, admin.cookie)).json()).toEqual({ status: 'success', message: 'Règle supprimée', id });
      expect((await rulesList()).some((r) => r.id === id)).toBe(false);
      expect((await call('PUT', `/api/admin/demande/regle/delete/${id}`, admin.cookie)).statusCode).toBe(404);
      expect((await call('PUT', `/api/admin/demande/regle/update/${id}`, admin.cookie, { actionDeclenchante: 8, constante: 8, actionProgrammee: 13, delaiJours: 4 })).statusCode).toBe(404);
      expect((await call('PUT', '/api/admin/demande/regle/update/abc', admin.cookie, { actionDeclenchante: 8, constante: 8, actionProgrammee: 13, delaiJours: 4 })).statusCode).toBe(400);
    });

    it('applies a changed delay to the next entry and leaves raised requests as they were', async () => {
      const s = await createEquippedSite(ctx.db);
      const d1 = new Date(Date.now() - 5 * 3600_000);
      const first = await record(admin, s.id, [{ composteur: s.broyat, action: 18, valeur: 'Avant', bacDestination: null, observations: null, demandeIntervention: null }], d1);
      const firstDemande = first.json().demandes[0] as number;
      const rule = (await rulesList()).find((r) => r.idActionDeclenchante === 18 && r.idConstante === null)!;
      const upd = await call('PUT', `/api/admin/demande/regle/update/${rule.id as number}`, admin.cookie, { actionDeclenchante: 18, constante: null, actionProgrammee: 14, delaiJours: 3 });
      expect(upd.statusCode).toBe(200);
      const d2 = new Date(Date.now() - 3600_000);
      const second = await record(admin, s.id, [{ composteur: s.maturation, action: 18, valeur: 'Après', bacDestination: null, observations: null, demandeIntervention: null }], d2);
      const secondDemande = second.json().demandes[0] as number;
      expect(new Date((await demandeRow(secondDemande)).date_echeance).toISOString()).toBe(new Date(d2.getTime() + 3 * DAY_MS).toISOString());
      expect(new Date((await demandeRow(firstDemande)).date_echeance).toISOString()).toBe(new Date(d1.getTime() + 14 * DAY_MS).toISOString());
      await call('PUT', `/api/admin/demande/regle/update/${rule.id as number}`, admin.cookie, { actionDeclenchante: 18, constante: null, actionProgrammee: 14, delaiJours: 14 });
    });
  });
});
