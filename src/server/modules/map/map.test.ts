import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import { TEST_DRIVERS, createTestApp, loggedAs } from '../../../../tests/helpers/test-app.js';
import { createEquippedSite } from '../field-entry/test-factories.js';
import { MAP_MESSAGES, type Carte, type Tournee } from '../../../shared/schemas/map.js';
import { planRoute, routeLegs } from '../../../shared/route-planning.js';

type Ctx = Awaited<ReturnType<typeof createTestApp>>;
type Logged = Awaited<ReturnType<typeof loggedAs>>;
type Site = Awaited<ReturnType<typeof createEquippedSite>>;

/** One hundredth of a degree of longitude at latitude 48.4, in km: 111.195 × cos(48.4°) / 100. */
const KM_PER_CENTI_DEGREE_LON = 0.73826;

describe.each(TEST_DRIVERS)('map and route API (%s)', (driver) => {
  let ctx: Ctx;
  let admin: Logged;
  let siteAdmin: Logged;
  let provider: Logged;
  let referent: Logged;

  const call = (method: 'GET' | 'PUT', url: string, cookie?: string, payload?: unknown, headers: Record<string, string> = {}) =>
    ctx.app.inject({ method, url, headers: { ...headers, ...(cookie ? { cookie } : {}) }, ...(payload === undefined ? {} : { payload: payload as object }) });

  async function ok<T>(method: 'GET' | 'PUT', url: string, who: Logged, payload?: unknown): Promise<T> {
    const res = await call(method, url, who.cookie, payload);
    expect(res.statusCode, `${method} ${url}: ${res.body}`).toBe(200);
    return res.json() as T;
  }

  async function placedSite(nom: string, latitude: number | null, longitude: number | null, statut = 1): Promise<Site> {
    const site = await createEquippedSite(ctx.db, { nom, statut });
    if (latitude !== null && longitude !== null) {
      await ctx.db.updateTable('site').set({ latitude, longitude, coordonnees_source: 'saisie' }).where('id', '=', site.id).execute();
    }
    return site;
  }

  /** A request on the site's input cell, in that status, planned at that instant (null: not planned). */
  async function request(site: Site, planned: Date | string | null, statut = 4, action = 1): Promise<number> {
    const row = await ctx.db
      .insertInto('demande_intervention')
      .values({
        site_id: site.id,
        site_composteur_id: site.apport,
        statut_id: statut,
        type_action_programmee_id: action,
        date_echeance: new Date('2031-12-31T10:00:00Z'),
        date_programmee: planned === null ? null : new Date(planned),
      })
      .returning('id')
      .executeTakeFirstOrThrow();
    return row.id;
  }

  /** An alert about the site (one open alert per kind and subject: the kind tells them apart). */
  async function openAlert(siteId: number, kind: 'site_idle' | 'public_reports' | 'intake_high', opts: { closed?: boolean; acknowledged?: boolean } = {}) {
    await ctx.db
      .insertInto('alerte')
      .values({
        kind,
        objet_id: siteId,
        site_id: siteId,
        message: 'Alerte de test',
        opened_at: new Date('2031-01-01T08:00:00Z'),
        closed_at: opts.closed ? new Date('2031-01-02T08:00:00Z') : null,
        acknowledged_at: opts.acknowledged ? new Date('2031-01-01T09:00:00Z') : null,
      })
      .execute();
  }

  beforeAll(async () => {
    ctx = await createTestApp(driver);
    admin = await loggedAs(ctx, ['ROLE_ADMIN']);
    siteAdmin = await loggedAs(ctx, ['ROLE_ADMIN_SITE']);
    provider = await loggedAs(ctx, ['ROLE_PRESTATAIRE'], { typeUser: 3 });
    referent = await loggedAs(ctx, ['ROLE_USER'], { typeUser: 1 });
  }, 60_000);
  afterAll(() => ctx.close());

  describe('GET /api/admin/site/get/carte', () => {
    let placed: Site;
    let unplaced: Site;
    let inactive: Site;

    beforeAll(async () => {
      placed = await placedSite('Carte 10 Capucins', 48.3904, -4.4861);
      unplaced = await placedSite('Carte 2 Recouvrance', null, null);
      inactive = await placedSite('Carte 3 Demandé', 48.4, -4.5, 2);
      // Open alerts: two, one of them acknowledged; a closed one does not count.
      await openAlert(placed.id, 'site_idle');
      await openAlert(placed.id, 'public_reports', { acknowledged: true });
      await openAlert(placed.id, 'intake_high', { closed: true });
      // Pending: one to do, two planned; done and cancelled ones do not count.
      await request(placed, null, 3);
      await request(placed, '2031-05-01T08:00:00Z', 4);
      await request(placed, '2031-05-02T08:00:00Z', 4, 2);
      await request(placed, null, 5);
      await request(placed, null, 6);
      await request(unplaced, null, 3);
      await openAlert(unplaced.id, 'site_idle');
    });

    it('shows every active site with its open alerts and pending requests to ROLE_ADMIN, ROLE_ADMIN_SITE and providers alike', async () => {
      const answers = await Promise.all([admin, siteAdmin, provider].map((who) => ok<Carte>('GET', '/api/admin/site/get/carte', who)));
      expect(answers[1]).toEqual(answers[0]);
      expect(answers[2]).toEqual(answers[0]);
      const { sites } = answers[0];
      expect(sites.find((s) => s.id === placed.id)).toEqual({
        id: placed.id,
        code: placed.code,
        nom: 'Carte 10 Capucins',
        adresse: expect.stringContaining('rue de Siam'),
        ville: 'Brest',
        latitude: 48.3904,
        longitude: -4.4861,
        alertes: 2,
        demandesEnAttente: 3,
      });
      expect(sites.find((s) => s.id === unplaced.id)).toMatchObject({ latitude: null, longitude: null, alertes: 1, demandesEnAttente: 1 });
      expect(sites.some((s) => s.id === inactive.id)).toBe(false);
    });

    it('lists exactly the active sites, by name in natural order, with counts equal to counting the tables', async () => {
      const { sites } = await ok<Carte>('GET', '/api/admin/site/get/carte', admin);
      const active = await ctx.db.selectFrom('site').where('statut_id', '=', 1).select('id').execute();
      expect(sites.map((s) => s.id).sort((a, b) => a - b)).toEqual(active.map((s) => s.id).sort((a, b) => a - b));
      const { rows } = await sql<{ id: number; alertes: number; demandes: number }>`
        SELECT s.id,
               (SELECT count(*)::int FROM alerte a WHERE a.site_id = s.id AND a.closed_at IS NULL) AS alertes,
               (SELECT count(*)::int FROM demande_intervention d WHERE d.site_id = s.id AND d.statut_id IN (3, 4)) AS demandes
          FROM site s WHERE s.statut_id = 1`.execute(ctx.db);
      for (const r of rows) expect(sites.find((s) => s.id === r.id)).toMatchObject({ alertes: r.alertes, demandesEnAttente: r.demandes });
      // 'Carte 2' before 'Carte 10': numbers compare as numbers.
      const names = sites.map((s) => s.nom).filter((n) => n.startsWith('Carte '));
      expect(names).toEqual(['Carte 2 Recouvrance', 'Carte 10 Capucins']);
    });

    it('gives the default tile layer (OpenStreetMap) when none is configured', async () => {
      const { tuiles } = await ok<Carte>('GET', '/api/admin/site/get/carte', admin);
      expect(tuiles).toEqual({ url: 'https://tile.openstreetmap.org/{z}/{x}/{y}.png', attribution: '© les contributeurs d’OpenStreetMap' });
    });

    it('refuses referents (403) and anonymous callers (401)', async () => {
      expect((await call('GET', '/api/admin/site/get/carte', referent.cookie)).statusCode).toBe(403);
      expect((await call('GET', '/api/admin/site/get/carte')).statusCode).toBe(401);
    });
  });

  describe('GET /api/admin/tournee', () => {
    // Four sites on a line of latitude 48.4, 0.02° of longitude apart (1.48 km), east of the start point.
    const START = '48.4,-4.6';
    const DAY = '2031-06-10';
    let line: Site[];
    let onLine: number[];
    let noPosition: number;

    beforeAll(async () => {
      line = [];
      for (const k of [1, 2, 3, 4]) line.push(await placedSite(`Ligne ${k}`, 48.4, -4.6 + k * 0.02));
      const elsewhere = await placedSite('Sans position', null, null);
      // Created out of order: ids say nothing of the route.
      const ids = new Map<number, number>();
      for (const k of [3, 1, 4, 2]) ids.set(k, await request(line[k - 1], '2031-06-10T07:00:00Z'));
      onLine = [1, 2, 3, 4].map((k) => ids.get(k)!);
      noPosition = await request(elsewhere, '2031-06-10T09:00:00Z');
      // Not on the route: cancelled, done, the day after, or not planned.
      await request(line[0], '2031-06-10T08:00:00Z', 6);
      await request(line[1], '2031-06-10T08:00:00Z', 5);
      await request(line[2], '2031-06-11T08:00:00Z');
      await request(line[3], null, 3);
    });

    it('orders the day’s planned requests along the line from the start point, with each leg and the total in km', async () => {
      const t = await ok<Tournee>('GET', `/api/admin/tournee?date=${DAY}&depart=${START}`, provider);
      expect(t.date).toBe(DAY);
      expect(t.depart).toEqual({ latitude: 48.4, longitude: -4.6, source: 'demande' });
      expect(t.etapes.map((e) => e.idDemande)).toEqual(onLine);
      expect(t.etapes.map((e) => e.ordre)).toEqual([1, 2, 3, 4]);
      // 2 × 0.738 = 1.48 km a leg, 5.91 km in all.
      expect(2 * KM_PER_CENTI_DEGREE_LON).toBeCloseTo(1.48, 2);
      expect(t.etapes.map((e) => e.distanceKm)).toEqual([1.5, 1.5, 1.5, 1.5]);
      expect(t.distanceTotaleKm).toBe(5.9);
      expect(t.ordreManuel).toBe(false);
      expect(t.etapes[0]).toMatchObject({
        idSite: line[0].id,
        site: 'Ligne 1',
        adresse: expect.stringMatching(/rue de Siam, 29200 Brest$/),
        action: 'Retournement',
        cellule: 'Apport n°1',
        dateEcheance: '2031-12-31T10:00:00.000Z',
        latitude: 48.4,
        longitude: -4.58,
      });
    });

    it('lists the requests of a site without position apart, never dropped', async () => {
      const t = await ok<Tournee>('GET', `/api/admin/tournee?date=${DAY}&depart=${START}`, admin);
      expect(t.sansPosition).toEqual([expect.objectContaining({ idDemande: noPosition, site: 'Sans position', action: 'Retournement' })]);
      expect(t.etapes.some((e) => e.idDemande === noPosition)).toBe(false);
    });

    it('starts from the first stop, 0 km away, when there is no start point', async () => {
      const t = await ok<Tournee>('GET', `/api/admin/tournee?date=${DAY}`, provider);
      // From either end of the line; here the first stop by id wins the tie (the start at 4, going west).
      expect([onLine, [...onLine].reverse()]).toContainEqual(t.etapes.map((e) => e.idDemande));
      expect(t.etapes[0].distanceKm).toBe(0);
      expect(t.depart).toEqual({ latitude: t.etapes[0].latitude, longitude: t.etapes[0].longitude, source: 'premiere-etape' });
      expect(t.distanceTotaleKm).toBe(4.4);
    });

    it('answers an empty route for a day without requests', async () => {
      const t = await ok<Tournee>('GET', '/api/admin/tournee?date=2031-06-09', provider);
      expect(t).toEqual({ date: '2031-06-09', depart: null, etapes: [], sansPosition: [], distanceTotaleKm: 0, ordreManuel: false });
    });

    it('gives the order the planning algorithm gives on the stops read by id', async () => {
      // Ten sites scattered over Brest (a fixed pseudo-random pattern), planned on their own day.
      const day = '2031-06-20';
      const points = Array.from({ length: 10 }, (_, i) => ({ latitude: 48.36 + ((i * 37) % 17) / 170, longitude: -4.56 + ((i * 53) % 23) / 115 }));
      const ids: number[] = [];
      for (const [i, p] of points.entries()) ids.push(await request(await placedSite(`Semis ${i}`, p.latitude, p.longitude), `${day}T06:00:00Z`));
      const start = { latitude: 48.39, longitude: -4.49 };
      const t = await ok<Tournee>('GET', `/api/admin/tournee?date=${day}&depart=48.39,-4.49`, provider);
      const order = planRoute(start, points);
      expect(t.etapes.map((e) => e.idDemande)).toEqual(order.map((i) => ids[i]));
      const legs = routeLegs(
        start,
        order.map((i) => points[i]),
      );
      expect(t.etapes.map((e) => e.distanceKm)).toEqual(legs.legsKm);
      expect(t.distanceTotaleKm).toBe(legs.totalKm);
    });

    it('takes a Paris day: from its midnight to the next, on the days the clocks go forward and back', async () => {
      const site = await placedSite('Heures', 48.41, -4.47);
      const cases: { day: string; inside: string[]; outside: string[] }[] = [
        // Winter: Paris is UTC+1.
        { day: '2031-01-15', inside: ['2031-01-14T23:00:00Z', '2031-01-15T22:30:00Z'], outside: ['2031-01-14T22:59:59Z', '2031-01-15T23:00:00Z'] },
        // 30 March 2031: 23 hours, UTC+1 until 01:00 UTC then UTC+2; 23:30 Paris is 21:30 UTC.
        { day: '2031-03-30', inside: ['2031-03-29T23:00:00Z', '2031-03-30T21:30:00Z'], outside: ['2031-03-29T22:30:00Z', '2031-03-30T22:00:00Z'] },
        // 26 October 2031: 25 hours, UTC+2 until 01:00 UTC then UTC+1; 23:30 Paris is 22:30 UTC.
        { day: '2031-10-26', inside: ['2031-10-25T22:00:00Z', '2031-10-26T22:30:00Z'], outside: ['2031-10-25T21:59:00Z', '2031-10-26T23:00:00Z'] },
      ];
      for (const c of cases) {
        const inside = [];
        for (const at of c.inside) inside.push(await request(site, at));
        for (const at of c.outside) await request(site, at);
        const t = await ok<Tournee>('GET', `/api/admin/tournee?date=${c.day}`, provider);
        expect(t.etapes.map((e) => e.idDemande).sort((a, b) => a - b), c.day).toEqual(inside);
      }
    });

    it('uses the saved start point until it is cleared, and a start point asked in the query before it', async () => {
      const saved = await call('PUT', '/api/admin/tournee/depart', provider.cookie, { depart: { latitude: 48.4, longitude: -4.5 } });
      expect(saved.json()).toEqual({ status: 'success', message: MAP_MESSAGES.departSaved });
      const row = await ctx.db.selectFrom('account').where('id', '=', provider.id).select(['tournee_depart_latitude', 'tournee_depart_longitude']).executeTakeFirstOrThrow();
      expect(row).toEqual({ tournee_depart_latitude: 48.4, tournee_depart_longitude: -4.5 });

      // From the east end (-4.5), the line is walked westward: 4, 3, 2, 1; 0.02° to the first stop.
      let t = await ok<Tournee>('GET', `/api/admin/tournee?date=${DAY}`, provider);
      expect(t.depart).toEqual({ latitude: 48.4, longitude: -4.5, source: 'enregistre' });
      expect(t.etapes.map((e) => e.idDemande)).toEqual([...onLine].reverse());
      expect(t.etapes.map((e) => e.distanceKm)).toEqual([1.5, 1.5, 1.5, 1.5]);

      // Another user's route does not start there.
      t = await ok<Tournee>('GET', `/api/admin/tournee?date=${DAY}`, admin);
      expect(t.depart?.source).toBe('premiere-etape');

      t = await ok<Tournee>('GET', `/api/admin/tournee?date=${DAY}&depart=${START}`, provider);
      expect(t.depart?.source).toBe('demande');
      expect(t.etapes.map((e) => e.idDemande)).toEqual(onLine);

      const cleared = await call('PUT', '/api/admin/tournee/depart', provider.cookie, { depart: null });
      expect(cleared.json()).toEqual({ status: 'success', message: MAP_MESSAGES.departCleared });
      t = await ok<Tournee>('GET', `/api/admin/tournee?date=${DAY}`, provider);
      expect(t.depart?.source).toBe('premiere-etape');
      expect(t.etapes[0].distanceKm).toBe(0);
    });

    it('refuses a start point out of range, listing both coordinates', async () => {
      const res = await call('PUT', '/api/admin/tournee/depart', provider.cookie, { depart: { latitude: 91, longitude: -181 } });
      expect(res.statusCode).toBe(400);
      expect(res.json().errors).toEqual([
        { key: 'depart.latitude', error: MAP_MESSAGES.latitudeRange },
        { key: 'depart.longitude', error: MAP_MESSAGES.longitudeRange },
      ]);
    });

    it('keeps the order set by hand for the day, and goes back to the computed one when it is emptied', async () => {
      const wanted = [onLine[2], onLine[0], onLine[3], onLine[1]];
      const saved = await call('PUT', '/api/admin/tournee/ordre', provider.cookie, { date: DAY, demandes: wanted });
      expect(saved.json()).toEqual({ status: 'success', message: MAP_MESSAGES.ordreSaved });

      let t = await ok<Tournee>('GET', `/api/admin/tournee?date=${DAY}&depart=${START}`, provider);
      expect(t.ordreManuel).toBe(true);
      expect(t.etapes.map((e) => e.idDemande)).toEqual(wanted);
      // 3 then 1, 4, 2: 0.06°, 0.04°, 0.06°, 0.04° of longitude.
      expect(t.etapes.map((e) => e.distanceKm)).toEqual([4.4, 3, 4.4, 3]);
      expect(t.distanceTotaleKm).toBe(14.8);

      // Each user's own: the administrator still gets the computed order.
      t = await ok<Tournee>('GET', `/api/admin/tournee?date=${DAY}&depart=${START}`, admin);
      expect(t.ordreManuel).toBe(false);
      expect(t.etapes.map((e) => e.idDemande)).toEqual(onLine);

      const emptied = await call('PUT', '/api/admin/tournee/ordre', provider.cookie, { date: DAY, demandes: [] });
      expect(emptied.json()).toEqual({ status: 'success', message: MAP_MESSAGES.ordreCleared });
      t = await ok<Tournee>('GET', `/api/admin/tournee?date=${DAY}&depart=${START}`, provider);
      expect(t.ordreManuel).toBe(false);
      expect(t.etapes.map((e) => e.idDemande)).toEqual(onLine);
      expect(await ctx.db.selectFrom('tournee_ordre').where('account_id', '=', provider.id).selectAll().execute()).toEqual([]);
    });

    it('refuses an order that is not exactly the day’s placed requests, and keeps the one saved before', async () => {
      const wanted = [onLine[3], onLine[2], onLine[1], onLine[0]];
      expect((await call('PUT', '/api/admin/tournee/ordre', provider.cookie, { date: DAY, demandes: wanted })).statusCode).toBe(200);
      const refused = [
        wanted.slice(0, 3),
        [...wanted, noPosition],
        [...wanted.slice(0, 3), wanted[0]],
        [...wanted, wanted[0]],
        [...wanted.slice(0, 3), 2_000_000_000],
      ];
      for (const demandes of refused) {
        const res = await call('PUT', '/api/admin/tournee/ordre', provider.cookie, { date: DAY, demandes });
        expect(res.statusCode, JSON.stringify(demandes)).toBe(400);
        expect(res.json()).toEqual({ status: 'error', errors: [{ key: 'demandes', error: MAP_MESSAGES.ordreMismatch }], message: MAP_MESSAGES.ordreMismatch });
      }
      // The same requests on another day are not that day's.
      expect((await call('PUT', '/api/admin/tournee/ordre', provider.cookie, { date: '2031-06-11', demandes: wanted })).statusCode).toBe(400);
      const t = await ok<Tournee>('GET', `/api/admin/tournee?date=${DAY}&depart=${START}`, provider);
      expect(t.etapes.map((e) => e.idDemande)).toEqual(wanted);
      await call('PUT', '/api/admin/tournee/ordre', provider.cookie, { date: DAY, demandes: [] });
    });

    it('follows a saved order after the day changed: stops gone are left out, a new one goes where it adds the least', async () => {
      const day = '2031-07-01';
      const sites = [];
      for (const k of [1, 2, 3, 4, 5]) sites.push(await placedSite(`Suite ${k}`, 48.4, -4.6 + k * 0.02));
      const ids = [];
      for (const k of [1, 2, 4, 5]) ids.push(await request(sites[k - 1], `${day}T08:00:00Z`));
      // By hand: 5, 4, 2, 1 (the line walked back).
      const wanted = [ids[3], ids[2], ids[1], ids[0]];
      expect((await call('PUT', '/api/admin/tournee/ordre', admin.cookie, { date: day, demandes: wanted })).statusCode).toBe(200);
      // Since then: the request at 2 was cancelled, one at 3 was planned.
      await ctx.db.updateTable('demande_intervention').set({ statut_id: 6 }).where('id', '=', ids[1]).execute();
      const added = await request(sites[2], `${day}T09:00:00Z`);

      // From a start point east of 5: 3 costs nothing between 4 and 1, 0.04° after 1 or between 5 and 4, 0.10° first.
      const t = await ok<Tournee>('GET', `/api/admin/tournee?date=${day}&depart=48.4,-4.48`, admin);
      expect(t.ordreManuel).toBe(true);
      expect(t.etapes.map((e) => e.idDemande)).toEqual([ids[3], ids[2], added, ids[0]]);

      // The saved order no longer matches: saving it again is refused until reloaded.
      expect((await call('PUT', '/api/admin/tournee/ordre', admin.cookie, { date: day, demandes: wanted })).statusCode).toBe(400);
      expect((await call('PUT', '/api/admin/tournee/ordre', admin.cookie, { date: day, demandes: t.etapes.map((e) => e.idDemande) })).statusCode).toBe(200);
    });

    it('refuses a missing or malformed day, listing every error at once in French', async () => {
      let res = await call('GET', '/api/admin/tournee', provider.cookie);
      expect(res.statusCode).toBe(400);
      expect(res.json().errors).toEqual([{ key: 'date', error: MAP_MESSAGES.dateRequired }]);

      res = await call('GET', '/api/admin/tournee?date=2031-02-30&depart=48.4', provider.cookie);
      expect(res.statusCode).toBe(400);
      expect(res.json().errors).toEqual([
        { key: 'date', error: MAP_MESSAGES.dateInvalid },
        { key: 'depart', error: MAP_MESSAGES.departInvalid },
      ]);

      for (const bad of ['31-06-2031', '2031-6-1', '0000-01-01', '2031-13-01', '']) {
        res = await call('GET', `/api/admin/tournee?date=${bad}`, provider.cookie);
        expect(res.statusCode, bad).toBe(400);
      }
      res = await call('PUT', '/api/admin/tournee/ordre', provider.cookie, { date: '0000-01-01', demandes: [1] });
      expect(res.statusCode).toBe(400);
      expect(res.json().errors).toEqual([{ key: 'date', error: MAP_MESSAGES.dateInvalid }]);
    });

    it('lets only ROLE_ADMIN and providers use the route, and refuses a write from another site', async () => {
      for (const who of [referent, siteAdmin]) {
        expect((await call('GET', `/api/admin/tournee?date=${DAY}`, who.cookie)).statusCode).toBe(403);
        expect((await call('PUT', '/api/admin/tournee/depart', who.cookie, { depart: null })).statusCode).toBe(403);
        expect((await call('PUT', '/api/admin/tournee/ordre', who.cookie, { date: DAY, demandes: [] })).statusCode).toBe(403);
      }
      expect((await call('GET', `/api/admin/tournee?date=${DAY}`)).statusCode).toBe(401);
      const crossSite = await call('PUT', '/api/admin/tournee/depart', provider.cookie, { depart: { latitude: 1, longitude: 1 } }, { origin: 'https://ailleurs.example', 'sec-fetch-site': 'cross-site' });
      expect(crossSite.statusCode).toBe(403);
      const row = await ctx.db.selectFrom('account').where('id', '=', provider.id).select('tournee_depart_latitude').executeTakeFirstOrThrow();
      expect(row.tournee_depart_latitude).toBeNull();
    });
  });

  it('gives the tile layer the configuration names', async () => {
    const other = await createTestApp(driver, { MAP_TILES_URL: 'https://tuiles.exemple.fr/{z}/{x}/{y}.png', MAP_TILES_ATTRIBUTION: '© Brest Métropole' });
    try {
      const who = await loggedAs(other, ['ROLE_ADMIN']);
      const res = await other.app.inject({ method: 'GET', url: '/api/admin/site/get/carte', headers: { cookie: who.cookie } });
      expect(res.json().tuiles).toEqual({ url: 'https://tuiles.exemple.fr/{z}/{x}/{y}.png', attribution: '© Brest Métropole' });
    } finally {
      await other.close();
    }
  });
});
