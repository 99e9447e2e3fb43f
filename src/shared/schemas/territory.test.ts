import { describe, expect, it } from 'vitest';
import { FRANCE_FRAME, boxOfPoints, isInside, isSwapped, positionErrors, territoryFrame, widen } from './territory.js';

const SWAPPED = 'Latitude et longitude inversées ?';
const LAT_OUT = 'La latitude est hors du territoire du programme';
const LON_OUT = 'La longitude est hors du territoire du programme';

// Three address points of Brest Métropole: Brest (rue de Siam), Guipavas and Plouzané.
const POINTS = [
  { latitude: 48.388, longitude: -4.4891 },
  { latitude: 48.436, longitude: -4.396 },
  { latitude: 48.383, longitude: -4.619 },
];

describe('territory frame', () => {
  it('boxes the points, and has no box without a point', () => {
    expect(boxOfPoints(POINTS)).toEqual({ south: 48.383, north: 48.436, west: -4.619, east: -4.396 });
    expect(boxOfPoints([{ latitude: 1, longitude: 2 }])).toEqual({ south: 1, north: 1, west: 2, east: 2 });
    expect(boxOfPoints([])).toBeNull();
  });

  it('widens the box by 0.2° of latitude and 0.3° of longitude, never past the poles or the antimeridian', () => {
    const w = widen({ south: 48.383, north: 48.436, west: -4.619, east: -4.396 });
    expect(w.south).toBeCloseTo(48.183, 9);
    expect(w.north).toBeCloseTo(48.636, 9);
    expect(w.west).toBeCloseTo(-4.919, 9);
    expect(w.east).toBeCloseTo(-4.096, 9);
    expect(widen({ south: 89.9, north: 89.9, west: 179.9, east: 179.9 })).toEqual({ south: 89.7, north: 90, west: 179.6, east: 180 });
  });

  it("takes the territory's widened box, or France when no address point is known", () => {
    const frame = territoryFrame(boxOfPoints(POINTS));
    expect(frame).toHaveLength(1);
    expect(isInside(frame, 48.3904, -4.4861)).toBe(true);
    // Quimper (47.996 / -4.102) is some 60 km away: outside.
    expect(isInside(frame, 47.996, -4.102)).toBe(false);
    // Paris is in France, not in Brest Métropole.
    expect(isInside(frame, 48.8566, 2.3522)).toBe(false);
    expect(territoryFrame(null)).toBe(FRANCE_FRAME);
    expect(isInside(FRANCE_FRAME, 48.8566, 2.3522)).toBe(true);
  });

  it('holds metropolitan France, Corsica and the overseas départements, not the rest of the world', () => {
    const places: [string, number, number][] = [
      ['Brest', 48.3904, -4.4861],
      ['Ouessant', 48.4567, -5.0955],
      ['Strasbourg', 48.5734, 7.7521],
      ['Dunkerque', 51.0344, 2.3768],
      ['Ajaccio', 41.9192, 8.7386],
      ['Pointe-à-Pitre', 16.2411, -61.5331],
      ['Fort-de-France', 14.6161, -61.0588],
      ['Cayenne', 4.9224, -52.3135],
      ['Saint-Denis de La Réunion', -20.8821, 55.4507],
      ['Mamoudzou', -12.7806, 45.2279],
    ];
    for (const [name, lat, lon] of places) expect(isInside(FRANCE_FRAME, lat, lon), name).toBe(true);
    const abroad: [string, number, number][] = [
      ['Madrid', 40.4168, -3.7038],
      ['London', 51.5074, -0.1278],
      ['New York', 40.7128, -74.006],
      ['the Gulf of Guinea (0, 0)', 0, 0],
    ];
    for (const [name, lat, lon] of abroad) expect(isInside(FRANCE_FRAME, lat, lon), name).toBe(false);
  });

  it('tells a swapped pair, in the territory and in France (Brest typed -4.48 / 48.39 is in the Indian Ocean)', () => {
    const brest = territoryFrame(boxOfPoints(POINTS));
    expect(isSwapped(brest, -4.4861, 48.3904)).toBe(true);
    expect(isSwapped(FRANCE_FRAME, -4.48, 48.39)).toBe(true);
    expect(isSwapped(FRANCE_FRAME, 48.39, -4.48)).toBe(false);
    expect(isSwapped(FRANCE_FRAME, 40.4168, -3.7038)).toBe(false);
  });
});

describe('position errors', () => {
  const brest = territoryFrame(boxOfPoints(POINTS));

  it('gives none inside the frame, the bounds included', () => {
    expect(positionErrors(brest, 48.3904, -4.4861)).toEqual([]);
    expect(positionErrors(FRANCE_FRAME, 48.39, -4.48)).toEqual([]);
    expect(positionErrors([{ south: 1, north: 2, west: 3, east: 4 }], 2, 3)).toEqual([]);
  });

  it('asks whether latitude and longitude are swapped, on both fields', () => {
    const swapped = [
      { key: 'latitude', error: SWAPPED },
      { key: 'longitude', error: SWAPPED },
    ];
    expect(positionErrors(brest, -4.4861, 48.3904)).toEqual(swapped);
    expect(positionErrors(FRANCE_FRAME, -4.48, 48.39)).toEqual(swapped);
  });

  it('flags the coordinate that is out of the frame, or both', () => {
    // A dropped minus sign: the longitude is 9° east.
    expect(positionErrors(brest, 48.3904, 4.4861)).toEqual([{ key: 'longitude', error: LON_OUT }]);
    // A latitude of Bordeaux with a longitude of Brest.
    expect(positionErrors(brest, 44.84, -4.4861)).toEqual([{ key: 'latitude', error: LAT_OUT }]);
    expect(positionErrors(brest, 0, 0)).toEqual([
      { key: 'latitude', error: LAT_OUT },
      { key: 'longitude', error: LON_OUT },
    ]);
    // Each fits one of France's boxes (metropolitan latitude, Réunion's longitude), the pair none.
    expect(positionErrors(FRANCE_FRAME, 48.39, 55.45)).toEqual([
      { key: 'latitude', error: LAT_OUT },
      { key: 'longitude', error: LON_OUT },
    ]);
  });
});
