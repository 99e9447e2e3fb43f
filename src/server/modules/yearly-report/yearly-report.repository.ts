// SQL of the yearly report. Counts and litres come from the monthly summaries the statistics
// dashboard reads (migrations 009 and 012), with the same series and litre rules, so that both
// screens agree; temperature readings, requests and public reports come from their tables, a
// Paris year at a time, through their date indexes; households and permanences from their own
// tables (migration 031), with the same rules as the statistics' monthly series. Every per-site figure is computed for all sites in one
// grouped query, never one query per site. The figures per site and action, and per site and
// month, come back as one row per site holding aligned arrays (the aggregates of one group read
// its rows in the same order), unrolled here: the embedded database spends about 8 µs handing
// each row to JavaScript, more than it spends summing it (3,542 rows a year at 100,000
// interventions: 33 -> 18 ms; the 2,240 months: 9.5 -> 3.1 ms; on PostgreSQL at a million,
// 319 -> 293 and 37 -> 26 ms).
import { sql, type RawBuilder } from 'kysely';
import type { Db } from '../../db/client.js';
import { PENDING_STATUTS, SITE_STATUT, STATUT_ANNULEE, STATUT_REALISEE } from '../../../shared/domain.js';

export interface ActionTotal {
  siteId: number;
  actionId: number;
  nb: number;
  /** Sum of the values of the litre actions (0 for the others), as the statistics series count them. */
  litres: number;
}

export interface MonthTotal {
  siteId: number;
  m: number;
  nb: number;
}

export interface TemperatureTotals {
  /** null: every site of the selection together. */
  siteId: number | null;
  releves: number;
  auDessus: number;
  auDessous: number;
}

export interface RequestTotals {
  siteId: number | null;
  creees: number;
  realisees: number;
  annulees: number;
  enAttente: number;
  enRetard: number;
  delaiMedianJours: number | null;
}

export interface PeopleTotals {
  /** null: every site of the selection together. */
  siteId: number | null;
  foyers: number;
  personnes: number;
  permanences: number;
  permanencesAnnulees: number;
  kgDetournes: number;
  kgEstimes: number;
}

export interface ReportSiteRow {
  id: number;
  code: string;
  nom: string | null;
  ville: string;
  adresse: string;
  dateImplantation: Date | null;
  actif: boolean;
  referents: number;
}

export interface CatalogueAction {
  id: number;
  libelle: string;
  statsSeries: string | null;
  litres: boolean;
}

const monthStart = (annee: number) => sql`make_date(${annee}::int, 1, 1)`;
const monthEnd = (annee: number) => sql`make_date(${annee + 1}::int, 1, 1)`;
const parisStart = (annee: number) => sql`make_timestamptz(${annee}::int, 1, 1, 0, 0, 0, 'Europe/Paris')`;
const parisEnd = (annee: number) => sql`make_timestamptz(${annee + 1}::int, 1, 1, 0, 0, 0, 'Europe/Paris')`;
const siteFilter = (column: RawBuilder<unknown>, site: number | undefined) => (site === undefined ? sql`` : sql`AND ${column} = ${site}`);

// Statuses written as literals, as the planner sees them in the indexes' conditions.
const ACTIF = sql.lit(SITE_STATUT.actif);
const REALISEE = sql.lit(STATUT_REALISEE);
const ANNULEE = sql.lit(STATUT_ANNULEE);
const PENDING = sql.join(PENDING_STATUTS.map((s) => sql.lit(s)));

/** Sites counted as active in a year: active and installed (or created) before its end. */
const activeIn = (annee: number) => sql`s.statut_id = ${ACTIF} AND coalesce(s.date_implantation, s.created_at) < ${parisEnd(annee)}`;

export function createYearlyReportRepository(db: Db) {
  return {
    async catalogue(): Promise<CatalogueAction[]> {
      const r = await sql<CatalogueAction>`
        SELECT id, libelle, stats_series AS "statsSeries", value_kind IN ('litres', 'transfer') AS litres FROM type_action ORDER BY id`.execute(db);
      return r.rows;
    },

    async thresholds(): Promise<{ densite: number; min: number; max: number }> {
      const r = await db.selectFrom('alerte_seuils').select(['densite_kg_par_litre', 'temperature_min', 'temperature_max']).where('id', '=', 1).executeTakeFirstOrThrow();
      return { densite: Number(r.densite_kg_par_litre), min: Number(r.temperature_min), max: Number(r.temperature_max) };
    },

    async site(id: number) {
      return db.selectFrom('site').select(['id', 'code', 'nom']).where('id', '=', id).executeTakeFirst();
    },

    /**
     * The sites of the report: active in the year, with an intervention in it, or among `extra`
     * (those with households or permanences, so the programme's totals are the sum of the pages); by code.
     */
    async sites(annee: number, site?: number, extra: readonly number[] = []): Promise<ReportSiteRow[]> {
      const r = await sql<ReportSiteRow>`
        SELECT s.id, s.code, s.nom, s.ville, trim(coalesce(s.numero, '') || ' ' || s.adresse) AS adresse, s.date_implantation AS "dateImplantation",
               (${activeIn(annee)}) AS actif,
               (SELECT count(*)::int FROM site_referent sr JOIN account a ON a.id = sr.account_id AND a.actif WHERE sr.site_id = s.id) AS referents
          FROM site s
         WHERE ((${activeIn(annee)})
                OR EXISTS (SELECT 1 FROM intervention_stats_site_mois m WHERE m.site_id = s.id AND m.mois >= ${monthStart(annee)} AND m.mois < ${monthEnd(annee)})
                OR s.id = ANY(CAST(${`{${extra.join(',')}}`} AS int[])))
               ${siteFilter(sql`s.id`, site)}
         ORDER BY s.code`.execute(db);
      return r.rows.map((x) => ({ ...x, dateImplantation: x.dateImplantation === null ? null : new Date(x.dateImplantation) }));
    },

    /** Distinct active referents of the sites active in the year. */
    async referents(annee: number, site?: number): Promise<number> {
      const r = await sql<{ n: number }>`
        SELECT count(DISTINCT sr.account_id)::int AS n
          FROM site_referent sr JOIN site s ON s.id = sr.site_id JOIN account a ON a.id = sr.account_id AND a.actif
         WHERE ${activeIn(annee)} ${siteFilter(sql`s.id`, site)}`.execute(db);
      return r.rows[0].n;
    },

    /**
     * Interventions and litres of the year per site and action (the per-site statistics summary).
     * `litreActions`: the catalogue's litre actions, given as a list rather than looked up for each
     * of the year's summary rows (a quarter of the time on the embedded database).
     */
    async actionTotals(annee: number, litreActions: readonly number[], site?: number): Promise<ActionTotal[]> {
      const r = await sql<{ siteId: number; actions: number[]; nbs: number[]; litres: number[] }>`
        SELECT t."siteId", array_agg(t."actionId") AS actions, array_agg(t.nb) AS nbs, array_agg(t.litres) AS litres
          FROM (SELECT s.site_id AS "siteId", s.type_action_id AS "actionId", sum(s.nb)::int AS nb,
                       coalesce(sum(s.quantite) FILTER (WHERE s.type_action_id = ANY(CAST(${`{${litreActions.join(',')}}`} AS int[]))), 0)::float8 AS litres
                  FROM intervention_stats_mois s
                 WHERE s.mois >= ${monthStart(annee)} AND s.mois < ${monthEnd(annee)} ${siteFilter(sql`s.site_id`, site)}
                 GROUP BY 1, 2) t
         GROUP BY 1`.execute(db);
      return r.rows.flatMap((x) => x.actions.map((actionId, i) => ({ siteId: x.siteId, actionId, nb: x.nbs[i], litres: x.litres[i] })));
    },

    /** Interventions of the whole network per action (the network summary of the statistics). */
    async networkActionTotals(annee: number): Promise<{ actionId: number; nb: number }[]> {
      const r = await sql<{ actionId: number; nb: number }>`
        SELECT s.type_action_id AS "actionId", sum(s.nb)::int AS nb FROM intervention_stats_mois_reseau s
         WHERE s.mois >= ${monthStart(annee)} AND s.mois < ${monthEnd(annee)} GROUP BY 1`.execute(db);
      return r.rows;
    },

    /** Interventions per site and month. */
    async monthTotals(annee: number, site?: number): Promise<MonthTotal[]> {
      const r = await sql<{ siteId: number; months: number[]; nbs: number[] }>`
        SELECT s.site_id AS "siteId", array_agg(extract(month FROM s.mois)::int) AS months, array_agg(s.nb) AS nbs
          FROM intervention_stats_site_mois s
         WHERE s.mois >= ${monthStart(annee)} AND s.mois < ${monthEnd(annee)} ${siteFilter(sql`s.site_id`, site)}
         GROUP BY 1`.execute(db);
      return r.rows.flatMap((x) => x.months.map((m, i) => ({ siteId: x.siteId, m, nb: x.nbs[i] })));
    },

    /** Temperature readings of the Paris year (as the statistics list them) per site and in all, and how many were out of range. */
    async temperatures(annee: number, min: number, max: number, site?: number): Promise<TemperatureTotals[]> {
      const r = await sql<TemperatureTotals>`
        SELECT CASE WHEN GROUPING(i.site_id) = 1 THEN NULL ELSE i.site_id END AS "siteId", count(*)::int AS releves,
               count(*) FILTER (WHERE i.valeur_nombre > ${max})::int AS "auDessus",
               count(*) FILTER (WHERE i.valeur_nombre < ${min})::int AS "auDessous"
          FROM intervention i
         WHERE i.date >= ${parisStart(annee)} AND i.date < ${parisEnd(annee)}
           AND i.type_action_id IN (SELECT id FROM type_action WHERE stats_series = 'temperature')
           AND i.valeur_nombre IS NOT NULL ${siteFilter(sql`i.site_id`, site)}
         GROUP BY GROUPING SETS ((i.site_id), ())`.execute(db);
      return r.rows;
    },

    /** Requests raised in the Paris year, per site and in all: what became of them at `now`. */
    async requests(annee: number, now: Date, site?: number): Promise<RequestTotals[]> {
      const r = await sql<RequestTotals>`
        SELECT CASE WHEN GROUPING(d.site_id) = 1 THEN NULL ELSE d.site_id END AS "siteId",
               count(*)::int AS creees,
               count(*) FILTER (WHERE d.statut_id = ${REALISEE})::int AS realisees,
               count(*) FILTER (WHERE d.statut_id = ${ANNULEE})::int AS annulees,
               count(*) FILTER (WHERE d.statut_id IN (${PENDING}))::int AS "enAttente",
               count(*) FILTER (WHERE (d.statut_id = ${REALISEE} AND r.date > d.date_echeance) OR (d.statut_id IN (${PENDING}) AND d.date_echeance < ${now}))::int AS "enRetard",
               (percentile_cont(0.5) WITHIN GROUP (ORDER BY extract(epoch FROM r.date - d.date_creation) / 86400)
                  FILTER (WHERE d.statut_id = ${REALISEE} AND r.date IS NOT NULL))::float8 AS "delaiMedianJours"
          FROM demande_intervention d
          -- The realisation's date, looked up by id for each request of the year. As a plain join
          -- the embedded database read the whole log to hash it (115 ms at 100,000 interventions
          -- against 30); OFFSET 0 keeps the lookup per request.
          LEFT JOIN LATERAL (SELECT i.date FROM intervention i WHERE i.id = d.intervention_realisee_id OFFSET 0) r ON true
         WHERE d.date_creation >= ${parisStart(annee)} AND d.date_creation < ${parisEnd(annee)} ${siteFilter(sql`d.site_id`, site)}
         GROUP BY GROUPING SETS ((d.site_id), ())`.execute(db);
      return r.rows;
    },

    /**
     * Reports sent from the public pages in the Paris year, per site and in all. Each report row
     * counts once, whatever else it holds.
     */
    async reports(annee: number, site?: number): Promise<{ siteId: number | null; nb: number }[]> {
      const r = await sql<{ siteId: number | null; nb: number }>`
        SELECT CASE WHEN GROUPING(r.site_id) = 1 THEN NULL ELSE r.site_id END AS "siteId", count(*)::int AS nb
          FROM signalement_public r
         WHERE r.created_at >= ${parisStart(annee)} AND r.created_at < ${parisEnd(annee)} ${siteFilter(sql`r.site_id`, site)}
         GROUP BY GROUPING SETS ((r.site_id), ())`.execute(db);
      return r.rows;
    },

    /**
     * The people around the sites, per site and in all: households taking part at the end of the
     * Paris year (confirmed before it ended and not gone by then; none for a year not begun at
     * `now`) and the people in them; permanences held (not cancelled, started in the year and
     * by `now`), those cancelled, and the kilos of the tallies of the held ones (the estimated part
     * apart). Only sites with at least one of these figures have a row.
     */
    async people(annee: number, now: Date, site?: number): Promise<PeopleTotals[]> {
      const r = await sql<PeopleTotals>`
        WITH present AS (
          SELECT f.site_id, f.personnes FROM foyer f
           WHERE f.statut = 'confirme' AND f.traite_le < ${parisEnd(annee)} ${siteFilter(sql`f.site_id`, site)}
          UNION ALL
          SELECT d.site_id, d.personnes FROM foyer_depart d
           WHERE d.confirme_le < ${parisEnd(annee)} AND d.parti_le >= ${parisEnd(annee)} ${siteFilter(sql`d.site_id`, site)}),
        households AS (
          SELECT site_id, count(*)::int AS foyers, sum(personnes)::int AS personnes FROM present
           WHERE ${parisStart(annee)} <= ${now} GROUP BY site_id),
        openings AS (
          SELECT p.site_id,
                 count(*) FILTER (WHERE p.annulee_le IS NULL AND p.debut <= ${now})::int AS permanences,
                 count(*) FILTER (WHERE p.annulee_le IS NOT NULL)::int AS "permanencesAnnulees",
                 coalesce(sum(p.bilan_kg) FILTER (WHERE p.annulee_le IS NULL), 0) AS kg,
                 coalesce(sum(p.bilan_kg) FILTER (WHERE p.annulee_le IS NULL AND p.bilan_kg_estime), 0) AS kg_estimes
            FROM permanence p
           WHERE p.debut >= ${parisStart(annee)} AND p.debut < ${parisEnd(annee)} ${siteFilter(sql`p.site_id`, site)}
           GROUP BY p.site_id),
        per_site AS (
          SELECT coalesce(h.site_id, o.site_id) AS site_id, coalesce(h.foyers, 0) AS foyers, coalesce(h.personnes, 0) AS personnes,
                 coalesce(o.permanences, 0) AS permanences, coalesce(o."permanencesAnnulees", 0) AS "permanencesAnnulees",
                 coalesce(o.kg, 0) AS kg, coalesce(o.kg_estimes, 0) AS kg_estimes
            FROM households h FULL JOIN openings o ON o.site_id = h.site_id)
        SELECT CASE WHEN GROUPING(site_id) = 1 THEN NULL ELSE site_id END AS "siteId",
               sum(foyers)::int AS foyers, sum(personnes)::int AS personnes,
               sum(permanences)::int AS permanences, sum("permanencesAnnulees")::int AS "permanencesAnnulees",
               sum(kg)::float8 AS "kgDetournes", sum(kg_estimes)::float8 AS "kgEstimes"
          FROM per_site
         GROUP BY GROUPING SETS ((site_id), ())`.execute(db);
      return r.rows;
    },

    /** Sites active in the year, and sites with an intervention in it. */
    async siteCounts(annee: number): Promise<{ actifs: number; avecInterventions: number }> {
      const r = await sql<{ actifs: number; avecInterventions: number }>`
        SELECT (SELECT count(*)::int FROM site s WHERE ${activeIn(annee)}) AS actifs,
               (SELECT count(DISTINCT m.site_id)::int FROM intervention_stats_site_mois m
                 WHERE m.mois >= ${monthStart(annee)} AND m.mois < ${monthEnd(annee)}) AS "avecInterventions"`.execute(db);
      return r.rows[0];
    },
  };
}

export type YearlyReportRepository = ReturnType<typeof createYearlyReportRepository>;
