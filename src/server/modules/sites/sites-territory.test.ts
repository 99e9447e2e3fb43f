// Typed coordinates far from the programme's territory are refused on the site forms: the frame
// is the box of the territory's imported address points widened by 0.2° / 0.3°, or France while
// no point is known (docs/domain.md, "Positions").
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TEST_DRIVERS, createTestApp, loggedAs } from '../../../../tests/helpers/test-app.js';
import { importStreets } from '../reference/public.js';
import { SAMPLE_STREETS_FILE } from '../../db/seed.js';

type Ctx = Awaited<ReturnType<typeof createTestApp>>;
type Json = Record<string, unknown>;

const SWAPPED = 'Latitude et longitude inversées ?';
const LAT_OUT = 'La latitude est hors du territoire du programme';
const LON_OUT = 'La longitude est hors du territoire du programme';
const swapped = [
  { key: 'latitude', error: SWAPPED },
  { key: 'longitude', error: SWAPPED },
];

// Brest's town hall, and places outside Brest Métropole.
const BREST = { latitude: 48.3904, longitude: -4.4861 };
const PARIS = { latitude: 48.8566, longitude: 2.3522 };
const QUIMPER = { latitude: 47.996, longitude: -4.102 };
const MADRID = { latitude: 40.4168, longitude: -3.7038 };

const site = (o: Json = {}): Json => ({ nom: 'Jardin des Capucins', ville: 'Brest', adresse: 'Rue de Siam', numero: '12', type: 2, statut: 1, composteurs: [], ...o });
const update = (o: Json = {}): Json => ({ nom: 'Jardin des Capucins', adresse: 'Rue de Siam', numero: '12', type: 2, statut: 1, ...o });

describe.each(TEST_DRIVERS)('site positions and the territory (%s)', (driver) => {
  let ctx: Ctx;
  let admin: string;
  const call = (method: 'GET' | 'POST' | 'PUT', url: string, payload?: Json) => ctx.app.inject({ method, url, payload, headers: { cookie: admin } });
  const add = (payload: Json) => call('POST', '/api/admin/site/add', payload);
  const position = async (id: number) => {
    const d = (await call('GET', `/api/admin/site/get/${id}`)).json();
    return { latitude: d.latitude, longitude: d.longitude, coordonneesSource: d.coordonneesSource };
  };

  describe('before any address is imported', () => {
    beforeAll(async () => {
      ctx = await createTestApp(driver);
      admin = (await loggedAs(ctx, ['ROLE_ADMIN'])).cookie;
    });
    afterAll(() => ctx.close());

    it('refuses Brest typed as latitude -4.48 / longitude 48.39 (the Indian Ocean) as swapped', async () => {
      const res = await add(site({ latitude: '-4,4861', longitude: '48,3904' }));
      expect(res.statusCode).toBe(400);
      expect(res.json().errors).toEqual(swapped);
    });

    it('takes France as the frame: a position in France is kept, one abroad refused', async () => {
      const paris = await add(site(PARIS));
      expect(paris.statusCode, paris.body).toBe(200);
      expect(await position(paris.json().id)).toEqual({ ...PARIS, coordonneesSource: 'saisie' });
      const madrid = await add(site(MADRID));
      expect(madrid.statusCode).toBe(400);
      expect(madrid.json().errors).toEqual([{ key: 'latitude', error: LAT_OUT }]);
    });
  });

  describe('with the sample addresses of Brest Métropole imported', () => {
    beforeAll(async () => {
      ctx = await createTestApp(driver);
      admin = (await loggedAs(ctx, ['ROLE_ADMIN'])).cookie;
      // Points from 48.372 to 48.436 north and -4.619 to -4.368 east: the frame runs from 48.172
      // to 48.636 and from -4.919 to -4.068.
      await importStreets(ctx.db, SAMPLE_STREETS_FILE);
    });
    afterAll(() => ctx.close());

    it('keeps a position in the territory, and one within the margin around it', async () => {
      const brest = await add(site({ latitude: '48,3904', longitude: '-4,4861' }));
      expect(brest.statusCode, brest.body).toBe(200);
      expect(await position(brest.json().id)).toEqual({ ...BREST, coordonneesSource: 'saisie' });
      // Le Conquet, some 20 km west of Brest Métropole's last address point.
      const conquet = await add(site({ latitude: 48.3606, longitude: -4.7711 }));
      expect(conquet.statusCode, conquet.body).toBe(200);
    });

    it('refuses a swapped pair, a dropped minus sign, and a position elsewhere in France', async () => {
      expect((await add(site({ latitude: BREST.longitude, longitude: BREST.latitude }))).json().errors).toEqual(swapped);
      const sign = await add(site({ latitude: 48.3904, longitude: 4.4861 }));
      expect(sign.statusCode).toBe(400);
      expect(sign.json().errors).toEqual([{ key: 'longitude', error: LON_OUT }]);
      expect((await add(site(PARIS))).json().errors).toEqual([
        { key: 'latitude', error: LAT_OUT },
        { key: 'longitude', error: LON_OUT },
      ]);
      expect((await add(site(QUIMPER))).json().errors).toEqual([{ key: 'latitude', error: LAT_OUT }]);
    });

    it("builds the frame from the territory's cities only: a point imported for Quimper does not widen it", async () => {
      await ctx.db.insertInto('adresse_point').values({ code_insee: '29232', voie_cle: 'rue kereon', numero_cle: '1', ...QUIMPER }).execute();
      try {
        expect((await add(site(QUIMPER))).json().errors).toEqual([{ key: 'latitude', error: LAT_OUT }]);
      } finally {
        await ctx.db.deleteFrom('adresse_point').where('code_insee', '=', '29232').execute();
      }
    });

    it('lists the position errors with the others, all at once, on add and on update', async () => {
      const res = await add(site({ ville: 'Atlantis', type: 999, latitude: BREST.longitude, longitude: BREST.latitude }));
      expect(res.statusCode).toBe(400);
      expect(res.json().errors).toEqual([{ key: 'ville', error: 'Ville inconnue : choisissez une ville de la liste' }, { key: 'type', error: 'Type de site inconnu' }, ...swapped]);

      const { id } = (await add(site(BREST))).json();
      const bad = await call('PUT', `/api/admin/site/update/${id}`, update({ type: 999, ...PARIS }));
      expect(bad.statusCode).toBe(400);
      expect(bad.json().errors).toEqual([
        { key: 'type', error: 'Type de site inconnu' },
        { key: 'latitude', error: LAT_OUT },
        { key: 'longitude', error: LON_OUT },
      ]);
      expect((await call('PUT', `/api/admin/site/update/${id}`, update({ latitude: '-4,4861', longitude: '48,3904' }))).json().errors).toEqual(swapped);
      // Refused: the site keeps where it stood.
      expect(await position(id)).toEqual({ ...BREST, coordonneesSource: 'saisie' });
      const moved = await call('PUT', `/api/admin/site/update/${id}`, update({ latitude: 48.4, longitude: -4.5 }));
      expect(moved.statusCode, moved.body).toBe(200);
      expect(await position(id)).toEqual({ latitude: 48.4, longitude: -4.5, coordonneesSource: 'saisie' });
    });
  });
});
