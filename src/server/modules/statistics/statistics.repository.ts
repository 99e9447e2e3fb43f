// SQL of the statistics dashboard. Monthly series and exports read the summaries of
// migration 009, never the log itself: the network stripes when no filter is set, the
// per-intervenant summary for a provider, the per-site detail when a site is chosen; each
// answers a year from a few hundred to a few thousand rows. Temperatures are single
// readings of one site and come from the log through its (site_id, date) index.
// The households and the permanences' kilos are read from their own tables (migration 031):
// a programme has a few thousand households and a few permanences a week, so a plain query
// answers a year without a summary.
import { sql, type RawBuilder } from 'kysely';
import type { Db } from '../../db/client.js';
import { SITE_STATUT, TYPE_PRESTATAIRE } from '../../../shared/domain.js';
import { MOIS_NOMS, STATS_SERIES, type ExportKind, type StatsQuery, type StatsSeries } from '../../../shared/schemas/statistics.js';

export interface MonthTotals {
  nb: number[];
  quantite: number[];
}

export interface SiteExportRow {
  code: string;
  nom: string | null;
  ville: string;
  months: number[];
  total: number;
}

/** Actions counted by a series: the stats_series column of type_action; 'all' counts every action. */
function actionFilter(series: StatsSeries | 'all'): RawBuilder<unknown> {
  return series === 'all' ? sql`true` : sql`s.type_action_id IN (SELECT id FROM type_action WHERE stats_series = ${series})`;
}

/** Litres only: the interventions-count series adds up the litre actions, never degrees or texts. */
const LITRES = sql`s.type_action_id IN (SELECT id FROM type_action WHERE value_kind IN ('litres', 'transfer'))`;

const yearStart = (annee: number) => sql`make_date(${annee}::int, 1, 1)`;
const yearEnd = (annee: number) => sql`make_date(${annee + 1}::int, 1, 1)`;
const parisYearStart = (annee: number) => sql`make_timestamptz(${annee}::int, 1, 1, 0, 0, 0, 'Europe/Paris')`;
const parisYearEnd = (annee: number) => sql`make_timestamptz(${annee + 1}::int, 1, 1, 0, 0, 0, 'Europe/Paris')`;

/** The summary a monthly series reads: per site and intervenant for a site or a provider (indexed both ways), else the network's. */
const summaryOf = (q: StatsQuery) => (q.site !== undefined || q.prestataire !== undefined ? sql`intervention_stats_mois` : sql`intervention_stats_mois_reseau`);

/** The year, and the site or provider chosen, on a summary aliased `s`. */
const scopeOf = (q: StatsQuery) => sql`s.mois >= ${yearStart(q.annee)} AND s.mois < ${yearEnd(q.annee)}
  ${q.site === undefined ? sql`` : sql`AND s.site_id = ${q.site}`}
  ${q.prestataire === undefined ? sql`` : sql`AND s.intervenant_id = ${q.prestataire}`}`;

/** Twelve rows, January first, months without interventions at zero. */
function twelveMonths(rows: readonly { m: number; nb: number; quantite: number }[]) {
  const byMonth = new Map(rows.map((r) => [r.m, r]));
  return MOIS_NOMS.map((mois_nom, i) => ({ mois_nom, nb: byMonth.get(i + 1)?.nb ?? 0, quantite: byMonth.get(i + 1)?.quantite ?? 0 }));
}

export function createStatisticsRepository(db: Db) {
  return {
    /** Twelve rows, January first, months without interventions at zero. */
    async monthly(series: StatsSeries | 'all', q: StatsQuery) {
      const rows = await sql<{ m: number; nb: number; quantite: number }>`
        SELECT extract(month FROM s.mois)::int AS m, sum(s.nb)::int AS nb,
               coalesce(sum(s.quantite) FILTER (WHERE ${LITRES}), 0)::float8 AS quantite
          FROM ${summaryOf(q)} s
         WHERE ${scopeOf(q)} AND ${actionFilter(series)}
         GROUP BY 1`.execute(db);
      return twelveMonths(rows.rows);
    },

    /** Every series of `monthly` and 'all' at once, in one statement (the yearly report reads them all). */
    async monthlyEverySeries(q: StatsQuery): Promise<Map<StatsSeries | 'all', ReturnType<typeof twelveMonths>>> {
      const rows = await sql<{ m: number; series: StatsSeries | 'all' | null; nb: number; quantite: number }>`
        SELECT extract(month FROM s.mois)::int AS m, CASE WHEN GROUPING(a.stats_series) = 1 THEN 'all' ELSE a.stats_series END AS series,
               sum(s.nb)::int AS nb, coalesce(sum(s.quantite) FILTER (WHERE a.value_kind IN ('litres', 'transfer')), 0)::float8 AS quantite
          FROM ${summaryOf(q)} s JOIN type_action a ON a.id = s.type_action_id
         WHERE ${scopeOf(q)}
         GROUP BY GROUPING SETS ((1, a.stats_series), (1))`.execute(db);
      return new Map((['all', ...STATS_SERIES] as const).map((series) => [series, twelveMonths(rows.rows.filter((r) => r.series === series))]));
    },

    /**
     * Households taking part at the end of each Paris month of the year: confirmed before the
     * month ended and still there (a confirmed household, or one that left after the month's
     * end), with the people in them. A month that has not begun at `now` is 0: nobody can say yet.
     */
    async households(q: { annee: number; site?: number }, now: Date) {
      // One pass over the households: each counts at the end of a run of months, from the month
      // it was confirmed in (January if before the year) to the month before it left (December if
      // it stays), so the rows are grouped by that run and spread over the twelve months after.
      // Joining each month to every household took 140 ms at 40,000 households.
      const start = parisYearStart(q.annee);
      const end = parisYearEnd(q.annee);
      const rows = await sql<{ m: number; nb: number; personnes: number }>`
        WITH present AS (
          SELECT f.traite_le AS depuis, NULL::timestamptz AS parti, f.personnes FROM foyer f
           WHERE f.statut = 'confirme' AND f.traite_le < ${end} ${q.site === undefined ? sql`` : sql`AND f.site_id = ${q.site}`}
          UNION ALL
          SELECT d.confirme_le, d.parti_le, d.personnes FROM foyer_depart d
           WHERE d.confirme_le < ${end} AND d.parti_le >= ${start} ${q.site === undefined ? sql`` : sql`AND d.site_id = ${q.site}`}),
        runs AS (
          SELECT CASE WHEN depuis < ${start} THEN 1 ELSE extract(month FROM depuis AT TIME ZONE 'Europe/Paris')::int END AS premier,
                 CASE WHEN parti IS NULL OR parti >= ${end} THEN 12 ELSE extract(month FROM parti AT TIME ZONE 'Europe/Paris')::int - 1 END AS dernier,
                 count(*)::int AS nb, sum(personnes)::int AS personnes
            FROM present GROUP BY 1, 2)
        SELECT g AS m, coalesce(sum(r.nb), 0)::int AS nb, coalesce(sum(r.personnes), 0)::int AS personnes
          FROM generate_series(1, 12) g LEFT JOIN runs r ON g BETWEEN r.premier AND r.dernier
         WHERE make_date(${q.annee}::int, g, 1)::timestamp AT TIME ZONE 'Europe/Paris' <= ${now}
         GROUP BY g`.execute(db);
      const byMonth = new Map(rows.rows.map((r) => [r.m, r]));
      return MOIS_NOMS.map((mois_nom, i) => ({ mois_nom, nb: byMonth.get(i + 1)?.nb ?? 0, personnes: byMonth.get(i + 1)?.personnes ?? 0 }));
    },

    /**
     * Kilos of the tallies of the permanences held (not cancelled) whose start falls in each Paris
     * month, the estimated part of them (buckets x kilos per bucket), and how many tallies.
     */
    async kilos(q: { annee: number; site?: number }) {
      const rows = await sql<{ m: number; kg: number; kgEstimes: number; permanences: number }>`
        SELECT extract(month FROM p.debut AT TIME ZONE 'Europe/Paris')::int AS m,
               sum(p.bilan_kg)::float8 AS kg,
               coalesce(sum(p.bilan_kg) FILTER (WHERE p.bilan_kg_estime), 0)::float8 AS "kgEstimes",
               count(*)::int AS permanences
          FROM permanence p
         WHERE p.debut >= ${parisYearStart(q.annee)} AND p.debut < ${parisYearEnd(q.annee)}
           AND p.annulee_le IS NULL AND p.bilan_le IS NOT NULL
           ${q.site === undefined ? sql`` : sql`AND p.site_id = ${q.site}`}
         GROUP BY 1`.execute(db);
      const byMonth = new Map(rows.rows.map((r) => [r.m, r]));
      return MOIS_NOMS.map((mois_nom, i) => {
        const r = byMonth.get(i + 1);
        return { mois_nom, kg: r?.kg ?? 0, kgEstimes: r?.kgEstimes ?? 0, permanences: r?.permanences ?? 0 };
      });
    },

    /** Every temperature reading of the site in the Paris year, oldest first. */
    async temperatures(q: StatsQuery & { site: number }) {
      const rows = await sql<{ date: Date; temp: number; numeroBac: number }>`
        SELECT i.date, i.valeur_nombre::float8 AS temp, sc.numero AS "numeroBac"
          FROM intervention i JOIN site_composteur sc ON sc.id = i.site_composteur_id
         WHERE i.site_id = ${q.site}
           AND i.date >= make_timestamptz(${q.annee}::int, 1, 1, 0, 0, 0, 'Europe/Paris')
           AND i.date < make_timestamptz(${q.annee + 1}::int, 1, 1, 0, 0, 0, 'Europe/Paris')
           AND i.type_action_id IN (SELECT id FROM type_action WHERE stats_series = 'temperature')
           AND i.valeur_nombre IS NOT NULL
           ${q.prestataire === undefined ? sql`` : sql`AND i.intervenant_id = ${q.prestataire}`}
         ORDER BY i.date, sc.numero, i.id`.execute(db);
      return rows.rows.map((r) => ({ date: new Date(r.date).toISOString(), temp: r.temp, numeroBac: r.numeroBac }));
    },

    /** Accounts offered in the 'Prestataire' select: providers (type 3 or ROLE_PRESTATAIRE), active or not. */
    async prestataires() {
      const rows = await sql<{ id: number; organisme: string | null; nom: string; prenom: string | null }>`
        SELECT a.id, a.organisme, a.nom, a.prenom FROM account a
         WHERE a.kind = 'user'
           AND (a.type_user_id = ${sql.lit(TYPE_PRESTATAIRE)} OR EXISTS (SELECT 1 FROM account_role ar JOIN role r ON r.id = ar.role_id
                                               WHERE ar.account_id = a.id AND r.code = 'ROLE_PRESTATAIRE'))
         ORDER BY lower(coalesce(a.organisme, a.nom)), lower(a.nom), a.id`.execute(db);
      return rows.rows.map((r) => {
        const person = [r.prenom, r.nom].filter(Boolean).join(' ');
        return { id: r.id, libelle: r.organisme ? `${r.organisme} (${person})` : person };
      });
    },

    /**
     * The sites of the year in code order, `batchSize` at a time, with their twelve monthly
     * figures for the kind: the number of interventions for 'all', litres for the others,
     * counting only what the provider recorded when one is given. The sites of a year are those
     * active then (status 1, installed before the year ended: implantation date, or the date the
     * site was recorded when it has none) and those with interventions in it; a requested site
     * (status 2) without interventions is not one of them. The figures of every site come from
     * one query first (at most twelve per site; for a series, the summary's primary key walks
     * that action's year once); the sites then follow in batches.
     */
    async *exportBatches(kind: ExportKind, annee: number, opts: { prestataire?: number; batchSize?: number } = {}): AsyncGenerator<SiteExportRow[]> {
      const batchSize = opts.batchSize ?? 500;
      const { prestataire } = opts;
      const byProvider = prestataire === undefined ? sql`true` : sql`s.intervenant_id = ${prestataire}`;
      // Without a provider, the count of every action comes from the per-site-month totals (migration 012).
      const monthly =
        kind === 'all' && prestataire === undefined
          ? sql`SELECT s.site_id, extract(month FROM s.mois)::int AS m, s.nb::float8 AS v
                FROM intervention_stats_site_mois s
               WHERE s.mois >= ${yearStart(annee)} AND s.mois < ${yearEnd(annee)}`
          : sql`SELECT s.site_id, extract(month FROM s.mois)::int AS m, ${kind === 'all' ? sql`sum(s.nb)` : sql`sum(s.quantite)`}::float8 AS v
                FROM intervention_stats_mois s
               WHERE s.mois >= ${yearStart(annee)} AND s.mois < ${yearEnd(annee)}
                 AND ${actionFilter(kind)} AND ${byProvider}
               GROUP BY 1, 2`;
      // One row per site, its months and their figures as aligned arrays: the embedded database
      // hands each row to JavaScript at a cost above that of summing it (2,240 site-months a
      // year at 100,000 interventions).
      const figures = await sql<{ site_id: number; months: number[]; amounts: number[] }>`
        SELECT f.site_id, array_agg(f.m) AS months, array_agg(f.v) AS amounts FROM (${monthly}) f GROUP BY 1`.execute(db);
      const bySite = new Map<number, number[]>();
      for (const f of figures.rows) {
        const months = new Array<number>(12).fill(0);
        f.months.forEach((m, i) => (months[m - 1] = f.amounts[i]));
        bySite.set(f.site_id, months);
      }
      // Sites with interventions in the year, once: the figures themselves for the count of every
      // action, else from the per-site-month totals (at most one row per site and month).
      const withData =
        kind === 'all' && prestataire === undefined
          ? [...bySite.keys()]
          : (
              await sql<{ ids: number[] }>`SELECT ARRAY(SELECT DISTINCT m.site_id FROM intervention_stats_site_mois m
                WHERE m.mois >= ${yearStart(annee)} AND m.mois < ${yearEnd(annee)}) AS ids`.execute(db)
            ).rows[0].ids;
      const yearEndsAt = sql`make_timestamptz(${annee + 1}::int, 1, 1, 0, 0, 0, 'Europe/Paris')`;
      let after = '';
      for (;;) {
        const { rows: sites } = await sql<{ id: number; code: string; nom: string | null; ville: string }>`
          SELECT s.id, s.code, s.nom, s.ville FROM site s
           WHERE s.code > ${after}
             AND ((s.statut_id = ${SITE_STATUT.actif} AND coalesce(s.date_implantation, s.created_at) < ${yearEndsAt})
                  OR s.id = ANY(CAST(${`{${withData.join(',')}}`} AS int[])))
           ORDER BY s.code LIMIT ${batchSize}`.execute(db);
        if (sites.length === 0) return;
        yield sites.map((s) => {
          const months = bySite.get(s.id) ?? new Array<number>(12).fill(0);
          return { code: s.code, nom: s.nom, ville: s.ville, months, total: months.reduce((a, b) => a + b, 0) };
        });
        if (sites.length < batchSize) return;
        after = sites[sites.length - 1].code;
      }
    },
  };
}

export type StatisticsRepository = ReturnType<typeof createStatisticsRepository>;
