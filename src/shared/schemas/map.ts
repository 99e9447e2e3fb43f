// Where things are: the map of the sites (GET /api/admin/site/get/carte) and the provider's
// day as a route through the requests planned that day (GET /api/admin/tournee, its order
// changed by hand and its start point). Distances are great-circle kilometres.
import { z } from 'zod';
import { idSchema } from './common.js';

export const MAP_MESSAGES = {
  dateRequired: 'Choisissez un jour (AAAA-MM-JJ)',
  dateInvalid: 'Jour invalide (AAAA-MM-JJ)',
  departInvalid: 'Point de départ invalide : latitude,longitude en degrés décimaux (ex. 48.39,-4.49)',
  latitudeRange: 'La latitude doit être un nombre entre -90 et 90',
  longitudeRange: 'La longitude doit être un nombre entre -180 et 180',
  ordreRequired: 'Donnez l’ordre des étapes',
  ordreMismatch: 'L’ordre doit reprendre exactement les demandes programmées ce jour-là, chacune une fois. Rechargez la tournée.',
  ordreSaved: 'Ordre de la tournée enregistré',
  ordreCleared: 'Ordre de la tournée effacé : les étapes suivent l’ordre calculé',
  departSaved: 'Point de départ enregistré',
  departCleared: 'Point de départ effacé : la tournée part de la première étape',
} as const;

/** A site on the map. Latitude and longitude are null for a site not yet placed (listed, not drawn). */
export const carteSiteSchema = z.object({
  id: z.number(),
  code: z.string(),
  nom: z.string(),
  adresse: z.string(),
  ville: z.string(),
  latitude: z.number().nullable(),
  longitude: z.number().nullable(),
  /** Open alerts on the site. */
  alertes: z.number(),
  /** Requests of the site still to do ('A faire' or planned, not cancelled nor done). */
  demandesEnAttente: z.number(),
});
export type CarteSite = z.infer<typeof carteSiteSchema>;

export const carteSchema = z.object({
  /** Every active site the user may see, by name. */
  sites: z.array(carteSiteSchema),
  /** The tile layer: a URL with {z}, {x}, {y} and the credit to show (MAP_TILES_URL). */
  tuiles: z.object({ url: z.string(), attribution: z.string() }),
});
export type Carte = z.infer<typeof carteSchema>;

/** How a site's marker is coloured: open alerts first, then pending requests, then nothing. */
export type MarkerState = 'alerte' | 'demandes' | 'calme';
export function markerState(site: Pick<CarteSite, 'alertes' | 'demandesEnAttente'>): MarkerState {
  if (site.alertes > 0) return 'alerte';
  if (site.demandesEnAttente > 0) return 'demandes';
  return 'calme';
}

const DAY = /^\d{4}-(0[1-9]|1[0-2])-(0[1-9]|[12]\d|3[01])$/;
// Year 0000 is a JavaScript date but not a PostgreSQL one: refused here, not by the database.
const isRealDay = (s: string) => {
  const d = new Date(`${s}T00:00:00Z`);
  return !s.startsWith('0000') && !Number.isNaN(d.getTime()) && d.toISOString().slice(0, 10) === s;
};
const daySchema = z
  .string({ error: MAP_MESSAGES.dateRequired })
  .min(1, { error: MAP_MESSAGES.dateRequired })
  .refine((s) => DAY.test(s) && isRealDay(s), { error: MAP_MESSAGES.dateInvalid });

const latitudeSchema = z.number({ error: MAP_MESSAGES.latitudeRange }).min(-90, { error: MAP_MESSAGES.latitudeRange }).max(90, { error: MAP_MESSAGES.latitudeRange });
const longitudeSchema = z.number({ error: MAP_MESSAGES.longitudeRange }).min(-180, { error: MAP_MESSAGES.longitudeRange }).max(180, { error: MAP_MESSAGES.longitudeRange });

/** 'lat,lon' in decimal degrees with a point ('48.39,-4.49'). */
export function parseDepart(s: string): { latitude: number; longitude: number } | null {
  const m = /^\s*(-?\d{1,2}(?:\.\d+)?)\s*,\s*(-?\d{1,3}(?:\.\d+)?)\s*$/.exec(s);
  if (!m) return null;
  const latitude = Number(m[1]);
  const longitude = Number(m[2]);
  if (Math.abs(latitude) > 90 || Math.abs(longitude) > 180) return null;
  return { latitude, longitude };
}

/** GET /api/admin/tournee?date=YYYY-MM-DD[&depart=lat,lon] */
export const tourneeQuerySchema = z.object({
  date: daySchema,
  depart: z
    .string()
    .optional()
    .refine((s) => s === undefined || parseDepart(s) !== null, { error: MAP_MESSAGES.departInvalid }),
});
export type TourneeQuery = z.infer<typeof tourneeQuerySchema>;

/** What a stop is about: the request as the board shows it. */
const stopFields = {
  idDemande: z.number(),
  idSite: z.number(),
  site: z.string(),
  /** Street number, street and city, as one line. */
  adresse: z.string(),
  /** The scheduled action ('Retournement', 'Vidage'...). */
  action: z.string(),
  /** The cell: its type and number ('Bac de compostage 2'). */
  cellule: z.string(),
  /** ISO instant of the request's due date. */
  dateEcheance: z.string(),
};

export const etapeSchema = z.object({
  /** 1, 2, 3... in the order of the route. */
  ordre: z.number(),
  ...stopFields,
  latitude: z.number(),
  longitude: z.number(),
  /** From the previous stop (from the start point for the first one), rounded to 0.1 km. */
  distanceKm: z.number(),
});
export type Etape = z.infer<typeof etapeSchema>;

export const sansPositionSchema = z.object(stopFields);
export type SansPosition = z.infer<typeof sansPositionSchema>;

export const tourneeSchema = z.object({
  date: z.string(),
  /** Where the route starts: the 'depart' asked, else the user's saved start point, else the first stop. */
  depart: z.object({ latitude: z.number(), longitude: z.number(), source: z.enum(['demande', 'enregistre', 'premiere-etape']) }).nullable(),
  etapes: z.array(etapeSchema),
  /** Planned requests whose site has no position: listed apart, never dropped. */
  sansPosition: z.array(sansPositionSchema),
  /** Sum of the stops' distances, rounded to 0.1 km. */
  distanceTotaleKm: z.number(),
  /** True when the order is the one the user set by hand for that day. */
  ordreManuel: z.boolean(),
});
export type Tournee = z.infer<typeof tourneeSchema>;

/** PUT /api/admin/tournee/ordre: the day's stops (request ids) in the order wanted; an empty list goes back to the computed order. */
export const tourneeOrdreBodySchema = z.strictObject({
  date: daySchema,
  demandes: z.array(idSchema(), { error: MAP_MESSAGES.ordreRequired }).max(500, { error: MAP_MESSAGES.ordreMismatch }),
});
export type TourneeOrdreBody = z.infer<typeof tourneeOrdreBodySchema>;

/** PUT /api/admin/tournee/depart: the user's start point, or null for none (the first stop). */
export const tourneeDepartBodySchema = z.strictObject({
  depart: z.object({ latitude: latitudeSchema, longitude: longitudeSchema }).nullable(),
});
export type TourneeDepartBody = z.infer<typeof tourneeDepartBodySchema>;

export const tourneeSaveResponseSchema = z.object({ status: z.literal('success'), message: z.string() });
