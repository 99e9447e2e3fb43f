import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TEST_DRIVERS, createTestApp } from '../../../../tests/helpers/test-app.js';
import { createCell, createEquippedSite, createSite } from '../field-entry/test-factories.js';
import { etagMatches } from './open-data.routes.js';

type Ctx = Awaited<ReturnType<typeof createTestApp>>;

const CSV_HEADER =
  'COLL_NOM,COLL_SIRET,EQUIP_UID,EQUIP_THEME,EQUIP_CODE,EQUIP_TYPE,EQUIP_NOM,ADR_NUMERO,ADR_NOMVOIE,ADR_CODEPOSTAL,ADR_COMMUNE,EQUIP_LAT,EQUIP_LONG,EQUIP_WEB,SITE_CODE,TYPE_SITE,DATE_IMPLANTATION,NB_BACS,VOLUME_TOTAL_L,HORAIRES';

interface Feature {
  type: string;
  id: string;
  geometry: { type: string; coordinates: [number, number] } | null;
  properties: Record<string, unknown>;
}

describe('If-None-Match', () => {
  it('matches the ETag itself, in a list, in its weak form, and *', () => {
    expect(etagMatches('"abc"', '"abc"')).toBe(true);
    expect(etagMatches('"x", W/"abc"', '"abc"')).toBe(true);
    expect(etagMatches('*', '"abc"')).toBe(true);
    expect(etagMatches('"abd"', '"abc"')).toBe(false);
    expect(etagMatches(undefined, '"abc"')).toBe(false);
  });
});

describe.each(TEST_DRIVERS)('open data (%s)', (driver) => {
  let ctx: Ctx;
  let placed: Awaited<ReturnType<typeof createEquippedSite>>;
  let unplaced: Awaited<ReturnType<typeof createEquippedSite>>;
  let unpublished: Awaited<ReturnType<typeof createEquippedSite>>;
  let requested: Awaited<ReturnType<typeof createSite>>;
  let retired: Awaited<ReturnType<typeof createSite>>;

  beforeAll(async () => {
    ctx = await createTestApp(driver, { publicUrl: 'https://compost.exemple.fr', OPEN_DATA_NAME: 'Brest Métropole', OPEN_DATA_SIRET: '24290031400087' });
    placed = await createEquippedSite(ctx.db, { nom: 'Jardin, des Capucins' });
    await ctx.db
      .updateTable('site')
      .set({ latitude: 48.38811234, longitude: -4.48901, coordonnees_source: 'ban', horaires: 'Tous les jours "de 8 h à 20 h"', date_implantation: new Date('2024-04-10T12:00:00Z') })
      .where('id', '=', placed.id)
      .execute();
    unplaced = await createEquippedSite(ctx.db, { nom: null });
    unpublished = await createEquippedSite(ctx.db, { nom: 'Pas publié' });
    await ctx.db.updateTable('site').set({ open_data: false, latitude: 48.4, longitude: -4.5, coordonnees_source: 'saisie' }).where('id', '=', unpublished.id).execute();
    requested = await createSite(ctx.db, { statut: 2, nom: 'Demandé' });
    retired = await createSite(ctx.db, { nom: 'Retiré' });
    await createCell(ctx.db, retired.id, 1, 1, { actif: false });
  }, 120_000);
  afterAll(() => ctx.close());

  it('gives a GeoJSON FeatureCollection of the active published sites, [longitude, latitude] within range', async () => {
    const res = await ctx.app.inject({ method: 'GET', url: '/api/open/sites.geojson' });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('application/geo+json; charset=utf-8');
    const body = res.json() as { type: string; features: Feature[] };
    expect(body.type).toBe('FeatureCollection');
    expect(Object.keys(body)).toEqual(['type', 'features']);
    const codes = body.features.map((f) => f.properties.SITE_CODE);
    expect(codes).toEqual([placed.code, unplaced.code].sort());
    for (const code of [unpublished.code, requested.code, retired.code]) expect(codes).not.toContain(code);
    for (const f of body.features) {
      expect(f.type).toBe('Feature');
      if (f.geometry === null) continue;
      expect(f.geometry.type).toBe('Point');
      const [lon, lat] = f.geometry.coordinates;
      expect(lon).toBeGreaterThanOrEqual(-180);
      expect(lon).toBeLessThanOrEqual(180);
      expect(lat).toBeGreaterThanOrEqual(-90);
      expect(lat).toBeLessThanOrEqual(90);
    }
    const p = body.features.find((f) => f.properties.SITE_CODE === placed.code)!;
    expect(p.geometry).toEqual({ type: 'Point', coordinates: [-4.48901, 48.388112] });
    expect(p.id).toBe(`29019-${placed.code}`);
    expect(p.properties).toEqual({
      COLL_NOM: 'Brest Métropole',
      COLL_SIRET: '24290031400087',
      EQUIP_UID: `29019-${placed.code}`,
      EQUIP_THEME: 'Autre équipement',
      EQUIP_CODE: placed.code,
      EQUIP_TYPE: 'Site de compostage partagé',
      EQUIP_NOM: 'Jardin, des Capucins',
      ADR_NUMERO: expect.any(String),
      ADR_NOMVOIE: expect.stringContaining('rue de Siam'),
      ADR_CODEPOSTAL: '29200',
      ADR_COMMUNE: 'Brest',
      EQUIP_LAT: 48.388112,
      EQUIP_LONG: -4.48901,
      EQUIP_WEB: `https://compost.exemple.fr/s/${placed.code}`,
      SITE_CODE: placed.code,
      TYPE_SITE: 'Quartier',
      DATE_IMPLANTATION: '2024-04-10',
      // Apport, broyat and maturation are active; the fourth cell is retired.
      NB_BACS: 3,
      VOLUME_TOTAL_L: expect.any(Number),
      HORAIRES: 'Tous les jours "de 8 h à 20 h"',
    });
    const u = body.features.find((f) => f.properties.SITE_CODE === unplaced.code)!;
    expect(u.geometry).toBeNull();
    expect(u.properties).toMatchObject({ EQUIP_NOM: `Site de compostage ${unplaced.code}`, EQUIP_LAT: null, EQUIP_LONG: null });
  });

  it('gives the same sites as CSV: UTF-8 without BOM, commas, quoted where needed', async () => {
    const res = await ctx.app.inject({ method: 'GET', url: '/api/open/sites.csv' });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toMatch(/^text\/csv; charset=utf-8/);
    expect(res.rawPayload[0]).not.toBe(0xef);
    const lines = res.body.split('\r\n');
    expect(lines[0]).toBe(CSV_HEADER);
    expect(lines.at(-1)).toBe('');
    expect(lines).toHaveLength(4);
    const row = lines.find((l) => l.includes(`,${placed.code},`))!;
    expect(row).toContain(`Brest Métropole,24290031400087,29019-${placed.code},Autre équipement,${placed.code},Site de compostage partagé,"Jardin, des Capucins",`);
    expect(row).toContain(`,29200,Brest,48.388112,-4.48901,https://compost.exemple.fr/s/${placed.code},${placed.code},Quartier,2024-04-10,3,`);
    expect(row.endsWith(',"Tous les jours ""de 8 h à 20 h"""')).toBe(true);
    expect(res.body).not.toContain(unpublished.code);
  });

  it('fills every column the SCDL équipements model requires, and gives every placed site its point', async () => {
    const more = await createEquippedSite(ctx.db, { nom: 'Square Guipavas' });
    await ctx.db.updateTable('site').set({ latitude: 48.4355, longitude: -4.3975, coordonnees_source: 'saisie' }).where('id', '=', more.id).execute();
    const features = ((await ctx.app.inject({ method: 'GET', url: '/api/open/sites.geojson' })).json() as { features: Feature[] }).features;
    expect(features.length).toBeGreaterThanOrEqual(3);
    // Required by the model (schema.data.gouv.fr, scdl/equipements); EQUIP_LAT and EQUIP_LONG only once a site is placed.
    const required = ['COLL_NOM', 'COLL_SIRET', 'EQUIP_UID', 'EQUIP_THEME', 'EQUIP_CODE', 'EQUIP_TYPE', 'EQUIP_NOM', 'ADR_NOMVOIE', 'ADR_CODEPOSTAL', 'ADR_COMMUNE'];
    for (const f of features) {
      for (const field of required) expect(f.properties[field], `${field} of ${f.id}`).toEqual(expect.stringMatching(/\S/));
      expect(f.properties.COLL_SIRET).toMatch(/^\d{14}$/);
      expect(f.properties.EQUIP_CODE).toBe(f.properties.SITE_CODE);
      const { EQUIP_LAT: lat, EQUIP_LONG: lon } = f.properties;
      if (lat === null || lon === null) expect(f.geometry).toBeNull();
      else expect(f.geometry).toEqual({ type: 'Point', coordinates: [lon, lat] });
    }
    expect(features.find((f) => f.properties.SITE_CODE === more.code)!.geometry).toEqual({ type: 'Point', coordinates: [-4.3975, 48.4355] });
    await ctx.db.updateTable('site').set({ open_data: false }).where('id', '=', more.id).execute();
  });

  it('may be cached an hour by anyone, read from any origin, and answers 304 while nothing changed', async () => {
    for (const url of ['/api/open/sites.geojson', '/api/open/sites.csv']) {
      const first = await ctx.app.inject({ method: 'GET', url });
      expect(first.headers['cache-control']).toBe('public, max-age=3600');
      expect(first.headers['access-control-allow-origin']).toBe('*');
      const etag = first.headers.etag as string;
      expect(etag).toMatch(/^"[\w-]+"$/);
      const again = await ctx.app.inject({ method: 'GET', url, headers: { 'if-none-match': etag } });
      expect(again.statusCode).toBe(304);
      expect(again.body).toBe('');
      expect(again.headers['cache-control']).toBe('public, max-age=3600');

      await ctx.db.updateTable('site').set({ horaires: `Changé ${url}` }).where('id', '=', placed.id).execute();
      const changed = await ctx.app.inject({ method: 'GET', url, headers: { 'if-none-match': etag } });
      expect(changed.statusCode).toBe(200);
      expect(changed.headers.etag).not.toBe(etag);
    }
  });

  it('drops a site from the files when it is unpublished', async () => {
    const s = await createEquippedSite(ctx.db);
    const codes = async () => ((await ctx.app.inject({ method: 'GET', url: '/api/open/sites.geojson' })).json().features as Feature[]).map((f) => f.properties.SITE_CODE);
    expect(await codes()).toContain(s.code);
    await ctx.db.updateTable('site').set({ open_data: false }).where('id', '=', s.id).execute();
    expect(await codes()).not.toContain(s.code);
    expect((await ctx.app.inject({ method: 'GET', url: '/api/open/sites.csv' })).body).not.toContain(s.code);
  });

  it('writes values that start like a spreadsheet formula verbatim in the CSV: machines read it', async () => {
    const formula = await createEquippedSite(ctx.db, { nom: '=HYPERLINK("x")' });
    const minus = await createEquippedSite(ctx.db, { nom: '-Jardin du Bas' });
    await ctx.db.updateTable('site').set({ horaires: '+33 le soir', adresse: '@rue' }).where('id', '=', minus.id).execute();
    const lines = (await ctx.app.inject({ method: 'GET', url: '/api/open/sites.csv' })).body.split('\r\n');
    expect(lines.find((l) => l.includes(`,${formula.code},`))).toContain(',Site de compostage partagé,"=HYPERLINK(""x"")",');
    const row = lines.find((l) => l.includes(`,${minus.code},`))!;
    expect(row).toContain(',Site de compostage partagé,-Jardin du Bas,');
    expect(row).toContain(',@rue,');
    expect(row.endsWith(',+33 le soir')).toBe(true);
  });
});
