// Sites administration (the 'Sites' screen, its forms and its API routes): the payloads the
// API accepts, the answers it gives, and the limits the forms apply before sending.
import { z } from 'zod';
import { listQuerySchema } from './list.js';
import { withinListDepth } from './list-depth.js';
import { formatNom, formatPrenom } from './account.js';
import { COMMON_MESSAGES, INT32_MAX, decimalIntSchema, plainString } from './common.js';
import { SITE_STATUT } from '../domain.js';

export { SITE_STATUT };
export const SITE_NOM_MAX = 50;
export const CADENA_MAX = 8;
export const NUMERO_MIN = 0;
export const NUMERO_MAX = 20;
export const CIVILITES = ['Madame', 'Monsieur'] as const;
export const FONCTIONS = ['Mairie', 'Ecole', 'Bailleur Social', 'Syndic copro', 'Particulier', 'Autre'] as const;
export const PERIODES = ['Printemps', 'Eté', 'Automne', 'Hiver'] as const;

export const SITE_MESSAGES = {
  required: 'Champ obligatoire',
  numeroRange: `Le numéro doit être compris entre ${NUMERO_MIN} et ${NUMERO_MAX}`,
  numeroTaken: 'Ce numéro est déjà utilisé sur ce site',
  villeUnknown: 'Ville inconnue : choisissez une ville de la liste',
  typeUnknown: 'Type de site inconnu',
  composteurUnknown: 'Type de composteur inconnu',
  typeBacUnknown: 'Usage inconnu',
  statutUnknown: 'Statut inconnu',
  precisionsRequired: 'Précisez la fonction',
  tel: 'Le numéro de téléphone doit contenir 10 chiffres',
  email: 'Adresse mail invalide',
  dateInvalid: 'Date invalide',
  userUnknown: 'Utilisateur introuvable ou inactif',
  typeBacLocked: "Impossible de changer l'usage d'une cellule qui a des interventions : désactivez-la et ajoutez-en une autre",
  siteNotFound: 'Site introuvable.',
  cellNotFound: 'Composteur du site introuvable.',
  demandeurNotFound: 'Demandeur introuvable.',
  publicTextContact: 'Ce texte est affiché sur la page publique du site : pas d’adresse mail ni de numéro de téléphone',
  latitudeRange: 'La latitude doit être un nombre entre -90 et 90',
  longitudeRange: 'La longitude doit être un nombre entre -180 et 180',
  coordonneesPaire: 'Renseignez la latitude et la longitude, ou aucune des deux',
  booleanInvalid: 'Valeur invalide',
} as const;

/** Planned years offered and accepted: current year - 10 to + 20 (the contract's display rule). */
export function anneeRange(now = new Date()) {
  const y = now.getFullYear();
  return { min: y - 10, max: y + 20 };
}

/** Digits only, +33 turned into 0: '02.98.00-00 00' and '+33 2 98 00 00 00' both become '0298000000'. */
export function normaliseTel(v: string): string {
  const compact = v.replace(/[\s.\-()]/g, '');
  return compact.startsWith('+33') ? `0${compact.slice(3)}` : compact;
}

/** '0298000000' -> '02 98 00 00 00' for display. */
export function displayTel(v: string | null | undefined): string {
  if (!v) return '';
  return /^\d{10}$/.test(v) ? v.replace(/(\d{2})(?=\d)/g, '$1 ') : v;
}

const REQUIRED = SITE_MESSAGES.required;
const emptyToUndefined = (v: unknown) => (v === '' || v === null ? undefined : v);

/** Form inputs give '' or strings of digits, the API numbers; '0x10', '1e3' or '1.5' is no whole number. */
const toNumber = (v: unknown) => {
  if (typeof v !== 'string' || v.trim() === '') return emptyToUndefined(v);
  const s = v.trim();
  return /^-?\d{1,12}$/.test(s) ? Number(s) : NaN;
};

/** A required whole number, within the int32 range of the database's integer columns. */
function requiredInt(message: string = REQUIRED) {
  return z.preprocess(
    toNumber,
    z
      .number({ message })
      .int({ message })
      .min(-INT32_MAX - 1, { message: COMMON_MESSAGES.integerInvalid })
      .max(INT32_MAX, { message: COMMON_MESSAGES.integerInvalid }),
  );
}

/** Optional trimmed text; empty means null. */
function optionalText(max: number) {
  return plainString({ message: 'Texte attendu' })
    .trim()
    .max(max, { message: `${max} caractères au plus` })
    .nullish()
    .transform((v) => (v ? v : null));
}

/** Years 1900 to 2999: beyond is a typing error, and a year 0 cannot even be stored. */
const DATE_MIN = Date.UTC(1900, 0, 1);
const DATE_MAX = Date.UTC(3000, 0, 1);
const inDateRange = (t: number) => Number.isFinite(t) && t >= DATE_MIN && t < DATE_MAX;

/** A calendar date 'YYYY-MM-DD' or an ISO date-time; empty means none. */
const DATE_RE = /^\d{4}-\d{2}-\d{2}$/;
const DATETIME_RE = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:\d{2})$/;
const optionalDate = z.preprocess(
  emptyToUndefined,
  z
    .string({ message: SITE_MESSAGES.dateInvalid })
    .refine((s) => (DATE_RE.test(s) || DATETIME_RE.test(s)) && inDateRange(Date.parse(s)), { message: SITE_MESSAGES.dateInvalid })
    .optional(),
);

/**
 * A calendar date travels as 'YYYY-MM-DD'; stored at noon UTC it is the same day in every
 * time zone from UTC-11 to UTC+11, so Europe/Paris always shows the date that was typed.
 */
export function toStoredDate(s: string | null | undefined): Date | null {
  if (!s) return null;
  return new Date(DATE_RE.test(s) ? `${s}T12:00:00Z` : s);
}

const telSchema = plainString({ message: REQUIRED })
  .transform(normaliseTel)
  .pipe(z.string().min(1, { message: REQUIRED }).regex(/^\d{10}$/, { message: SITE_MESSAGES.tel }));
const optionalTel = plainString()
  .nullish()
  .transform((v) => (v ? normaliseTel(v) : null))
  .pipe(z.string().regex(/^\d{10}$/, { message: SITE_MESSAGES.tel }).nullable());
const optionalEmail = plainString()
  .trim()
  .max(254, { message: '254 caractères au plus' })
  .nullish()
  .transform((v) => (v ? v : null))
  .pipe(z.email({ message: SITE_MESSAGES.email }).nullable());
const periodeSchema = z.preprocess(emptyToUndefined, z.enum(PERIODES, { message: 'Période inconnue' }).nullish()).transform((v) => v ?? null);
const anneeSchema = z
  .preprocess(
    toNumber,
    z
      .number({ message: 'Année invalide' })
      .int({ message: 'Année invalide' })
      .superRefine((y, ctx) => {
        // Computed at each check: a server running across New Year moves its range.
        const r = anneeRange();
        if (y < r.min || y > r.max) ctx.addIssue({ code: 'custom', message: `L'année doit être comprise entre ${r.min} et ${r.max}` });
      })
      .nullish(),
  )
  .transform((v) => v ?? null);

const demandeurFields = {
  fonction: z.enum(FONCTIONS, { message: REQUIRED }),
  precisions: optionalText(100),
  telephone: telSchema,
  telephone2: optionalTel,
  email: optionalEmail,
  periodeImplantation: periodeSchema,
  anneeImplantation: anneeSchema,
};

function precisionsWhenAutre(v: { fonction?: unknown; precisions?: unknown }, ctx: z.RefinementCtx) {
  if (v && v.fonction === 'Autre' && !v.precisions) ctx.addIssue({ code: 'custom', path: ['precisions'], message: SITE_MESSAGES.precisionsRequired });
}

/** The requester of a status 2 site (the 'Demandeur' form). */
export const requesterInputSchema = z
  .object({
    date: optionalDate,
    civilite: z.enum(CIVILITES, { message: REQUIRED }),
    nom: plainString({ message: REQUIRED }).trim().min(1, { message: REQUIRED }).max(100, { message: '100 caractères au plus' }).transform(formatNom),
    prenom: plainString({ message: REQUIRED }).trim().min(1, { message: REQUIRED }).max(100, { message: '100 caractères au plus' }).transform(formatPrenom),
    ...demandeurFields,
  })
  .superRefine(precisionsWhenAutre, { when: () => true });
export type RequesterInput = z.input<typeof requesterInputSchema>;

export const requesterUpdateSchema = z.object(demandeurFields).superRefine(precisionsWhenAutre, { when: () => true });
export type RequesterUpdate = z.input<typeof requesterUpdateSchema>;

export const cellInputSchema = z.object({
  composteur: requiredInt(),
  typeBac: requiredInt(),
  numero: z.preprocess(
    toNumber,
    z
      .number({ message: REQUIRED })
      .int({ message: SITE_MESSAGES.numeroRange })
      .min(NUMERO_MIN, { message: SITE_MESSAGES.numeroRange })
      .max(NUMERO_MAX, { message: SITE_MESSAGES.numeroRange }),
  ),
});
export type CellFields = z.input<typeof cellInputSchema>;

/** Two cells of one payload with the same number: the later ones are flagged. */
function uniqueNumeros(list: unknown, ctx: z.RefinementCtx, pathPrefix: (string | number)[]) {
  if (!Array.isArray(list)) return;
  const seen = new Set<number>();
  list.forEach((c, i) => {
    const n = (c as { numero?: unknown } | null)?.numero;
    if (typeof n !== 'number') return;
    if (seen.has(n)) ctx.addIssue({ code: 'custom', path: [...pathPrefix, i, 'numero'], message: SITE_MESSAGES.numeroTaken });
    seen.add(n);
  });
}

const composteursSchema = z.array(cellInputSchema, { message: 'Liste attendue' }).max(21, { message: 'Au plus 21 cellules par site' });

export const HORAIRES_MAX = 500;
export const CONSIGNES_MAX = 500;

const EMAIL_IN_TEXT = /[^\s@<>()]+@[^\s@<>()]+\.[a-z]{2,}/i;
const PHONE_IN_TEXT = /(?:\+|\b00)\s?\d{2,3}(?:[\s.-]?\d){8,}|\b0[1-9](?:[\s.-]?\d{2}){4}\b/;

/** Whether a text holds an e-mail address or a phone number (those never go on a public page). */
export function holdsContact(text: string): boolean {
  return EMAIL_IN_TEXT.test(text) || PHONE_IN_TEXT.test(text);
}

/** A text written for the public page: optional, bounded, and with no way to reach a person. */
function publicText(max: number) {
  return optionalText(max).refine((v) => v === null || !holdsContact(v), { message: SITE_MESSAGES.publicTextContact });
}

/** '48,39' and '48.39' as typed in a form, or a JSON number; empty means none. */
function coordinate(min: number, max: number, message: string) {
  return z.preprocess(
    (v) => {
      if (v === '' || v === null || v === undefined) return null;
      if (typeof v !== 'string') return v;
      const s = v.trim().replace(',', '.');
      return /^-?\d{1,3}(\.\d{1,12})?$/.test(s) ? Number(s) : NaN;
    },
    z.number({ message }).min(min, { message }).max(max, { message }).nullable(),
  );
}

/**
 * The public page and open-data fields of a site. Absent from an update: left as they are
 * (older clients do not send them). Coordinates left empty are taken from the imported
 * addresses when the street and number match.
 */
const sitePublicFields = {
  horaires: publicText(HORAIRES_MAX).optional(),
  consignes: publicText(CONSIGNES_MAX).optional(),
  latitude: coordinate(-90, 90, SITE_MESSAGES.latitudeRange).optional(),
  longitude: coordinate(-180, 180, SITE_MESSAGES.longitudeRange).optional(),
  openData: z.boolean({ message: SITE_MESSAGES.booleanInvalid }).optional(),
};

/** Latitude and longitude go together: one without the other is flagged. */
function coordinatesPaired(v: { latitude?: unknown; longitude?: unknown }, ctx: z.RefinementCtx) {
  if (!v || typeof v !== 'object') return;
  const lat = typeof v.latitude === 'number';
  const lon = typeof v.longitude === 'number';
  if (lat && !lon) ctx.addIssue({ code: 'custom', path: ['longitude'], message: SITE_MESSAGES.coordonneesPaire });
  if (lon && !lat) ctx.addIssue({ code: 'custom', path: ['latitude'], message: SITE_MESSAGES.coordonneesPaire });
}

const siteCommonFields = {
  nom: optionalText(SITE_NOM_MAX),
  adresse: plainString({ message: REQUIRED }).trim().min(1, { message: REQUIRED }).max(200, { message: '200 caractères au plus' }),
  numero: optionalText(20),
  complement: optionalText(200),
  type: requiredInt(),
  observations: optionalText(2000),
  cadena: optionalText(CADENA_MAX),
  dateImplantation: optionalDate,
  dateInauguration: optionalDate,
  dateConvention: optionalDate,
  statut: requiredInt().refine((s) => s === SITE_STATUT.actif || s === SITE_STATUT.demande, { message: SITE_MESSAGES.statutUnknown }),
  ...sitePublicFields,
};

/** POST /api/admin/site/add. Status 1 carries cells and dates; status 2 a requester. */
export const siteAddSchema = z
  .object({
    ...siteCommonFields,
    ville: plainString({ message: REQUIRED }).trim().min(1, { message: REQUIRED }).max(100),
    cp: optionalText(10),
    composteurs: composteursSchema.optional().default([]),
    demandeur: requesterInputSchema.nullish(),
  })
  .superRefine(
    (v, ctx) => {
      if (!v || typeof v !== 'object') return;
      if (v.statut === SITE_STATUT.demande && !v.demandeur) ctx.addIssue({ code: 'custom', path: ['demandeur'], message: REQUIRED });
      uniqueNumeros(v.composteurs, ctx, ['composteurs']);
      coordinatesPaired(v, ctx);
    },
    { when: () => true },
  );
export type SiteAddInput = z.input<typeof siteAddSchema>;
export type SiteAdd = z.output<typeof siteAddSchema>;

/** PUT /api/admin/site/update/{id}; a dateConvention different from the latest one is added to the history. */
export const siteUpdateSchema = z.object(siteCommonFields).superRefine(coordinatesPaired, { when: () => true });
export type SiteUpdateInput = z.input<typeof siteUpdateSchema>;
export type SiteUpdate = z.output<typeof siteUpdateSchema>;

/** PUT /api/admin/site/update/user/{id}: the full list of referents (ids, or user objects). */
export const siteReferentsSchema = z.object({
  user: z
    .array(
      z.union([requiredInt(SITE_MESSAGES.userUnknown), z.object({ id: requiredInt(SITE_MESSAGES.userUnknown) }).transform((u) => u.id)]),
      { message: 'Liste attendue' },
    )
    .max(200),
});

export const cellUpdateSchema = cellInputSchema.extend({ actif: z.boolean({ message: REQUIRED }) });
export type CellUpdateInput = z.input<typeof cellUpdateSchema>;

/** PUT /api/admin/site/add/composteur/{id}. */
export const cellsAddSchema = z
  .object({ composteurs: composteursSchema.min(1, { message: 'Ajoutez au moins une cellule' }) })
  .superRefine((v, ctx) => v && uniqueNumeros(v.composteurs, ctx, ['composteurs']), { when: () => true });
export type CellsAddInput = z.input<typeof cellsAddSchema>;

const textFilter = plainString().trim().max(200);
const listOf = <T extends z.ZodType>(item: T) => z.preprocess((v) => (v === undefined || Array.isArray(v) ? v : [v]), z.array(item).max(200));

export const SITE_SORT_FIELDS = [
  'nom',
  'ville',
  'adresse',
  'complement',
  'typeSite',
  'referent',
  'volume',
  'nbComposteurs',
  'cadena',
  'observations',
  'statut',
  'dateConvention',
  'dateImplantation',
  'dateInauguration',
] as const;
export type SiteSortField = (typeof SITE_SORT_FIELDS)[number];

/** GET /api/admin/site/get/list/by/filters and /api/admin/site/export. */
export const siteListQuerySchema = listQuerySchema({
  sortFields: SITE_SORT_FIELDS,
  defaultSort: 'nom',
  defaultRowsPerPage: 10,
  filters: {
    nom: textFilter,
    ville: listOf(plainString().max(100)),
    adresse: textFilter,
    type: textFilter,
    statut: listOf(decimalIntSchema({ message: SITE_MESSAGES.statutUnknown })),
  },
});
export type SiteListQuery = z.output<typeof siteListQuerySchema>;

/** Past the rows the list pages (list-depth.ts): the export holds them all. */
export const SITE_LIST_TOO_DEEP = "Plus de 10 000 sites correspondent : seuls les 10 000 premiers sont paginés. Précisez les filtres pour réduire la liste (l'export CSV les contient tous).";
/** GET /api/admin/site/get/list/by/filters: the export's query, its page within the list's depth. */
export const siteListPageQuerySchema = withinListDepth(siteListQuerySchema, SITE_LIST_TOO_DEEP);

export const siteRowSchema = z.object({
  id: z.number(),
  code: z.string(),
  nom: z.string().nullable(),
  ville: z.string(),
  cp: z.string(),
  adresse: z.string(),
  numero: z.string().nullable(),
  complement: z.string().nullable(),
  idType: z.number(),
  typeSite: z.string(),
  /** 'NOM Prénom' of each referent, comma-separated. */
  referent: z.string().nullable(),
  /** Total litres of the active cells. */
  volume: z.number(),
  nbComposteurs: z.number(),
  cadena: z.string().nullable(),
  observations: z.string().nullable(),
  statut: z.string(),
  idStatut: z.number(),
  /** ISO date-times. */
  dateConvention: z.string().nullable(),
  dateImplantation: z.string().nullable(),
  dateInauguration: z.string().nullable(),
  idDemandeur: z.number().nullable(),
});
export type SiteRow = z.infer<typeof siteRowSchema>;

export const siteListSchema = z.object({ count: z.number(), sites: z.array(siteRowSchema) });
export type SiteList = z.infer<typeof siteListSchema>;

export const referentSchema = z.object({ id: z.number(), nom: z.string(), prenom: z.string().nullable() });
export type Referent = z.infer<typeof referentSchema>;

export const siteDetailSchema = siteRowSchema.extend({
  /** Convention dates, newest first. */
  dateConventions: z.array(z.string()),
  referents: z.array(referentSchema),
  horaires: z.string().nullable(),
  consignes: z.string().nullable(),
  /** WGS 84 degrees, both or neither. */
  latitude: z.number().nullable(),
  longitude: z.number().nullable(),
  /** 'ban': from the imported addresses (follows the address); 'saisie': typed on the form. */
  coordonneesSource: z.enum(['ban', 'saisie']).nullable(),
  openData: z.boolean(),
});
export type SiteDetail = z.infer<typeof siteDetailSchema>;

export const cellSchema = z.object({
  id: z.number(),
  site: z.number(),
  /** Composter type id. */
  composteur: z.number(),
  volume: z.number(),
  precisions: z.string(),
  /** Cell type id (also as idTypeBac) and its label. */
  typeBac: z.number(),
  idTypeBac: z.number(),
  libelle: z.string(),
  numero: z.number(),
  actif: z.boolean(),
  /** Whether interventions were recorded on the cell (its use can no longer change). */
  aInterventions: z.boolean(),
});
export type SiteCell = z.infer<typeof cellSchema>;

export const requesterSchema = z.object({
  id: z.number(),
  date: z.string().nullable(),
  civilite: z.string(),
  nom: z.string(),
  prenom: z.string(),
  fonction: z.string(),
  precisions: z.string().nullable(),
  telephone: z.string(),
  telephone2: z.string().nullable(),
  email: z.string().nullable(),
  periodeImplantation: z.string().nullable(),
  anneeImplantation: z.number().nullable(),
});
export type Requester = z.infer<typeof requesterSchema>;

export const siteAddedSchema = z.object({ status: z.literal('success'), id: z.number(), code: z.string() });
