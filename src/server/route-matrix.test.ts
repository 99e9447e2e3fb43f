// The route x role matrix: every /api route the app registers is called as each
// kind of caller, and the answer class must be the one MATRIX gives. The table is written by
// hand from the product's role table (who may do what), never derived from permissions.ts, so a
// guard changed by mistake shows here. A registered route without a row fails the test, and
// so does a row without a route: adding a route means adding its one line below.
import crypto from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TEST_DRIVERS, createAccount, createTestApp, login, loggedAs } from '../../tests/helpers/test-app.js';
import { createEquippedSite, createPendingDemande, createSite } from './modules/field-entry/test-factories.js';

type Ctx = Awaited<ReturnType<typeof createTestApp>>;

const ADMIN_SUB_ROLES = ['ROLE_ADMIN_SITE', 'ROLE_ADMIN_USER', 'ROLE_ADMIN_ROLE', 'ROLE_ADMIN_COMPOSTEUR', 'ROLE_ADMIN_UPDATE', 'ROLE_ADMIN_DELETE'] as const;
const CALLERS = ['anonymous', 'noRole', 'referent', 'provider', ...ADMIN_SUB_ROLES, 'ROLE_ADMIN'] as const;
type Caller = (typeof CALLERS)[number];

/** Seeded rows a path parameter can name. */
type Fixture = 'site' | 'cell' | 'referent' | 'victim' | 'role' | 'demandeur' | 'demande' | 'intervention' | 'rule' | 'city' | 'token';

interface Row {
  /** Callers whose call passes the guards: any status but 401 and 403 (and never 5xx). */
  allowed: readonly Caller[];
  /** Which fixture each path parameter names; by default :id a site, :userId the referent. */
  params: Partial<Record<string, Fixture>>;
}

const EVERYONE: readonly Caller[] = CALLERS;
const LOGGED_WITH_ROLE: readonly Caller[] = CALLERS.filter((c) => c !== 'anonymous' && c !== 'noRole');
const ADMINS: readonly Caller[] = [...ADMIN_SUB_ROLES, 'ROLE_ADMIN'];
const SITE_MANAGERS: readonly Caller[] = ['ROLE_ADMIN_SITE', 'ROLE_ADMIN'];
const USER_MANAGERS: readonly Caller[] = ['ROLE_ADMIN_USER', 'ROLE_ADMIN'];
const ROLE_MANAGERS: readonly Caller[] = ['ROLE_ADMIN_ROLE', 'ROLE_ADMIN'];
const COMPOSTER_MANAGERS: readonly Caller[] = ['ROLE_ADMIN_COMPOSTEUR', 'ROLE_ADMIN'];
/** Record interventions: referents (on their sites), the provider, site administrators and ROLE_ADMIN. */
const RECORDERS: readonly Caller[] = ['referent', 'provider', 'ROLE_ADMIN_SITE', 'ROLE_ADMIN'];
const REQUEST_MANAGERS: readonly Caller[] = ['provider', 'ROLE_ADMIN'];
const ONLY_ADMIN: readonly Caller[] = ['ROLE_ADMIN'];
/** See every intervention (the product's role table): ROLE_ADMIN and site administrators. */
const INTERVENTION_READERS: readonly Caller[] = SITE_MANAGERS;

const row = (allowed: readonly Caller[], params: Row['params'] = {}): Row => ({ allowed, params });

/** 'METHOD /api/path' -> who gets through. One line per route. */
const MATRIX: Record<string, Row> = {
  // Reference lists and session.
  'GET /api/app/info/get': row(EVERYONE),
  'GET /api/typeUser/get/all': row(EVERYONE),
  'GET /api/typeAction/get/all': row(EVERYONE),
  'GET /api/typeActionConstante/get/all': row(EVERYONE),
  'GET /api/admin/annee/get/all': row(LOGGED_WITH_ROLE),
  'GET /api/admin/statut/get/all/demandes/interventions': row(LOGGED_WITH_ROLE),
  'GET /api/admin/statut/get/all/sites': row(LOGGED_WITH_ROLE),
  'GET /api/ville/get/all': row(EVERYONE),
  'GET /api/rues/get/all/:city': row(EVERYONE, { city: 'city' }),
  'GET /api/typeSite/get/all': row(EVERYONE),
  'GET /api/typeComposteur/get/all': row(EVERYONE),
  'GET /api/typeBac/get/all': row(EVERYONE),
  'GET /api/logged': row(EVERYONE),
  'POST /api/login': row(EVERYONE),
  // Account.
  'POST /api/signup': row(EVERYONE),
  'PUT /api/confirmation/:token': row(EVERYONE, { token: 'token' }),
  'PUT /api/password': row(EVERYONE),
  'GET /api/password/reset/:token': row(EVERYONE, { token: 'token' }),
  'PUT /api/password/update/:token': row(EVERYONE, { token: 'token' }),
  // Users.
  'GET /api/admin/user/get/list/by/filters': row(USER_MANAGERS),
  'PUT /api/admin/user/active/:id': row(USER_MANAGERS, { id: 'victim' }),
  'PUT /api/admin/user/refuse/:id': row(USER_MANAGERS, { id: 'victim' }),
  'PUT /api/admin/user/update/site/:userId': row(USER_MANAGERS, { userId: 'victim' }),
  'PUT /api/admin/user/update/typeUser/:id': row(USER_MANAGERS, { id: 'victim' }),
  'PUT /api/admin/user/delete/:id': row(USER_MANAGERS, { id: 'victim' }),
  'GET /api/admin/user/get/sites/:id': row(USER_MANAGERS, { id: 'referent' }),
  'GET /api/admin/user/get/all/sites': row(USER_MANAGERS),
  'GET /api/admin/user/get/by/site/:id': row([...SITE_MANAGERS, 'ROLE_ADMIN_USER']),
  'GET /api/admin/user/get/all/actif': row([...SITE_MANAGERS, 'ROLE_ADMIN_USER']),
  // Roles.
  'GET /api/admin/role/get/list/by/filters': row(ROLE_MANAGERS),
  'GET /api/admin/role/get/:id': row(ROLE_MANAGERS, { id: 'role' }),
  'PUT /api/admin/role/update/:id': row(ROLE_MANAGERS, { id: 'role' }),
  'GET /api/admin/agent/get/by/name': row(ROLE_MANAGERS),
  // Composter and site types.
  'GET /api/admin/typeComposteur/get/list/by/filters': row(COMPOSTER_MANAGERS),
  'POST /api/admin/typeComposteur/add': row(COMPOSTER_MANAGERS),
  'GET /api/admin/typeSite/get/list/by/filters': row(SITE_MANAGERS),
  'POST /api/admin/typeSite/add': row(SITE_MANAGERS),
  // Site choice: any role; another user's sites only for site and user managers.
  'GET /api/admin/site/get/all/actif': row(LOGGED_WITH_ROLE),
  'GET /api/admin/site/get/by/user/:userId': row(['referent', 'ROLE_ADMIN_SITE', 'ROLE_ADMIN_USER', 'ROLE_ADMIN'], { userId: 'referent' }),
  // Sites.
  'GET /api/admin/site/get/list/by/filters': row(SITE_MANAGERS),
  'GET /api/admin/site/export': row(SITE_MANAGERS),
  'POST /api/admin/site/add': row(SITE_MANAGERS),
  'GET /api/admin/site/get/:id': row(SITE_MANAGERS),
  'PUT /api/admin/site/update/:id': row(SITE_MANAGERS),
  'PUT /api/admin/site/update/user/:id': row(SITE_MANAGERS),
  'GET /api/admin/siteComposteurs/get/by/site/:id': row(SITE_MANAGERS),
  'GET /api/admin/siteComposteur/get/:id': row(SITE_MANAGERS, { id: 'cell' }),
  'PUT /api/admin/siteComposteur/update/:id': row(SITE_MANAGERS, { id: 'cell' }),
  'PUT /api/admin/site/add/composteur/:id': row(SITE_MANAGERS),
  'GET /api/admin/demandeur/get/:id': row(SITE_MANAGERS, { id: 'demandeur' }),
  'PUT /api/admin/demandeur/update/:id': row(SITE_MANAGERS, { id: 'demandeur' }),
  // Interventions.
  'GET /api/admin/site/get/infos/pour/intervention/:id': row(RECORDERS),
  'POST /api/admin/intervention/add': row(RECORDERS),
  'GET /api/intervention/get/list/by/site/:id': row(EVERYONE),
  'GET /api/admin/intervention/get/list/by/filters': row(INTERVENTION_READERS),
  'GET /api/admin/intervention/export': row(INTERVENTION_READERS),
  'GET /api/admin/intervention/get/:id': row(INTERVENTION_READERS, { id: 'intervention' }),
  'PUT /api/admin/intervention/update/:id': row(['ROLE_ADMIN_UPDATE'], { id: 'intervention' }),
  'PUT /api/admin/intervention/delete/:id': row(['ROLE_ADMIN_DELETE'], { id: 'intervention' }),
  // Intervention requests.
  'GET /api/admin/demande/intervention/get/list': row(REQUEST_MANAGERS),
  'GET /api/admin/demande/intervention/get/sites': row(REQUEST_MANAGERS),
  'GET /api/admin/demande/intervention/get/all/by/filters': row(REQUEST_MANAGERS),
  'PUT /api/admin/demande/intervention/delete': row(REQUEST_MANAGERS),
  'POST /api/admin/demande/intervention/programmer': row(REQUEST_MANAGERS),
  'GET /api/admin/demande/regle/get/all': row(ONLY_ADMIN),
  'POST /api/admin/demande/regle/add': row(ONLY_ADMIN),
  'PUT /api/admin/demande/regle/update/:id': row(ONLY_ADMIN, { id: 'rule' }),
  'PUT /api/admin/demande/regle/delete/:id': row(ONLY_ADMIN, { id: 'rule' }),
  // Statistics and exports: every administrator role.
  'GET /api/admin/apportBroyat/get/by/mois': row(ADMINS),
  'GET /api/admin/distribution/get/by/mois': row(ADMINS),
  'GET /api/admin/transfert/get/by/mois': row(ADMINS),
  'GET /api/admin/retournement/get/by/mois': row(ADMINS),
  'GET /api/admin/reparation/get/by/mois': row(ADMINS),
  'GET /api/admin/arrosage/get/by/mois': row(ADMINS),
  'GET /api/admin/viderBac/get/by/mois': row(ADMINS),
  'GET /api/admin/tamisage/get/by/mois': row(ADMINS),
  'GET /api/admin/foyers/get/by/mois': row(ADMINS),
  'GET /api/admin/kgDetournes/get/by/mois': row(ADMINS),
  'GET /api/admin/intervention/get/all/by/mois': row(ADMINS),
  'GET /api/admin/temperature/get/by/mois': row(ADMINS),
  'GET /api/admin/stats/prestataire/get/all': row(ADMINS),
  'GET /api/admin/intervention/export/all/by/site': row(ADMINS),
  'GET /api/admin/intervention/export/apportBroyat/by/site': row(ADMINS),
  'GET /api/admin/intervention/export/distribution/by/site': row(ADMINS),
  'GET /api/admin/intervention/export/transfert/by/site': row(ADMINS),
  'GET /api/admin/intervention/export/arrosage/by/site': row(ADMINS),
  'GET /api/admin/intervention/export/viderBac/by/site': row(ADMINS),
  'GET /api/admin/intervention/export/tamisage/by/site': row(ADMINS),
  // Health: for process managers and load balancers.
  'GET /api/health': row(EVERYONE),
  'GET /api/ready': row(EVERYONE),
  // Photos of field entries: adding one takes its author or ROLE_ADMIN (the fixture entry is
  // ROLE_ADMIN's); reading one passes the guard for whoever may see some interventions (an
  // unknown id is then a 404).
  'POST /api/admin/intervention/:id/photo': row(ONLY_ADMIN, { id: 'intervention' }),
  'GET /api/admin/photo/:id': row(RECORDERS),
  // Public site pages, anonymous reports and open data.
  'GET /api/public/site/:code': row(EVERYONE),
  // Permanences of a site: its referents, and the roles that manage every site. The fixture id is
  // the site's, so allowed callers reach the handler and meet no permanence (400 or 404).
  'GET /api/admin/permanence/get/list/by/site/:id': row(['referent', ...SITE_MANAGERS]),
  'POST /api/admin/permanence/add': row(['referent', ...SITE_MANAGERS]),
  'PUT /api/admin/permanence/update/:id': row(['referent', ...SITE_MANAGERS]),
  'PUT /api/admin/permanence/annuler/:id': row(['referent', ...SITE_MANAGERS]),
  'POST /api/permanence/:id/ouvreur': row(['referent', ...SITE_MANAGERS]),
  'DELETE /api/permanence/:id/ouvreur': row(['referent', ...SITE_MANAGERS]),
  'PUT /api/permanence/:id/bilan': row(['referent', ...SITE_MANAGERS]),
  'GET /api/public/site/:code/permanences.ics': row(EVERYONE),
  // Households: registered by anyone from the public page, seen and handled by the site's
  // referents and the roles that manage every site; their links work without a login.
  'POST /api/public/site/:code/foyer': row(EVERYONE),
  'GET /api/admin/foyer/get/list/by/site/:id': row(['referent', ...SITE_MANAGERS]),
  'PUT /api/admin/foyer/valider/:id': row(['referent', ...SITE_MANAGERS]),
  'PUT /api/admin/foyer/refuser/:id': row(['referent', ...SITE_MANAGERS]),
  'POST /api/admin/foyer/nouvelle': row(['referent', ...SITE_MANAGERS]),
  'POST /api/public/foyer/quitter': row(EVERYONE),
  'GET /api/public/foyer/desabonner': row(EVERYONE),
  'POST /api/public/foyer/desabonner': row(EVERYONE),
  'POST /api/public/site/:code/signalement': row(EVERYONE),
  'GET /api/admin/signalement/get/list': row(['referent', 'ROLE_ADMIN']),
  'PUT /api/admin/signalement/transformer/:id': row(['referent', 'ROLE_ADMIN']),
  'PUT /api/admin/signalement/classer/:id': row(['referent', 'ROLE_ADMIN']),
  'PUT /api/admin/signalement/classer': row(['referent', 'ROLE_ADMIN']),
  'PUT /api/admin/signalement/fusionner': row(['referent', 'ROLE_ADMIN']),
  'PUT /api/admin/signalement/transformer': row(['referent', 'ROLE_ADMIN']),
  'GET /api/open/sites.geojson': row(EVERYONE),
  'GET /api/admin/sauvegarde/status': row(ONLY_ADMIN),
  'GET /api/admin/import/:kind/modele': row(ONLY_ADMIN),
  'POST /api/admin/import/:kind': row(ONLY_ADMIN),
  'GET /api/admin/import/progression/:suivi': row(ONLY_ADMIN),
  'POST /api/admin/sauvegarde/run': row(ONLY_ADMIN),
  'GET /api/metrics': row(EVERYONE),
  'GET /api/open/sites.csv': row(EVERYONE),
  // Site follow-up alerts and the yearly report.
  'GET /api/admin/alerte/get/list/by/filters': row(['referent', 'provider', 'ROLE_ADMIN']),
  'PUT /api/admin/alerte/ack/:id': row(ONLY_ADMIN),
  'GET /api/admin/alerte/settings': row(ONLY_ADMIN),
  'PUT /api/admin/alerte/settings': row(ONLY_ADMIN),
  'POST /api/admin/alerte/run': row(ONLY_ADMIN),
  'GET /api/alerte/preferences': row(['referent', 'provider', 'ROLE_ADMIN']),
  'PUT /api/alerte/preferences': row(['referent', 'provider', 'ROLE_ADMIN']),
  // The digests' one-click unsubscribe link: no login, the signed token is the proof.
  'GET /api/alerte/desabonnement/:token': row(EVERYONE),
  'POST /api/alerte/desabonnement/:token': row(EVERYONE),
  'GET /api/admin/rapport/get/by/annee': row(SITE_MANAGERS),
  'GET /api/admin/rapport/export': row(SITE_MANAGERS),
  // The map of the sites (those who see every site, and providers) and the day's route.
  'GET /api/admin/site/get/carte': row(['provider', 'ROLE_ADMIN_SITE', 'ROLE_ADMIN']),
  'GET /api/admin/tournee': row(REQUEST_MANAGERS),
  'PUT /api/admin/tournee/ordre': row(REQUEST_MANAGERS),
  'PUT /api/admin/tournee/depart': row(REQUEST_MANAGERS),
  // The API description: public.
  'GET /api/docs': row(EVERYONE),
  'GET /api/docs/json': row(EVERYONE),
  'GET /api/docs/yaml': row(EVERYONE),
  'GET /api/docs/static/index.html': row(EVERYONE),
  'GET /api/docs/static/swagger-initializer.js': row(EVERYONE),
  'GET /api/docs/static/*': row(EVERYONE),
  'GET /api/docs/static/theme/accessible.css': row(EVERYONE),
  'GET /api/docs/static/theme/accessible.js': row(EVERYONE),
};

const DEFAULT_PARAMS: Record<string, Fixture> = { id: 'site', userId: 'referent', city: 'city', token: 'token' };

type Outcome = 'ok' | '401' | '403' | '5xx';

function classify(status: number): Outcome {
  if (status >= 500) return '5xx';
  if (status === 401) return '401';
  if (status === 403) return '403';
  return 'ok';
}

function expected(r: Row, caller: Caller): Outcome {
  if (r.allowed.includes(caller)) return 'ok';
  return caller === 'anonymous' ? '401' : '403';
}

/** The /api routes the app registered, as 'METHOD /api/path' (HEAD routes derive from GET ones). */
function registeredApiRoutes(app: Ctx['app']): string[] {
  const keys = app.routeGuards.filter((r) => r.method !== 'HEAD' && r.url.startsWith('/api/')).map((r) => `${r.method} ${r.url}`);
  return [...new Set(keys)].sort();
}

describe.each(TEST_DRIVERS)('route x role matrix (%s)', (driver) => {
  let ctx: Ctx;
  const cookies = new Map<Caller, string | undefined>();
  const fixtures = {} as Record<Fixture, string>;

  beforeAll(async () => {
    ctx = await createTestApp(driver);
    const referent = await createAccount(ctx.db, { roles: ['ROLE_USER'], typeUser: 1 });
    const site = await createEquippedSite(ctx.db, { referents: [referent.id] });
    // A requested site (status 2) with its requester, for the requester routes.
    const demandeur = await ctx.db
      .insertInto('demandeur')
      .values({ civilite: 'Madame', nom: 'DEMANDEUR', prenom: 'Anne', fonction: 'Mairie', telephone: '0298000000' })
      .returning('id')
      .executeTakeFirstOrThrow();
    const requested = await createSite(ctx.db, { statut: 2 });
    await ctx.db.updateTable('site').set({ demandeur_id: demandeur.id }).where('id', '=', requested.id).execute();
    // An inactive user the user routes may activate, refuse or delete without touching the callers.
    const victim = await createAccount(ctx.db, { actif: false, typeUser: 1 });
    const role = await ctx.db.selectFrom('role').where('code', '=', 'ROLE_ADMIN_COMPOSTEUR').select('id').executeTakeFirstOrThrow();
    Object.assign(fixtures, {
      site: String(site.id),
      cell: String(site.apport),
      referent: String(referent.id),
      victim: String(victim.id),
      role: String(role.id),
      demandeur: String(demandeur.id),
      demande: String(await createPendingDemande(ctx.db, site.id, site.apport, 14)),
      intervention: '',
      rule: '1',
      city: 'Brest',
      token: 'jeton-inconnu',
    } satisfies Record<Fixture, string>);

    cookies.set('anonymous', undefined);
    cookies.set('noRole', (await loggedAs(ctx, [])).cookie);
    cookies.set('referent', await login(ctx.app, referent.login));
    cookies.set('provider', (await loggedAs(ctx, ['ROLE_PRESTATAIRE'], { typeUser: 3 })).cookie);
    for (const role of [...ADMIN_SUB_ROLES, 'ROLE_ADMIN'] as const) cookies.set(role, (await loggedAs(ctx, [role])).cookie);

    const recorded = await ctx.app.inject({
      method: 'POST',
      url: '/api/admin/intervention/add',
      headers: { cookie: cookies.get('ROLE_ADMIN')! },
      payload: { clientId: crypto.randomUUID(), site: site.id, date: '2024-05-02T08:30:00.000Z', values: [{ composteur: site.apport, action: 1 }] },
    });
    expect(recorded.statusCode).toBe(200);
    fixtures.intervention = String((recorded.json().interventions as number[])[0]);
    // Migrations and a dozen logins take a while on a busy machine.
  }, 120_000);
  afterAll(() => ctx.close());

  it('has one row for every registered /api route, and a route for every row', () => {
    const routes = registeredApiRoutes(ctx.app);
    const withoutRow = routes.filter((k) => !(k in MATRIX));
    const withoutRoute = Object.keys(MATRIX).filter((k) => !routes.includes(k));
    expect(withoutRow, `routes without a row in MATRIX (route-matrix.test.ts): ${withoutRow.join(', ')}`).toEqual([]);
    expect(withoutRoute, `rows of MATRIX naming no registered route: ${withoutRoute.join(', ')}`).toEqual([]);
  });

  it('answers each caller as the table says', async () => {
    const mismatches: string[] = [];
    let calls = 0;
    for (const key of registeredApiRoutes(ctx.app)) {
      const r = MATRIX[key];
      if (!r) continue;
      const [method, pattern] = key.split(' ') as [string, string];
      const url = pattern.replace(/:(\w+)/g, (_m, name: string) => encodeURIComponent(fixtures[r.params[name] ?? DEFAULT_PARAMS[name] ?? 'site']));
      for (const caller of CALLERS) {
        const cookie = cookies.get(caller);
        const res = await ctx.app.inject({
          method: method as 'GET',
          url,
          headers: cookie ? { cookie } : {},
          // State-changing calls carry an empty body: refused by validation (400) when allowed,
          // so the matrix changes nothing; the guards answer before the body is looked at.
          ...(method === 'GET' ? {} : { payload: {} }),
        });
        calls++;
        const got = classify(res.statusCode);
        const want = expected(r, caller);
        if (got !== want) mismatches.push(`${key} as ${caller}: expected ${want}, got ${res.statusCode} ${res.body.slice(0, 120)}`);
      }
    }
    expect(calls).toBe(registeredApiRoutes(ctx.app).filter((k) => k in MATRIX).length * CALLERS.length);
    expect(mismatches, mismatches.join('\n')).toEqual([]);
  });
});
