import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import { TEST_DRIVERS, createAccount, createTestApp, loggedAs } from '../../../../tests/helpers/test-app.js';

type Ctx = Awaited<ReturnType<typeof createTestApp>>;

/** The action catalogue's stats series column, written out by hand. */
const SERIES_ACTIONS: Record<string, number> = {
  apportBroyat: 12,
  distribution: 11,
  transfert: 3,
  retournement: 1,
  reparation: 14,
  arrosage: 15,
  viderBac: 4,
  tamisage: 17,
};
/** Actions whose value is litres (the catalogue's value column). */
const LITRE_ACTIONS = [3, 4, 10, 11, 12, 15, 17];
const MOIS = ['janvier', 'février', 'mars', 'avril', 'mai', 'juin', 'juillet', 'août', 'septembre', 'octobre', 'novembre', 'décembre'];
const ADMIN_ROLES = ['ROLE_ADMIN', 'ROLE_ADMIN_SITE', 'ROLE_ADMIN_USER', 'ROLE_ADMIN_ROLE', 'ROLE_ADMIN_COMPOSTEUR', 'ROLE_ADMIN_UPDATE', 'ROLE_ADMIN_DELETE'];

/** The Paris year and month of an instant, computed by the platform's time-zone data (not by SQL). */
const parisFormat = new Intl.DateTimeFormat('en-GB', { timeZone: 'Europe/Paris', year: 'numeric', month: 'numeric' });
function parisYearMonth(d: Date): [number, number] {
  const parts = parisFormat.formatToParts(d);
  return [Number(parts.find((p) => p.type === 'year')!.value), Number(parts.find((p) => p.type === 'month')!.value)];
}

interface Row {
  id?: number;
  date: Date;
  site: 'A' | 'B';
  cell: 'apport' | 'broyat' | 'maturation';
  action: number;
  valeur: number | null;
  by: 'prestataire' | 'referent';
}

function rand(seed: number) {
  let s = seed >>> 0;
  return () => {
    s = (s * 1664525 + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

/** The figures a series must show, counted here from the rows the test keeps. */
function expected(rows: Row[], series: string, annee: number, filter: { site?: 'A' | 'B'; by?: 'prestataire' } = {}) {
  const out = MOIS.map((mois_nom) => ({ mois_nom, nb: 0, quantite: 0 }));
  for (const r of rows) {
    const [y, m] = parisYearMonth(r.date);
    if (y !== annee) continue;
    if (filter.site && r.site !== filter.site) continue;
    if (filter.by && r.by !== filter.by) continue;
    if (series !== 'all' && SERIES_ACTIONS[series] !== r.action) continue;
    out[m - 1].nb++;
    if (LITRE_ACTIONS.includes(r.action)) out[m - 1].quantite += r.valeur ?? 0;
  }
  return out;
}

describe.each(TEST_DRIVERS)('statistics (%s)', (driver) => {
  let ctx: Ctx;
  let admin: Awaited<ReturnType<typeof loggedAs>>;
  let prestataireId: number;
  let referentId: number;
  const sites: Record<string, { id: number; cells: Record<string, { id: number; numero: number }> }> = {};
  const rows: Row[] = [];

  async function insert(list: Row[]) {
    const inserted = await ctx.db
      .insertInto('intervention')
      .values(
        list.map((r) => ({
          date: r.date,
          site_id: sites[r.site].id,
          site_composteur_id: sites[r.site].cells[r.cell].id,
          type_action_id: r.action,
          valeur_nombre: r.valeur,
          bac_destination_id: r.action === 3 ? sites[r.site].cells.maturation.id : null,
          intervenant_id: r.by === 'prestataire' ? prestataireId : referentId,
        })),
      )
      .returning('id')
      .execute();
    list.forEach((r, i) => (r.id = inserted[i].id));
    rows.push(...list);
  }

  const get = (url: string, cookie = admin.cookie) => ctx.app.inject({ url, headers: { cookie } });

  /** Every summary level must always equal a recount of the log. */
  async function expectSummaryEqualsRecount() {
    const levels: [string, string, string][] = [
      ['intervention_stats_mois', 'site_id, intervenant_id', 'site_id, intervenant_id'],
      ['intervention_stats_mois_reseau', 'bande', 'site_id % 16'],
    ];
    for (const [table, keys, from] of levels) {
      const diff = await sql<{ n: number }>`
        WITH recount AS (
          SELECT type_action_id, date_trunc('month', date AT TIME ZONE 'Europe/Paris')::date AS mois, ${sql.raw(from)},
                 count(*)::int AS nb, coalesce(sum(valeur_nombre), 0) AS quantite
            FROM intervention GROUP BY 1, 2, 3${sql.raw(keys.includes(',') ? ', 4' : '')}),
        summary AS (SELECT type_action_id, mois, ${sql.raw(keys)}, nb, quantite FROM ${sql.raw(table)})
        SELECT count(*)::int AS n FROM ((SELECT * FROM recount EXCEPT SELECT * FROM summary) UNION ALL (SELECT * FROM summary EXCEPT SELECT * FROM recount)) d`.execute(ctx.db);
      expect(diff.rows[0].n, table).toBe(0);
      const total = await sql<{ a: number; b: number }>`SELECT (SELECT count(*)::int FROM intervention) AS a, (SELECT coalesce(sum(nb), 0)::int FROM ${sql.raw(table)}) AS b`.execute(ctx.db);
      expect(total.rows[0].b, table).toBe(total.rows[0].a);
    }
    // The per-site monthly totals of the 'all' export.
    const siteMonths = await sql<{ n: number }>`
      WITH recount AS (SELECT date_trunc('month', date AT TIME ZONE 'Europe/Paris')::date AS mois, site_id, count(*)::int AS nb FROM intervention GROUP BY 1, 2),
      summary AS (SELECT mois, site_id, nb FROM intervention_stats_site_mois)
      SELECT count(*)::int AS n FROM ((SELECT * FROM recount EXCEPT SELECT * FROM summary) UNION ALL (SELECT * FROM summary EXCEPT SELECT * FROM recount)) d`.execute(ctx.db);
    expect(siteMonths.rows[0].n, 'intervention_stats_site_mois').toBe(0);
  }

  beforeAll(async () => {
    ctx = await createTestApp(driver);
    admin = await loggedAs(ctx, ['ROLE_ADMIN']);
    prestataireId = (await createAccount(ctx.db, { roles: ['ROLE_PRESTATAIRE'], typeUser: 3, nom: 'SERVICES' })).id;
    referentId = (await createAccount(ctx.db, { roles: ['ROLE_USER'] })).id;
    const typeSite = await ctx.db.selectFrom('type_site').select('id').where('code', '=', 'QUA').executeTakeFirstOrThrow();
    const composteur = await ctx.db.selectFrom('type_composteur').select('id').executeTakeFirstOrThrow();
    // A and B were recorded in February 2026 without an implantation date; C was installed in
    // 2024, E in March 2026; D is a requested site (status 2).
    for (const [key, code, ville, statut, implantation] of [
      ['A', 'QUA801', 'Brest', 1, null],
      ['B', 'QUA802', 'Guipavas', 1, null],
      ['C', 'QUA803', 'Plougastel-Daoulas', 1, '2024-05-01T08:00:00Z'],
      ['D', 'QUA804', 'Brest', 2, null],
      ['E', 'QUA805', 'Brest', 1, '2026-03-01T08:00:00Z'],
    ] as const) {
      const site = await ctx.db
        .insertInto('site')
        .values({
          code,
          nom: `Site ${key}`,
          ville,
          cp: '29200',
          adresse: 'Rue de Siam',
          type_site_id: typeSite.id,
          statut_id: statut,
          date_implantation: implantation,
          created_at: '2026-02-01T08:00:00Z',
        })
        .returning('id')
        .executeTakeFirstOrThrow();
      const cells: Record<string, { id: number; numero: number }> = {};
      for (const [name, typeBac, numero] of [['apport', 1, 1], ['broyat', 2, 2], ['maturation', 3, 3]] as const) {
        const c = await ctx.db.insertInto('site_composteur').values({ site_id: site.id, type_composteur_id: composteur.id, type_bac_id: typeBac, numero }).returning('id').executeTakeFirstOrThrow();
        cells[name] = { id: c.id, numero };
      }
      sites[key] = { id: site.id, cells };
    }
    // Time-zone boundaries, each with its Paris month written by hand in the comment.
    await insert([
      { date: new Date('2024-12-31T23:30:00Z'), site: 'A', cell: 'broyat', action: 12, valeur: 100, by: 'referent' }, // 1 Jan 2025 00:30: January 2025
      { date: new Date('2025-01-31T23:30:00Z'), site: 'A', cell: 'broyat', action: 12, valeur: 50, by: 'prestataire' }, // 1 Feb 00:30: February
      { date: new Date('2025-03-31T21:59:00Z'), site: 'A', cell: 'maturation', action: 11, valeur: 30, by: 'referent' }, // 31 Mar 23:59: March
      { date: new Date('2025-03-31T23:30:00Z'), site: 'A', cell: 'maturation', action: 11, valeur: 40, by: 'prestataire' }, // 1 Apr 01:30: April
      { date: new Date('2025-10-26T00:30:00Z'), site: 'B', cell: 'apport', action: 1, valeur: null, by: 'referent' }, // 02:30 CEST: October
      { date: new Date('2025-10-26T01:30:00Z'), site: 'B', cell: 'apport', action: 1, valeur: null, by: 'referent' }, // 02:30 CET: October
      { date: new Date('2025-10-31T23:30:00Z'), site: 'B', cell: 'apport', action: 3, valeur: 200, by: 'prestataire' }, // 1 Nov 00:30: November
      { date: new Date('2025-12-31T23:30:00Z'), site: 'B', cell: 'apport', action: 15, valeur: 20, by: 'referent' }, // 1 Jan 2026
      { date: new Date('2023-06-15T10:00:00Z'), site: 'B', cell: 'apport', action: 1, valeur: null, by: 'referent' }, // June 2023
    ]);
    // A year of mixed entries on both sites and by both intervenants.
    const r = rand(12);
    const plan: [number, Row['cell'], () => number | null][] = [
      [1, 'apport', () => null],
      [3, 'apport', () => 50 * (1 + Math.floor(r() * 6))],
      [4, 'maturation', () => Math.floor(r() * 500)],
      [6, 'apport', () => Math.round(r() * 600) / 10],
      [9, 'apport', () => null],
      [10, 'maturation', () => 5 * Math.floor(r() * 10)],
      [11, 'maturation', () => 25 * Math.floor(r() * 8)],
      [12, 'broyat', () => 25 * Math.floor(r() * 12)],
      [14, 'broyat', () => null],
      [15, 'maturation', () => 10 * Math.floor(r() * 5)],
      [17, 'maturation', () => 50 * Math.floor(r() * 4)],
    ];
    const year: Row[] = [];
    for (let i = 0; i < 240; i++) {
      const [action, cell, value] = plan[Math.floor(r() * plan.length)];
      const date = new Date(Date.UTC(2025, 0, 1) + r() * 364 * 24 * 3600 * 1000);
      year.push({ date, site: r() < 0.5 ? 'A' : 'B', cell, action, valeur: value(), by: r() < 0.4 ? 'prestataire' : 'referent' });
    }
    await insert(year);
    // Edited and deleted straight in SQL, as the edit and delete routes would.
    const edited = rows.find((x) => x.action === 12 && x.date.getUTCFullYear() === 2025 && x.date.getUTCMonth() >= 5)!;
    await ctx.db.updateTable('intervention').set({ type_action_id: 11, site_composteur_id: sites.B.cells.maturation.id, site_id: sites.B.id, valeur_nombre: 321, date: new Date('2025-08-31T22:30:00Z') }).where('id', '=', edited.id!).execute();
    Object.assign(edited, { action: 11, cell: 'maturation', site: 'B', valeur: 321, date: new Date('2025-08-31T22:30:00Z') }); // 1 Sep 00:30: September
    const deleted = rows.find((x) => x.action === 3 && x.date.getUTCFullYear() === 2025 && x.date.getUTCMonth() < 10)!;
    await ctx.db.deleteFrom('intervention').where('id', '=', deleted.id!).execute();
    rows.splice(rows.indexOf(deleted), 1);
  });
  afterAll(() => ctx?.close());

  it('answers every monthly series with the twelve Paris months counted from the log, network-wide, per site and per provider', async () => {
    for (const series of [...Object.keys(SERIES_ACTIONS), 'all']) {
      const path = series === 'all' ? '/api/admin/intervention/get/all/by/mois' : `/api/admin/${series}/get/by/mois`;
      for (const [query, filter] of [
        ['annee=2025', {}],
        [`annee=2025&site=${sites.A.id}`, { site: 'A' }],
        [`annee=2025&prestataire=${prestataireId}`, { by: 'prestataire' }],
        [`annee=2025&site=${sites.B.id}&prestataire=${prestataireId}`, { site: 'B', by: 'prestataire' }],
        [`annee=2026`, {}],
      ] as const) {
        const res = await get(`${path}?${query}`);
        expect(res.statusCode, `${series} ${query}`).toBe(200);
        expect(res.json(), `${series} ${query}`).toEqual(expected(rows, series, Number(query.slice(6, 10)), filter));
      }
    }
  });

  it('puts 23:30 UTC on 31 March in April, counts the repeated October hour once, and keeps the year in Paris time', async () => {
    const distribution = (await get(`/api/admin/distribution/get/by/mois?annee=2025&site=${sites.A.id}`)).json();
    expect(distribution[2]).toMatchObject({ mois_nom: 'mars' });
    expect(distribution[2].nb).toBeGreaterThanOrEqual(1);
    const retournement = (await get(`/api/admin/retournement/get/by/mois?annee=2025&site=${sites.B.id}`)).json();
    // The two October entries at 02:30 (before and after the clock change) plus the random ones.
    const octoberRandom = rows.filter((x) => x.site === 'B' && x.action === 1 && x.date > new Date('2025-10-01') && x.date < new Date('2025-10-26')).length
      + rows.filter((x) => x.site === 'B' && x.action === 1 && x.date > new Date('2025-10-26T02:00:00Z') && x.date < new Date('2025-10-31T23:00:00Z')).length;
    expect(retournement[9].nb).toBe(2 + octoberRandom);
    const arrosage2026 = (await get('/api/admin/arrosage/get/by/mois?annee=2026')).json();
    expect(arrosage2026[0]).toEqual({ mois_nom: 'janvier', nb: 1, quantite: 20 });
    const apport = (await get(`/api/admin/apportBroyat/get/by/mois?annee=2025&site=${sites.A.id}&prestataire=${prestataireId}`)).json();
    expect(apport[1].nb).toBeGreaterThanOrEqual(1); // 31 January 23:30 UTC is February
  });

  it('lists the temperature readings of one site with their cell number, oldest first', async () => {
    const res = await get(`/api/admin/temperature/get/by/mois?annee=2025&site=${sites.A.id}`);
    expect(res.statusCode).toBe(200);
    const want = rows
      .filter((x) => x.site === 'A' && x.action === 6 && parisYearMonth(x.date)[0] === 2025)
      .sort((a, b) => a.date.getTime() - b.date.getTime())
      .map((x) => ({ date: x.date.toISOString(), temp: x.valeur, numeroBac: 1 }));
    expect(want.length).toBeGreaterThan(0);
    expect(res.json()).toEqual(want);
    const byProvider = (await get(`/api/admin/temperature/get/by/mois?annee=2025&site=${sites.A.id}&prestataire=${prestataireId}`)).json();
    expect(byProvider).toEqual(want.filter((w) => rows.find((x) => x.date.toISOString() === w.date && x.action === 6)!.by === 'prestataire'));
    const noSite = await get('/api/admin/temperature/get/by/mois?annee=2025');
    expect(noSite.statusCode).toBe(400);
    expect(noSite.json().errors).toEqual([{ key: 'site', error: 'Choisissez un site' }]);
  });

  it('exports one row per site with the twelve months and the total, as a French CSV', async () => {
    const kinds: [string, number | null][] = [['all', null], ...Object.entries(SERIES_ACTIONS).filter(([k]) => !['retournement', 'reparation'].includes(k))];
    for (const [kind, action] of kinds) {
      const res = await get(`/api/admin/intervention/export/${kind}/by/site?annee=2025`);
      expect(res.statusCode, kind).toBe(200);
      expect(res.headers['content-type']).toMatch(/^text\/csv/);
      expect(res.headers['content-disposition']).toBe(`attachment; filename="export_${kind}_par_site_2025.csv"`);
      expect(res.body.startsWith('\uFEFF')).toBe(true);
      const lines = res.body.slice(1).trimEnd().split('\r\n').map((l) => l.split(';'));
      const unit = kind === 'all' ? '' : ' (L)';
      expect(lines[0]).toEqual(['Code', 'Nom', 'Ville', ...MOIS.map((m) => m[0].toUpperCase() + m.slice(1) + unit), `Total${unit}`]);
      expect(lines.slice(1).map((l) => l[0])).toEqual(['QUA801', 'QUA802', 'QUA803']);
      for (const [key, line] of [['A', lines[1]], ['B', lines[2]]] as const) {
        const months = MOIS.map(() => 0);
        for (const x of rows) {
          const [y, m] = parisYearMonth(x.date);
          if (y !== 2025 || x.site !== key || (action !== null && x.action !== action)) continue;
          months[m - 1] += action === null ? 1 : (x.valeur ?? 0);
        }
        expect(line.slice(3).map(Number), `${kind} ${key}`).toEqual([...months, months.reduce((a, b) => a + b, 0)]);
      }
      expect(lines[3]).toEqual(['QUA803', 'Site C', 'Plougastel-Daoulas', ...MOIS.map(() => '0'), '0']);
    }
  });

  it('lists in the yearly exports the sites active that year or with interventions in it, never a requested site without any', async () => {
    const codes = async (annee: number) =>
      (await get(`/api/admin/intervention/export/all/by/site?annee=${annee}`)).body
        .slice(1)
        .trimEnd()
        .split('\r\n')
        .slice(1)
        .map((l) => l.split(';')[0]);
    // A and B were recorded in 2026: in 2025 and 2023 they are listed for their interventions only.
    expect(await codes(2026)).toEqual(['QUA801', 'QUA802', 'QUA803', 'QUA805']);
    expect(await codes(2025)).toEqual(['QUA801', 'QUA802', 'QUA803']);
    expect(await codes(2023)).toEqual(['QUA802']);
    expect(await codes(2022)).toEqual([]);
  });

  it("counts only what the provider recorded when the screen's Prestataire is set", async () => {
    for (const [kind, action] of [['all', null], ['distribution', 11], ['apportBroyat', 12]] as const) {
      const res = await get(`/api/admin/intervention/export/${kind}/by/site?annee=2025&prestataire=${prestataireId}`);
      expect(res.statusCode).toBe(200);
      expect(res.headers['content-disposition']).toBe(`attachment; filename="export_${kind}_par_site_2025.csv"`);
      const lines = res.body.slice(1).trimEnd().split('\r\n').slice(1).map((l) => l.split(';'));
      expect(lines.map((l) => l[0])).toEqual(['QUA801', 'QUA802', 'QUA803']);
      for (const [key, line] of [['A', lines[0]], ['B', lines[1]]] as const) {
        const months = MOIS.map(() => 0);
        for (const x of rows) {
          const [y, m] = parisYearMonth(x.date);
          if (y !== 2025 || x.site !== key || x.by !== 'prestataire' || (action !== null && x.action !== action)) continue;
          months[m - 1] += action === null ? 1 : (x.valeur ?? 0);
        }
        expect(line.slice(3).map(Number), `${kind} ${key}`).toEqual([...months, months.reduce((a, b) => a + b, 0)]);
      }
    }
  });

  it('lists the Paris years that have interventions, newest first', async () => {
    const res = await get('/api/admin/annee/get/all');
    expect(res.json()).toEqual([{ annee: 2026 }, { annee: 2025 }, { annee: 2023 }]);
  });

  it('lists the provider accounts for the Prestataire select', async () => {
    const res = await get('/api/admin/stats/prestataire/get/all');
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual([expect.objectContaining({ id: prestataireId })]);
  });

  it('keeps the summary equal to a recount through inserts, edits, deletes and bulk statements', async () => {
    await expectSummaryEqualsRecount();
    const a = sites.A;
    // Bulk insert: one statement, 5 000 rows over two years, every action with litres or not.
    await sql`INSERT INTO intervention (date, site_id, site_composteur_id, type_action_id, valeur_nombre, intervenant_id)
      SELECT timestamptz '2024-01-01T00:00:00Z' + (g * interval '3 hours 7 minutes'), ${a.id}::int, ${a.cells.apport.id}::int, 1 + g % 19,
             CASE WHEN g % 3 = 0 THEN NULL ELSE g % 700 END, CASE WHEN g % 2 = 0 THEN ${prestataireId}::int ELSE ${referentId}::int END
        FROM generate_series(1, 5000) g`.execute(ctx.db);
    await expectSummaryEqualsRecount();
    // Bulk update of actions, values, dates and sites at once; then an edit that moves nothing counted.
    await sql`UPDATE intervention SET type_action_id = CASE WHEN type_action_id = 1 THEN 12 ELSE type_action_id END,
      valeur_nombre = coalesce(valeur_nombre, 0) + 1, date = date + interval '20 days', site_id = ${sites.B.id}::int
      WHERE id % 4 = 0`.execute(ctx.db);
    await sql`UPDATE intervention SET observations = 'vu' WHERE id % 5 = 0`.execute(ctx.db);
    await expectSummaryEqualsRecount();
    // Deletes: one row, then a bulk one.
    const one = await ctx.db.selectFrom('intervention').select('id').orderBy('id').limit(1).executeTakeFirstOrThrow();
    await ctx.db.deleteFrom('intervention').where('id', '=', one.id).execute();
    await sql`DELETE FROM intervention WHERE id % 3 = 0`.execute(ctx.db);
    await expectSummaryEqualsRecount();
    // A rolled-back insert leaves the summary untouched.
    await expect(
      ctx.db.transaction().execute(async (trx) => {
        await trx.insertInto('intervention').values({ date: new Date(), site_id: a.id, site_composteur_id: a.cells.apport.id, type_action_id: 1, intervenant_id: referentId }).execute();
        throw new Error('rollback');
      }),
    ).rejects.toThrow('rollback');
    await expectSummaryEqualsRecount();
    // Every row gone: the summary is empty and the years list falls back on the current year.
    await sql`DELETE FROM demande_intervention`.execute(ctx.db);
    await sql`DELETE FROM intervention`.execute(ctx.db);
    for (const t of ['intervention_stats_mois', 'intervention_stats_mois_reseau', 'intervention_stats_site_mois']) {
      expect((await sql<{ n: number }>`SELECT count(*)::int AS n FROM ${sql.raw(t)}`.execute(ctx.db)).rows[0].n, t).toBe(0);
    }
    const parisYear = Number(new Intl.DateTimeFormat('en', { timeZone: 'Europe/Paris', year: 'numeric' }).format(new Date()));
    expect((await get('/api/admin/annee/get/all')).json()).toEqual([{ annee: parisYear }]);
  });
});

describe.each(TEST_DRIVERS)('statistics guards and parameters (%s)', (driver) => {
  let ctx: Ctx;
  const urls = [
    ...Object.keys(SERIES_ACTIONS).map((s) => `/api/admin/${s}/get/by/mois?annee=2025`),
    '/api/admin/intervention/get/all/by/mois?annee=2025',
    '/api/admin/temperature/get/by/mois?annee=2025&site=1',
    '/api/admin/stats/prestataire/get/all',
    ...['all', 'apportBroyat', 'distribution', 'transfert', 'arrosage', 'viderBac', 'tamisage'].map((k) => `/api/admin/intervention/export/${k}/by/site?annee=2025`),
  ];
  beforeAll(async () => {
    ctx = await createTestApp(driver);
  });
  afterAll(() => ctx?.close());

  it('lets every ROLE_ADMIN* role in, refuses ROLE_USER, ROLE_PRESTATAIRE and no role with 403, and anonymous callers with 401', async () => {
    for (const url of urls) expect((await ctx.app.inject(url)).statusCode, url).toBe(401);
    for (const roles of [[], ['ROLE_USER'], ['ROLE_PRESTATAIRE']]) {
      const u = await loggedAs(ctx, roles);
      for (const url of urls) expect((await ctx.app.inject({ url, headers: { cookie: u.cookie } })).statusCode, `${roles} ${url}`).toBe(403);
    }
    for (const role of ADMIN_ROLES) {
      const u = await loggedAs(ctx, [role]);
      for (const url of urls) expect((await ctx.app.inject({ url, headers: { cookie: u.cookie } })).statusCode, `${role} ${url}`).toBe(200);
    }
  });

  it('answers 400 with French field errors, never 500, for a missing or bad year, site or provider', async () => {
    const u = await loggedAs(ctx, ['ROLE_ADMIN_COMPOSTEUR']);
    const bad: [string, string][] = [
      ['', 'annee'],
      ['annee=', 'annee'],
      ['annee=abc', 'annee'],
      ['annee=1999', 'annee'],
      ['annee=2101', 'annee'],
      ['annee=2025.5', 'annee'],
      ['annee=2147483648', 'annee'],
      ['annee=2025&site=0', 'site'],
      ['annee=2025&site=abc', 'site'],
      ['annee=2025&site=2147483648', 'site'],
      ['annee=2025&site=-1', 'site'],
      ['annee=2025&prestataire=0', 'prestataire'],
      ['annee=2025&prestataire=x', 'prestataire'],
      ['annee=2025&inconnu=1', ''],
    ];
    for (const path of ['/api/admin/tamisage/get/by/mois', '/api/admin/intervention/get/all/by/mois', '/api/admin/temperature/get/by/mois']) {
      for (const [query, key] of bad) {
        const res = await ctx.app.inject({ url: `${path}?${query}`, headers: { cookie: u.cookie } });
        expect(res.statusCode, `${path}?${query}`).toBe(400);
        if (key) expect(res.json().errors.map((e: { key: string }) => e.key), `${path}?${query}`).toContain(key);
      }
    }
    for (const query of ['', 'annee=0', 'annee=abc', 'annee=2025&site=1', 'annee=2025&prestataire=0', 'annee=2025&prestataire=x']) {
      const res = await ctx.app.inject({ url: `/api/admin/intervention/export/all/by/site?${query}`, headers: { cookie: u.cookie } });
      expect(res.statusCode, query).toBe(400);
    }
    // A well-formed id that matches nothing is simply an empty year.
    const none = await ctx.app.inject({ url: `/api/admin/arrosage/get/by/mois?annee=2025&site=2147483647&prestataire=2147483647`, headers: { cookie: u.cookie } });
    expect(none.statusCode).toBe(200);
    expect(none.json()).toEqual(MOIS.map((mois_nom) => ({ mois_nom, nb: 0, quantite: 0 })));
  });
});
