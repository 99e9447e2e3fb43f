// The sites import checks typed coordinates against the territory's frame, as the site forms do:
// a line far from it is an error on its Latitude and Longitude columns, and the file is not written.
import crypto from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp } from '../../app.js';
import { createMemoryMailer } from '../../mailer.js';
import { SAMPLE_STREETS_FILE, seedCities } from '../../db/seed.js';
import { TEST_CONFIG, TEST_DRIVERS, createAccount, login, openTestDatabase } from '../../../../tests/helpers/test-app.js';
import { importStreets } from '../reference/public.js';
import importsRoutes from './imports.routes.js';
import type { ImportReport } from '../../../shared/schemas/imports.js';

async function createImportApp(driver: 'pglite' | 'postgres') {
  const handle = await openTestDatabase(driver);
  await seedCities(handle.db, '242900314');
  const deps = { db: handle.db, mailer: createMemoryMailer(), authChanges: handle.changes, config: TEST_CONFIG };
  const app = await createApp(deps);
  if (!app.hasRoute({ method: 'POST', url: '/api/admin/import/:kind' })) await app.register(importsRoutes, { prefix: '/api', ...deps });
  await app.ready();
  const admin = await createAccount(handle.db, { roles: ['ROLE_ADMIN'] });
  const cookie = await login(app, admin.login);
  return { app, db: handle.db, cookie, close: async () => (await app.close(), await handle.close()) };
}

const HEAD = ['Code', 'Nom', 'Adresse', 'Numéro', 'Ville', 'Type', 'Latitude', 'Longitude'];
const file = (rows: string[][]) => Buffer.from('\uFEFF' + [HEAD, ...rows].map((r) => r.join(';')).join('\r\n') + '\r\n');

const SWAPPED = 'Latitude et longitude inversées ?';
const LAT_OUT = 'La latitude est hors du territoire du programme';
const LON_OUT = 'La longitude est hors du territoire du programme';

describe.each(TEST_DRIVERS)('sites import and the territory (%s)', (driver) => {
  let ctx: Awaited<ReturnType<typeof createImportApp>>;
  beforeAll(async () => {
    ctx = await createImportApp(driver);
    // Brest Métropole's sample points: the frame runs from 48.172 to 48.636 north, -4.919 to -4.068 east.
    await importStreets(ctx.db, SAMPLE_STREETS_FILE);
  });
  afterAll(() => ctx.close());

  async function importSites(buf: Buffer): Promise<ImportReport> {
    const boundary = `----compost${crypto.randomBytes(8).toString('hex')}`;
    const head = Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="fichier"; filename="sites.csv"\r\nContent-Type: text/csv\r\n\r\n`);
    const res = await ctx.app.inject({
      method: 'POST',
      url: '/api/admin/import/sites?mode=import',
      payload: Buffer.concat([head, buf, Buffer.from(`\r\n--${boundary}--\r\n`)]),
      headers: { 'content-type': `multipart/form-data; boundary=${boundary}`, cookie: ctx.cookie },
    });
    expect(res.statusCode, res.body).toBe(200);
    return res.json();
  }
  const codes = async () => (await ctx.db.selectFrom('site').select('code').orderBy('code').execute()).map((s) => s.code);

  it('refuses swapped and far-away positions line by line, with their columns, and writes nothing', async () => {
    const r = await importSites(
      file([
        ['TER1', 'Jardin TER1', 'Rue de Siam', '3', 'Brest', 'Quartier', '48,3881', '-4,4890'],
        ['TER2', 'Jardin TER2', 'Rue de Siam', '1', 'Brest', 'Quartier', '-4.4891', '48.3880'],
        ['TER3', 'Jardin TER3', 'Rue de Paris', '18', 'Guipavas', 'Quartier', '48.4360', '4.3960'],
        ['TER4', 'Jardin TER4', 'Rue de Brest', '4', 'Guipavas', 'Quartier', '48.8566', '2.3522'],
      ]),
    );
    expect(r.mode).toBe('essai');
    expect(r.erreurs).toEqual([
      { ligne: 3, colonne: 'Latitude', message: SWAPPED },
      { ligne: 3, colonne: 'Longitude', message: SWAPPED },
      { ligne: 4, colonne: 'Longitude', message: LON_OUT },
      { ligne: 5, colonne: 'Latitude', message: LAT_OUT },
      { ligne: 5, colonne: 'Longitude', message: LON_OUT },
    ]);
    expect(await codes()).not.toContain('TER1');
  });

  it('imports positions within the territory', async () => {
    const r = await importSites(file([['TER5', 'Jardin TER5', 'Rue de Siam', '3', 'Brest', 'Quartier', '48,3881', '-4,4890']]));
    expect(r).toMatchObject({ mode: 'import', crees: 1, erreurs: [] });
    const s = await ctx.db.selectFrom('site').where('code', '=', 'TER5').select(['latitude', 'longitude', 'coordonnees_source']).executeTakeFirstOrThrow();
    expect(s).toEqual({ latitude: 48.3881, longitude: -4.489, coordonnees_source: 'saisie' });
  });
});
