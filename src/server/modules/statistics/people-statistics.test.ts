// The two monthly series of the people around the sites: households taking part at each Paris
// month's end, and the kilos of the permanences' tallies. The fixture puts each row on a
// time-zone or rule boundary; the figures expected are written out by hand from the rules, and
// checked against a recount in plain SQL.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import { TEST_DRIVERS, createTestApp, loggedAs } from '../../../../tests/helpers/test-app.js';
import { createSite } from '../field-entry/test-factories.js';
import { createStatisticsRepository } from './statistics.repository.js';
import { insertFoyer, insertPermanence, type FoyerStatut } from '../../../../tests/helpers/people-fixtures.js';

type Ctx = Awaited<ReturnType<typeof createTestApp>>;

const MOIS = ['janvier', 'février', 'mars', 'avril', 'mai', 'juin', 'juillet', 'août', 'septembre', 'octobre', 'novembre', 'décembre'];
const foyerMonths = (nb: number[], personnes: number[]) => MOIS.map((mois_nom, i) => ({ mois_nom, nb: nb[i], personnes: personnes[i] }));
const kgMonths = (figures: Record<number, [number, number, number]>) =>
  MOIS.map((mois_nom, i) => ({ mois_nom, kg: figures[i + 1]?.[0] ?? 0, kgEstimes: figures[i + 1]?.[1] ?? 0, permanences: figures[i + 1]?.[2] ?? 0 }));

describe.each(TEST_DRIVERS)('statistics of households and kilos diverted (%s)', (driver) => {
  let ctx: Ctx;
  let cookie: string;
  let a: { id: number };
  let b: { id: number };
  const get = (url: string, c = cookie) => ctx.app.inject({ url, headers: { cookie: c } });

  const foyer = (site: { id: number }, statut: FoyerStatut, traite: string | null, personnes: number) => insertFoyer(ctx.db, site, statut, traite, personnes);
  const permanence = (site: { id: number }, debut: string, opts: Parameters<typeof insertPermanence>[3] = {}) => insertPermanence(ctx.db, site, debut, opts);

  beforeAll(async () => {
    ctx = await createTestApp(driver);
    cookie = (await loggedAs(ctx, ['ROLE_ADMIN_COMPOSTEUR'])).cookie;
    a = await createSite(ctx.db);
    b = await createSite(ctx.db);

    // Households. Each comment gives the Paris time and the month-ends the row counts at in 2025.
    await foyer(a, 'confirme', '2025-01-31T23:30:00Z', 3); // 1 Feb 00:30: February to December
    await foyer(a, 'confirme', '2025-01-15T10:00:00Z', 2); // January to December
    await foyer(a, 'en_attente', null, 4); // never
    await foyer(a, 'refuse', '2025-02-01T10:00:00Z', 5); // never
    await foyer(b, 'confirme', '2025-10-31T23:30:00Z', 6); // 1 Nov 00:30: November, December
    await foyer(b, 'confirme', '2026-01-05T10:00:00Z', 1); // 2026 only
    // Households that left: June ends at 22:00 UTC, so a departure at 22:30 UTC (1 July) is after
    // it; March ends at 22:00 UTC, so a departure at 21:30 UTC (23:30 on 31 March) is before it.
    await ctx.db
      .insertInto('foyer_depart')
      .values([
        { site_id: a.id, personnes: 1, confirme_le: new Date('2025-03-10T10:00:00Z'), parti_le: new Date('2025-06-30T22:30:00Z') }, // March to June
        { site_id: b.id, personnes: 2, confirme_le: new Date('2024-11-05T10:00:00Z'), parti_le: new Date('2025-03-31T21:30:00Z') }, // January, February
      ])
      .execute();

    // Permanences, with the Paris month each falls in.
    await permanence(a, '2025-03-31T21:30:00Z', { kg: 12.5 }); // 31 Mar 23:30: March
    await permanence(a, '2025-03-31T22:30:00Z', { kg: 8, estime: true }); // 1 Apr 00:30: April
    await permanence(a, '2025-04-20T08:00:00Z', { kg: 6.5 }); // April
    await permanence(a, '2025-04-12T08:00:00Z', { kg: 100, annulee: true }); // cancelled: never counted
    await permanence(a, '2025-05-10T08:00:00Z', { annulee: true }); // cancelled, no tally
    await permanence(b, '2025-10-26T01:30:00Z', { kg: 20.25 }); // 02:30 CET, after the change to winter time: October
    await permanence(b, '2025-06-10T16:00:00Z'); // held, no tally yet: not counted
    await permanence(b, '2025-12-31T23:30:00Z', { kg: 7, estime: true }); // 1 Jan 2026 00:30: January 2026
  }, 120_000);
  afterAll(() => ctx?.close());

  it('counts the households taking part at the end of each Paris month, network-wide and per site', async () => {
    const network = await get('/api/admin/foyers/get/by/mois?annee=2025');
    expect(network.statusCode, network.body).toBe(200);
    expect(network.json()).toEqual(foyerMonths([2, 3, 3, 3, 3, 3, 2, 2, 2, 2, 3, 3], [4, 7, 6, 6, 6, 6, 5, 5, 5, 5, 11, 11]));
    expect((await get(`/api/admin/foyers/get/by/mois?annee=2025&site=${a.id}`)).json()).toEqual(
      foyerMonths([1, 2, 3, 3, 3, 3, 2, 2, 2, 2, 2, 2], [2, 5, 6, 6, 6, 6, 5, 5, 5, 5, 5, 5]),
    );
    expect((await get(`/api/admin/foyers/get/by/mois?annee=2025&site=${b.id}`)).json()).toEqual(
      foyerMonths([1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 1, 1], [2, 2, 0, 0, 0, 0, 0, 0, 0, 0, 6, 6]),
    );
  });

  it('gives nothing for a month that has not begun', async () => {
    const repo = createStatisticsRepository(ctx.db);
    // On 15 March 2026 (Paris), January to March have begun: the four confirmed households are there.
    expect(await repo.households({ annee: 2026 }, new Date('2026-03-15T12:00:00Z'))).toEqual(foyerMonths([4, 4, 4, 0, 0, 0, 0, 0, 0, 0, 0, 0], [12, 12, 12, 0, 0, 0, 0, 0, 0, 0, 0, 0]));
    // Midnight on 1 April in Paris is 22:00 UTC on 31 March: April has begun.
    expect((await repo.households({ annee: 2026 }, new Date('2026-03-31T22:00:00Z')))[3]).toEqual({ mois_nom: 'avril', nb: 4, personnes: 12 });
    const nextYear = Number(new Intl.DateTimeFormat('en', { timeZone: 'Europe/Paris', year: 'numeric' }).format(new Date())) + 1;
    expect((await get(`/api/admin/foyers/get/by/mois?annee=${nextYear}`)).json()).toEqual(foyerMonths(new Array(12).fill(0), new Array(12).fill(0)));
  });

  it('adds up the kilos of the tallies of the permanences held in each Paris month, estimates apart', async () => {
    const network = await get('/api/admin/kgDetournes/get/by/mois?annee=2025');
    expect(network.statusCode, network.body).toBe(200);
    expect(network.json()).toEqual(kgMonths({ 3: [12.5, 0, 1], 4: [14.5, 8, 2], 10: [20.25, 0, 1] }));
    expect((await get(`/api/admin/kgDetournes/get/by/mois?annee=2025&site=${a.id}`)).json()).toEqual(kgMonths({ 3: [12.5, 0, 1], 4: [14.5, 8, 2] }));
    expect((await get(`/api/admin/kgDetournes/get/by/mois?annee=2025&site=${b.id}`)).json()).toEqual(kgMonths({ 10: [20.25, 0, 1] }));
    expect((await get('/api/admin/kgDetournes/get/by/mois?annee=2026')).json()).toEqual(kgMonths({ 1: [7, 7, 1] }));
  });

  it('equals a recount in plain SQL for every site and the network', async () => {
    for (const site of [undefined, a.id, b.id]) {
      const where = site === undefined ? sql`true` : sql`site_id = ${site}`;
      const query = `annee=2025${site === undefined ? '' : `&site=${site}`}`;
      const kilos = (await get(`/api/admin/kgDetournes/get/by/mois?${query}`)).json() as { kg: number; kgEstimes: number; permanences: number }[];
      const households = (await get(`/api/admin/foyers/get/by/mois?${query}`)).json() as { nb: number; personnes: number }[];
      for (let m = 1; m <= 12; m++) {
        const recount = await sql<{ kg: string | number; estimes: string | number; n: number; foyers: number; personnes: number }>`
          SELECT (SELECT coalesce(sum(bilan_kg), 0) FROM permanence WHERE ${where} AND annulee_le IS NULL AND bilan_le IS NOT NULL
                    AND to_char(debut AT TIME ZONE 'Europe/Paris', 'YYYY-MM') = ${`2025-${String(m).padStart(2, '0')}`}) AS kg,
                 (SELECT coalesce(sum(bilan_kg), 0) FROM permanence WHERE ${where} AND annulee_le IS NULL AND bilan_kg_estime
                    AND to_char(debut AT TIME ZONE 'Europe/Paris', 'YYYY-MM') = ${`2025-${String(m).padStart(2, '0')}`}) AS estimes,
                 (SELECT count(*)::int FROM permanence WHERE ${where} AND annulee_le IS NULL AND bilan_le IS NOT NULL
                    AND to_char(debut AT TIME ZONE 'Europe/Paris', 'YYYY-MM') = ${`2025-${String(m).padStart(2, '0')}`}) AS n,
                 (SELECT count(*)::int FROM foyer WHERE ${where} AND statut = 'confirme' AND (traite_le AT TIME ZONE 'Europe/Paris') < make_date(2025, ${m}::int, 1) + interval '1 month')
                 + (SELECT count(*)::int FROM foyer_depart WHERE ${where} AND (confirme_le AT TIME ZONE 'Europe/Paris') < make_date(2025, ${m}::int, 1) + interval '1 month'
                    AND (parti_le AT TIME ZONE 'Europe/Paris') >= make_date(2025, ${m}::int, 1) + interval '1 month') AS foyers,
                 (SELECT coalesce(sum(personnes), 0)::int FROM foyer WHERE ${where} AND statut = 'confirme' AND (traite_le AT TIME ZONE 'Europe/Paris') < make_date(2025, ${m}::int, 1) + interval '1 month')
                 + (SELECT coalesce(sum(personnes), 0)::int FROM foyer_depart WHERE ${where} AND (confirme_le AT TIME ZONE 'Europe/Paris') < make_date(2025, ${m}::int, 1) + interval '1 month'
                    AND (parti_le AT TIME ZONE 'Europe/Paris') >= make_date(2025, ${m}::int, 1) + interval '1 month') AS personnes`.execute(ctx.db);
        const r = recount.rows[0];
        expect(kilos[m - 1], `${query} ${m}`).toEqual({ mois_nom: MOIS[m - 1], kg: Number(r.kg), kgEstimes: Number(r.estimes), permanences: r.n });
        expect(households[m - 1], `${query} ${m}`).toEqual({ mois_nom: MOIS[m - 1], nb: r.foyers, personnes: r.personnes });
      }
    }
  });

  it('refuses a provider filter, which these figures do not depend on, and the usual bad parameters', async () => {
    for (const series of ['foyers', 'kgDetournes']) {
      const withProvider = await get(`/api/admin/${series}/get/by/mois?annee=2025&prestataire=5`);
      expect(withProvider.statusCode).toBe(400);
      expect(withProvider.json().errors).toEqual([{ key: 'prestataire', error: 'Ces chiffres ne dépendent pas du prestataire : retirez ce filtre' }]);
      const bad = await get(`/api/admin/${series}/get/by/mois?annee=abc&site=0`);
      expect(bad.statusCode).toBe(400);
      expect(bad.json().errors.map((e: { key: string }) => e.key).sort()).toEqual(['annee', 'site']);
      // A site that does not exist is an empty year, as for the other series.
      expect((await get(`/api/admin/${series}/get/by/mois?annee=2025&site=2147483647`)).statusCode).toBe(200);
    }
  });

  it('is for the ROLE_ADMIN* roles only, like every statistics series', async () => {
    for (const series of ['foyers', 'kgDetournes']) {
      const url = `/api/admin/${series}/get/by/mois?annee=2025`;
      expect((await ctx.app.inject(url)).statusCode, url).toBe(401);
      for (const roles of [[], ['ROLE_USER'], ['ROLE_PRESTATAIRE']]) {
        expect((await get(url, (await loggedAs(ctx, roles)).cookie)).statusCode, `${roles} ${url}`).toBe(403);
      }
      for (const role of ['ROLE_ADMIN', 'ROLE_ADMIN_SITE', 'ROLE_ADMIN_USER']) {
        expect((await get(url, (await loggedAs(ctx, [role])).cookie)).statusCode, `${role} ${url}`).toBe(200);
      }
    }
  });
});
