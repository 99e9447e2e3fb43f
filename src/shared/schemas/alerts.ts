// Site follow-up alerts: their kinds and French labels, the thresholds an administrator sets
// ('Seuils d'alerte'), the list of open alerts, the per-person e-mail preferences and the
// answer of a run of the daily job. docs/alerts.md explains each kind and its defaults.
import { z } from 'zod';
import { decimalFilterSchema, decimalIntSchema } from './common.js';
import { listQuerySchema } from './list.js';

export const ALERT_KINDS = [
  'request_overdue',
  'request_due_soon',
  'no_reading',
  'temperature_high',
  'temperature_low',
  'site_idle',
  'intake_high',
  'public_reports',
  'permanence_sans_ouvreur',
] as const;
export type AlertKind = (typeof ALERT_KINDS)[number];

export const ALERT_LABELS: Readonly<Record<AlertKind, string>> = {
  request_overdue: 'Demande en retard',
  request_due_soon: 'Demande à échéance proche',
  no_reading: 'Température non relevée',
  temperature_high: 'Température trop haute',
  temperature_low: 'Température trop basse',
  site_idle: 'Site sans intervention',
  intake_high: 'Apports trop importants',
  public_reports: 'Signalements répétés',
  permanence_sans_ouvreur: 'Permanence sans ouvreur',
};

/** The kinds about intervention requests: what providers receive. */
export const REQUEST_ALERT_KINDS: readonly AlertKind[] = ['request_overdue', 'request_due_soon'];

/** A pending request due within this many days raises 'Demande à échéance proche' (the board shows it red). */
export const DUE_SOON_DAYS = 3;

/** Window over which a site's weekly intake is averaged (transfers come every few weeks, not weekly). */
export const INTAKE_WINDOW_WEEKS = 4;

/** A site with at least this many public reports over the last REPORTS_WINDOW_DAYS days raises 'Signalements répétés'. */
export const REPORTS_ALERT_MIN = 3;
export const REPORTS_WINDOW_DAYS = 7;

/** Label of the kilos per bucket, the setting the tallies of the permanences estimate their kilos with. */
export const KG_PAR_SEAU_LABEL = 'Kilos par seau (estimation des permanences)';
export const KG_PAR_SEAU_MAX = 50;

export const ALERT_MESSAGES = {
  temperature: 'Une température entre -20 et 90 °C, au dixième de degré',
  temperatureOrder: 'La température minimale doit être inférieure à la température maximale',
  days: 'Un nombre entier de jours entre 1 et 365',
  percent: 'Un pourcentage entier entre 1 et 100',
  limit: 'Une limite entière entre 1 et 100 000 kg',
  density: 'Une densité supérieure à 0 et d’au plus 2 kg/L, avec trois décimales au plus',
  kgParSeau: 'Un poids supérieur à 0 et d’au plus 50 kg, avec deux décimales au plus',
  kind: "Type d'alerte inconnu",
  notFound: 'Alerte introuvable',
  closed: 'Cette alerte est déjà close',
  acknowledged: 'Alerte acquittée',
  settingsSaved: "Seuils d'alerte enregistrés",
  preferencesSaved: 'Préférences enregistrées',
  busy: 'Le calcul des alertes est déjà en cours, réessayez dans un instant',
} as const;

const temperature = z
  .number({ error: ALERT_MESSAGES.temperature })
  .min(-20, { error: ALERT_MESSAGES.temperature })
  .max(90, { error: ALERT_MESSAGES.temperature })
  .refine((n) => Number(n.toFixed(1)) === n, { error: ALERT_MESSAGES.temperature });
const days = z.number({ error: ALERT_MESSAGES.days }).int({ error: ALERT_MESSAGES.days }).min(1, { error: ALERT_MESSAGES.days }).max(365, { error: ALERT_MESSAGES.days });

/** The thresholds of the alerts (one row, edited on 'Seuils d'alerte'). */
export const alertSettingsSchema = z
  .strictObject(
    {
      /** °C: a latest reading below raises 'Température trop basse'. */
      temperatureMin: temperature,
      /** °C: a latest reading above raises 'Température trop haute'. */
      temperatureMax: temperature,
      /** An active input or maturation cell without a reading for this many days. */
      joursSansReleve: days,
      /** An active site without any intervention for this many days. */
      joursSansIntervention: days,
      /** Share of the weekly limit that raises 'Apports trop importants'. */
      pourcentageApport: z
        .number({ error: ALERT_MESSAGES.percent })
        .int({ error: ALERT_MESSAGES.percent })
        .min(1, { error: ALERT_MESSAGES.percent })
        .max(100, { error: ALERT_MESSAGES.percent }),
      /** Weekly intake limit of a small site, kg. */
      limiteHebdoKg: z
        .number({ error: ALERT_MESSAGES.limit })
        .int({ error: ALERT_MESSAGES.limit })
        .min(1, { error: ALERT_MESSAGES.limit })
        .max(100_000, { error: ALERT_MESSAGES.limit }),
      /** kg per litre of the biowaste moved out of input bins. */
      densiteKgParLitre: z
        .number({ error: ALERT_MESSAGES.density })
        .gt(0, { error: ALERT_MESSAGES.density })
        .max(2, { error: ALERT_MESSAGES.density })
        .refine((n) => Number(n.toFixed(3)) === n, { error: ALERT_MESSAGES.density }),
      /**
       * kg in a household's bucket: a tally without weighed kilos estimates them as buckets x
       * this. Absent: unchanged (a form of before this setting still saves).
       */
      kgParSeau: z
        .number({ error: ALERT_MESSAGES.kgParSeau })
        .gt(0, { error: ALERT_MESSAGES.kgParSeau })
        .max(KG_PAR_SEAU_MAX, { error: ALERT_MESSAGES.kgParSeau })
        .refine((n) => Number(n.toFixed(2)) === n, { error: ALERT_MESSAGES.kgParSeau })
        .optional(),
    },
    { error: 'Paramètre inconnu' },
  )
  .superRefine(
    (v, ctx) => {
      if (typeof v?.temperatureMin === 'number' && typeof v?.temperatureMax === 'number' && !(v.temperatureMin < v.temperatureMax)) {
        ctx.addIssue({ code: 'custom', path: ['temperatureMin'], message: ALERT_MESSAGES.temperatureOrder });
      }
    },
    { when: () => true },
  );
export type AlertSettingsInput = z.infer<typeof alertSettingsSchema>;
/** The thresholds as stored: every one present. */
export type AlertSettings = Required<AlertSettingsInput>;

/** Defaults of a new installation: estimates, see docs/alerts.md. */
export const DEFAULT_ALERT_SETTINGS: AlertSettings = {
  temperatureMin: 10,
  temperatureMax: 70,
  joursSansReleve: 14,
  joursSansIntervention: 30,
  pourcentageApport: 80,
  limiteHebdoKg: 1000,
  densiteKgParLitre: 0.5,
  kgParSeau: 2,
};

/** The thresholds as the server answers them. */
export const alertSettingsValuesSchema = z.object({
  temperatureMin: z.number(),
  temperatureMax: z.number(),
  joursSansReleve: z.number(),
  joursSansIntervention: z.number(),
  pourcentageApport: z.number(),
  limiteHebdoKg: z.number(),
  densiteKgParLitre: z.number(),
  kgParSeau: z.number(),
});

export const alertSettingsResponseSchema = z.object({ status: z.literal('success'), message: z.string(), settings: alertSettingsValuesSchema });

const alertKindSchema = z.enum(ALERT_KINDS, { error: ALERT_MESSAGES.kind });

/** An open alert as the list shows it. */
export const alertRowSchema = z.object({
  id: z.number(),
  kind: alertKindSchema,
  /** French label of the kind. */
  libelle: z.string(),
  idSite: z.number(),
  /** The site's name, or its code when it has none. */
  site: z.string(),
  idCellule: z.number().nullable(),
  /** The cell's number (Cellule n°…), for the cell and request kinds. */
  cellule: z.number().nullable(),
  idDemande: z.number().nullable(),
  /** ISO 8601. */
  dateOuverture: z.string(),
  message: z.string(),
  acquittee: z.boolean(),
  /** Path of the screen where the cause is dealt with, for this user. */
  lien: z.string(),
});
export type AlertRow = z.infer<typeof alertRowSchema>;

/** Newest alerts first unless the table asks otherwise. */
function newestFirst(raw: unknown): unknown {
  if (raw && typeof raw === 'object' && !('sort' in raw)) return { ...raw, sort: { name: 'dateOuverture', direction: 'desc' } };
  return raw;
}

export const alertListQuerySchema = z.preprocess(
  newestFirst,
  listQuerySchema({
    sortFields: ['dateOuverture', 'kind', 'site'],
    defaultSort: 'dateOuverture',
    filters: {
      kind: z.enum(ALERT_KINDS, { error: 'Filtre invalide' }),
      site: decimalFilterSchema(),
      /** 0: only those not acknowledged (the top bar's count); 1: only acknowledged ones. */
      acquittee: decimalIntSchema({ min: 0, max: 1, message: 'Filtre invalide' }),
    },
  }),
);
export type AlertListQuery = z.output<typeof alertListQuerySchema>;

export const alertListSchema = z.object({ count: z.number(), alertes: z.array(alertRowSchema) });
export type AlertList = z.infer<typeof alertListSchema>;

export const alertAckResponseSchema = z.object({ status: z.literal('success'), message: z.string() });

/** The kinds a person receives by e-mail (from their roles) and those they turned off. */
export const alertPreferencesSchema = z.object({
  recues: z.array(alertKindSchema),
  desactivees: z.array(alertKindSchema),
});
export type AlertPreferences = z.infer<typeof alertPreferencesSchema>;

export const alertPreferencesInputSchema = z.strictObject(
  {
    desactivees: z
      .array(alertKindSchema, { error: "Liste des types d'alerte invalide" })
      .max(ALERT_KINDS.length, { error: "Liste des types d'alerte invalide" }),
  },
  { error: 'Paramètre inconnu' },
);
export type AlertPreferencesInput = z.infer<typeof alertPreferencesInputSchema>;

export const alertPreferencesResponseSchema = z.object({ status: z.literal('success'), message: z.string(), preferences: alertPreferencesSchema });

/** What a run of the job did. */
export const alertRunResultSchema = z.object({
  status: z.literal('success'),
  message: z.string(),
  ouvertes: z.number(),
  fermees: z.number(),
  mails: z.number(),
});
export type AlertRunResult = z.infer<typeof alertRunResultSchema>;
