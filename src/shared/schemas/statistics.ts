// Statistics dashboard (the 'Statistiques' screen and its API routes): query
// parameters and answers of the monthly series, the temperatures and the yearly exports.
import { z } from 'zod';
import { decimalIntSchema } from './common.js';

/** The eight `/admin/{series}/get/by/mois` routes; names follow the stats series of the action catalogue (src/shared/domain.ts). */
export const STATS_SERIES = ['apportBroyat', 'distribution', 'transfert', 'retournement', 'reparation', 'arrosage', 'viderBac', 'tamisage'] as const;
export type StatsSeries = (typeof STATS_SERIES)[number];

/** The seven `/admin/intervention/export/{kind}/by/site` exports. */
export const EXPORT_KINDS = ['all', 'apportBroyat', 'distribution', 'transfert', 'arrosage', 'viderBac', 'tamisage'] as const;
export type ExportKind = (typeof EXPORT_KINDS)[number];

/** Month names as the series answer them (`mois_nom`), January first. */
export const MOIS_NOMS = ['janvier', 'février', 'mars', 'avril', 'mai', 'juin', 'juillet', 'août', 'septembre', 'octobre', 'novembre', 'décembre'] as const;

export const ANNEE_MIN = 2000;
export const ANNEE_MAX = 2100;

export const STATS_MESSAGES = {
  annee: 'Année invalide',
  site: 'Site invalide',
  prestataire: 'Prestataire invalide',
  siteRequired: 'Choisissez un site',
  /** The households and the permanences' kilos are nobody's work: no provider filters them. */
  prestataireNonApplicable: 'Ces chiffres ne dépendent pas du prestataire : retirez ce filtre',
} as const;

const anneeParam = decimalIntSchema({ min: ANNEE_MIN, max: ANNEE_MAX, message: STATS_MESSAGES.annee });

/** `?annee=2026&site=12&prestataire=5`: the year is required, the site and the provider are optional. */
export const statsQuerySchema = z.strictObject({
  annee: anneeParam,
  site: decimalIntSchema({ message: STATS_MESSAGES.site }).optional(),
  prestataire: decimalIntSchema({ message: STATS_MESSAGES.prestataire }).optional(),
});
export type StatsQuery = z.infer<typeof statsQuerySchema>;

/** `?annee=2026&prestataire=5`: the yearly export per site, optionally of what one provider recorded. */
export const exportQuerySchema = z.strictObject({
  annee: anneeParam,
  prestataire: decimalIntSchema({ message: STATS_MESSAGES.prestataire }).optional(),
});
export type ExportQuery = z.infer<typeof exportQuerySchema>;

export const statsMoisRowSchema = z.object({ mois_nom: z.string(), nb: z.number(), quantite: z.number() });
export type StatsMoisRow = z.infer<typeof statsMoisRowSchema>;

/** One temperature reading of a cell of the site (°C), dated as ISO 8601. */
export const temperatureRowSchema = z.object({ date: z.string(), temp: z.number(), numeroBac: z.number() });
export type TemperatureRow = z.infer<typeof temperatureRowSchema>;

/** An option of the 'Prestataire' select. */
export const prestataireSchema = z.object({ id: z.number(), libelle: z.string() });
export type Prestataire = z.infer<typeof prestataireSchema>;

/**
 * GET /admin/foyers/get/by/mois: households taking part at the end of each Paris month (confirmed
 * on or before it, not gone by then), and the people in them. A month that has not begun is 0.
 */
export const foyersMoisRowSchema = z.object({ mois_nom: z.string(), nb: z.number(), personnes: z.number() });
export type FoyersMoisRow = z.infer<typeof foyersMoisRowSchema>;

/**
 * GET /admin/kgDetournes/get/by/mois: the kilos of the tallies of the permanences held (not
 * cancelled) that started in each Paris month; `kgEstimes` is the part estimated from buckets,
 * `permanences` the number of tallies.
 */
export const kgMoisRowSchema = z.object({ mois_nom: z.string(), kg: z.number(), kgEstimes: z.number(), permanences: z.number() });
export type KgMoisRow = z.infer<typeof kgMoisRowSchema>;
