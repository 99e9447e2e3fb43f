// The yearly report through the API: figures computed by hand for a small programme (public
// reports, households and permanences included), the same figures as the statistics routes for
// the same year and site, a recount in plain SQL, the CSV, and who may read it.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import { TEST_DRIVERS, createAccount, createTestApp, loggedAs } from '../../../../tests/helpers/test-app.js';
import { createEquippedSite } from '../field-entry/test-factories.js';
import { STATS_SERIES } from '../../../shared/schemas/statistics.js';
import { REPORT_LITRES, type YearlyReport } from '../../../shared/schemas/yearly-report.js';
import { createYearlyReportService } from './yearly-report.service.js';
import { insertFoyer, insertPermanence, type FoyerStatut } from '../../../../tests/helpers/people-fixtures.js';

type Ctx = Awaited<ReturnType<typeof createTestApp>>;
type Logged = Awaited<ReturnType<typeof loggedAs>>;

describe.each(TEST_DRIVERS)('yearly report (%s)', (driver) => {
  let ctx: Ctx;
  let admin: Logged;
  let siteAdmin: Logged;
  let a: Awaited<ReturnType<typeof createEquippedSite>>;
  let b: Awaited<ReturnType<typeof createEquippedSite>>;
  let requested: Awaited<ReturnType<typeof createEquippedSite>>;

  const get = (url: string, cookie = admin.cookie) => ctx.app.inject({ method: 'GET', url, headers: { cookie } });
  const report = async (query: string) => {
    const res = await get(`/api/admin/rapport/get/by/annee?${query}`);
    expect(res.statusCode, res.body).toBe(200);
    return res.json() as YearlyReport;
  };

  async function log(site: { id: number }, cell: number, action: number, date: string, valeur: number | null = null, destination: number | null = null) {
    const r = await ctx.db
      .insertInto('intervention')
      .values({ date: new Date(date), site_id: site.id, site_composteur_id: cell, type_action_id: action, valeur_nombre: valeur, bac_destination_id: destination, intervenant_id: admin.id })
      .returning('id')
      .executeTakeFirstOrThrow();
    return r.id;
  }

  async function demande(site: { id: number }, cell: number, created: string, due: string, statut: number, processedAt?: string) {
    const realisee = processedAt ? await log(site, cell, 14, processedAt) : null;
    await ctx.db
      .insertInto('demande_intervention')
      .values({ site_id: site.id, site_composteur_id: cell, statut_id: statut, type_action_programmee_id: 14, date_creation: new Date(created), date_echeance: new Date(due), intervention_realisee_id: realisee })
      .execute();
  }

  const foyer = (site: { id: number }, statut: FoyerStatut, traite: string | null, personnes: number) => insertFoyer(ctx.db, site, statut, traite, personnes);
  const permanence = (site: { id: number }, debut: string, opts: Parameters<typeof insertPermanence>[3] = {}) => insertPermanence(ctx.db, site, debut, opts);

  beforeAll(async () => {
    ctx = await createTestApp(driver);
    admin = await loggedAs(ctx, ['ROLE_ADMIN']);
    siteAdmin = await loggedAs(ctx, ['ROLE_ADMIN_SITE']);
    const ref1 = await createAccount(ctx.db, { roles: ['ROLE_USER'] });
    const ref2 = await createAccount(ctx.db, { roles: ['ROLE_USER'] });
    const gone = await createAccount(ctx.db, { roles: ['ROLE_USER'], actif: false });
    a = await createEquippedSite(ctx.db, { referents: [ref1.id, ref2.id] });
    b = await createEquippedSite(ctx.db, { referents: [ref2.id, gone.id] });
    requested = await createEquippedSite(ctx.db, { statut: 2 });
    const future = await createEquippedSite(ctx.db);
    for (const [site, date] of [
      [a, '2025-03-01T10:00:00Z'],
      [b, '2025-06-01T10:00:00Z'],
      [requested, '2025-06-01T10:00:00Z'],
      [future, '2027-02-01T10:00:00Z'],
    ] as const) {
      await ctx.db.updateTable('site').set({ date_implantation: new Date(date) }).where('id', '=', site.id).execute();
    }

    await log(a, a.broyat, 12, '2026-01-10T09:00:00Z', 100);
    // 00:30 on 1 January in Paris: January 2026.
    await log(a, a.apport, 3, '2025-12-31T23:30:00Z', 200, a.maturation);
    await log(a, a.apport, 3, '2026-03-05T09:00:00Z', 300, a.maturation);
    await log(a, a.maturation, 4, '2026-06-02T09:00:00Z', 50);
    await log(a, a.maturation, 17, '2026-07-02T09:00:00Z', 80);
    await log(a, a.maturation, 11, '2026-08-02T09:00:00Z', 60);
    await log(a, a.apport, 1, '2026-02-02T09:00:00Z');
    await log(a, a.apport, 1, '2026-10-02T09:00:00Z');
    await log(a, a.maturation, 6, '2026-02-03T09:00:00Z', 45);
    await log(a, a.maturation, 6, '2026-04-03T09:00:00Z', 75);
    await log(a, a.maturation, 6, '2026-09-03T09:00:00Z', 5);
    await log(a, a.apport, 15, '2026-06-03T09:00:00Z', 20);
    // 00:30 on 1 January 2027 in Paris: not in 2026.
    await log(a, a.apport, 3, '2026-12-31T23:30:00Z', 999, a.maturation);
    await log(b, b.broyat, 12, '2026-05-10T09:00:00Z', 40);
    await log(b, b.apport, 1, '2026-05-11T09:00:00Z');
    await log(b, b.apport, 6, '2026-05-12T09:00:00Z', 50);

    // Requests raised in 2026: processed in 4 days, processed in 10 days after its due date,
    // cancelled, still pending past its due date; and one raised in 2025.
    await demande(a, a.apport, '2026-02-01T10:00:00Z', '2026-02-15T10:00:00Z', 5, '2026-02-05T10:00:00Z');
    await demande(a, a.apport, '2026-03-01T10:00:00Z', '2026-03-08T10:00:00Z', 5, '2026-03-11T10:00:00Z');
    await demande(a, a.apport, '2026-04-01T10:00:00Z', '2026-04-15T10:00:00Z', 6);
    await demande(b, b.apport, '2026-05-01T10:00:00Z', '2026-05-08T10:00:00Z', 3);
    await demande(b, b.apport, '2025-12-01T10:00:00Z', '2025-12-08T10:00:00Z', 3);

    // Reports from the public pages: 00:30 on 1 January 2026 in Paris is 2026, 00:30 on 1 January
    // 2027 is not; two reports with the same text are two reports.
    for (const [site, date, texte] of [
      [a, '2025-12-31T23:30:00Z', 'Bac plein'],
      [a, '2026-04-10T09:00:00Z', 'Odeurs'],
      [a, '2026-04-10T09:05:00Z', 'Odeurs'],
      [a, '2026-12-31T23:30:00Z', 'Bac plein'],
      [b, '2026-07-01T09:00:00Z', 'Couvercle cassé'],
      [b, '2025-06-01T09:00:00Z', 'Couvercle cassé'],
    ] as const) {
      await sql`INSERT INTO signalement_public (site_id, categorie, texte, reponse_demandee, created_at) VALUES (${site.id}, 'autre', ${texte}, false, ${new Date(date)})`.execute(ctx.db);
    }

    // Households at the end of 2026 (Paris midnight on 1 January 2027 is 23:00 UTC on 31 December).
    await foyer(a, 'confirme', '2026-03-01T10:00:00Z', 2); // counts
    await foyer(a, 'confirme', '2026-12-31T23:30:00Z', 5); // 1 January 2027 00:30: not yet
    await foyer(a, 'en_attente', null, 3); // never
    await foyer(b, 'confirme', '2025-06-01T10:00:00Z', 1); // counts
    await foyer(b, 'refuse', '2026-04-01T10:00:00Z', 4); // never
    await ctx.db
      .insertInto('foyer_depart')
      .values([
        { site_id: a.id, personnes: 3, confirme_le: new Date('2026-02-01T10:00:00Z'), parti_le: new Date('2026-07-01T10:00:00Z') }, // left mid-year
        { site_id: a.id, personnes: 4, confirme_le: new Date('2025-05-01T10:00:00Z'), parti_le: new Date('2026-12-31T23:30:00Z') }, // left in 2027: counts
      ])
      .execute();
    // Permanences of the Paris year 2026.
    await permanence(a, '2025-12-31T23:00:00Z', { kg: 3 }); // midnight on 1 January 2026: held
    await permanence(a, '2026-04-04T08:00:00Z', { kg: 10 }); // held
    await permanence(a, '2026-05-02T08:00:00Z', { kg: 6, estime: true }); // held, estimated
    await permanence(a, '2026-05-09T08:00:00Z', { annulee: true }); // cancelled
    await permanence(a, '2026-06-06T08:00:00Z'); // held, no tally
    await permanence(a, '2025-12-20T09:00:00Z', { kg: 50 }); // another year
    await permanence(b, '2026-10-25T01:30:00Z', { kg: 4.5, estime: true }); // 02:30 CET after the change to winter time: held
    await permanence(b, '2026-07-01T08:00:00Z', { annulee: true }); // cancelled
    await permanence(requested, '2026-09-05T08:00:00Z', { annulee: true }); // cancelled: lists the requested site
  }, 120_000);
  afterAll(() => ctx?.close());

  it('gives the programme and each active or busy site their figures of the Paris year', async () => {
    const r = await report('annee=2026');
    expect(r.site).toBeNull();
    // The requested site is listed for its cancelled permanence only.
    expect(r.sites.map((s) => s.id).sort()).toEqual([a.id, b.id, requested.id].sort());
    expect(r.ensemble).toMatchObject({
      interventions: 17,
      litres: { apportBroyat: 140, transfert: 500, viderBac: 50, tamisage: 80, distribution: 60 },
      kgTransferes: 250,
      temperatures: { releves: 4, auDessus: 1, auDessous: 1 },
      demandes: { creees: 4, realisees: 2, annulees: 1, enAttente: 1, enRetard: 2, delaiMedianJours: 7 },
      sitesActifs: 2,
      sitesAvecInterventions: 2,
      referents: 2,
      signalements: 4,
    });
    expect(r.ensemble.interventionsParMois).toEqual([2, 3, 2, 1, 3, 2, 1, 1, 1, 1, 0, 0]);
    expect(r.ensemble.litresParMois.transfert).toEqual([200, 0, 300, 0, 0, 0, 0, 0, 0, 0, 0, 0]);

    const pageA = r.sites.find((s) => s.id === a.id)!;
    expect(pageA.figures).toMatchObject({
      interventions: 14,
      litres: { apportBroyat: 100, transfert: 500, viderBac: 50, tamisage: 80, distribution: 60 },
      kgTransferes: 250,
      temperatures: { releves: 3, auDessus: 1, auDessous: 1 },
      demandes: { creees: 3, realisees: 2, annulees: 1, enAttente: 0, enRetard: 1, delaiMedianJours: 7 },
      sitesActifs: 1,
      referents: 2,
      signalements: 3,
    });
    expect(pageA.figures.parAction.map((p) => [p.idAction, p.nb])).toEqual([
      [6, 3],
      [1, 2],
      [3, 2],
      [14, 2],
      [4, 1],
      [11, 1],
      [12, 1],
      [15, 1],
      [17, 1],
    ]);
    expect(pageA.figures.parAction[0].libelle).toBe('Température');
    const pageB = r.sites.find((s) => s.id === b.id)!;
    expect(pageB.figures).toMatchObject({ interventions: 3, referents: 1, signalements: 1, demandes: { creees: 1, enAttente: 1, enRetard: 1, delaiMedianJours: null } });
  });

  it('counts the households at the end of the Paris year, the permanences held and cancelled, and the kilos of their tallies', async () => {
    const r = await report('annee=2026');
    const people = (f: YearlyReport['ensemble'] | YearlyReport['sites'][number]['figures']) => ({
      foyers: f.foyers,
      personnes: f.personnes,
      permanences: f.permanences,
      permanencesAnnulees: f.permanencesAnnulees,
      kgDetournes: f.kgDetournes,
      kgEstimes: f.kgEstimes,
    });
    expect(people(r.ensemble)).toEqual({ foyers: 3, personnes: 7, permanences: 5, permanencesAnnulees: 3, kgDetournes: 23.5, kgEstimes: 10.5 });
    const page = (id: number) => people(r.sites.find((s) => s.id === id)!.figures);
    expect(page(a.id)).toEqual({ foyers: 2, personnes: 6, permanences: 4, permanencesAnnulees: 1, kgDetournes: 19, kgEstimes: 6 });
    expect(page(b.id)).toEqual({ foyers: 1, personnes: 1, permanences: 1, permanencesAnnulees: 1, kgDetournes: 4.5, kgEstimes: 4.5 });
    expect(page(requested.id)).toEqual({ foyers: 0, personnes: 0, permanences: 0, permanencesAnnulees: 1, kgDetournes: 0, kgEstimes: 0 });
    // One site chosen: its own figures.
    expect(people((await report(`annee=2026&site=${a.id}`)).ensemble)).toEqual(page(a.id));
    // 2025: the households there at its end, its one permanence.
    expect(people((await report('annee=2025')).ensemble)).toEqual({ foyers: 2, personnes: 5, permanences: 1, permanencesAnnulees: 0, kgDetournes: 50, kgEstimes: 0 });
  });

  it('counts a permanence as held once it has started, and no household in a year not begun', async () => {
    const service = createYearlyReportService(ctx.db);
    // On 5 May 2026, 1 January, 4 April and 2 May have been held; 6 June not yet.
    const may = await service.report({ annee: 2026 }, new Date('2026-05-05T00:00:00Z'));
    expect(may.ensemble).toMatchObject({ permanences: 3, permanencesAnnulees: 3, foyers: 3 });
    expect(may.sites.find((s) => s.id === a.id)!.figures.permanences).toBe(3);
    // 23:59 on 31 December 2025 in Paris: 2026 has not begun.
    const before = await service.report({ annee: 2026 }, new Date('2025-12-31T22:59:00Z'));
    expect(before.ensemble).toMatchObject({ permanences: 0, foyers: 0, personnes: 0 });
  });

  it('gives per site and in all the figures of a recount in plain SQL, and those of the statistics series', async () => {
    const r = await report('annee=2026');
    const inYear = sql`to_char(debut AT TIME ZONE 'Europe/Paris', 'YYYY') = '2026'`;
    for (const site of [undefined, a.id, b.id, requested.id]) {
      const where = site === undefined ? sql`true` : sql`site_id = ${site}`;
      const recount = await sql<{ foyers: number; personnes: number; tenues: number; annulees: number; kg: string | number; estimes: string | number }>`
        SELECT (SELECT count(*)::int FROM foyer WHERE ${where} AND statut = 'confirme' AND (traite_le AT TIME ZONE 'Europe/Paris') < '2027-01-01')
             + (SELECT count(*)::int FROM foyer_depart WHERE ${where} AND (confirme_le AT TIME ZONE 'Europe/Paris') < '2027-01-01' AND (parti_le AT TIME ZONE 'Europe/Paris') >= '2027-01-01') AS foyers,
               (SELECT coalesce(sum(personnes), 0)::int FROM foyer WHERE ${where} AND statut = 'confirme' AND (traite_le AT TIME ZONE 'Europe/Paris') < '2027-01-01')
             + (SELECT coalesce(sum(personnes), 0)::int FROM foyer_depart WHERE ${where} AND (confirme_le AT TIME ZONE 'Europe/Paris') < '2027-01-01' AND (parti_le AT TIME ZONE 'Europe/Paris') >= '2027-01-01') AS personnes,
               (SELECT count(*)::int FROM permanence WHERE ${where} AND ${inYear} AND annulee_le IS NULL AND debut <= now()) AS tenues,
               (SELECT count(*)::int FROM permanence WHERE ${where} AND ${inYear} AND annulee_le IS NOT NULL) AS annulees,
               (SELECT coalesce(sum(bilan_kg), 0) FROM permanence WHERE ${where} AND ${inYear} AND annulee_le IS NULL) AS kg,
               (SELECT coalesce(sum(bilan_kg), 0) FROM permanence WHERE ${where} AND ${inYear} AND annulee_le IS NULL AND bilan_kg_estime) AS estimes`.execute(ctx.db);
      const want = recount.rows[0];
      const f = site === undefined ? r.ensemble : r.sites.find((s) => s.id === site)!.figures;
      expect({ foyers: f.foyers, personnes: f.personnes, permanences: f.permanences, permanencesAnnulees: f.permanencesAnnulees, kgDetournes: f.kgDetournes, kgEstimes: f.kgEstimes }, String(site)).toEqual({
        foyers: want.foyers,
        personnes: want.personnes,
        permanences: want.tenues,
        permanencesAnnulees: want.annulees,
        kgDetournes: Number(want.kg),
        kgEstimes: Number(want.estimes),
      });
      // The statistics series of the same year and site: December's households, the year's kilos.
      const query = `annee=2026${site === undefined ? '' : `&site=${site}`}`;
      const kilos = (await get(`/api/admin/kgDetournes/get/by/mois?${query}`)).json() as { kg: number; kgEstimes: number }[];
      expect(f.kgDetournes).toBeCloseTo(kilos.reduce((x, m) => x + m.kg, 0), 6);
      expect(f.kgEstimes).toBeCloseTo(kilos.reduce((x, m) => x + m.kgEstimes, 0), 6);
      const households = (await get(`/api/admin/foyers/get/by/mois?${query}`)).json() as { nb: number; personnes: number }[];
      const lastBegun = households[Number(new Intl.DateTimeFormat('en', { timeZone: 'Europe/Paris', month: 'numeric' }).format(new Date())) - 1];
      if (Number(new Intl.DateTimeFormat('en', { timeZone: 'Europe/Paris', year: 'numeric' }).format(new Date())) > 2026) {
        expect(households[11]).toEqual({ mois_nom: 'décembre', nb: f.foyers, personnes: f.personnes });
      } else {
        // 2026 is still running: this month's end is the latest one the series gives.
        expect({ nb: lastBegun.nb, personnes: lastBegun.personnes }).toEqual({ nb: f.foyers, personnes: f.personnes });
      }
    }
    // The programme's figures are the sum of the sites' pages.
    for (const key of ['foyers', 'personnes', 'permanences', 'permanencesAnnulees', 'kgDetournes', 'kgEstimes'] as const) {
      expect(r.sites.reduce((x, s) => x + s.figures[key], 0), key).toBeCloseTo(r.ensemble[key], 6);
    }
  });

  it('shows for the programme and for each site the same figures as the statistics routes', async () => {
    for (const site of [undefined, a.id, b.id]) {
      const query = `annee=2026${site === undefined ? '' : `&site=${site}`}`;
      const r = await report(query);
      const figures = r.ensemble;
      const series = async (path: string) => (await get(`/api/admin/${path}?${query}`)).json() as { nb: number; quantite: number }[];
      const all = await series('intervention/get/all/by/mois');
      expect(figures.interventionsParMois).toEqual(all.map((m) => m.nb));
      expect(figures.interventions).toBe(all.reduce((x, m) => x + m.nb, 0));
      for (const name of REPORT_LITRES) {
        const months = await series(`${name}/get/by/mois`);
        expect(figures.litresParMois[name]).toEqual(months.map((m) => m.quantite));
        expect(figures.litres[name], name).toBe(months.reduce((x, m) => x + m.quantite, 0));
      }
      for (const name of STATS_SERIES.filter((s) => s === 'retournement' || s === 'reparation')) {
        const id = name === 'retournement' ? 1 : 14;
        const total = (await series(`${name}/get/by/mois`)).reduce((x, m) => x + m.nb, 0);
        expect(figures.parAction.find((p) => p.idAction === id)?.nb ?? 0, name).toBe(total);
      }
      if (site !== undefined) {
        const readings = (await get(`/api/admin/temperature/get/by/mois?${query}`)).json() as unknown[];
        expect(figures.temperatures.releves).toBe(readings.length);
        // The site's page of the whole programme's report holds the same figures.
        const page = (await report('annee=2026')).sites.find((s) => s.id === site)!;
        expect(page.figures.interventionsParMois).toEqual(figures.interventionsParMois);
        expect(page.figures.litres).toEqual(figures.litres);
        expect(page.figures.parAction).toEqual(figures.parAction);
        expect(page.figures.temperatures).toEqual(figures.temperatures);
      }
    }
  });

  it('exports the same figures as CSV: BOM, semicolons, French headers, dd/MM/yyyy dates, one row for the programme and one per site', async () => {
    const res = await get('/api/admin/rapport/export?annee=2026', siteAdmin.cookie);
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('text/csv; charset=utf-8');
    expect(res.headers['content-disposition']).toBe('attachment; filename="rapport_annuel_2026.csv"');
    expect(res.body.startsWith('\uFEFF')).toBe(true);
    const lines = res.body.slice(1).trimEnd().split('\r\n');
    const header = lines[0].split(';');
    expect(header.slice(0, 6)).toEqual(['Code', 'Nom', 'Ville', "Date d'implantation", 'Interventions', 'Interventions : Retournement']);
    expect(header).toContain('Transféré en maturation (L)');
    expect(header).toContain('Relevés au-dessus de 70 °C');
    expect(header).toContain('Délai médian de réalisation (jours)');
    expect(lines).toHaveLength(5);
    const cell = (line: string, name: string) => line.split(';')[header.indexOf(name)];
    expect(cell(lines[1], 'Code')).toBe('Programme');
    expect(cell(lines[1], 'Interventions')).toBe('17');
    expect(cell(lines[1], "Biodéchets détournés estimés d'après les transferts (kg)")).toBe('250');
    expect(cell(lines[1], 'Signalements du public')).toBe('4');
    expect(cell(lines[1], 'Foyers participants')).toBe('3');
    expect(cell(lines[1], 'Personnes des foyers')).toBe('7');
    expect(cell(lines[1], 'Permanences tenues')).toBe('5');
    expect(cell(lines[1], 'Permanences annulées')).toBe('3');
    expect(cell(lines[1], 'Biodéchets détournés aux permanences (kg)')).toBe('23,5');
    expect(cell(lines[1], 'Biodéchets détournés aux permanences, dont estimés (kg)')).toBe('10,5');
    const rowA = lines.find((l) => l.startsWith(`${a.code};`))!;
    expect(cell(rowA, "Date d'implantation")).toBe('01/03/2025');
    expect(cell(rowA, 'Interventions : Température')).toBe('3');
    expect(cell(rowA, 'Transféré en maturation (L)')).toBe('500');
    expect(cell(rowA, 'Signalements du public')).toBe('3');
    expect(cell(rowA, 'Foyers participants')).toBe('2');
    expect(cell(rowA, 'Permanences tenues')).toBe('4');
    expect(cell(rowA, 'Biodéchets détournés aux permanences (kg)')).toBe('19');

    const one = await get(`/api/admin/rapport/export?annee=2026&site=${b.id}`);
    expect(one.headers['content-disposition']).toBe(`attachment; filename="rapport_annuel_2026_${b.code}.csv"`);
    expect(one.body.slice(1).trimEnd().split('\r\n')).toHaveLength(2);
  });

  it('is for administrators and site administrators, and refuses a bad year or an unknown site', async () => {
    expect((await get('/api/admin/rapport/get/by/annee?annee=2026', siteAdmin.cookie)).statusCode).toBe(200);
    const other = await loggedAs(ctx, ['ROLE_ADMIN_USER']);
    expect((await get('/api/admin/rapport/get/by/annee?annee=2026', other.cookie)).statusCode).toBe(403);
    const bad = await get('/api/admin/rapport/get/by/annee?annee=abc&site=0&x=1');
    expect(bad.statusCode).toBe(400);
    expect(bad.json().errors.map((e: { key: string }) => e.key).sort()).toEqual(['annee', 'querystring', 'site']);
    const missing = await get('/api/admin/rapport/get/by/annee?annee=2026&site=2147483647');
    expect(missing.statusCode).toBe(404);
    expect(missing.json().message).toBe('Site introuvable');
  });
});
