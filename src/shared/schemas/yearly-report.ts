// The yearly report of the programme and of each site (for elected officials and funders):
// the year's figures, computed from the same monthly summaries as the statistics dashboard
// (and, for households and kilos diverted, with the same rules as its series), so that both show
// the same numbers for the same year and site.
import { z } from 'zod';
import { decimalIntSchema } from './common.js';
import { ANNEE_MAX, ANNEE_MIN, STATS_MESSAGES } from './statistics.js';

/** The litre series of the report, in the order the report lists them. */
export const REPORT_LITRES = ['apportBroyat', 'transfert', 'viderBac', 'tamisage', 'distribution'] as const;
export type ReportLitres = (typeof REPORT_LITRES)[number];

export const REPORT_LITRES_LABELS: Readonly<Record<ReportLitres, string>> = {
  apportBroyat: 'Broyat apporté',
  transfert: 'Transféré en maturation',
  viderBac: 'Cellules vidées',
  tamisage: 'Tamisé',
  distribution: 'Compost distribué',
};

/** `?annee=2026&site=12`: the year is required, the site optional. */
export const reportQuerySchema = z.strictObject(
  {
    annee: decimalIntSchema({ min: ANNEE_MIN, max: ANNEE_MAX, message: STATS_MESSAGES.annee }),
    site: decimalIntSchema({ message: STATS_MESSAGES.site }).optional(),
  },
  { error: 'Paramètre inconnu' },
);
export type ReportQuery = z.infer<typeof reportQuerySchema>;

const litresSchema = z.object({ apportBroyat: z.number(), transfert: z.number(), viderBac: z.number(), tamisage: z.number(), distribution: z.number() });

export const reportFiguresSchema = z.object({
  /** Every intervention of the year (the statistics 'Interventions' chart). */
  interventions: z.number(),
  /** January first. */
  interventionsParMois: z.array(z.number()),
  /** Interventions by action, actions without any left out, most frequent first. */
  parAction: z.array(z.object({ idAction: z.number(), libelle: z.string(), nb: z.number() })),
  /** Litres of the year by series. */
  litres: litresSchema,
  /** Litres transferred out of input bins times the density of the alert thresholds (an estimate of what the bins took in). */
  kgTransferes: z.number(),
  /** Households taking part at the end of the Paris year (confirmed, not gone by then), and the people in them. */
  foyers: z.number(),
  personnes: z.number(),
  /** Permanences held (not cancelled, started in the year) and those cancelled. */
  permanences: z.number(),
  permanencesAnnulees: z.number(),
  /** Kilos of the tallies of the permanences held in the year, and the part estimated from buckets. */
  kgDetournes: z.number(),
  kgEstimes: z.number(),
  temperatures: z.object({ releves: z.number(), auDessus: z.number(), auDessous: z.number() }),
  /** Requests raised in the year, and what became of them. */
  demandes: z.object({
    creees: z.number(),
    realisees: z.number(),
    annulees: z.number(),
    enAttente: z.number(),
    /** Processed after their due date, or still pending past it. */
    enRetard: z.number(),
    /** Median days from raising to processing; null when none was processed. */
    delaiMedianJours: z.number().nullable(),
  }),
  /** Active sites (installed by the end of the year) and those with an intervention in the year. */
  sitesActifs: z.number(),
  sitesAvecInterventions: z.number(),
  /** Active referents of the active sites. */
  referents: z.number(),
  /** Reports sent from the sites' public pages in the year (each report row counts once). */
  signalements: z.number(),
});
export type ReportFigures = z.infer<typeof reportFiguresSchema>;

export const reportSiteSchema = z.object({
  id: z.number(),
  code: z.string(),
  nom: z.string().nullable(),
  ville: z.string(),
  adresse: z.string(),
  /** ISO 8601, or null. */
  dateImplantation: z.string().nullable(),
  actif: z.boolean(),
  figures: reportFiguresSchema,
});
export type ReportSite = z.infer<typeof reportSiteSchema>;

export const yearlyReportSchema = z.object({
  annee: z.number(),
  /** The chosen site, or null for the whole programme. */
  site: z.object({ id: z.number(), code: z.string(), nom: z.string().nullable() }).nullable(),
  /** The thresholds the estimates and the out-of-range counts used. */
  densiteKgParLitre: z.number(),
  temperatureMin: z.number(),
  temperatureMax: z.number(),
  /** The whole programme, or the chosen site. */
  ensemble: reportFiguresSchema.extend({
    /** Litres by series and month, January first (the charts). */
    litresParMois: z.object({ apportBroyat: z.array(z.number()), transfert: z.array(z.number()), viderBac: z.array(z.number()), tamisage: z.array(z.number()), distribution: z.array(z.number()) }),
  }),
  /** One page per site: the active ones and any other with interventions in the year, by code. */
  sites: z.array(reportSiteSchema),
});
export type YearlyReport = z.infer<typeof yearlyReportSchema>;
