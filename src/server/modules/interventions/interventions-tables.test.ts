// The three interventions tables through the API: the search box (server side) of the global
// list, of one site's list for administrators and of the public per-site list; the fields every
// row carries; and what a caller of the public list who may not record on the site may not see.
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TEST_DRIVERS, createAccount, createTestApp, loggedAs } from '../../../../tests/helpers/test-app.js';
import { createEquippedSite } from '../field-entry/test-factories.js';
import { createInterventionList, listQueries } from './intervention-list.js';
import type { ResolvedSearch } from './intervention-search.js';
import { INTERVENTION_ADMIN_MESSAGES } from '../../../shared/schemas/interventions-admin.js';
import { SITE_INTERVENTIONS_TOO_DEEP } from '../../../shared/schemas/interventions.js';

type Ctx = Awaited<ReturnType<typeof createTestApp>>;
type Site = Awaited<ReturnType<typeof createEquippedSite>>;

const LIST = '/api/admin/intervention/get/list/by/filters';
const PUBLIC = (id: number) => `/api/intervention/get/list/by/site/${id}`;

describe.each(TEST_DRIVERS)('interventions tables (%s)', (driver) => {
  let ctx: Ctx;
  let admin: Awaited<ReturnType<typeof loggedAs>>;
  let referent: Awaited<ReturnType<typeof loggedAs>>;
  let epinette: Site;
  let bouleau: Site;
  let chene: Site;
  const r: Record<string, number> = {};
  let demande = 0;

  const get = (cookie: string | undefined, url: string) => ctx.app.inject({ method: 'GET', url, headers: cookie ? { cookie } : {} });
  const ids = async (cookie: string | undefined, url: string) => {
    const res = await get(cookie, url);
    expect(res.statusCode, res.body).toBe(200);
    const body = res.json() as { count: number; interventions: { id: number }[] };
    const list = body.interventions.map((i) => i.id).sort((a, b) => a - b);
    expect(body.count, url).toBe(list.length);
    return list;
  };
  const named = (...keys: string[]) => keys.map((k) => r[k]).sort((a, b) => a - b);

  async function insert(row: { site: Site; cell: 'apport' | 'broyat' | 'maturation'; action: number; by: number; date: string; nombre?: number; constante?: number; texte?: string; observations?: string; dest?: number }) {
    return (
      await ctx.db
        .insertInto('intervention')
        .values({
          date: new Date(row.date),
          site_id: row.site.id,
          site_composteur_id: row.site[row.cell],
          type_action_id: row.action,
          valeur_nombre: row.nombre ?? null,
          valeur_constante: row.constante ?? null,
          valeur_texte: row.texte ?? null,
          bac_destination_id: row.dest ?? null,
          observations: row.observations ?? null,
          intervenant_id: row.by,
        })
        .returning('id')
        .executeTakeFirstOrThrow()
    ).id;
  }

  beforeAll(async () => {
    ctx = await createTestApp(driver);
    admin = await loggedAs(ctx, ['ROLE_ADMIN']);
    referent = await loggedAs(ctx, ['ROLE_USER']);
    const alice = (await createAccount(ctx.db, { nom: 'DURAND', prenom: 'Alice' })).id;
    const bob = (await createAccount(ctx.db, { kind: 'agent', nom: 'ARNAUD', prenom: 'Bob' })).id;
    epinette = await createEquippedSite(ctx.db, { nom: 'Épinette', referents: [referent.id] });
    bouleau = await createEquippedSite(ctx.db, { nom: 'Bouleau' });
    r.e1 = await insert({ site: epinette, cell: 'maturation', action: 6, nombre: 55, by: alice, date: '2025-05-01T08:00:00Z', observations: 'Couvercle abîmé' });
    r.e2 = await insert({ site: epinette, cell: 'broyat', action: 14, texte: 'Charnière changée', by: bob, date: '2025-05-02T08:00:00Z' });
    r.e3 = await insert({ site: epinette, cell: 'broyat', action: 7, constante: 5, by: alice, date: '2025-05-03T08:00:00Z' });
    r.e4 = await insert({ site: epinette, cell: 'apport', action: 1, by: bob, date: '2025-05-04T08:00:00Z', observations: 'Odeur forte' });
    r.e5 = await insert({ site: epinette, cell: 'apport', action: 3, nombre: 80, dest: epinette.maturation, by: alice, date: '2025-05-05T08:00:00Z' });
    r.b1 = await insert({ site: bouleau, cell: 'maturation', action: 11, nombre: 200, by: alice, date: '2025-05-06T08:00:00Z' });
    r.b2 = await insert({ site: bouleau, cell: 'apport', action: 18, texte: 'Trappe bloquée', by: alice, date: '2025-05-07T08:00:00Z' });
    r.b3 = await insert({ site: bouleau, cell: 'apport', action: 14, texte: 'Trappe débloquée', by: bob, date: '2025-05-20T08:00:00Z' });
    // b2 raised a request that b3 processed.
    demande = (
      await ctx.db
        .insertInto('demande_intervention')
        .values({
          site_id: bouleau.id,
          site_composteur_id: bouleau.apport,
          statut_id: 5,
          type_action_programmee_id: 14,
          intervention_declenchante_id: r.b2,
          intervention_realisee_id: r.b3,
          date_echeance: new Date('2025-05-21T08:00:00Z'),
        })
        .returning('id')
        .executeTakeFirstOrThrow()
    ).id;
    await ctx.db.updateTable('intervention').set({ demande_intervention_id: demande }).where('id', '=', r.b3).execute();
    // e3 ('Plein') signalled again a request raised earlier on its cell, processed since.
    const signalled = (
      await ctx.db
        .insertInto('demande_intervention')
        .values({ site_id: epinette.id, site_composteur_id: epinette.broyat, statut_id: 5, type_action_programmee_id: 12, date_echeance: new Date('2025-05-10T08:00:00Z') })
        .returning('id')
        .executeTakeFirstOrThrow()
    ).id;
    await ctx.db.insertInto('demande_signalement').values({ demande_intervention_id: signalled, intervention_id: r.e3, date_echeance: new Date('2025-05-10T08:00:00Z') }).execute();
    // A busy site of 20,001 turnings in 2024 and 2025: twice as many as a count goes to.
    chene = await createEquippedSite(ctx.db, { nom: 'Chêne' });
    const morvan = (await createAccount(ctx.db, { nom: 'MORVAN', prenom: 'Yann' })).id;
    await sql`INSERT INTO intervention (date, site_id, site_composteur_id, type_action_id, intervenant_id)
      SELECT timestamptz '2024-01-01 08:00:00+00' + g * interval '17 minutes', ${chene.id}::int, ${chene.apport}::int, 1, ${morvan}::int
      FROM generate_series(1, 20001) g`.execute(ctx.db);
  });
  afterAll(() => ctx.close());

  describe('search of the global list', () => {
    it.each([
      ['bouleau', ['b1', 'b2', 'b3'], 'a site name'],
      ['durand', ['e1', 'e3', 'e5', 'b1', 'b2'], 'an intervenant'],
      ['Arnaud Bob', ['e2', 'e4', 'b3'], 'an agent, first and last name'],
      ['TEMPÉ', ['e1'], 'an action label, accents and case aside'],
      ['plein', ['e3'], 'a constant value'],
      ['charniere', ['e2'], 'a free-text value'],
      ['couvercle', ['e1'], 'an observation'],
      ['od', ['e4'], 'the start of a word of an observation (two letters)'],
      ['trappe', ['b2', 'b3'], 'free-text values of several rows'],
      ['zzzq', [], 'nothing'],
    ])('finds %s (%s)', async (term, expected) => {
      expect(await ids(admin.cookie, `${LIST}?search=${encodeURIComponent(term)}&rowsPerPage=100`)).toEqual(named(...expected));
    });

    it('combines the search with the filters and keeps the sort', async () => {
      expect(await ids(admin.cookie, `${LIST}?search=durand&filter[site]=${bouleau.id}`)).toEqual(named('b1', 'b2'));
      expect(await ids(admin.cookie, `${LIST}?search=durand&filter[action]=6`)).toEqual(named('e1'));
      const body = (await get(admin.cookie, `${LIST}?search=durand&sort[name]=site&sort[direction]=asc`)).json();
      expect(body.interventions.map((i: { id: number }) => i.id)).toEqual([r.b1, r.b2, r.e1, r.e3, r.e5]);
    });

    it('answers the same rows whether the matches are gathered first or filtered on the walk', async () => {
      const lists = createInterventionList(ctx.db);
      for (const search of ['bouleau', 'durand', 'plein', 'trappe', 'od', 'couvercle']) {
        const run = async (mode: ResolvedSearch['mode'], name: 'date' | 'site' | 'action') => {
          const plan = await lists.plan({ search }, { name, direction: 'desc' });
          const p = { ...plan, search: { ...plan.search!, mode } };
          const page = await listQueries.pageKeys(p, { limit: 100, offset: 0 }).execute(ctx.db);
          const count = await listQueries.count(p).query.execute(ctx.db);
          return { ids: page.rows.map((x) => x.id), count: count.rows[0].count };
        };
        for (const name of ['date', 'site', 'action'] as const) expect(await run('narrow', name), `${search} ${name}`).toEqual(await run('broad', name));
      }
    });

    it("says 'more than 10,000' for a search matching more, and pages it newest first", async () => {
      const all = (await get(admin.cookie, `${LIST}?search=chene`)).json();
      expect(all).toMatchObject({ count: 10_000, countCapped: true });
      expect(all.interventions).toHaveLength(20);
      expect(all.interventions[0]).toMatchObject({ site: 'Chêne', date: new Date(Date.UTC(2024, 0, 1, 8) + 20_001 * 17 * 60_000).toISOString() });
      const withFilter = (await get(admin.cookie, `${LIST}?search=morvan&filter[action]=1`)).json();
      expect(withFilter).toMatchObject({ count: 10_000, countCapped: true });
      const none = (await get(admin.cookie, `${LIST}?search=morvan&filter[action]=6`)).json();
      expect(none).toMatchObject({ count: 0, countCapped: false, interventions: [] });
    });

    it('refuses a search longer than 200 characters or with control characters', async () => {
      expect((await get(admin.cookie, `${LIST}?search=${'a'.repeat(201)}`)).statusCode).toBe(400);
      expect((await get(admin.cookie, `${LIST}?search=a%01b`)).statusCode).toBe(400);
    });
  });

  describe('paging depth', () => {
    it('pages the first 10,000 rows of every list in every order, says that more match, and refuses a deeper page', async () => {
      const lists: [string, string[]][] = [
        [`${LIST}?`, ['date', 'site', 'intervenant', 'action', 'typeBac', 'numeroBac']],
        [`${LIST}?id=${chene.id}&`, ['date', 'intervenant', 'numeroBac']],
        [`${PUBLIC(chene.id)}?`, ['date', 'action', 'typeBac', 'numeroBac']],
      ];
      for (const [url, sorts] of lists) {
        for (const name of sorts) {
          const at = async (rowsPerPage: number, page: number) => (await get(admin.cookie, `${url}sort[name]=${name}&sort[direction]=desc&rowsPerPage=${rowsPerPage}&page=${page}`)).json();
          const last = await at(20, 499);
          expect(last, `${url} ${name}`).toMatchObject({ count: 10_000, countCapped: true });
          // The last page is rows 9,980 to 9,999 of the list, as the end of the 100-row page 99 shows them.
          expect(last.interventions.map((i: { id: number }) => i.id)).toEqual((await at(100, 99)).interventions.slice(80).map((i: { id: number }) => i.id));
          // Past them, the filters (or the export) are the way further: the page is refused with the screen's message.
          const tooDeep = await get(admin.cookie, `${url}sort[name]=${name}&rowsPerPage=20&page=500`);
          expect(tooDeep.statusCode).toBe(400);
          expect(tooDeep.json().errors).toEqual([{ key: 'page', error: url.startsWith(LIST) ? INTERVENTION_ADMIN_MESSAGES.tooDeep : SITE_INTERVENTIONS_TOO_DEEP }]);
        }
      }
    }, 600_000);
  });

  describe("search of one site's list (sites screen)", () => {
    it('looks at the intervenant, the action, the value and the observations of that site only', async () => {
      expect(await ids(admin.cookie, `${LIST}?id=${epinette.id}&search=arnaud`)).toEqual(named('e2', 'e4'));
      expect(await ids(admin.cookie, `${LIST}?id=${epinette.id}&search=durand&filter[action]=3`)).toEqual(named('e5'));
      expect(await ids(admin.cookie, `${LIST}?id=${bouleau.id}&search=trappe`)).toEqual(named('b2', 'b3'));
      expect(await ids(admin.cookie, `${LIST}?id=${epinette.id}&search=trappe`)).toEqual([]);
    });
  });

  describe('public list of a site', () => {
    it('searches the action, cell and value labels for anyone, the free text only for who sees the site', async () => {
      expect(await ids(undefined, `${PUBLIC(epinette.id)}?search=plein`)).toEqual(named('e3'));
      expect(await ids(undefined, `${PUBLIC(epinette.id)}?search=transfert`)).toEqual(named('e5'));
      expect(await ids(undefined, `${PUBLIC(epinette.id)}?search=couvercle`)).toEqual([]);
      expect(await ids(undefined, `${PUBLIC(epinette.id)}?search=charniere`)).toEqual([]);
      expect(await ids(undefined, `${PUBLIC(epinette.id)}?search=durand`)).toEqual([]);
      expect(await ids(referent.cookie, `${PUBLIC(epinette.id)}?search=couvercle`)).toEqual(named('e1'));
      expect(await ids(referent.cookie, `${PUBLIC(epinette.id)}?search=charniere`)).toEqual(named('e2'));
    });

    it('shows no name, observation or free-text value to an anonymous caller', async () => {
      const body = (await get(undefined, `${PUBLIC(epinette.id)}?rowsPerPage=100`)).json();
      expect(body.count).toBe(5);
      for (const row of body.interventions) {
        expect(row.observations).toBeNull();
        expect(row.referent).toBeNull();
        expect(row.modificationAgent).toBeNull();
        expect(row).not.toHaveProperty('intervenant');
      }
      const byId = new Map(body.interventions.map((i: { id: number }) => [i.id, i]));
      expect(byId.get(r.e2)).toMatchObject({ typeAction: 'Réparation effectuée', valeur: '' });
      expect(byId.get(r.e1)).toMatchObject({ typeAction: 'Température', valeur: '55 °C' });
      expect(JSON.stringify(body)).not.toMatch(/DURAND|ARNAUD|Couvercle|Odeur|Charnière/);
    });

    it("keeps observations, names and free-text values for the site's referent", async () => {
      const body = (await get(referent.cookie, `${PUBLIC(epinette.id)}?rowsPerPage=100`)).json();
      const byId = new Map(body.interventions.map((i: { id: number }) => [i.id, i]));
      expect(byId.get(r.e1)).toMatchObject({ observations: 'Couvercle abîmé', referent: 'DURAND Alice' });
      expect(byId.get(r.e2)).toMatchObject({ valeur: 'Charnière changée', referent: 'ARNAUD Bob' });
    });
  });

  describe('fields of a row', () => {
    it('carries who recorded it, the action, site, cells and the links through requests', async () => {
      const rows = (await get(admin.cookie, `${LIST}?rowsPerPage=100`)).json().interventions as Record<string, unknown>[];
      const byId = new Map(rows.map((x) => [x.id as number, x]));
      expect(byId.get(r.e5)).toMatchObject({
        referent: 'DURAND Alice',
        intervenant: 'DURAND Alice',
        modificationAgent: null,
        idAction: 3,
        typeAction: 'Transfert',
        actionValeur: true,
        valeur: '80 L vers le composteur n°3',
        idSite: epinette.id,
        site: 'Épinette',
        siteNom: 'Épinette',
        idSiteComposteur: epinette.apport,
        idBacDestination: epinette.maturation,
        typeBac: 'Apport',
        numeroBac: 1,
        observations: null,
        idStatut: null,
        demandeIntervention: null,
        interventionRealisee: null,
      });
      expect(byId.get(r.e4)).toMatchObject({ referent: 'ARNAUD Bob', actionValeur: false, valeur: '' });
      // The trigger knows its request's status and the intervention that processed it; the result, its request.
      expect(byId.get(r.b2)).toMatchObject({ idStatut: 5, interventionRealisee: r.b3, demandeIntervention: null, locked: true });
      expect(byId.get(r.b3)).toMatchObject({ demandeIntervention: demande, idStatut: null, interventionRealisee: null, locked: true });
      // A later entry that called for a request already processed is locked like its first trigger.
      expect(byId.get(r.e3)).toMatchObject({ idStatut: 5, locked: true });
      expect(byId.get(r.e1)).toMatchObject({ idStatut: null, locked: false });
    });

    it('gives the public rows the same fields, less the names for an anonymous caller', async () => {
      const row = (await get(undefined, `${PUBLIC(bouleau.id)}?filter[action]=18`)).json().interventions[0];
      expect(Object.keys(row).sort()).toEqual(
        [
          'actionValeur',
          'date',
          'demandeIntervention',
          'id',
          'idAction',
          'idBacDestination',
          'idSite',
          'idSiteComposteur',
          'idStatut',
          'idTypeBac',
          'interventionRealisee',
          'modificationAgent',
          'numeroBac',
          'observations',
          'referent',
          'site',
          'siteNom',
          'typeAction',
          'typeBac',
          'valeur',
        ].sort(),
      );
      expect(row).toMatchObject({ id: r.b2, idStatut: 5, interventionRealisee: r.b3, site: 'Bouleau', valeur: '', referent: null });
    });
  });

  describe('public list of a site: who sees observations, names and free text', () => {
    let sorbier: Site;
    let own: Awaited<ReturnType<typeof loggedAs>>;
    const hiddenText = /4821|06 12 34|7305|LEGOFF|RIOU/;

    beforeAll(async () => {
      own = await loggedAs(ctx, ['ROLE_USER']);
      sorbier = await createEquippedSite(ctx.db, { nom: 'Sorbier', referents: [own.id] });
      const legoff = (await createAccount(ctx.db, { nom: 'LEGOFF', prenom: 'Anna' })).id;
      const riou = (await createAccount(ctx.db, { kind: 'agent', nom: 'RIOU', prenom: 'Paul' })).id;
      r.s1 = await insert({ site: sorbier, cell: 'apport', action: 1, by: legoff, date: '2025-06-01T08:00:00Z', observations: 'Cadenas 4821, appeler le 06 12 34 56 78' });
      r.s2 = await insert({ site: sorbier, cell: 'broyat', action: 14, texte: 'Code cadenas 7305', by: legoff, date: '2025-06-02T08:00:00Z' });
      await ctx.db.updateTable('intervention').set({ modification_agent_id: riou, modified_at: new Date('2025-06-03T08:00:00Z') }).where('id', '=', r.s2).execute();
    });

    const page = async (cookie: string | undefined, query = '') => {
      const res = await get(cookie, `${PUBLIC(sorbier.id)}?rowsPerPage=100${query}`);
      expect(res.statusCode, res.body).toBe(200);
      return res.json() as { count: number; interventions: Record<string, unknown>[] };
    };

    it('gives a roleless agent, a referent of another site and an agent without the site roles the anonymous shape, and finds nothing by hidden text', async () => {
      const anonymous = await page(undefined);
      expect(anonymous.count).toBe(2);
      expect(JSON.stringify(anonymous)).not.toMatch(hiddenText);
      const outsiders = [
        await loggedAs(ctx, [], { kind: 'agent' }),
        referent, // a referent of Épinette, not of Sorbier
        await loggedAs(ctx, ['ROLE_ADMIN_UPDATE', 'ROLE_ADMIN_DELETE']),
      ];
      for (const who of outsiders) {
        const body = await page(who.cookie);
        expect(body).toEqual(anonymous);
        for (const row of body.interventions) expect(row).toMatchObject({ observations: null, referent: null, modificationAgent: null });
        expect(body.interventions.find((x) => x.id === r.s2)).toMatchObject({ typeAction: 'Réparation effectuée', valeur: '' });
        // A padlock code or a phone number that only appears in hidden fields finds nothing.
        for (const term of ['4821', '7305', 'cadenas', '06 12', 'legoff']) expect(await page(who.cookie, `&search=${encodeURIComponent(term)}`), term).toEqual({ count: 0, countCapped: false, interventions: [] });
      }
    });

    it("shows everything to the site's referent, a provider and the site administrators, and searches it", async () => {
      const insiders = [own, await loggedAs(ctx, ['ROLE_PRESTATAIRE']), await loggedAs(ctx, ['ROLE_ADMIN']), await loggedAs(ctx, ['ROLE_ADMIN_SITE'])];
      for (const who of insiders) {
        const byId = new Map((await page(who.cookie)).interventions.map((x) => [x.id, x]));
        expect(byId.get(r.s1)).toMatchObject({ observations: 'Cadenas 4821, appeler le 06 12 34 56 78', referent: 'LEGOFF Anna', modificationAgent: null });
        expect(byId.get(r.s2)).toMatchObject({ valeur: 'Code cadenas 7305', referent: 'LEGOFF Anna', modificationAgent: 'RIOU Paul' });
        expect((await page(who.cookie, '&search=4821')).interventions.map((x) => x.id)).toEqual([r.s1]);
        expect((await page(who.cookie, '&search=7305')).interventions.map((x) => x.id)).toEqual([r.s2]);
        expect((await page(who.cookie, '&search=cadenas')).count).toBe(2);
      }
    });
  });
});
