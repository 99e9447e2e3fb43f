import { CompiledQuery, sql, type RawBuilder } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TEST_DRIVERS, createAccount, createTestApp, loggedAs } from '../../../../tests/helpers/test-app.js';
import { SITE_SORT_FIELDS, siteListQuerySchema } from '../../../shared/schemas/sites.js';
import { createSiteListRepository, siteListQueries } from './sites-list.repository.js';
import { importStreets } from '../reference/streets-import.js';
import { SAMPLE_STREETS_FILE } from '../../db/seed.js';

type Ctx = Awaited<ReturnType<typeof createTestApp>>;
type Json = Record<string, unknown>;

const PIM = 1;
const QUA = 2;
const year = new Date().getFullYear();

function statusOne(overrides: Json = {}): Json {
  return {
    nom: 'Résidence des Capucins',
    ville: 'Brest',
    adresse: 'Rue de Siam',
    numero: '12',
    complement: 'Derrière le bâtiment B',
    type: QUA,
    statut: 1,
    cadena: '1234',
    observations: 'Accès par le parking',
    dateConvention: '2024-03-05',
    dateImplantation: '2024-04-10',
    dateInauguration: '2024-05-02',
    composteurs: [
      { composteur: 1, typeBac: 1, numero: 1 },
      { composteur: 2, typeBac: 2, numero: 2 },
      { composteur: 4, typeBac: 3, numero: 3 },
    ],
    ...overrides,
  };
}

function statusTwo(overrides: Json = {}, demandeur: Json = {}): Json {
  return {
    nom: 'Demande école Jean Moulin',
    ville: 'Guipavas',
    adresse: 'Rue de Paris',
    type: 3,
    statut: 2,
    observations: 'Projet porté par les parents',
    demandeur: {
      date: '2024-09-15',
      civilite: 'Madame',
      nom: 'le gall',
      prenom: 'marie-anne',
      fonction: 'Ecole',
      telephone: '02.98.00.11.22',
      telephone2: '+33 6 11 22 33 44',
      email: 'marie.legall@exemple.fr',
      periodeImplantation: 'Printemps',
      anneeImplantation: year + 1,
      ...demandeur,
    },
    ...overrides,
  };
}

describe.each(TEST_DRIVERS)('sites administration (%s)', (driver) => {
  let ctx: Ctx;
  let admin: string;
  beforeAll(async () => {
    ctx = await createTestApp(driver);
    admin = (await loggedAs(ctx, ['ROLE_ADMIN'])).cookie;
  });
  afterAll(() => ctx.close());

  const call = (method: 'GET' | 'POST' | 'PUT', url: string, payload?: unknown, cookie = admin) =>
    ctx.app.inject({ method, url, payload: payload as Json, headers: { cookie } });
  const add = async (payload: Json, cookie = admin) => {
    const res = await call('POST', '/api/admin/site/add', payload, cookie);
    expect(res.statusCode, res.body).toBe(200);
    return res.json() as { status: string; id: number; code: string };
  };
  const errorKeys = (res: { json(): unknown }) => ((res.json() as { errors: { key: string }[] }).errors ?? []).map((e) => e.key).sort();
  const counts = async () => ({
    site: (await ctx.db.selectFrom('site').select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow()).n,
    demandeur: (await ctx.db.selectFrom('demandeur').select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow()).n,
    cells: (await ctx.db.selectFrom('site_composteur').select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow()).n,
    conventions: (await ctx.db.selectFrom('site_convention').select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow()).n,
    sequence: (await ctx.db.selectFrom('type_site').where('id', '=', QUA).select('next_sequence').executeTakeFirstOrThrow()).next_sequence,
  });

  describe('access', () => {
    it('asks for a session and the ROLE_ADMIN or ROLE_ADMIN_SITE role on every route', async () => {
      const routes: [('GET' | 'POST' | 'PUT'), string][] = [
        ['GET', '/api/admin/site/get/list/by/filters'],
        ['GET', '/api/admin/site/export'],
        ['POST', '/api/admin/site/add'],
        ['GET', '/api/admin/site/get/1'],
        ['PUT', '/api/admin/site/update/1'],
        ['PUT', '/api/admin/site/update/user/1'],
        ['GET', '/api/admin/siteComposteurs/get/by/site/1'],
        ['GET', '/api/admin/siteComposteur/get/1'],
        ['PUT', '/api/admin/siteComposteur/update/1'],
        ['PUT', '/api/admin/site/add/composteur/1'],
        ['GET', '/api/admin/demandeur/get/1'],
        ['PUT', '/api/admin/demandeur/update/1'],
      ];
      const referent = (await loggedAs(ctx, ['ROLE_USER'])).cookie;
      const userAdmin = (await loggedAs(ctx, ['ROLE_ADMIN_USER'])).cookie;
      for (const [method, url] of routes) {
        expect((await ctx.app.inject({ method, url, payload: method === 'GET' ? undefined : {} })).statusCode, url).toBe(401);
        expect((await call(method, url, method === 'GET' ? undefined : {}, referent)).statusCode, url).toBe(403);
        expect((await call(method, url, method === 'GET' ? undefined : {}, userAdmin)).statusCode, url).toBe(403);
      }
    });

    it('lets a site administrator create and list sites', async () => {
      const siteAdmin = (await loggedAs(ctx, ['ROLE_ADMIN_SITE'])).cookie;
      const { code } = await add(statusOne({ nom: 'Site admin site' }), siteAdmin);
      const list = (await call('GET', '/api/admin/site/get/list/by/filters?filter[nom]=admin%20site', undefined, siteAdmin)).json();
      expect(list.sites.map((s: { code: string }) => s.code)).toEqual([code]);
    });
  });

  describe('adding a site', () => {
    it('creates a status 1 site with its cells, dates and a code from its type, the postcode taken from the city', async () => {
      const { status, id, code } = await add(statusOne());
      expect(status).toBe('success');
      expect(code).toMatch(/^QUA\d{3}$/);
      const site = (await call('GET', `/api/admin/site/get/${id}`)).json();
      expect(site).toMatchObject({
        id,
        code,
        nom: 'Résidence des Capucins',
        ville: 'Brest',
        cp: '29200',
        adresse: 'Rue de Siam',
        numero: '12',
        complement: 'Derrière le bâtiment B',
        idType: QUA,
        typeSite: 'Quartier',
        statut: 'Actif',
        idStatut: 1,
        cadena: '1234',
        observations: 'Accès par le parking',
        volume: 400 + 600 + 1000,
        nbComposteurs: 3,
        idDemandeur: null,
        referent: null,
        referents: [],
      });
      expect(site.dateConvention.slice(0, 10)).toBe('2024-03-05');
      expect(site.dateConventions).toHaveLength(1);
      expect(site.dateImplantation.slice(0, 10)).toBe('2024-04-10');
      expect(site.dateInauguration.slice(0, 10)).toBe('2024-05-02');
      const cells = (await call('GET', `/api/admin/siteComposteurs/get/by/site/${id}`)).json();
      expect(cells.map((c: Json) => [c.numero, c.libelle, c.volume, c.actif])).toEqual([
        [1, 'Apport', 400, true],
        [2, 'Broyat', 600, true],
        [3, 'Maturation', 1000, true],
      ]);
    });

    it('numbers codes per site type from the type sequence', async () => {
      const a = await add(statusOne({ type: PIM, nom: 'Pied A', composteurs: [] }));
      const b = await add(statusOne({ type: PIM, nom: 'Pied B', composteurs: [] }));
      expect(a.code).toMatch(/^PIM\d{3}$/);
      expect(Number(b.code.slice(3))).toBe(Number(a.code.slice(3)) + 1);
    });

    it('skips a sequence number whose code an imported site already holds', async () => {
      const seq = (await ctx.db.selectFrom('type_site').where('id', '=', 4).select('next_sequence').executeTakeFirstOrThrow()).next_sequence;
      const taken = `JAR${String(seq).padStart(3, '0')}`;
      await ctx.db.insertInto('site').values({ code: taken, ville: 'Brest', cp: '29200', adresse: 'Importée', type_site_id: 4, statut_id: 1 }).execute();
      const { code } = await add(statusOne({ type: 4, composteurs: [] }));
      expect(code).toBe(`JAR${String(seq + 1).padStart(3, '0')}`);
    });

    it('gives ten distinct codes to ten sites created at the same time', async () => {
      const results = await Promise.all(Array.from({ length: 10 }, (_, i) => add(statusOne({ nom: `Concurrent ${i}`, composteurs: [] }))));
      expect(new Set(results.map((r) => r.code)).size).toBe(10);
      // One number each, none lost: the sequence row is taken in each creation's transaction.
      const numbers = results.map((r) => Number(r.code.slice(3))).sort((a, b) => a - b);
      expect(numbers).toEqual(Array.from({ length: 10 }, (_, i) => numbers[0] + i));
    });

    it('creates a status 2 site from a request, with the requester upper-cased, capitalised and phones reformatted', async () => {
      const { id } = await add(statusTwo({ composteurs: [{ composteur: 1, typeBac: 1, numero: 1 }], dateConvention: '2024-01-01' }));
      const site = (await call('GET', `/api/admin/site/get/${id}`)).json();
      expect(site).toMatchObject({ statut: 'Demande', idStatut: 2, cp: '29490', nbComposteurs: 0, volume: 0, dateConvention: null, observations: 'Projet porté par les parents' });
      expect(site.idDemandeur).toEqual(expect.any(Number));
      const demandeur = (await call('GET', `/api/admin/demandeur/get/${site.idDemandeur}`)).json();
      expect(demandeur).toMatchObject({
        civilite: 'Madame',
        nom: 'LE GALL',
        prenom: 'Marie-Anne',
        fonction: 'Ecole',
        precisions: null,
        telephone: '0298001122',
        telephone2: '0611223344',
        email: 'marie.legall@exemple.fr',
        periodeImplantation: 'Printemps',
        anneeImplantation: year + 1,
      });
      expect(demandeur.date.slice(0, 10)).toBe('2024-09-15');
    });

    it('answers per-field errors keyed by the payload path', async () => {
      const res = await call('POST', '/api/admin/site/add', {
        nom: 'x'.repeat(51),
        cadena: '123456789',
        ville: '',
        type: null,
        statut: 1,
        composteurs: [
          { composteur: 1, typeBac: 1, numero: 21 },
          { composteur: null, typeBac: 1, numero: 2 },
          { composteur: 1, typeBac: 1, numero: 2 },
        ],
      });
      expect(res.statusCode).toBe(400);
      const body = res.json();
      expect(body.status).toBe('error');
      // The first error is not a missing field: the message names it.
      expect(body.message).toBe(body.errors[0].error);
      expect(body.message).not.toBe('Veuillez renseigner les champs obligatoires');
      expect(errorKeys(res)).toEqual(['adresse', 'cadena', 'composteurs0.numero', 'composteurs1.composteur', 'composteurs2.numero', 'nom', 'type', 'ville']);
      const byKey = Object.fromEntries(body.errors.map((e: { key: string; error: string }) => [e.key, e.error]));
      expect(byKey.nom).toBe('50 caractères au plus');
      expect(byKey.cadena).toBe('8 caractères au plus');
      expect(byKey['composteurs0.numero']).toBe('Le numéro doit être compris entre 0 et 20');
      expect(byKey['composteurs2.numero']).toBe('Ce numéro est déjà utilisé sur ce site');
      expect(byKey.adresse).toBe('Champ obligatoire');
    });

    it('requires a complete requester for a status 2 site', async () => {
      const none = await call('POST', '/api/admin/site/add', statusTwo({ demandeur: null }));
      expect(errorKeys(none)).toEqual(['demandeur']);
      const bad = await call(
        'POST',
        '/api/admin/site/add',
        statusTwo({}, { nom: '', civilite: 'Mademoiselle', fonction: 'Autre', precisions: '', telephone: '02 98', email: 'pas-un-mail', periodeImplantation: 'Mousson', anneeImplantation: year + 21 }),
      );
      expect(bad.statusCode).toBe(400);
      expect(errorKeys(bad)).toEqual([
        'demandeur.anneeImplantation',
        'demandeur.civilite',
        'demandeur.email',
        'demandeur.nom',
        'demandeur.periodeImplantation',
        'demandeur.precisions',
        'demandeur.telephone',
      ]);
      const old = await call('POST', '/api/admin/site/add', statusTwo({}, { anneeImplantation: year - 11 }));
      expect(old.json().errors).toEqual([{ key: 'demandeur.anneeImplantation', error: `L'année doit être comprise entre ${year - 10} et ${year + 20}` }]);
      const autre = await add(statusTwo({}, { fonction: 'Autre', precisions: 'Association de quartier', periodeImplantation: '', anneeImplantation: '' }));
      const site = (await call('GET', `/api/admin/site/get/${autre.id}`)).json();
      expect((await call('GET', `/api/admin/demandeur/get/${site.idDemandeur}`)).json()).toMatchObject({
        fonction: 'Autre',
        precisions: 'Association de quartier',
        periodeImplantation: null,
        anneeImplantation: null,
      });
    });

    it('refuses a city outside the territory and an unknown site type', async () => {
      const res = await call('POST', '/api/admin/site/add', statusOne({ ville: 'Quimper', type: 999 }));
      expect(res.statusCode).toBe(400);
      expect(res.json().errors).toEqual([
        { key: 'ville', error: 'Ville inconnue : choisissez une ville de la liste' },
        { key: 'type', error: 'Type de site inconnu' },
      ]);
    });

    it('saves nothing, not even a sequence number, when one cell is invalid', async () => {
      const before = await counts();
      const res = await call(
        'POST',
        '/api/admin/site/add',
        statusOne({
          composteurs: [
            { composteur: 1, typeBac: 1, numero: 1 },
            { composteur: 9999, typeBac: 1, numero: 2 },
          ],
        }),
      );
      expect(res.statusCode).toBe(400);
      expect(res.json().errors).toEqual([{ key: 'composteurs1.composteur', error: 'Type de composteur inconnu' }]);
      const unknownBac = await call('POST', '/api/admin/site/add', statusOne({ composteurs: [{ composteur: 1, typeBac: 7, numero: 1 }] }));
      expect(errorKeys(unknownBac)).toEqual(['composteurs0.typeBac']);
      expect(await counts()).toEqual(before);
    });

    it('rolls back the site, its requester, convention and code when a cell fails in the database', async () => {
      // A failure after the site row was written: only the transaction can undo it.
      await sql`CREATE FUNCTION test_refuse_cell() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN IF NEW.numero = 13 THEN RAISE EXCEPTION 'cellule refusée'; END IF; RETURN NEW; END $$`.execute(ctx.db);
      await sql`CREATE TRIGGER test_refuse_cell BEFORE INSERT ON site_composteur FOR EACH ROW EXECUTE FUNCTION test_refuse_cell()`.execute(ctx.db);
      try {
        const before = await counts();
        const res = await call('POST', '/api/admin/site/add', statusOne({ composteurs: [{ composteur: 1, typeBac: 1, numero: 1 }, { composteur: 1, typeBac: 1, numero: 13 }] }));
        expect(res.statusCode).toBe(500);
        expect(res.json()).toMatchObject({ status: 'error', message: 'Une erreur est survenue.' });
        expect(await counts()).toEqual(before);
        const { id } = await add(statusOne({ composteurs: [] }));
        const addCells = await call('PUT', `/api/admin/site/add/composteur/${id}`, { composteurs: [{ composteur: 1, typeBac: 1, numero: 2 }, { composteur: 1, typeBac: 1, numero: 13 }] });
        expect(addCells.statusCode).toBe(500);
        expect((await call('GET', `/api/admin/siteComposteurs/get/by/site/${id}`)).json()).toEqual([]);
      } finally {
        await sql`DROP TRIGGER test_refuse_cell ON site_composteur`.execute(ctx.db);
        await sql`DROP FUNCTION test_refuse_cell()`.execute(ctx.db);
      }
    });

    it('ignores the cells, dates and convention sent with a request, and the requester sent with a status 1 site', async () => {
      const { id } = await add(statusOne({ nom: 'Installé sans demandeur', demandeur: statusTwo().demandeur }));
      expect((await call('GET', `/api/admin/site/get/${id}`)).json()).toMatchObject({ idDemandeur: null, nbComposteurs: 3 });
      const req = await add(statusTwo({ dateImplantation: '2024-01-01', dateInauguration: '2024-01-02' }));
      expect((await call('GET', `/api/admin/site/get/${req.id}`)).json()).toMatchObject({ dateImplantation: null, dateInauguration: null, dateConventions: [] });
    });
  });

  describe('the list', () => {
    let ids: Record<string, number>;
    let referentName: string;
    beforeAll(async () => {
      // A separate site type keeps these rows apart from the other tests' sites.
      const t = await ctx.db.insertInto('type_site').values({ libelle: 'Liste épreuve', code: 'LST' }).returning('id').executeTakeFirstOrThrow();
      const mk = (nom: string, o: Json = {}) => add(statusOne({ nom, type: t.id, ...o })).then((r) => r.id);
      ids = {
        ecole: await mk('École Éric Tabarly', { ville: 'Guipavas', adresse: 'Rue de Brest', composteurs: [{ composteur: 1, typeBac: 1, numero: 1 }] }),
        jardin: await mk('Jardin du Vallon', { adresse: 'Allée des Pins', composteurs: [] }),
        phare: await mk('Phare', { ville: 'Plougastel-Daoulas', adresse: 'Route du Phare', statut: 2, demandeur: statusTwo().demandeur }),
        ...Object.fromEntries(await Promise.all(Array.from({ length: 10 }, async (_, i) => [`n${i}`, await mk(`Zz Résidence ${String(i).padStart(2, '0')}`)]))),
      };
      const ref = await createAccount(ctx.db, { kind: 'user', roles: ['ROLE_USER'], nom: 'DUPONT', prenom: 'Jeanne' });
      referentName = 'DUPONT Jeanne';
      await call('PUT', `/api/admin/site/update/user/${ids.jardin}`, { user: [ref.id] });
    });
    const list = (qs: string) => call('GET', `/api/admin/site/get/list/by/filters?filter[type]=epreuve&${qs}`);

    it('answers the first 10 sites by name with their count and every column of the table', async () => {
      const res = await list('');
      expect(res.statusCode).toBe(200);
      const body = res.json();
      expect(body.count).toBe(13);
      expect(body.sites).toHaveLength(10);
      expect(body.sites.slice(0, 3).map((s: { nom: string }) => s.nom)).toEqual(['École Éric Tabarly', 'Jardin du Vallon', 'Phare']);
      expect(Object.keys(body.sites[0]).sort()).toEqual(
        [
          'id', 'code', 'nom', 'ville', 'cp', 'adresse', 'numero', 'complement', 'idType', 'typeSite', 'referent', 'volume', 'nbComposteurs',
          'cadena', 'observations', 'statut', 'idStatut', 'dateConvention', 'dateImplantation', 'dateInauguration', 'idDemandeur',
        ].sort(),
      );
      expect(body.sites[1]).toMatchObject({ referent: referentName, volume: 0, nbComposteurs: 0 });
      expect(body.sites[0]).toMatchObject({ volume: 400, nbComposteurs: 1, ville: 'Guipavas', cp: '29490' });
      const page2 = (await list('page=1&rowsPerPage=10')).json();
      expect(page2.sites).toHaveLength(3);
    });

    it('filters by name or code without accents or case, by city and status lists, address and type', async () => {
      const names = async (qs: string) => ((await list(qs)).json().sites as { nom: string }[]).map((s) => s.nom);
      expect(await names('filter[nom]=ECOLE eric')).toEqual(['École Éric Tabarly']);
      // One or two letters: a word of the name (or code) starting with them, never the address.
      expect(await names('filter[nom]=va')).toEqual(['Jardin du Vallon']);
      expect(await names('filter[nom]=TA')).toEqual(['École Éric Tabarly']);
      expect(await names('filter[nom]=é')).toEqual(['École Éric Tabarly']);
      expect(await names('filter[nom]=al')).toEqual([]);
      const code = (await call('GET', `/api/admin/site/get/${ids.phare}`)).json().code as string;
      expect(await names(`filter[nom]=${code.toLowerCase()}`)).toEqual(['Phare']);
      expect(await names('filter[ville][]=Guipavas&filter[ville][]=Plougastel-Daoulas')).toEqual(['École Éric Tabarly', 'Phare']);
      expect(await names('filter[ville]=Guipavas')).toEqual(['École Éric Tabarly']);
      expect(await names('filter[statut][]=2')).toEqual(['Phare']);
      expect(await names('filter[adresse]=allee')).toEqual(['Jardin du Vallon']);
      expect(await names('search=vallon')).toEqual(['Jardin du Vallon']);
      expect((await call('GET', '/api/admin/site/get/list/by/filters?filter[type]=quartier&filter[nom]=Capucins')).json().count).toBeGreaterThan(0);
    });

    it('sorts by any column of the table in both directions', async () => {
      const first = async (qs: string) => (await list(qs)).json().sites[0].nom;
      expect(await first('sort[name]=nom&sort[direction]=desc')).toBe('Zz Résidence 09');
      expect(await first('sort[name]=referent&sort[direction]=asc')).toBe('Jardin du Vallon');
      expect(await first('sort[name]=volume&sort[direction]=asc')).toBe('Jardin du Vallon');
      expect(await first('sort[name]=ville&sort[direction]=desc')).toBe('Phare');
      expect(await first('sort[name]=statut&sort[direction]=desc')).toBe('Phare');
      expect((await list('sort[name]=dateConvention&sort[direction]=desc')).statusCode).toBe(200);
    });

    it('puts sites without the value last, whichever the direction', async () => {
      const firstAndLast = async (qs: string) => {
        const body = (await list(`rowsPerPage=20&${qs}`)).json() as { sites: { nom: string }[] };
        return [body.sites[0].nom, body.sites.at(-1)!.nom];
      };
      // Only 'Jardin du Vallon' has a referent; only 'Phare' (a request) has no convention date.
      expect(await firstAndLast('sort[name]=referent&sort[direction]=asc')).toEqual(['Jardin du Vallon', expect.not.stringMatching('Jardin du Vallon')]);
      expect((await firstAndLast('sort[name]=referent&sort[direction]=desc'))[0]).toBe('Jardin du Vallon');
      expect((await firstAndLast('sort[name]=dateConvention&sort[direction]=asc'))[1]).toBe('Phare');
      expect((await firstAndLast('sort[name]=dateConvention&sort[direction]=desc'))[1]).toBe('Phare');
      expect((await firstAndLast('sort[name]=dateImplantation&sort[direction]=desc'))[1]).toBe('Phare');
    });

    it('rejects unknown sorts, filters and page sizes', async () => {
      expect((await list('sort[name]=password')).statusCode).toBe(400);
      expect((await list('filter[email]=x')).statusCode).toBe(400);
      expect((await list('rowsPerPage=7')).statusCode).toBe(400);
      expect((await list('filter[statut][]=abc')).statusCode).toBe(400);
    });
  });

  describe('names in natural order', () => {
    // Shuffled on purpose: the order must come from the sort, not from the insertion.
    const NAMES = ['École 13', 'Ecole 2', 'école 1', 'École 100', 'École 2 bis', 'École-10', 'ÉCOLE 002 A', 'École', 'Ecole 9', 'Abri 20', 'Abri 3', 'Zéphyr'];
    const NATURAL = ['Abri 3', 'Abri 20', 'École', 'école 1', 'Ecole 2', 'ÉCOLE 002 A', 'École 2 bis', 'Ecole 9', 'École-10', 'École 13', 'École 100', 'Zéphyr'];
    let type: number;
    beforeAll(async () => {
      type = (await ctx.db.insertInto('type_site').values({ libelle: 'Ordre naturel', code: 'NAT' }).returning('id').executeTakeFirstOrThrow()).id;
      for (const nom of NAMES) await add(statusOne({ nom, type, composteurs: [] }));
    });
    const names = async (qs: string) =>
      ((await call('GET', `/api/admin/site/get/list/by/filters?filter[type]=naturel&${qs}`)).json().sites as { nom: string }[]).map((s) => s.nom);

    it('sorts the sites list by name with numbers by value, in both directions', async () => {
      expect(await names('rowsPerPage=20&sort[name]=nom&sort[direction]=asc')).toEqual(NATURAL);
      expect(await names('rowsPerPage=20&sort[name]=nom&sort[direction]=desc')).toEqual([...NATURAL].reverse());
      // The default order of the list is the name's.
      expect(await names('rowsPerPage=20')).toEqual(NATURAL);
    });

    it('pages through the names without a gap or a repeat, and the export reads them in the same order', async () => {
      for (const direction of ['asc', 'desc'] as const) {
        const expected = direction === 'asc' ? NATURAL : [...NATURAL].reverse();
        const paged: string[] = [];
        for (let page = 0; page < 3; page++) paged.push(...(await names(`rowsPerPage=5&page=${page}&sort[name]=nom&sort[direction]=${direction}`)));
        expect(paged, direction).toEqual(expected);
        // Keyset batches of 2: each starts after the (name key, code) of the previous one's last row.
        const batched: string[] = [];
        const query = siteListQuerySchema.parse({ filter: { type: 'naturel' }, sort: { name: 'nom', direction } });
        for await (const batch of await createSiteListRepository(ctx.db).batches(query, 2)) batched.push(...batch.map((s) => s.nom!));
        expect(batched, direction).toEqual(expected);
      }
      const csv = (await call('GET', '/api/admin/site/export?filter[type]=naturel&sort[name]=nom&sort[direction]=asc')).body;
      const positions = NATURAL.map((n) => csv.indexOf(`${n} / NAT`));
      expect(positions.every((p) => p > 0)).toBe(true);
      expect(positions).toEqual([...positions].sort((a, b) => a - b));
    });

    it('follows a renamed site, and sorts an unnamed site by its code', async () => {
      const { id, code } = await add(statusOne({ nom: 'École 50', type, composteurs: [] }));
      const after = (name: string) => [...NATURAL.slice(0, NATURAL.indexOf(name) + 1), expect.anything(), ...NATURAL.slice(NATURAL.indexOf(name) + 1)];
      expect(await names('rowsPerPage=20')).toEqual(after('École 13'));
      const update = (nom: string | null) =>
        call('PUT', `/api/admin/site/update/${id}`, { nom, adresse: 'Rue de Siam', numero: '12', complement: null, type, observations: null, cadena: null, statut: 1 });
      expect((await update('École 5')).statusCode).toBe(200);
      expect(await names('rowsPerPage=20')).toEqual(after('École 2 bis'));
      // Unnamed, the site sorts by its code, numbers by value too ('NAT013': 'nat' then 13).
      expect((await update(null)).statusCode).toBe(200);
      const { key } = await ctx.db.selectFrom('site').where('id', '=', id).select(sql<string>`nom_tri`.as('key')).executeTakeFirstOrThrow();
      const n = String(Number(code.slice(3)));
      expect(key).toBe(`nat${String(n.length).padStart(2, '0')}${n}`);
      expect((await call('GET', `/api/admin/site/get/list/by/filters?filter[type]=naturel&rowsPerPage=20`)).json().sites.map((s: { code: string }) => s.code).indexOf(code)).toBe(
        NATURAL.indexOf('Zéphyr'),
      );
      await ctx.db.deleteFrom('site').where('id', '=', id).execute();
    });

    it('lists the active sites of the site choice by city, then by name in natural order', async () => {
      const res = await call('GET', '/api/admin/site/get/all/actif');
      expect(res.statusCode).toBe(200);
      const sites = res.json() as { nom: string | null; ville: string }[];
      const ours = sites.filter((s) => s.nom !== null && NAMES.includes(s.nom)).map((s) => s.nom);
      expect(ours).toEqual(NATURAL);
      // Cities without accents or case, as the database compares them.
      const cities = sites.map((s) => s.ville.normalize('NFD').replace(/\p{M}/gu, '').toLowerCase());
      expect(cities).toEqual([...cities].sort());
      // The sites of a referent, in the same order.
      const referent = await createAccount(ctx.db, { kind: 'user', roles: ['ROLE_USER'], nom: 'NATUREL', prenom: 'Léa' });
      const pick = ['École 13', 'Ecole 2', 'École 100'];
      const ids = await ctx.db.selectFrom('site').where('nom', 'in', pick).select('id').execute();
      await ctx.db.insertInto('site_referent').values(ids.map((s) => ({ site_id: s.id, account_id: referent.id }))).execute();
      const mine = (await call('GET', `/api/admin/site/get/by/user/${referent.id}`)).json() as { nom: string }[];
      expect(mine.map((s) => s.nom)).toEqual(['Ecole 2', 'École 13', 'École 100']);
    });
  });

  describe('updating a site', () => {
    it('changes its fields and status, and adds a new convention date to the history', async () => {
      const { id, code } = await add(statusTwo());
      const update = (body: Json) => call('PUT', `/api/admin/site/update/${id}`, body);
      const base = { nom: 'Jardin Kerinou', adresse: 'Rue Kerinou', numero: '3', complement: null, type: PIM, observations: null, cadena: 'A1', statut: 1 };
      const res = await update({ ...base, dateConvention: '2025-01-10', dateImplantation: '2025-02-01' });
      expect(res.statusCode, res.body).toBe(200);
      expect(res.json()).toEqual({ status: 'success' });
      await update({ ...base, dateConvention: '2025-01-10', dateImplantation: '2025-02-01' });
      await update({ ...base, dateConvention: '2026-01-10', dateImplantation: '2025-02-01' });
      const site = (await call('GET', `/api/admin/site/get/${id}`)).json();
      expect(site).toMatchObject({ code, nom: 'Jardin Kerinou', adresse: 'Rue Kerinou', idType: PIM, statut: 'Actif', idStatut: 1, cadena: 'A1', ville: 'Guipavas' });
      expect(site.dateConventions.map((d: string) => d.slice(0, 10))).toEqual(['2026-01-10', '2025-01-10']);
      expect(site.dateConvention.slice(0, 10)).toBe('2026-01-10');
      expect(site.idDemandeur).toEqual(expect.any(Number));
    });

    it('answers field errors, and 404 for an unknown site', async () => {
      const { id } = await add(statusOne({ composteurs: [] }));
      const bad = await call('PUT', `/api/admin/site/update/${id}`, { nom: 'n'.repeat(51), adresse: ' ', type: 1, statut: 3, cadena: 'x' });
      expect(errorKeys(bad)).toEqual(['adresse', 'nom', 'statut']);
      const typeless = await call('PUT', `/api/admin/site/update/${id}`, { adresse: 'Rue', type: 999, statut: 1 });
      expect(typeless.json().errors).toEqual([{ key: 'type', error: 'Type de site inconnu' }]);
      const missing = await call('PUT', '/api/admin/site/update/999999', { adresse: 'Rue', type: 1, statut: 1 });
      expect(missing.statusCode).toBe(404);
      expect(missing.json().message).toBe('Site introuvable.');
      expect((await call('GET', '/api/admin/site/get/999999')).statusCode).toBe(404);
    });
  });

  describe('public page and open-data fields', () => {
    const detail = async (id: number) => (await call('GET', `/api/admin/site/get/${id}`)).json();
    const updateBase = { nom: 'Résidence des Capucins', adresse: 'Rue de Siam', numero: '3', complement: null, type: QUA, observations: null, cadena: null, statut: 1 };
    beforeAll(async () => {
      // The shipped sample: Rue de Siam n°1 and n°3 in Brest, Boulevard Gambetta n°5 bis...
      await importStreets(ctx.db, SAMPLE_STREETS_FILE);
    });

    it('keeps opening hours, what to bring and the open-data switch, published by default', async () => {
      const { id } = await add(statusOne({ horaires: ' Tous les jours, 8 h - 20 h ', consignes: 'Épluchures et marc de café' }));
      expect(await detail(id)).toMatchObject({ horaires: 'Tous les jours, 8 h - 20 h', consignes: 'Épluchures et marc de café', openData: true });
      const res = await call('PUT', `/api/admin/site/update/${id}`, { ...updateBase, horaires: '', openData: false });
      expect(res.statusCode, res.body).toBe(200);
      expect(await detail(id)).toMatchObject({ horaires: null, consignes: 'Épluchures et marc de café', openData: false });
      // A client that does not send the fields leaves them as they are.
      await call('PUT', `/api/admin/site/update/${id}`, updateBase);
      expect(await detail(id)).toMatchObject({ horaires: null, consignes: 'Épluchures et marc de café', openData: false });
    });

    it('refuses public texts that would give an e-mail or a phone number, 500 characters at most', async () => {
      const res = await call('POST', '/api/admin/site/add', statusOne({ horaires: 'Appeler le 06 12 34 56 78', consignes: 'Écrire à gardien@exemple.fr' }));
      expect(res.json().errors).toEqual([
        { key: 'horaires', error: 'Ce texte est affiché sur la page publique du site : pas d’adresse mail ni de numéro de téléphone' },
        { key: 'consignes', error: 'Ce texte est affiché sur la page publique du site : pas d’adresse mail ni de numéro de téléphone' },
      ]);
      const long = await call('POST', '/api/admin/site/add', statusOne({ consignes: 'c'.repeat(501), horaires: '+33 2 98 00 00 00' }));
      expect(errorKeys(long)).toEqual(['consignes', 'horaires']);
    });

    it('takes the coordinates of the imported address when the street and number match', async () => {
      const { id } = await add(statusOne({ adresse: 'rue de siam', numero: '3' }));
      expect(await detail(id)).toMatchObject({ latitude: 48.3881, longitude: -4.489, coordonneesSource: 'ban' });
      const bis = await add(statusOne({ adresse: 'Boulevard Gambetta', numero: '5 bis' }));
      expect(await detail(bis.id)).toMatchObject({ latitude: 48.39, longitude: -4.481, coordonneesSource: 'ban' });
      const unknown = await add(statusOne({ adresse: 'Rue de Siam', numero: '999' }));
      expect(await detail(unknown.id)).toMatchObject({ latitude: null, longitude: null, coordonneesSource: null });

      // Moved to n°1: the point follows; to a number without a point: no stale position is kept.
      const sent = await detail(id);
      await call('PUT', `/api/admin/site/update/${id}`, { ...updateBase, numero: '1', latitude: sent.latitude, longitude: sent.longitude });
      expect(await detail(id)).toMatchObject({ latitude: 48.388, longitude: -4.4891, coordonneesSource: 'ban' });
      await call('PUT', `/api/admin/site/update/${id}`, { ...updateBase, numero: '998', latitude: 48.388, longitude: -4.4891 });
      expect(await detail(id)).toMatchObject({ latitude: null, longitude: null, coordonneesSource: null });
    });

    it('keeps typed coordinates, even when the address moves, and accepts a decimal comma', async () => {
      const { id } = await add(statusOne({ adresse: 'Rue de Siam', numero: '3', latitude: '48,4', longitude: '-4,5' }));
      expect(await detail(id)).toMatchObject({ latitude: 48.4, longitude: -4.5, coordonneesSource: 'saisie' });
      await call('PUT', `/api/admin/site/update/${id}`, { ...updateBase, numero: '1' });
      expect(await detail(id)).toMatchObject({ latitude: 48.4, longitude: -4.5, coordonneesSource: 'saisie' });
      await call('PUT', `/api/admin/site/update/${id}`, { ...updateBase, numero: '1', latitude: 48.41, longitude: -4.51 });
      expect(await detail(id)).toMatchObject({ latitude: 48.41, longitude: -4.51, coordonneesSource: 'saisie' });
      // Emptied: back to the address's point.
      await call('PUT', `/api/admin/site/update/${id}`, { ...updateBase, numero: '1', latitude: '', longitude: '' });
      expect(await detail(id)).toMatchObject({ latitude: 48.388, longitude: -4.4891, coordonneesSource: 'ban' });
    });

    it('refuses coordinates out of range, not numbers, or one without the other', async () => {
      const res = await call('POST', '/api/admin/site/add', statusOne({ latitude: 91, longitude: -181 }));
      expect(res.json().errors).toEqual([
        { key: 'latitude', error: 'La latitude doit être un nombre entre -90 et 90' },
        { key: 'longitude', error: 'La longitude doit être un nombre entre -180 et 180' },
      ]);
      expect((await call('POST', '/api/admin/site/add', statusOne({ latitude: '48°23', longitude: '1e2' }))).json().errors.map((e: { key: string }) => e.key)).toEqual([
        'latitude',
        'longitude',
      ]);
      const { id } = await add(statusOne());
      const alone = await call('PUT', `/api/admin/site/update/${id}`, { ...updateBase, latitude: 48.39 });
      expect(alone.json().errors).toEqual([{ key: 'longitude', error: 'Renseignez la latitude et la longitude, ou aucune des deux' }]);
      expect((await call('PUT', `/api/admin/site/update/${id}`, { ...updateBase, openData: 'oui' })).json().errors).toEqual([{ key: 'openData', error: 'Valeur invalide' }]);
    });
  });

  describe('referents', () => {
    it('replaces the referents with active external users, shown as NOM Prénom', async () => {
      const { id } = await add(statusOne({ composteurs: [] }));
      const a = await createAccount(ctx.db, { kind: 'user', roles: ['ROLE_USER'], nom: 'MARTIN', prenom: 'Paul' });
      const b = await createAccount(ctx.db, { kind: 'user', roles: ['ROLE_USER'], nom: 'BERNARD', prenom: 'Lucie', typeUser: 2 });
      expect((await call('PUT', `/api/admin/site/update/user/${id}`, { user: [a.id, b.id] })).json()).toEqual({ status: 'success' });
      let site = (await call('GET', `/api/admin/site/get/${id}`)).json();
      expect(site.referent).toBe('BERNARD Lucie, MARTIN Paul');
      expect(site.referents.map((r: { id: number }) => r.id)).toEqual([b.id, a.id]);
      await call('PUT', `/api/admin/site/update/user/${id}`, { user: [{ id: a.id, nom: 'MARTIN', prenom: 'Paul' }] });
      site = (await call('GET', `/api/admin/site/get/${id}`)).json();
      expect(site.referent).toBe('MARTIN Paul');
      await call('PUT', `/api/admin/site/update/user/${id}`, { user: [] });
      expect((await call('GET', `/api/admin/site/get/${id}`)).json().referent).toBeNull();
    });

    it('refuses inactive users, providers and agents, and keeps the previous referents', async () => {
      const { id } = await add(statusOne({ composteurs: [] }));
      const ok = await createAccount(ctx.db, { kind: 'user', roles: ['ROLE_USER'] });
      await call('PUT', `/api/admin/site/update/user/${id}`, { user: [ok.id] });
      const inactive = await createAccount(ctx.db, { kind: 'user', actif: false });
      const agent = await createAccount(ctx.db, { roles: ['ROLE_ADMIN_SITE'] });
      const provider = await createAccount(ctx.db, { kind: 'user', roles: ['ROLE_PRESTATAIRE'], typeUser: 3 });
      for (const other of [inactive.id, agent.id, provider.id, 999999]) {
        const res = await call('PUT', `/api/admin/site/update/user/${id}`, { user: [ok.id, other] });
        expect(res.statusCode).toBe(400);
        expect(res.json().errors).toEqual([{ key: 'user', error: 'Utilisateur introuvable ou inactif' }]);
      }
      expect((await call('GET', `/api/admin/site/get/${id}`)).json().referents.map((r: { id: number }) => r.id)).toEqual([ok.id]);
      expect((await call('PUT', '/api/admin/site/update/user/999999', { user: [] })).statusCode).toBe(404);
    });
  });

  describe('cells', () => {
    it('gives one cell, and 404 for an unknown one or an unknown site', async () => {
      const { id } = await add(statusOne());
      const [cell] = (await call('GET', `/api/admin/siteComposteurs/get/by/site/${id}`)).json();
      const one = (await call('GET', `/api/admin/siteComposteur/get/${cell.id}`)).json();
      expect(one).toEqual({
        id: cell.id,
        site: id,
        composteur: 1,
        volume: 400,
        precisions: 'Bac bois 400 L',
        typeBac: 1,
        idTypeBac: 1,
        libelle: 'Apport',
        numero: 1,
        actif: true,
        aInterventions: false,
      });
      expect((await call('GET', '/api/admin/siteComposteur/get/999999')).statusCode).toBe(404);
      expect((await call('GET', '/api/admin/siteComposteurs/get/by/site/999999')).statusCode).toBe(404);
    });

    it('updates a cell, refusing a number another active cell holds', async () => {
      const { id } = await add(statusOne());
      const cells = (await call('GET', `/api/admin/siteComposteurs/get/by/site/${id}`)).json();
      const upd = (cellId: number, body: Json) => call('PUT', `/api/admin/siteComposteur/update/${cellId}`, body);
      const clash = await upd(cells[0].id, { composteur: 3, typeBac: 1, numero: 2, actif: true });
      expect(clash.statusCode).toBe(400);
      expect(clash.json().errors).toEqual([{ key: 'numero', error: 'Ce numéro est déjà utilisé sur ce site' }]);
      expect((await upd(cells[0].id, { composteur: 3, typeBac: 2, numero: 7, actif: true })).json()).toEqual({ status: 'success' });
      expect((await call('GET', `/api/admin/siteComposteur/get/${cells[0].id}`)).json()).toMatchObject({ composteur: 3, volume: 800, typeBac: 2, numero: 7 });
      expect(errorKeys(await upd(cells[0].id, { composteur: 3, typeBac: 2, numero: 21, actif: true }))).toEqual(['numero']);
      expect(errorKeys(await upd(cells[0].id, { composteur: 999, typeBac: 9, numero: 7, actif: true }))).toEqual(['composteur', 'typeBac']);
      expect((await upd(999999, { composteur: 1, typeBac: 1, numero: 1, actif: true })).statusCode).toBe(404);
    });

    it('knows which cells have interventions, whoever writes, moves or deletes them, in bulk or one by one', async () => {
      const { id } = await add(statusOne());
      const cells = (await call('GET', `/api/admin/siteComposteurs/get/by/site/${id}`)).json() as { id: number }[];
      const [a, b, c] = cells.map((x) => x.id);
      const used = async () =>
        Object.fromEntries(((await call('GET', `/api/admin/siteComposteurs/get/by/site/${id}`)).json() as { id: number; aInterventions: boolean }[]).map((x) => [x.id, x.aInterventions]));
      expect(await used()).toEqual({ [a]: false, [b]: false, [c]: false });
      const agent = await createAccount(ctx.db, { roles: ['ROLE_ADMIN'] });
      const entry = (cell: number, dest: number | null = null) => ({ date: new Date(), site_id: id, site_composteur_id: cell, type_action_id: dest ? 3 : 1, bac_destination_id: dest, intervenant_id: agent.id });
      // A transfer uses its destination cell too; several rows in one statement.
      const ids = (await ctx.db.insertInto('intervention').values([entry(a, c), entry(a), entry(a)]).returning('id').execute()).map((r) => r.id);
      expect(await used()).toEqual({ [a]: true, [b]: false, [c]: true });
      // Moved to another cell: the old destination loses its only use, the new cell gains one.
      await ctx.db.updateTable('intervention').set({ site_composteur_id: b, bac_destination_id: null }).where('id', '=', ids[0]).execute();
      expect(await used()).toEqual({ [a]: true, [b]: true, [c]: false });
      // Deleting some of a cell's interventions keeps its flag; deleting the last one clears it.
      await ctx.db.deleteFrom('intervention').where('id', '=', ids[1]).execute();
      expect(await used()).toEqual({ [a]: true, [b]: true, [c]: false });
      await ctx.db.deleteFrom('intervention').where('id', 'in', [ids[0], ids[2]]).execute();
      expect(await used()).toEqual({ [a]: false, [b]: false, [c]: false });
      // A rolled-back insert leaves nothing behind.
      await ctx.db
        .transaction()
        .execute(async (trx) => {
          await trx.insertInto('intervention').values(entry(b)).execute();
          throw new Error('rollback');
        })
        .catch(() => undefined);
      expect(await used()).toEqual({ [a]: false, [b]: false, [c]: false });
    });

    it('deactivates a cell with interventions instead of deleting it, freeing its number and keeping its use', async () => {
      const { id } = await add(statusOne());
      const cells = (await call('GET', `/api/admin/siteComposteurs/get/by/site/${id}`)).json();
      const agent = await createAccount(ctx.db, { roles: ['ROLE_ADMIN'] });
      await ctx.db
        .insertInto('intervention')
        .values({ date: new Date(), site_id: id, site_composteur_id: cells[0].id, type_action_id: 1, intervenant_id: agent.id })
        .execute();
      const upd = (cellId: number, body: Json) => call('PUT', `/api/admin/siteComposteur/update/${cellId}`, body);
      const locked = await upd(cells[0].id, { composteur: 1, typeBac: 3, numero: 1, actif: true });
      expect(errorKeys(locked)).toEqual(['typeBac']);
      expect((await upd(cells[0].id, { composteur: 1, typeBac: 1, numero: 1, actif: false })).statusCode).toBe(200);
      const after = (await call('GET', `/api/admin/siteComposteurs/get/by/site/${id}`)).json();
      expect(after).toHaveLength(3);
      expect(after.at(-1)).toMatchObject({ id: cells[0].id, actif: false, aInterventions: true });
      const list = (await call('GET', `/api/admin/site/get/${id}`)).json();
      expect(list).toMatchObject({ nbComposteurs: 2, volume: 600 + 1000 });
      // The number is free again for a new cell, and the old one cannot come back on it.
      expect((await call('PUT', `/api/admin/site/add/composteur/${id}`, { composteurs: [{ composteur: 2, typeBac: 1, numero: 1 }] })).statusCode).toBe(200);
      expect(errorKeys(await upd(cells[0].id, { composteur: 1, typeBac: 1, numero: 1, actif: true }))).toEqual(['numero']);
      expect((await upd(cells[0].id, { composteur: 1, typeBac: 1, numero: 9, actif: true })).statusCode).toBe(200);
    });

    it('adds cells to a site, refusing numbers already used', async () => {
      const { id } = await add(statusOne());
      const addCells = (body: Json, siteId = id) => call('PUT', `/api/admin/site/add/composteur/${siteId}`, body);
      const clash = await addCells({
        composteurs: [
          { composteur: 1, typeBac: 1, numero: 4 },
          { composteur: 1, typeBac: 1, numero: 3 },
          { composteur: 1, typeBac: 1, numero: 4 },
        ],
      });
      expect(clash.statusCode).toBe(400);
      expect(errorKeys(clash)).toEqual(['composteurs2.numero']);
      const taken = await addCells({ composteurs: [{ composteur: 1, typeBac: 1, numero: 4 }, { composteur: 1, typeBac: 1, numero: 3 }] });
      expect(taken.json().errors).toEqual([{ key: 'composteurs1.numero', error: 'Ce numéro est déjà utilisé sur ce site' }]);
      expect(errorKeys(await addCells({ composteurs: [] }))).toEqual(['composteurs']);
      expect(errorKeys(await addCells({ composteurs: [{ composteur: 77, typeBac: 1, numero: 5 }] }))).toEqual(['composteurs0.composteur']);
      expect((await call('GET', `/api/admin/siteComposteurs/get/by/site/${id}`)).json()).toHaveLength(3);
      expect((await addCells({ composteurs: [{ composteur: 1, typeBac: 1, numero: 4 }, { composteur: 2, typeBac: 3, numero: 0 }] })).json()).toEqual({ status: 'success' });
      expect((await call('GET', `/api/admin/siteComposteurs/get/by/site/${id}`)).json().map((c: { numero: number }) => c.numero)).toEqual([0, 1, 2, 3, 4]);
      expect((await addCells({ composteurs: [{ composteur: 1, typeBac: 1, numero: 1 }] }, 999999)).statusCode).toBe(404);
    });
  });

  describe('requester', () => {
    it('updates the requester details with the same rules as at creation', async () => {
      const { id } = await add(statusTwo());
      const idDemandeur = (await call('GET', `/api/admin/site/get/${id}`)).json().idDemandeur as number;
      const upd = (body: Json, did = idDemandeur) => call('PUT', `/api/admin/demandeur/update/${did}`, body);
      const bad = await upd({ fonction: 'Autre', precisions: '', telephone: '12', telephone2: '', email: '', anneeImplantation: year + 30 });
      expect(errorKeys(bad)).toEqual(['anneeImplantation', 'precisions', 'telephone']);
      const res = await upd({ fonction: 'Syndic copro', telephone: '06 12 34 56 78', telephone2: null, email: null, periodeImplantation: 'Eté', anneeImplantation: year });
      expect(res.json()).toEqual({ status: 'success' });
      expect((await call('GET', `/api/admin/demandeur/get/${idDemandeur}`)).json()).toMatchObject({
        nom: 'LE GALL',
        fonction: 'Syndic copro',
        telephone: '0612345678',
        telephone2: null,
        email: null,
        periodeImplantation: 'Eté',
        anneeImplantation: year,
      });
      expect((await upd({ fonction: 'Mairie', telephone: '0612345678' }, 999999)).statusCode).toBe(404);
      expect((await call('GET', '/api/admin/demandeur/get/999999')).json().message).toBe('Demandeur introuvable.');
    });
  });
  describe('list columns kept by the database', () => {
    const row = async (id: number) => (await call('GET', `/api/admin/site/get/${id}`)).json() as Json;

    it('follows referents written by other screens, renamed and deleted accounts', async () => {
      const { id } = await add(statusOne({ composteurs: [] }));
      const a = await createAccount(ctx.db, { kind: 'user', roles: ['ROLE_USER'], nom: 'ABGRALL', prenom: 'Paul' });
      const b = await createAccount(ctx.db, { kind: 'user', roles: ['ROLE_USER'], nom: 'TANGUY', prenom: 'Rose' });
      // The users screen links users to sites on its own.
      await ctx.db.insertInto('site_referent').values([{ site_id: id, account_id: b.id }, { site_id: id, account_id: a.id }]).execute();
      expect((await row(id)).referent).toBe('ABGRALL Paul, TANGUY Rose');
      await ctx.db.updateTable('account').set({ nom: 'ZELER' }).where('id', '=', a.id).execute();
      expect((await row(id)).referent).toBe('TANGUY Rose, ZELER Paul');
      await ctx.db.deleteFrom('account').where('id', '=', b.id).execute();
      expect((await row(id)).referent).toBe('ZELER Paul');
      await ctx.db.deleteFrom('site_referent').where('site_id', '=', id).execute();
      expect((await row(id)).referent).toBeNull();
    });

    it('follows the cells, their composter volumes, the type label and the convention history', async () => {
      const tc = await ctx.db.insertInto('type_composteur').values({ volume: 250, precisions: 'Bac épreuve' }).returning('id').executeTakeFirstOrThrow();
      const t = await ctx.db.insertInto('type_site').values({ libelle: 'Ancien libellé', code: 'ALB' }).returning('id').executeTakeFirstOrThrow();
      const { id } = await add(statusOne({ type: t.id, composteurs: [{ composteur: tc.id, typeBac: 1, numero: 1 }, { composteur: tc.id, typeBac: 3, numero: 2 }] }));
      expect(await row(id)).toMatchObject({ volume: 500, nbComposteurs: 2, typeSite: 'Ancien libellé' });
      await ctx.db.updateTable('type_composteur').set({ volume: 300 }).where('id', '=', tc.id).execute();
      expect(await row(id)).toMatchObject({ volume: 600, nbComposteurs: 2 });
      await ctx.db.updateTable('type_site').set({ libelle: 'Nouveau libellé' }).where('id', '=', t.id).execute();
      expect((await row(id)).typeSite).toBe('Nouveau libellé');
      expect((await call('GET', '/api/admin/site/get/list/by/filters?search=nouveau%20libelle')).json().count).toBe(1);
      const [c] = (await call('GET', `/api/admin/siteComposteurs/get/by/site/${id}`)).json() as { id: number }[];
      await call('PUT', `/api/admin/siteComposteur/update/${c.id}`, { composteur: tc.id, typeBac: 1, numero: 1, actif: false });
      expect(await row(id)).toMatchObject({ volume: 300, nbComposteurs: 1 });
      await ctx.db.deleteFrom('site_convention').where('site_id', '=', id).where('date_convention', '>', new Date('2024-03-01')).execute();
      expect((await row(id)).dateConvention).toBeNull();
    });
  });

  describe('indexes behind the list', () => {
    /** The plan PostgreSQL picks when scans that need no index cost it dearly. */
    async function plan(query: RawBuilder<unknown>, disable: string[]) {
      const compiled = query.compile(ctx.db);
      return ctx.db.transaction().execute(async (trx) => {
        for (const setting of disable) await sql.raw(`SET LOCAL ${setting} = off`).execute(trx);
        const res = await trx.executeQuery<Record<string, string>>(CompiledQuery.raw(`EXPLAIN ${compiled.sql}`, [...compiled.parameters]));
        return res.rows.map((r) => Object.values(r)[0]).join('\n');
      });
    }

    it('reads every sort of the list, and each export batch, in the order of an index', async () => {
      for (const name of SITE_SORT_FIELDS) {
        for (const direction of ['asc', 'desc'] as const) {
          const q = siteListQuerySchema.parse({ sort: { name, direction }, page: '2' });
          const page = await plan(siteListQueries.page(q), ['enable_seqscan', 'enable_sort', 'enable_bitmapscan']);
          expect(page, `${name} ${direction}`).toMatch(/Index Scan( Backward)? using site_list_\w+ on site/);
          expect(page, `${name} ${direction}`).not.toMatch(/Sort/);
          const sample = (await siteListQueries.batch(q, null, 1).execute(ctx.db)).rows[0];
          const next = await plan(siteListQueries.batch(q, { key: sample.sortKey, code: sample.code }, 500), ['enable_seqscan', 'enable_sort', 'enable_bitmapscan']);
          expect(next, `${name} ${direction}`).toMatch(/Index Scan( Backward)? using site_list_\w+ on site/);
          expect(next, `${name} ${direction}`).toMatch(/Index Cond: \(ROW\(/);
          expect(next, `${name} ${direction}`).not.toMatch(/Sort/);
        }
      }
    });

    it('finds filtered and searched sites through an index', async () => {
      const count = (filter: Record<string, unknown>) => plan(siteListQueries.count(siteListQuerySchema.parse(filter)), ['enable_seqscan', 'enable_indexscan', 'enable_indexonlyscan']);
      expect(await count({ filter: { nom: 'capucins' } })).toContain('site_list_nom_code_trgm');
      expect(await count({ filter: { adresse: '12 rue de siam' } })).toContain('site_list_adresse_trgm');
      expect(await count({ search: 'kerinou' })).toContain('site_list_search_trgm');
      expect(await count({ filter: { ville: ['Brest'] } })).toContain('site_ville_idx');
      expect(await count({ filter: { statut: ['2'] } })).toContain('site_statut_idx');
      expect(await count({ filter: { type: 'quartier' } })).toContain('site_type_idx');
    });
  });

  describe('active sites and the sites of a user', () => {
    it('gives all active sites to site managers and providers, and their own active sites to referents', async () => {
      const t = await ctx.db.insertInto('type_site').values({ libelle: 'Choix', code: 'CHX' }).returning('id').executeTakeFirstOrThrow();
      const installed = await add(statusOne({ type: t.id, nom: 'Installé', composteurs: [] }));
      const other = await add(statusOne({ type: t.id, nom: 'Autre installé', composteurs: [] }));
      const request = await add(statusTwo({ type: t.id, nom: 'Demandé' }));
      const referent = await loggedAs(ctx, ['ROLE_USER']);
      await call('PUT', `/api/admin/site/update/user/${installed.id}`, { user: [referent.id] });
      await ctx.db.insertInto('site_referent').values({ site_id: request.id, account_id: referent.id }).execute();

      const ids = async (url: string, cookie: string) => {
        const res = await call('GET', url, undefined, cookie);
        expect(res.statusCode, res.body).toBe(200);
        return (res.json() as { id: number }[]).map((s) => s.id);
      };
      const all = await ids('/api/admin/site/get/all/actif', admin);
      expect(all).toEqual(expect.arrayContaining([installed.id, other.id]));
      expect(all).not.toContain(request.id);
      const prestataire = await loggedAs(ctx, ['ROLE_PRESTATAIRE'], { typeUser: 3 });
      expect(await ids('/api/admin/site/get/all/actif', prestataire.cookie)).toEqual(all);
      const siteAdmin = await loggedAs(ctx, ['ROLE_ADMIN_SITE']);
      expect(await ids('/api/admin/site/get/all/actif', siteAdmin.cookie)).toEqual(all);
      expect(await ids('/api/admin/site/get/all/actif', referent.cookie)).toEqual([installed.id]);
      const [one] = (await call('GET', '/api/admin/site/get/all/actif', undefined, referent.cookie)).json();
      expect(one).toMatchObject({ id: installed.id, code: installed.code, nom: 'Installé', adresse: 'Rue de Siam', ville: 'Brest', cp: '29200' });
      expect((await ctx.app.inject({ method: 'GET', url: '/api/admin/site/get/all/actif' })).statusCode).toBe(401);
    });

    it('gives the active sites of a user to that user and to site or user managers only', async () => {
      const { id, code } = await add(statusOne({ nom: 'Site du référent', composteurs: [] }));
      const referent = await loggedAs(ctx, ['ROLE_USER']);
      const stranger = await loggedAs(ctx, ['ROLE_USER']);
      await call('PUT', `/api/admin/site/update/user/${id}`, { user: [referent.id] });
      const url = `/api/admin/site/get/by/user/${referent.id}`;
      const userAdmin = await loggedAs(ctx, ['ROLE_ADMIN_USER']);
      for (const cookie of [admin, userAdmin.cookie, referent.cookie]) {
        const res = await call('GET', url, undefined, cookie);
        expect(res.statusCode, res.body).toBe(200);
        expect(res.json()).toEqual([expect.objectContaining({ id, code, nom: 'Site du référent' })]);
      }
      expect((await call('GET', url, undefined, stranger.cookie)).statusCode).toBe(403);
      expect((await call('GET', `/api/admin/site/get/by/user/${stranger.id}`, undefined, stranger.cookie)).json()).toEqual([]);
      expect((await call('GET', '/api/admin/site/get/by/user/abc')).statusCode).toBe(400);
      expect((await ctx.app.inject({ method: 'GET', url })).statusCode).toBe(401);
    });
  });
});
