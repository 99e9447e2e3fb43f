// Interventions administration (the 'Interventions' screen and the interventions API
// routes): the global and per-site lists, one intervention with its site and last
// change, the edit of its one block, the delete, and the export. The block's rules are those
// of the add route (intervention-rules.ts), keyed the same way (values0.observations...).
import { z } from 'zod';
import { decimalFilterSchema, idSchema, plainString } from './common.js';
import { interventionBlockSchema, interventionDateSchema, INTERVENTION_MESSAGES } from './interventions.js';
import { listQuerySchema } from './list.js';
import { withinListDepth } from './list-depth.js';
import { photoRefSchema } from './photos.js';

export const INTERVENTION_ADMIN_MESSAGES = {
  notFound: 'Intervention introuvable',
  updated: 'Intervention modifiée',
  deleted: 'Intervention supprimée',
  deletedWithDemande: "Intervention et demande d'intervention liée supprimées",
  lockedUpdate: 'Impossible de modifier car liée à une autre intervention',
  lockedDelete: 'Impossible à supprimer car liée à une autre intervention',
  /** Banner of the edit dialog (the contract's wording). */
  required: 'Veuillez remplir les champs obligatoires',
  /** A page past the rows the lists page (list-depth.ts): the export holds them all. */
  tooDeep: "Plus de 10 000 interventions correspondent : seules les 10 000 premières sont paginées. Précisez les filtres pour réduire la liste (l'export CSV les contient toutes).",
} as const;

/** Every interventions list pages at most this many rows, in any order; its count stops there and the table says 'plus de 10 000'. */
export const COUNT_CAP = 10_000;

export const INTERVENTION_SORT_FIELDS = ['date', 'site', 'intervenant', 'action', 'typeBac', 'numeroBac'] as const;
export type InterventionSortField = (typeof INTERVENTION_SORT_FIELDS)[number];

/** Date tables default to the most recent first, unlike the ascending default of other lists. */
function newestFirst(raw: unknown): unknown {
  if (raw && typeof raw === 'object' && !('sort' in raw)) return { ...raw, sort: { name: 'date', direction: 'desc' } };
  return raw;
}

/** The date filter as typed in the table: part of the dd/MM/yyyy HH:mm text ('12/0', '2026', '14:3'). */
export const dateFilterTermSchema = plainString({ error: 'Filtre invalide' }).max(20, { error: 'Filtre invalide' });

export const interventionAdminListQuerySchema = z.preprocess(
  newestFirst,
  listQuerySchema({
    sortFields: INTERVENTION_SORT_FIELDS,
    defaultSort: 'date',
    filters: { date: dateFilterTermSchema, action: decimalFilterSchema(), site: decimalFilterSchema() },
  }).extend({
    /** Site id: the per-site dialog of the sites screen; absent: the global list. */
    id: decimalFilterSchema().optional(),
  }),
);
export type InterventionAdminListQuery = z.infer<typeof interventionAdminListQuerySchema>;
/** GET /api/admin/intervention/get/list/by/filters: the export's query, its page within the lists' depth. */
export const interventionAdminPageQuerySchema = withinListDepth(interventionAdminListQuerySchema, INTERVENTION_ADMIN_MESSAGES.tooDeep);

/** Row of the administrators' lists (per site and global). */
export const interventionAdminRowSchema = z.object({
  id: z.number(),
  /** ISO 8601. */
  date: z.string(),
  /** 'NOM Prénom' of who recorded it. */
  intervenant: z.string(),
  typeBac: z.string(),
  idTypeBac: z.number(),
  numeroBac: z.number(),
  idSiteComposteur: z.number(),
  typeAction: z.string(),
  idAction: z.number(),
  /** Displayed value (the contract's display rule, see displayValue). */
  valeur: z.string(),
  observations: z.string().nullable(),
  /** The site's name, or its code when it has none. */
  site: z.string(),
  idSite: z.number(),
  /** 'Modifiée par': agent and date of the last change, or null. */
  modificationAgent: z.string().nullable(),
  modifiedAt: z.string().nullable(),
  /** Result of a processed request, or trigger of a request already processed: no edit, no delete. */
  locked: z.boolean(),
  /** Trigger of a request still pending (3 or 4): deleting it deletes the request too. */
  pendingDemande: z.boolean(),
  /** Its photos, oldest first (the images themselves at GET /api/admin/photo/{id}). */
  photos: z.array(photoRefSchema),
});
export type InterventionAdminRow = z.infer<typeof interventionAdminRowSchema>;

/**
 * What every interventions table row carries besides its own columns: who recorded it
 * (`referent`, a referent's or an agent's name), who corrected it, the action's own fields, the
 * site, the cells, and the links through requests.
 */
const interventionLinksShape = {
  /** Who recorded it: the referent, or the agent when an agent recorded it ('NOM Prénom'). */
  referent: z.string().nullable(),
  /** Whether the action carries a value (type_action.valeur). */
  actionValeur: z.boolean(),
  /** The site's own name (null when it has none; `site` then shows its code). */
  siteNom: z.string().nullable(),
  /** Destination cell of a transfer. */
  idBacDestination: z.number().nullable(),
  /** Status of the latest request this intervention raised (3 to 6), or null. */
  idStatut: z.number().nullable(),
  /** The request this intervention processed, or null. */
  demandeIntervention: z.number().nullable(),
  /** The intervention that processed the request this one raised, or null. */
  interventionRealisee: z.number().nullable(),
};

/** Row of the administrators' lists (per site and global). */
export const interventionAdminListRowSchema = interventionAdminRowSchema.extend(interventionLinksShape);
export type InterventionAdminListRow = z.infer<typeof interventionAdminListRowSchema>;

/** GET /api/admin/intervention/get/list/by/filters. */
export const interventionAdminTableSchema = z.object({
  count: z.number(),
  /** true when count is COUNT_CAP and more rows match (they are in the export, not in the pages). */
  countCapped: z.boolean(),
  interventions: z.array(interventionAdminListRowSchema),
});
export type InterventionAdminTable = z.infer<typeof interventionAdminTableSchema>;

/** GET /api/admin/intervention/get/{id}: the intervention, its stored value, its site and cells, its last change. */
export const interventionDetailSchema = z.object({
  intervention: interventionAdminRowSchema.extend({
    /** The value as the field form holds it: a number, a constant id, a text, or null. */
    valeurSaisie: z.union([z.number(), z.string()]).nullable(),
    bacDestination: z.number().nullable(),
  }),
  site: z.object({
    id: z.number(),
    code: z.string(),
    nom: z.string().nullable(),
    adresse: z.string(),
    ville: z.string(),
    /** Every cell of the site (inactive ones flagged) for the cell select. */
    siteComposteurs: z.array(z.object({ id: z.number(), numero: z.number(), typeBac: z.number(), libelleTypeBac: z.string(), actif: z.boolean() })),
  }),
  lastChange: z
    .object({ agent: z.string(), at: z.string(), action: z.enum(['update', 'delete']) })
    .nullable(),
});
export type InterventionDetail = z.infer<typeof interventionDetailSchema>;

/**
 * PUT /api/admin/intervention/update/{id}: the date and the one block (values[0]), as the add
 * route. A future date is refused by the service with the catalogue checks, so that all the
 * errors come back at once.
 */
export const interventionUpdateSchema = z.object({
  date: interventionDateSchema,
  values: z
    .array(interventionBlockSchema.omit({ demandeIntervention: true }), { error: INTERVENTION_MESSAGES.blocksMin })
    .length(1, { error: 'Une seule action par intervention' }),
});
export type InterventionUpdate = z.infer<typeof interventionUpdateSchema>;
export type InterventionUpdateInput = z.input<typeof interventionUpdateSchema>;

export const interventionUpdatedSchema = z.object({
  status: z.literal('success'),
  message: z.string(),
  /** Requests cancelled and raised by the rules because the action or value changed. */
  demandesAnnulees: z.array(z.number()),
  demandesCreees: z.array(z.number()),
});

export const interventionDeletedSchema = z.object({ status: z.literal('success'), message: z.string(), demandeSupprimee: z.number().nullable() });

export const interventionIdSchema = idSchema();

/**
 * Row of the public per-site table (GET /api/intervention/get/list/by/site/{id}). Anyone holding
 * the site's link may read it: the names (referent, modificationAgent), the observations and the
 * free-text values (repairs) are null or empty except for who may record on the site (its
 * referents, providers and site administrators), since they hold phone numbers and padlock codes.
 */
export const publicSiteInterventionRowSchema = z.object({
  id: z.number(),
  /** ISO 8601. */
  date: z.string(),
  idAction: z.number(),
  typeAction: z.string(),
  /** Cell type label. */
  typeBac: z.string(),
  idTypeBac: z.number(),
  numeroBac: z.number(),
  idSiteComposteur: z.number(),
  idSite: z.number(),
  /** The site's name, or its code when it has none. */
  site: z.string(),
  /** Displayed value (displayValue); '' for a free-text value shown to whom the site is not open. */
  valeur: z.string(),
  observations: z.string().nullable(),
  modificationAgent: z.string().nullable(),
  ...interventionLinksShape,
});
export type PublicSiteInterventionRow = z.infer<typeof publicSiteInterventionRowSchema>;

/** Like the administrators' table, it pages at most COUNT_CAP rows: countCapped says more match. */
export const publicSiteInterventionListSchema = z.object({ count: z.number(), countCapped: z.boolean(), interventions: z.array(publicSiteInterventionRowSchema) });
export type PublicSiteInterventionList = z.infer<typeof publicSiteInterventionListSchema>;
