// Where a site may stand: a frame around the programme's territory that catches gross typing
// errors in coordinates (latitude and longitude swapped, a sign dropped, a position copied from
// another region), not a site placed in the wrong street. Pure: the server builds the frame from
// the imported address points of the territory's cities (docs/domain.md, "Positions"), and the
// same checks serve the site forms, the sites import and the demo programme's test.
import type { FieldError } from '../errors.js';

/** A latitude/longitude rectangle in WGS 84 degrees, bounds included. */
export interface Box {
  south: number;
  north: number;
  west: number;
  east: number;
}

/** One box around the territory, or several (France's fallback): a position inside any of them is inside. */
export type TerritoryFrame = readonly Box[];

/**
 * Added around the box of the address points: 0.2° of latitude is about 22 km, and 0.3° of
 * longitude is about 22 km too at the latitudes of metropolitan France (one degree of longitude
 * shrinks with the cosine of the latitude: about 74 km at 48°). Wide enough for the part of a
 * city its imported addresses miss (a sample, an import limited to some streets, a site in the
 * countryside beyond the last house number), narrow enough that a swapped pair or a dropped
 * minus sign lands far outside (Brest at 48.39 / -4.48 becomes -4.48 / 48.39 or 48.39 / 4.48).
 */
export const TERRITORY_MARGIN = { lat: 0.2, lon: 0.3 } as const;

/**
 * The frame used while no address point of the territory is known: metropolitan France with
 * Corsica, and the five overseas départements. Each box runs from the extreme points of the
 * land (islands included: Ouessant to the west, the Lavezzi islands to the south, Bray-Dunes to
 * the north, Cap Corse to the east...) as read on a map, rounded outward to the next tenth of a
 * degree. Approximate by design: like the territory's frame, it only catches gross errors.
 */
export const FRANCE_FRAME: TerritoryFrame = [
  // Metropolitan France and Corsica.
  { south: 41.3, north: 51.1, west: -5.2, east: 9.6 },
  // Guadeloupe (Basse-Terre, Grande-Terre, Marie-Galante, Les Saintes, La Désirade).
  { south: 15.8, north: 16.6, west: -61.9, east: -60.9 },
  // Martinique.
  { south: 14.3, north: 14.9, west: -61.3, east: -60.8 },
  // Guyane.
  { south: 2.1, north: 5.8, west: -54.7, east: -51.6 },
  // La Réunion.
  { south: -21.4, north: -20.8, west: 55.2, east: 55.9 },
  // Mayotte (Grande-Terre and Petite-Terre).
  { south: -13.1, north: -12.6, west: 45.0, east: 45.4 },
];

export const TERRITORY_MESSAGES = {
  latitudeOutside: 'La latitude est hors du territoire du programme',
  longitudeOutside: 'La longitude est hors du territoire du programme',
  swapped: 'Latitude et longitude inversées ?',
} as const;

/** The smallest box holding every point, or null when there is none. */
export function boxOfPoints(points: Iterable<{ latitude: number; longitude: number }>): Box | null {
  let box: Box | null = null;
  for (const { latitude, longitude } of points) {
    if (!box) box = { south: latitude, north: latitude, west: longitude, east: longitude };
    else {
      box.south = Math.min(box.south, latitude);
      box.north = Math.max(box.north, latitude);
      box.west = Math.min(box.west, longitude);
      box.east = Math.max(box.east, longitude);
    }
  }
  return box;
}

/** The box widened by the margin on every side, within the earth's ranges. */
export function widen(box: Box, margin: { lat: number; lon: number } = TERRITORY_MARGIN): Box {
  return {
    south: Math.max(-90, box.south - margin.lat),
    north: Math.min(90, box.north + margin.lat),
    west: Math.max(-180, box.west - margin.lon),
    east: Math.min(180, box.east + margin.lon),
  };
}

/**
 * The frame of a territory from the box of its address points (the server's one query): that
 * box widened by the margin, or France when the territory has no point yet.
 */
export function territoryFrame(pointsBox: Box | null): TerritoryFrame {
  return pointsBox ? [widen(pointsBox)] : FRANCE_FRAME;
}

const inBox = (b: Box, latitude: number, longitude: number) => latitude >= b.south && latitude <= b.north && longitude >= b.west && longitude <= b.east;

export function isInside(frame: TerritoryFrame, latitude: number, longitude: number): boolean {
  return frame.some((b) => inBox(b, latitude, longitude));
}

/** Outside the frame, but inside once latitude and longitude trade places. */
export function isSwapped(frame: TerritoryFrame, latitude: number, longitude: number): boolean {
  return !isInside(frame, latitude, longitude) && isInside(frame, longitude, latitude);
}

/**
 * The field errors of a position against the frame, keyed `latitude` and `longitude`: none
 * inside; both with the swap question when trading them would fit; otherwise the coordinate
 * that no box's range holds, or both when each fits some box but the pair fits none.
 */
export function positionErrors(frame: TerritoryFrame, latitude: number, longitude: number): FieldError[] {
  if (isInside(frame, latitude, longitude)) return [];
  if (isSwapped(frame, latitude, longitude)) {
    return [
      { key: 'latitude', error: TERRITORY_MESSAGES.swapped },
      { key: 'longitude', error: TERRITORY_MESSAGES.swapped },
    ];
  }
  const latitudeFits = frame.some((b) => latitude >= b.south && latitude <= b.north);
  const longitudeFits = frame.some((b) => longitude >= b.west && longitude <= b.east);
  const errors: FieldError[] = [];
  if (!latitudeFits || longitudeFits) errors.push({ key: 'latitude', error: TERRITORY_MESSAGES.latitudeOutside });
  if (!longitudeFits || latitudeFits) errors.push({ key: 'longitude', error: TERRITORY_MESSAGES.longitudeOutside });
  return errors;
}
