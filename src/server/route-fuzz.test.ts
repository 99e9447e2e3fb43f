// Malformed requests on every registered /api route: wrong path parameters, bad
// query strings, bodies of the wrong types, out-of-range integers, NUL bytes, huge and deeply
// nested values, oversized and non-JSON bodies. Any 5xx fails the test, which lists every
// failing request. Deterministic: the variants come from a seeded generator, so a failure
// replays identically. Callers: an agent holding ROLE_ADMIN and every admin sub-role (the
// guards let it through to validation) and an anonymous caller.
// A value that gets past the schemas and is refused by the database also fails the test,
// even when the error handler turns it into a 4xx: the server logs it at warn level or
// above, and the bounds belong in the schemas (conventions.md "Robustness rules").
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TEST_CONFIG, TEST_DRIVERS, loggedAs, openTestDatabase } from '../../tests/helpers/test-app.js';
import { createApp } from './app.js';
import { RequestLogController } from './logging.js';
import { createMemoryMailer } from './mailer.js';
import { seedCities } from './db/seed.js';
import { createEquippedSite, createPendingDemande, createSite } from './modules/field-entry/test-factories.js';
import { seededRandom } from '../../tests/helpers/seeded-random.js';

interface LogRecord {
  level: number;
  msg?: string;
  err?: { message?: string; code?: string };
}

/**
 * The test app of tests/helpers/test-app.ts, with a logger that keeps warnings and errors. A slow
 * answer is not a refusal: on a loaded machine some take more than a second, and the warning
 * that says so would fail the run, so no answer counts as slow here.
 */
async function createLoggedTestApp(driver: 'pglite' | 'postgres') {
  const handle = await openTestDatabase(driver);
  await seedCities(handle.db, '242900314');
  const mailer = createMemoryMailer();
  const records: LogRecord[] = [];
  const stream = { write: (line: string) => records.push(JSON.parse(line) as LogRecord) };
  const app = await createApp(
    { db: handle.db, mailer, config: TEST_CONFIG },
    { logger: { level: 'warn', stream }, logController: new RequestLogController({ slowMs: Number.POSITIVE_INFINITY }) },
  );
  await app.ready();
  return {
    app,
    db: handle.db,
    mailer,
    records,
    async close() {
      await app.close();
      await handle.close();
    },
  };
}

type Ctx = Awaited<ReturnType<typeof createLoggedTestApp>>;
type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
type Method = 'GET' | 'POST' | 'PUT' | 'DELETE' | 'PATCH';

/** A seeded generator, so every run sends the same requests. */
function generator(seed: number) {
  const { next } = seededRandom(seed);
  return {
    next,
    pick<T>(list: readonly T[], n: number): T[] {
      const copy = [...list];
      const out: T[] = [];
      while (out.length < n && copy.length > 0) out.push(copy.splice(Math.floor(next() * copy.length), 1)[0]);
      return out;
    },
    uuid(): string {
      const hex = Array.from({ length: 32 }, () => Math.floor(next() * 16).toString(16)).join('');
      return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-4${hex.slice(13, 16)}-a${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
    },
  };
}

function nested(depth: number): Json {
  let v: Json = 1;
  for (let i = 0; i < depth; i++) v = { a: v };
  return v;
}

const HUGE = 'x'.repeat(100_000);

/** Path parameter values that must be refused (or not found), never crash. */
const BAD_PARAMS = ['abc', '0x10', '1e3', '-1', '0', '00', '+1', '1.5', '2147483648', '4294967296', '9'.repeat(30), '%00', '%FF', '%E9t%C3', ' 1', '1%00', 'a'.repeat(99), '1'.repeat(99)];

/** Values put in place of every field of a body. */
const BAD_VALUES: Json[] = [
  'abc',
  '',
  2_147_483_648,
  -2_147_483_649,
  Number.MAX_SAFE_INTEGER + 2,
  1e308,
  -1,
  0,
  1.5,
  true,
  null,
  [],
  [1, 2],
  [2_147_483_648],
  ['a\u0000b'],
  { a: 1 },
  'a\u0000b',
  'a\u0007b\u001b',
  '0x10',
  '2147483648',
  '0000-01-01T00:00:00Z',
  '0000-01-01',
  '275760-09-13T00:00:00Z',
  HUGE,
  nested(200),
];

/** Query keys the API reads somewhere; each route gets a sample of them with bad values. */
const QUERY_KEYS = [
  'search',
  'page',
  'rowsPerPage',
  'sort[name]',
  'sort[direction]',
  'id',
  'name',
  'annee',
  'site',
  'prestataire',
  ...['date', 'action', 'typeBac', 'numeroBac', 'site', 'nom', 'ville', 'adresse', 'type', 'statut', 'organisme', 'prenom', 'email', 'tel', 'libelle', 'volume', 'actionProgrammee'].map(
    (f) => `filter[${f}]`,
  ),
];
const BAD_QUERY_VALUES = ['abc', '-1', '0x10', '1e3', '2147483648', '9'.repeat(30), '%00', 'a%00b', '%FF', 'x'.repeat(5000), '1.5', ''];
/** Whole query strings: unknown keys, arrays where scalars go, objects, deep nesting. */
const BAD_QUERIES = [
  'zzz=1',
  'page[]=1&page[]=2',
  'page[a]=1',
  'search[]=a&search[]=b',
  'search[a][b][c][d]=1',
  'sort=abc',
  'sort[name][]=a',
  'filter=abc',
  'filter[]=1',
  'filter[site][]=2147483648',
  'filter[zzz]=1',
  'filter[a][b][c][d][e]=1',
  'rowsPerPage=1e2',
  'rowsPerPage=100&page=2147483647',
  'page=10001&rowsPerPage=100',
  `${'k'.repeat(1000)}=1`,
  Array.from({ length: 600 }, (_, i) => `k${i}=1`).join('&'),
  'annee=2024&site=2147483648&prestataire=-1',
  'annee=99999999999',
];

describe.each(TEST_DRIVERS)('route fuzz (%s)', (driver) => {
  let ctx: Ctx;
  let admin: string;
  const ids = {} as Record<string, number | string>;
  const bases: Record<string, (g: ReturnType<typeof generator>) => Json> = {};

  beforeAll(async () => {
    ctx = await createLoggedTestApp(driver);
    const agent = await loggedAs(ctx, ['ROLE_ADMIN', 'ROLE_ADMIN_SITE', 'ROLE_ADMIN_USER', 'ROLE_ADMIN_ROLE', 'ROLE_ADMIN_COMPOSTEUR', 'ROLE_ADMIN_UPDATE', 'ROLE_ADMIN_DELETE']);
    admin = agent.cookie;
    const referent = await loggedAs(ctx, ['ROLE_USER'], { typeUser: 1 });
    const site = await createEquippedSite(ctx.db, { referents: [referent.id] });
    const demandeur = await ctx.db
      .insertInto('demandeur')
      .values({ civilite: 'Madame', nom: 'DEMANDEUR', prenom: 'Anne', fonction: 'Mairie', telephone: '0298000000' })
      .returning('id')
      .executeTakeFirstOrThrow();
    const requested = await createSite(ctx.db, { statut: 2 });
    await ctx.db.updateTable('site').set({ demandeur_id: demandeur.id }).where('id', '=', requested.id).execute();
    const role = await ctx.db.selectFrom('role').where('code', '=', 'ROLE_ADMIN_COMPOSTEUR').select('id').executeTakeFirstOrThrow();
    const typeSite = await ctx.db.selectFrom('type_site').select('id').orderBy('id').executeTakeFirstOrThrow();
    const demande = await createPendingDemande(ctx.db, site.id, site.apport, 14);
    Object.assign(ids, {
      id: site.id,
      userId: referent.id,
      city: 'Brest',
      token: 'jeton-inconnu',
      cell: site.apport,
      demandeur: demandeur.id,
      role: role.id,
      referent: referent.id,
    });

    // Well-formed bodies, so that a bad value in one field reaches as deep as it can.
    Object.assign(bases, {
      'POST /api/login': () => ({ username: 'personne@exemple.fr', password: 'motdepasse' }),
      'POST /api/signup': (g) => ({ type: 1, organisme: '', nom: 'NOM', prenom: 'Jean', tel: '0600000000', email: `fuzz${g.uuid().slice(0, 8)}@exemple.fr`, password: 'motdepasse1', confirmPassword: 'motdepasse1' }),
      'PUT /api/password': () => ({ mail: 'personne@exemple.fr' }),
      'PUT /api/password/update/:token': () => ({ password: 'motdepasse1', confirmPassword: 'motdepasse1' }),
      'POST /api/admin/intervention/add': (g) => ({
        clientId: g.uuid(),
        site: site.id,
        date: '2024-05-02T08:30:00.000Z',
        values: [{ composteur: site.apport, action: 4, valeur: 100, bacDestination: null, observations: 'ok', demandeIntervention: demande }],
      }),
      'POST /api/admin/site/add': () => ({
        nom: 'Fuzz',
        adresse: 'rue de Siam',
        numero: '1',
        complement: null,
        type: typeSite.id,
        observations: null,
        cadena: null,
        statut: 1,
        ville: 'Brest',
        cp: '29200',
        composteurs: [{ composteur: site.typeComposteurId, typeBac: 1, numero: 5 }],
      }),
      'PUT /api/admin/site/update/:id': () => ({ nom: 'Fuzz', adresse: 'rue de Siam', numero: '1', complement: null, type: typeSite.id, observations: null, cadena: null, statut: 1 }),
      'PUT /api/admin/site/update/user/:id': () => ({ user: [referent.id] }),
      'PUT /api/admin/siteComposteur/update/:id': () => ({ composteur: site.typeComposteurId, typeBac: 1, numero: 1, actif: true }),
      'PUT /api/admin/site/add/composteur/:id': () => ({ composteurs: [{ composteur: site.typeComposteurId, typeBac: 1, numero: 9 }] }),
      'PUT /api/admin/demandeur/update/:id': () => ({ fonction: 'Mairie', precisions: null, telephone: '0298000000', telephone2: null, email: null, periodeImplantation: null, anneeImplantation: null }),
      'PUT /api/admin/user/update/site/:userId': () => ({ site: [site.id] }),
      'PUT /api/admin/user/update/typeUser/:id': () => ({ type: 1 }),
      'PUT /api/admin/role/update/:id': () => ({ agents: [agent.id] }),
      'POST /api/admin/typeComposteur/add': () => ({ volume: 400, precisions: 'Bois' }),
      'POST /api/admin/typeSite/add': () => ({ libelle: 'Fuzz', code: 'FZ' }),
      'PUT /api/admin/tournee/ordre': () => ({ date: '2024-05-02', demandes: [demande] }),
      'PUT /api/admin/tournee/depart': () => ({ depart: { latitude: 48.39, longitude: -4.49 } }),
      // Dates in 2030 stay in the future and within the limits of a series.
      'POST /api/admin/permanence/add': () => ({ site: site.id, debut: '2030-05-04T17:00', fin: '2030-05-04T19:00', titre: 'Fuzz', message: null, recurrence: { frequence: 'hebdomadaire', jusqua: '2030-06-01' } }),
      'PUT /api/admin/permanence/update/:id': () => ({ debut: '2030-05-04T17:00', fin: '2030-05-04T19:00', titre: null, message: null }),
      'PUT /api/admin/permanence/annuler/:id': () => ({ motif: 'Pluie' }),
      'PUT /api/permanence/:id/bilan': (g) => ({ clientId: g.uuid(), foyers: 3, seaux: 2, kg: 4.5, temperature: 20 }),
      'POST /api/public/site/:code/foyer': () => ({ prenom: 'Anne', email: 'anne@exemple.fr', consentement: true, personnes: 2, bioseau: true }),
      'POST /api/admin/foyer/nouvelle': () => ({ site: site.id, sujet: 'Bonjour', texte: 'Le site ouvre samedi.' }),
      'POST /api/public/foyer/quitter': () => ({ jeton: '1.AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA' }),
    } satisfies Record<string, (g: ReturnType<typeof generator>) => Json>);
    // Migrations and a dozen logins take a while on a busy machine.
  }, 120_000);
  afterAll(() => ctx.close());

  /** Ids in paths name seeded rows, so that a body or query reaches its handler. */
  const PATH_FIXTURES: Record<string, Record<string, string>> = {
    'GET /api/admin/siteComposteur/get/:id': { id: 'cell' },
    'PUT /api/admin/siteComposteur/update/:id': { id: 'cell' },
    'GET /api/admin/demandeur/get/:id': { id: 'demandeur' },
    'PUT /api/admin/demandeur/update/:id': { id: 'demandeur' },
    'GET /api/admin/role/get/:id': { id: 'role' },
    'PUT /api/admin/role/update/:id': { id: 'role' },
    'PUT /api/admin/user/update/typeUser/:id': { id: 'referent' },
  };

  function routes() {
    const keys = ctx.app.routeGuards.filter((r) => r.method !== 'HEAD' && r.url.startsWith('/api/')).map((r) => `${r.method} ${r.url}`);
    return [...new Set(keys)].sort();
  }

  function fill(key: string, pattern: string, override: Record<string, string> = {}) {
    return pattern.replace(/:(\w+)/g, (_m, name: string) => override[name] ?? encodeURIComponent(String(ids[PATH_FIXTURES[key]?.[name] ?? name] ?? ids.id)));
  }

  /** Every leaf of a body as a path of keys and indexes. */
  function leaves(value: Json, path: (string | number)[] = []): (string | number)[][] {
    if (Array.isArray(value)) return value.length === 0 ? [path] : [path, ...value.flatMap((v, i) => leaves(v, [...path, i]))];
    if (value && typeof value === 'object') return [...(path.length ? [path] : []), ...Object.entries(value).flatMap(([k, v]) => leaves(v, [...path, k]))];
    return [path];
  }

  function withValue(base: Json, path: (string | number)[], value: Json): Json {
    if (path.length === 0) return value;
    const copy: Json = Array.isArray(base) ? [...base] : { ...(base as Record<string, Json>) };
    const [head, ...rest] = path;
    (copy as Record<string | number, Json>)[head] = withValue((base as Record<string | number, Json>)?.[head] ?? null, rest, value);
    return copy;
  }

  it('sees what the server logs at warn level', () => {
    ctx.app.log.warn('sonde');
    expect(ctx.records.at(-1)).toMatchObject({ level: 40, msg: 'sonde' });
  });

  it('never answers 5xx to a malformed request', async () => {
    const g = generator(9);
    const failures: string[] = [];
    let sent = 0;
    const send = async (label: string, opts: { method: Method; url: string; cookie?: string; payload?: string | Buffer | object; contentType?: string }) => {
      const headers: Record<string, string> = {};
      if (opts.cookie) headers.cookie = opts.cookie;
      if (opts.contentType) headers['content-type'] = opts.contentType;
      sent++;
      const logged = ctx.records.length;
      let status: number;
      let body = '';
      try {
        const res = await ctx.app.inject({ method: opts.method, url: opts.url, headers, ...(opts.payload === undefined ? {} : { payload: opts.payload }) });
        status = res.statusCode;
        body = res.body;
      } catch (e) {
        status = 599;
        body = String(e);
      }
      const warnings = ctx.records.slice(logged).filter((r) => r.level >= 40);
      if (status >= 500 || warnings.length > 0) {
        const why = warnings.map((r) => `[${r.msg ?? ''}: ${r.err?.code ?? ''} ${(r.err?.message ?? '').slice(0, 100)}]`).join(' ');
        failures.push(`${label}: ${opts.method} ${opts.url.slice(0, 160)} -> ${status} ${body.slice(0, 160)} ${why}`);
      }
      return { status, body };
    };

    for (const key of routes()) {
      const [method, pattern] = key.split(' ') as [Method, string];
      const params = [...pattern.matchAll(/:(\w+)/g)].map((m) => m[1]);
      const isAdmin = pattern.startsWith('/api/admin/');
      const callers: (string | undefined)[] = isAdmin ? [admin] : [admin, undefined];
      const url = fill(key, pattern);

      for (const cookie of callers) {
        const who = cookie ? 'admin' : 'anonymous';
        // Path parameters of wrong types, one parameter at a time.
        for (const name of params) for (const bad of BAD_PARAMS) await send(`${key} as ${who}, :${name}=${bad}`, { method, url: fill(key, pattern, { [name]: bad }), cookie, ...(method === 'GET' ? {} : { payload: {} }) });

        // Query strings: whole bad strings, then known keys with bad values.
        const queries = [...g.pick(BAD_QUERIES, 8), ...g.pick(QUERY_KEYS, 6).map((k) => `${k}=${g.pick(BAD_QUERY_VALUES, 1)[0]}`)];
        for (const q of queries) await send(`${key} as ${who}, ?${q.slice(0, 60)}`, { method, url: `${url}?${q}`, cookie, ...(method === 'GET' ? {} : { payload: {} }) });
      }
      if (method === 'GET') continue;

      for (const cookie of callers) {
        const who = cookie ? 'admin' : 'anonymous';
        // Whole bodies: oversized, not JSON, invalid JSON, not an object, deeply nested.
        await send(`${key} as ${who}, 3 MB body`, { method, url, cookie, payload: JSON.stringify({ a: 'x'.repeat(3 * 1024 * 1024) }), contentType: 'application/json' });
        await send(`${key} as ${who}, text/plain body`, { method, url, cookie, payload: 'bonjour', contentType: 'text/plain' });
        await send(`${key} as ${who}, form body`, { method, url, cookie, payload: 'a=1&b=2', contentType: 'application/x-www-form-urlencoded' });
        await send(`${key} as ${who}, xml body`, { method, url, cookie, payload: '<a>1</a>', contentType: 'application/xml' });
        await send(`${key} as ${who}, invalid JSON`, { method, url, cookie, payload: '{"a":', contentType: 'application/json' });
        await send(`${key} as ${who}, JSON with a charset`, { method, url, cookie, payload: '{}', contentType: 'application/json; charset=latin1' });
        await send(`${key} as ${who}, empty JSON body`, { method, url, cookie, payload: '', contentType: 'application/json' });
        for (const body of ['null', '[]', '"texte"', '12', 'true', `${'{"a":'.repeat(5000)}1${'}'.repeat(5000)}`, JSON.stringify({ __proto__: { admin: true }, constructor: { prototype: { x: 1 } } })])
          await send(`${key} as ${who}, body ${body.slice(0, 30)}`, { method, url, cookie, payload: body, contentType: 'application/json' });
      }

      // Each field of a well-formed body (and each field the empty body is refused for) replaced
      // by bad values, as the administrator, so that the value meets the validation and beyond.
      const base = bases[key] ?? (() => ({}));
      const empty = await send(`${key} as admin, {}`, { method, url, cookie: admin, payload: {} });
      const named = empty.status === 400 ? ((JSON.parse(empty.body) as { errors?: { key: string }[] }).errors ?? []).map((e) => e.key.split(/[.\d]/)[0]).filter(Boolean) : [];
      const paths = [...leaves(base(g)), ...named.map((n) => [n])];
      const seen = new Set<string>();
      for (const path of paths) {
        const label = path.join('.');
        if (seen.has(label)) continue;
        seen.add(label);
        const values = [2_147_483_648, 'a\u0000b', '0000-01-01T00:00:00Z', ...g.pick(BAD_VALUES, 5)];
        for (const v of values) {
          const body = withValue(base(g), path, v);
          await send(`${key} as admin, ${label || '(body)'}=${JSON.stringify(v)?.slice(0, 40)}`, { method, url, cookie: admin, payload: body as object });
        }
      }
    }

    expect(sent).toBeGreaterThan(1000);
    expect(failures, `${failures.length} of ${sent} requests answered 5xx:\n${failures.join('\n')}`).toEqual([]);
  }, 300_000);
});
