// The route table of the dataset bench: one entry per route variant, timed through
// the API (p50/p95 over HTTP) next to the bare SQL the app issued for it. Add a row here to
// bench a new route or variant; `--only <pattern>` runs the rows whose name matches.
//
// A route that answers 404 'Ressource introuvable.' (no such route yet) is reported 'absent'.
import { toQueryString } from '../src/shared/schemas/list.js';

/** Ids and values of the dataset the variants point at (bench/measure.ts fills it). */
export interface BenchContext {
  /** The busiest year (Europe/Paris) of the log. */
  year: number;
  busiestSite: number;
  typicalSite: number;
  providerId: number;
  /** A city with sites, and the INSEE code of a city with streets. */
  city: string;
  streetCity: string;
  /** A cell of the busiest site, and one of a typical site. */
  busyCell: number;
  typicalCell: number;
  /** A referent who refers at least one site. */
  referentId: number;
  demandeurId: number;
  interventionId: number;
}

export type Persona = 'admin' | 'provider' | 'referent' | 'anonymous';

export interface RouteVariant {
  /** Unique label; `--only` matches it. */
  name: string;
  /** Path and query string under the server, e.g. /api/admin/site/get/list/by/filters?page=0. */
  path: (ctx: BenchContext) => string;
  as?: Persona;
  /** 'csv': read the whole stream, count bytes. */
  kind?: 'json' | 'csv';
  /** p95 target in ms (50, 10 for the years route and the cells' flag). */
  target?: number;
  /**
   * Deep page: the harness asks page 0 first, reads `count`, then benches the last page with
   * the same query (`page` replaced).
   */
  lastPage?: boolean;
  /**
   * Page 1 or the last page of a list in one order (its default, a sort, the last page): the
   * depth policy's two ends, whose goal is p95 <= 10 ms at 1,000,000 interventions. The summary
   * gives them a line of their own; `target` stays the row's ceiling on any dataset.
   */
  pageEnd?: boolean;
  /** At most this many timed runs (whole-log exports). */
  maxRuns?: number;
  /** Minutes at 1M: runs only when `--only` is given and matches its name. */
  optIn?: boolean;
}

type ListQuery = Parameters<typeof toQueryString>[0];
const q = (base: string, query: ListQuery = {}) => {
  const s = toQueryString(query);
  return s ? `${base}?${s}` : base;
};
const asc = (name: string) => ({ name, direction: 'asc' as const });
const desc = (name: string) => ({ name, direction: 'desc' as const });

const routes: RouteVariant[] = [];
const add = (v: RouteVariant) => routes.push(v);
/** A list route: default, each sort, each filter, searches, the last page (the deepest a list goes). */
function list(
  group: string,
  base: (ctx: BenchContext) => string,
  opts: {
    sorts: string[];
    filters?: [string, (ctx: BenchContext) => ListQuery['filter']][];
    searches?: string[];
    rowsPerPage?: number;
    as?: Persona;
    extraDesc?: string[];
    /** The last page in these orders too (an interventions list pages its first 10,000 rows: the last is the deepest). */
    lastPageSorts?: string[];
  },
) {
  const rpp = opts.rowsPerPage;
  const as = opts.as;
  add({ name: `${group} default`, as, pageEnd: true, path: (c) => q(base(c), { rowsPerPage: rpp }) });
  for (const s of opts.sorts) add({ name: `${group} sort ${s}`, as, pageEnd: true, path: (c) => q(base(c), { rowsPerPage: rpp, sort: asc(s) }) });
  for (const s of opts.extraDesc ?? []) add({ name: `${group} sort ${s} desc`, as, pageEnd: true, path: (c) => q(base(c), { rowsPerPage: rpp, sort: desc(s) }) });
  for (const [label, f] of opts.filters ?? []) add({ name: `${group} filter ${label}`, as, path: (c) => q(base(c), { rowsPerPage: rpp, filter: f(c) }) });
  for (const s of opts.searches ?? []) add({ name: `${group} search '${s}'`, as, path: (c) => q(base(c), { rowsPerPage: rpp, search: s }) });
  add({ name: `${group} last page`, as, lastPage: true, pageEnd: true, path: (c) => q(base(c), { rowsPerPage: rpp }) });
  for (const s of opts.lastPageSorts ?? []) add({ name: `${group} last page sort ${s}`, as, lastPage: true, pageEnd: true, path: (c) => q(base(c), { rowsPerPage: rpp, sort: asc(s) }) });
}

// --- Session and reference --------------------------------------------------------------------
add({ name: 'logged', path: () => '/api/logged' });
add({ name: 'app info (public)', as: 'anonymous', path: () => '/api/app/info/get' });
for (const r of ['typeUser', 'typeAction', 'typeActionConstante', 'typeBac', 'typeComposteur', 'typeSite', 'ville'])
  add({ name: `${r} all`, path: () => `/api/${r}/get/all` });
add({ name: 'rues of a city', path: (c) => `/api/rues/get/all/${encodeURIComponent(c.streetCity)}` });
add({ name: 'annee all (years)', target: 10, path: () => '/api/admin/annee/get/all' });
add({ name: 'statut demandes', path: () => '/api/admin/statut/get/all/demandes/interventions' });
add({ name: 'statut sites', path: () => '/api/admin/statut/get/all/sites' });
add({ name: 'users actifs', path: () => '/api/admin/user/get/all/actif' });
add({ name: 'sites actifs (admin)', path: () => '/api/admin/site/get/all/actif' });
add({ name: 'sites actifs (provider)', as: 'provider', path: () => '/api/admin/site/get/all/actif' });
add({ name: 'sites actifs (referent)', as: 'referent', path: () => '/api/admin/site/get/all/actif' });
add({ name: 'sites of a user', path: (c) => `/api/admin/site/get/by/user/${c.referentId}` });
add({ name: 'user sites (dialog)', path: (c) => `/api/admin/user/get/sites/${c.referentId}` });
add({ name: 'users all sites', path: () => '/api/admin/user/get/all/sites' });
add({ name: 'referents of a site', path: (c) => `/api/admin/user/get/by/site/${c.busiestSite}` });

// --- Users, roles, composters, site types ------------------------------------------------------
list('users', () => '/api/admin/user/get/list/by/filters', {
  sorts: ['date', 'organisme', 'nom', 'prenom', 'email', 'tel', 'type', 'actif', 'emailValide'],
  extraDesc: ['nom', 'date'],
  lastPageSorts: ['date', 'organisme', 'prenom', 'email', 'tel', 'type', 'actif', 'emailValide'],
  filters: [
    ['date 2025', () => ({ date: '2025' })],
    ['date 12/0', () => ({ date: '12/0' })],
    ['organisme a', () => ({ organisme: 'a' })],
    ['organisme asso', () => ({ organisme: 'asso' })],
    ['nom l', () => ({ nom: 'l' })],
    ['nom le', () => ({ nom: 'le' })],
    ['prenom an', () => ({ prenom: 'an' })],
    ['email e', () => ({ email: 'e' })],
    ['email exemple', () => ({ email: 'exemple' })],
    ['tel 06', () => ({ tel: '06' })],
    ['type prestataire', () => ({ type: 'Prestataire' })],
  ],
  searches: ['e', 'le', 'gall'],
});
list('roles', () => '/api/admin/role/get/list/by/filters', { sorts: ['libelle'], filters: [['libelle ad', () => ({ libelle: 'ad' })]] });
add({ name: 'role ROLE_ADMIN (agents)', path: () => '/api/admin/role/get/1' });
add({ name: 'agents by name a', path: () => '/api/admin/agent/get/by/name?name=a' });
add({ name: 'agents by name le', path: () => '/api/admin/agent/get/by/name?name=le' });
list('typeComposteur', () => '/api/admin/typeComposteur/get/list/by/filters', {
  sorts: ['volume', 'precisions'],
  filters: [['volume 400', () => ({ volume: 400 })]],
  searches: ['b'],
});
list('typeSite', () => '/api/admin/typeSite/get/list/by/filters', { sorts: ['libelle', 'code'], filters: [['libelle q', () => ({ libelle: 'q' })]], searches: ['qu'] });

// --- Sites -------------------------------------------------------------------------------------
const SITE_SORTS = ['nom', 'ville', 'adresse', 'complement', 'typeSite', 'referent', 'volume', 'nbComposteurs', 'cadena', 'observations', 'statut', 'dateConvention', 'dateImplantation', 'dateInauguration'];
list('sites', () => '/api/admin/site/get/list/by/filters', {
  sorts: SITE_SORTS,
  extraDesc: ['nom', 'referent', 'dateConvention'],
  filters: [
    ['nom r', () => ({ nom: 'r' })],
    ['nom rés', () => ({ nom: 'rés' })],
    ['ville', (c) => ({ ville: [c.city] })],
    ['adresse ru', () => ({ adresse: 'ru' })],
    ['type quartier', () => ({ type: 'quartier' })],
    ['statut 2', () => ({ statut: [2] })],
  ],
  searches: ['e', 'le', 'résidence'],
});
add({ name: 'sites export (CSV)', kind: 'csv', path: () => '/api/admin/site/export' });
add({ name: "sites export search 'le' (CSV)", kind: 'csv', path: () => q('/api/admin/site/export', { search: 'le' }) });
add({ name: 'site get', path: (c) => `/api/admin/site/get/${c.busiestSite}` });
add({ name: 'demandeur get', path: (c) => `/api/admin/demandeur/get/${c.demandeurId}` });
add({ name: 'siteComposteurs by site (busiest)', target: 10, path: (c) => `/api/admin/siteComposteurs/get/by/site/${c.busiestSite}` });
add({ name: 'siteComposteurs by site (typical)', target: 10, path: (c) => `/api/admin/siteComposteurs/get/by/site/${c.typicalSite}` });
add({ name: 'siteComposteur get (busy cell)', target: 10, path: (c) => `/api/admin/siteComposteur/get/${c.busyCell}` });
add({ name: 'siteComposteur get (typical cell)', target: 10, path: (c) => `/api/admin/siteComposteur/get/${c.typicalCell}` });
add({ name: 'site sheet infos (admin)', path: (c) => `/api/admin/site/get/infos/pour/intervention/${c.busiestSite}` });
add({ name: 'site sheet infos (provider)', as: 'provider', path: (c) => `/api/admin/site/get/infos/pour/intervention/${c.typicalSite}` });

// --- Interventions -----------------------------------------------------------------------------
list('site table (public, busiest)', (c) => `/api/intervention/get/list/by/site/${c.busiestSite}`, {
  as: 'anonymous',
  sorts: ['date', 'action', 'typeBac', 'numeroBac'],
  filters: [
    ['date 12/0', () => ({ date: '12/0' })],
    ['date year', (c) => ({ date: String(c.year) })],
    ['action 6', () => ({ action: 6 })],
    ['typeBac 3', () => ({ typeBac: 3 })],
    ['numeroBac 2', () => ({ numeroBac: 2 })],
  ],
  searches: ['e', 'plein', 'arrosage', 'couvercle'],
  lastPageSorts: ['action', 'typeBac', 'numeroBac'],
});
// Observations are searched for who may record on the site: a provider may on every site.
add({ name: "site table (public, busiest) provider search 'couvercle'", as: 'provider', path: (c) => q(`/api/intervention/get/list/by/site/${c.busiestSite}`, { search: 'couvercle' }) });
add({ name: 'site table (public, typical) default', as: 'anonymous', path: (c) => `/api/intervention/get/list/by/site/${c.typicalSite}` });
list('interventions global', () => '/api/admin/intervention/get/list/by/filters', {
  sorts: ['date', 'site', 'intervenant', 'action', 'typeBac', 'numeroBac'],
  extraDesc: ['site', 'intervenant', 'action'],
  filters: [
    ['date 25/12/year', (c) => ({ date: `25/12/${c.year}` })],
    ['date 12/0', () => ({ date: '12/0' })],
    ['date year', (c) => ({ date: String(c.year) })],
    ['site busiest', (c) => ({ site: c.busiestSite })],
    ['site typical', (c) => ({ site: c.typicalSite })],
    ['action 6', () => ({ action: 6 })],
    ['action 18', () => ({ action: 18 })],
    ['site + action', (c) => ({ site: c.busiestSite, action: 6 })],
    ['site + date year', (c) => ({ site: c.busiestSite, date: String(c.year) })],
  ],
  // Common and rare labels (letters, a site word, a person, an action, a constant), free text, nothing.
  searches: ['e', 'le', 'ar', 'jardin', 'gall', 'arrosage', 'plein', 'couvercle', 'charniere', 'zzqx'],
  lastPageSorts: ['site', 'intervenant', 'action', 'typeBac', 'numeroBac'],
});
for (const s of ['arrosage', 'gall', 'couvercle', 'e']) {
  add({ name: `interventions global search '${s}' sort site`, path: () => q('/api/admin/intervention/get/list/by/filters', { search: s, sort: asc('site') }) });
}
add({ name: "interventions global search 'couvercle' last page", lastPage: true, path: () => q('/api/admin/intervention/get/list/by/filters', { search: 'couvercle' }) });
add({ name: "interventions of busiest site (admin) search 'e'", path: (c) => q('/api/admin/intervention/get/list/by/filters', { id: c.busiestSite, search: 'e' }) });
add({ name: "interventions of busiest site (admin) search 'couvercle'", path: (c) => q('/api/admin/intervention/get/list/by/filters', { id: c.busiestSite, search: 'couvercle' }) });
add({ name: 'interventions global 100 rows', path: () => q('/api/admin/intervention/get/list/by/filters', { rowsPerPage: 100 }) });
add({ name: 'interventions of busiest site (admin) default', path: (c) => q('/api/admin/intervention/get/list/by/filters', { id: c.busiestSite }) });
add({ name: 'interventions of busiest site (admin) last page', lastPage: true, path: (c) => q('/api/admin/intervention/get/list/by/filters', { id: c.busiestSite }) });
add({ name: 'interventions of busiest site (admin) action 6', path: (c) => q('/api/admin/intervention/get/list/by/filters', { id: c.busiestSite, filter: { action: 6 } }) });
add({ name: 'intervention get', path: (c) => `/api/admin/intervention/get/${c.interventionId}` });
add({ name: 'interventions export busiest site (CSV)', kind: 'csv', path: (c) => q('/api/admin/intervention/export', { filter: { site: c.busiestSite } }) });
add({ name: 'interventions export action 18 (CSV)', kind: 'csv', path: () => q('/api/admin/intervention/export', { filter: { action: 18 } }) });
add({ name: "interventions export search 'couvercle' (CSV)", kind: 'csv', path: () => q('/api/admin/intervention/export', { search: 'couvercle' }) });
add({ name: 'interventions export whole log (CSV)', kind: 'csv', maxRuns: 1, optIn: true, path: () => '/api/admin/intervention/export' });

// --- Requests ----------------------------------------------------------------------------------
list('requests pending (admin)', () => '/api/admin/demande/intervention/get/list', {
  sorts: ['site', 'dateEcheance'],
  extraDesc: ['dateEcheance'],
  filters: [['site busiest', (c) => ({ site: c.busiestSite })]],
  lastPageSorts: ['dateEcheance'],
});
add({ name: 'requests pending (provider) default', as: 'provider', path: () => '/api/admin/demande/intervention/get/list' });
list('requests history', () => '/api/admin/demande/intervention/get/all/by/filters', {
  sorts: ['dateCreation', 'actionProgrammee', 'dateEcheance', 'statut', 'dateAnnulation', 'site'],
  filters: [
    ['site busiest', (c) => ({ site: c.busiestSite })],
    ['statut 5', () => ({ statut: 5 })],
    ['actionProgrammee 14', () => ({ actionProgrammee: 14 })],
  ],
  // The history pages its first 10,000 requests: the last page, in every order, is the deepest.
  lastPageSorts: ['actionProgrammee', 'dateEcheance', 'statut', 'dateAnnulation', 'site'],
});

// --- Statistics --------------------------------------------------------------------------------
const SERIES = ['apportBroyat', 'distribution', 'transfert', 'retournement', 'reparation', 'arrosage', 'viderBac', 'tamisage'];
add({ name: 'stats providers', path: () => '/api/admin/stats/prestataire/get/all' });
for (const s of [...SERIES.map((x) => `/api/admin/${x}/get/by/mois`), '/api/admin/intervention/get/all/by/mois']) {
  const label = s.split('/')[3] === 'intervention' ? 'all interventions' : s.split('/')[3];
  add({ name: `stats ${label} network`, path: (c) => `${s}?annee=${c.year}` });
  add({ name: `stats ${label} site`, path: (c) => `${s}?annee=${c.year}&site=${c.busiestSite}` });
}
add({ name: 'stats all interventions network, provider', path: (c) => `/api/admin/intervention/get/all/by/mois?annee=${c.year}&prestataire=${c.providerId}` });
add({ name: 'stats temperature site', path: (c) => `/api/admin/temperature/get/by/mois?annee=${c.year}&site=${c.busiestSite}` });
add({ name: 'stats temperature typical site', path: (c) => `/api/admin/temperature/get/by/mois?annee=${c.year}&site=${c.typicalSite}` });
for (const k of ['all', 'apportBroyat', 'distribution', 'transfert', 'arrosage', 'viderBac', 'tamisage'])
  add({ name: `stats export ${k} by site (CSV)`, kind: 'csv', path: (c) => `/api/admin/intervention/export/${k}/by/site?annee=${c.year}` });
for (const k of ['all', 'arrosage'])
  add({ name: `stats export ${k} by site, provider (CSV)`, kind: 'csv', path: (c) => `/api/admin/intervention/export/${k}/by/site?annee=${c.year}&prestataire=${c.providerId}` });


// --- Yearly report -----------------------------------------------------------------------------
// The whole programme's year (every site's figures) answers under 150 ms; one site's like a list.
add({ name: 'yearly report programme', target: 150, path: (c) => `/api/admin/rapport/get/by/annee?annee=${c.year}` });
add({ name: 'yearly report site', path: (c) => `/api/admin/rapport/get/by/annee?annee=${c.year}&site=${c.busiestSite}` });
add({ name: 'yearly report programme (CSV)', kind: 'csv', target: 150, path: (c) => `/api/admin/rapport/export?annee=${c.year}` });

export const ROUTES: readonly RouteVariant[] = routes;

/** The routes the embedded (PGlite) figures repeat: lists, the site choice list, the yearly statistics exports and report. */
export const PGLITE_ROUTES =
  /^(interventions global (default|sort|filter site busiest|last page)|site table \(public, busiest\) default|sites default|sites actifs \(admin\)|users default|annee|siteComposteurs by site \(busiest\)|stats all interventions network|stats export|yearly report|logged)/;
