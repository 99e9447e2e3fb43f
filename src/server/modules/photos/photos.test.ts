// Photos of field entries through the real app: the upload's checks (content read from the
// bytes, size, pixel count, metadata stripped), the idempotent resend, who may add and see a
// photo, the thumbnail and full sizes with their caching headers, and the photos going with
// their intervention. Test images are made with sharp here.
import crypto from 'node:crypto';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import { TEST_DRIVERS, createAccount, createTestApp, login, loggedAs } from '../../../../tests/helpers/test-app.js';
import { createEquippedSite } from '../field-entry/test-factories.js';
import { createPhotosRepository } from './photos.repository.js';

type Ctx = Awaited<ReturnType<typeof createTestApp>>;

const MB = 1024 * 1024;

/** A multipart body as a browser's FormData sends it. */
function multipart(parts: ({ name: string; value: string } | { name: string; filename: string; type: string; data: Buffer })[]) {
  const boundary = `----compost${crypto.randomBytes(8).toString('hex')}`;
  const chunks: Buffer[] = [];
  for (const p of parts) {
    const head =
      'data' in p
        ? `--${boundary}\r\nContent-Disposition: form-data; name="${p.name}"; filename="${p.filename}"\r\nContent-Type: ${p.type}\r\n\r\n`
        : `--${boundary}\r\nContent-Disposition: form-data; name="${p.name}"\r\n\r\n`;
    chunks.push(Buffer.from(head), 'data' in p ? p.data : Buffer.from(p.value), Buffer.from('\r\n'));
  }
  chunks.push(Buffer.from(`--${boundary}--\r\n`));
  return { payload: Buffer.concat(chunks), headers: { 'content-type': `multipart/form-data; boundary=${boundary}` } };
}

const photoForm = (clientId: string, data: Buffer, filename = 'photo.jpg', type = 'image/jpeg') =>
  multipart([
    { name: 'clientId', value: clientId },
    { name: 'photo', filename, type, data },
  ]);

/** A camera-like JPEG: noise (so it does not compress to nothing) with EXIF naming the camera and a GPS position. */
async function jpegWithGps(width = 2000, height = 1500) {
  const raw = crypto.randomBytes(200 * 150 * 3);
  return sharp(raw, { raw: { width: 200, height: 150, channels: 3 } })
    .resize(width, height, { kernel: 'nearest' })
    .jpeg({ quality: 85 })
    .withExif({
      IFD0: { Make: 'Compost', Model: 'Téléphone de terrain' },
      IFD3: { GPSLatitudeRef: 'N', GPSLatitude: '48/1 23/1 5/1', GPSLongitudeRef: 'W', GPSLongitude: '4/1 29/1 10/1' },
    })
    .toBuffer();
}

/** Whether an EXIF block (TIFF structure) has a GPS directory: tag 0x8825 in its first directory. */
function hasGpsDirectory(exif: Buffer): boolean {
  const tiff = exif.subarray(exif.indexOf('Exif\0\0') >= 0 ? exif.indexOf('Exif\0\0') + 6 : 0);
  const le = tiff.toString('latin1', 0, 2) === 'II';
  const u16 = (o: number) => (le ? tiff.readUInt16LE(o) : tiff.readUInt16BE(o));
  const u32 = (o: number) => (le ? tiff.readUInt32LE(o) : tiff.readUInt32BE(o));
  const ifd0 = u32(4);
  const count = u16(ifd0);
  for (let i = 0; i < count; i++) if (u16(ifd0 + 2 + i * 12) === 0x8825) return true;
  return false;
}

// Made once for both databases: about 7 s of CPU to write 400 million pixels.
let hugePng: Buffer;
beforeAll(async () => {
  hugePng = await sharp({ create: { width: 20_000, height: 20_000, channels: 3, background: { r: 120, g: 120, b: 120 } }, limitInputPixels: false })
    .greyscale()
    .png({ compressionLevel: 6, adaptiveFiltering: false })
    .toBuffer();
}, 120_000);

describe.each(TEST_DRIVERS)('photos of field entries (%s)', (driver) => {
  let ctx: Ctx;
  let site: Awaited<ReturnType<typeof createEquippedSite>>;
  let referent: { id: number; cookie: string };
  let otherReferent: string;
  let provider: string;
  let admin: string;
  let siteAdmin: string;
  let deleter: string;

  const count = async () => (await sql<{ n: number }>`SELECT count(*)::int AS n FROM intervention_photo`.execute(ctx.db)).rows[0].n;

  /** Records an entry as `cookie` on the site and returns the intervention ids (one per block). */
  async function record(cookie: string, actions: number[] = [1], siteId = site.id, cell = site.apport): Promise<number[]> {
    const res = await ctx.app.inject({
      method: 'POST',
      url: '/api/admin/intervention/add',
      headers: { cookie },
      payload: {
        clientId: crypto.randomUUID(),
        site: siteId,
        date: new Date(Date.now() - 3600_000).toISOString(),
        values: actions.map((action) => ({ composteur: cell, action, valeur: action === 18 ? 'Charnière cassée' : null })),
      },
    });
    expect(res.statusCode, res.body).toBe(200);
    return res.json<{ interventions: number[] }>().interventions;
  }

  const upload = (interventionId: number, cookie: string | undefined, form: ReturnType<typeof multipart>) =>
    ctx.app.inject({ method: 'POST', url: `/api/admin/intervention/${interventionId}/photo`, headers: { ...form.headers, ...(cookie ? { cookie } : {}) }, payload: form.payload });

  const read = (photoId: number, cookie: string | undefined, query = '', headers: Record<string, string> = {}) =>
    ctx.app.inject({ method: 'GET', url: `/api/admin/photo/${photoId}${query}`, headers: { ...headers, ...(cookie ? { cookie } : {}) } });

  beforeAll(async () => {
    ctx = await createTestApp(driver);
    const ref = await createAccount(ctx.db, { roles: ['ROLE_USER'], typeUser: 1 });
    site = await createEquippedSite(ctx.db, { referents: [ref.id] });
    referent = { id: ref.id, cookie: await login(ctx.app, ref.login) };
    const other = await createAccount(ctx.db, { roles: ['ROLE_USER'], typeUser: 1 });
    await createEquippedSite(ctx.db, { referents: [other.id] });
    otherReferent = await login(ctx.app, other.login);
    provider = (await loggedAs(ctx, ['ROLE_PRESTATAIRE'], { typeUser: 3 })).cookie;
    admin = (await loggedAs(ctx, ['ROLE_ADMIN'])).cookie;
    siteAdmin = (await loggedAs(ctx, ['ROLE_ADMIN_SITE'])).cookie;
    deleter = (await loggedAs(ctx, ['ROLE_ADMIN_DELETE'])).cookie;
  }, 120_000);
  afterAll(() => ctx.close());

  it('stores a JPEG taken with a GPS position without any of its metadata, upright, at most 1600 px, with a 320 px thumbnail', async () => {
    const original = await jpegWithGps(2000, 1500);
    const before = await sharp(original).metadata();
    expect(hasGpsDirectory(before.exif!)).toBe(true);

    const [interventionId] = await record(referent.cookie);
    const res = await upload(interventionId, referent.cookie, photoForm(crypto.randomUUID(), original));
    expect(res.statusCode, res.body).toBe(200);
    const { photo } = res.json<{ status: string; photo: { id: number; idIntervention: number; largeur: number; hauteur: number; taille: number } }>();
    expect(res.json()).toMatchObject({ status: 'success', photo: { idIntervention: interventionId, largeur: 1600, hauteur: 1200 } });

    const full = await read(photo.id, referent.cookie, '?taille=complete');
    expect(full.statusCode).toBe(200);
    expect(full.headers['content-type']).toBe('image/jpeg');
    expect(full.rawPayload.length).toBe(photo.taille);
    const stored = await sharp(full.rawPayload).metadata();
    expect({ format: stored.format, width: stored.width, height: stored.height }).toEqual({ format: 'jpeg', width: 1600, height: 1200 });
    expect(stored.exif).toBeUndefined();
    expect(stored.xmp).toBeUndefined();
    expect(stored.icc).toBeUndefined();
    expect(full.rawPayload.includes(Buffer.from('Exif\0\0'))).toBe(false);
    expect(full.rawPayload.includes(Buffer.from('Compost'))).toBe(false);

    const thumb = await read(photo.id, referent.cookie, '?taille=miniature');
    expect(thumb.statusCode).toBe(200);
    const t = await sharp(thumb.rawPayload).metadata();
    expect({ width: t.width, height: t.height, exif: t.exif }).toEqual({ width: 320, height: 240, exif: undefined });
  });

  it('refuses a text file named photo.jpg and sent as image/jpeg (415), and stores nothing', async () => {
    const [interventionId] = await record(referent.cookie);
    const before = await count();
    const res = await upload(interventionId, referent.cookie, photoForm(crypto.randomUUID(), Buffer.from('Ceci n’est pas une photo.\n'.repeat(50))));
    expect(res.statusCode).toBe(415);
    expect(res.json()).toEqual({ status: 'error', message: 'Format non pris en charge : envoyez une photo JPEG, PNG ou WebP.' });
    // Nor a JPEG signature followed by something else.
    const fake = await upload(interventionId, referent.cookie, photoForm(crypto.randomUUID(), Buffer.concat([Buffer.from([0xff, 0xd8, 0xff, 0xe0]), Buffer.alloc(2000, 7)])));
    expect(fake.statusCode).toBe(400);
    expect(fake.json()).toMatchObject({ status: 'error', errors: [{ key: 'photo', error: 'Image illisible ou endommagée.' }] });
    expect(await count()).toBe(before);
  });

  it('refuses more than 8 MB (413), whether announced or found while reading, and stores nothing', async () => {
    const [interventionId] = await record(referent.cookie);
    const before = await count();
    const nineMb = Buffer.concat([await jpegWithGps(400, 300), crypto.randomBytes(9 * MB)]);
    const announced = await upload(interventionId, referent.cookie, photoForm(crypto.randomUUID(), nineMb));
    expect(announced.statusCode).toBe(413);
    expect(announced.json()).toEqual({ status: 'error', message: 'Photo trop volumineuse : 8 Mo au plus.' });
    // Just over 8 MB: the envelope is small enough to be read, the file stops at the limit.
    const justOver = Buffer.concat([await jpegWithGps(400, 300), crypto.randomBytes(8 * MB)]);
    const found = await upload(interventionId, referent.cookie, photoForm(crypto.randomUUID(), justOver.subarray(0, 8 * MB + 1)));
    expect(found.statusCode).toBe(413);
    expect(found.json()).toEqual({ status: 'error', message: 'Photo trop volumineuse : 8 Mo au plus.' });
    expect(await count()).toBe(before);
  });

  it('refuses a 20,000 x 20,000 PNG from its header, without decoding it', async () => {
    expect(hugePng.length).toBeLessThan(8 * MB);
    const [interventionId] = await record(referent.cookie);
    const before = await count();
    const rss = process.memoryUsage.rss();
    const res = await upload(interventionId, referent.cookie, photoForm(crypto.randomUUID(), hugePng, 'plan.png', 'image/png'));
    const grown = process.memoryUsage.rss() - rss;
    expect(res.statusCode).toBe(400);
    expect(res.json()).toEqual({ status: 'error', message: 'Image trop grande : 40 mégapixels au plus.', errors: [{ key: 'photo', error: 'Image trop grande : 40 mégapixels au plus.' }] });
    // Decoding it would take 400 MB (grey) to 1.2 GB (colour); reading it and its header, a few MB.
    expect(grown).toBeLessThan(64 * MB);
    expect(await count()).toBe(before);
  });

  it('stores a resent photo once: the same client id answers the photo already stored', async () => {
    const [interventionId, second] = await record(referent.cookie, [1, 5]);
    const clientId = crypto.randomUUID();
    const image = await jpegWithGps(800, 600);
    const first = await upload(interventionId, referent.cookie, photoForm(clientId, image));
    const again = await upload(interventionId, referent.cookie, photoForm(clientId, image));
    expect(first.statusCode).toBe(200);
    expect(again.statusCode).toBe(200);
    expect(again.json().photo.id).toBe(first.json().photo.id);
    const rows = await ctx.db.selectFrom('intervention_photo').where('client_id', '=', clientId).select('id').execute();
    expect(rows).toHaveLength(1);
    // The same id for another intervention is not a resend: refused, nothing moves.
    const elsewhere = await upload(second, referent.cookie, photoForm(clientId, image));
    expect(elsewhere.statusCode).toBe(409);
    expect(elsewhere.json()).toEqual({ status: 'error', message: 'Cette photo a déjà été envoyée pour une autre intervention.' });
    // Two posts of one photo at once (a resend while the first is on its way): one row.
    const racing = crypto.randomUUID();
    const both = await Promise.all([upload(second, referent.cookie, photoForm(racing, image)), upload(second, referent.cookie, photoForm(racing, image))]);
    expect(both.map((r) => r.statusCode)).toEqual([200, 200]);
    expect(both[0].json().photo.id).toBe(both[1].json().photo.id);
    expect(await ctx.db.selectFrom('intervention_photo').where('client_id', '=', racing).select('id').execute()).toHaveLength(1);
  });

  it('accepts PNG (transparency on white) and WebP, stored as JPEG', async () => {
    const [interventionId] = await record(referent.cookie);
    const png = await sharp({ create: { width: 600, height: 400, channels: 4, background: { r: 0, g: 0, b: 0, alpha: 0 } } }).png().toBuffer();
    const webp = await sharp(await jpegWithGps(1200, 900)).webp({ quality: 80 }).toBuffer();
    for (const [data, name, type] of [
      [png, 'capture.png', 'image/png'],
      [webp, 'photo.webp', 'image/webp'],
    ] as const) {
      const res = await upload(interventionId, referent.cookie, photoForm(crypto.randomUUID(), data, name, type));
      expect(res.statusCode, res.body).toBe(200);
      const full = await read(res.json().photo.id, referent.cookie);
      expect((await sharp(full.rawPayload).metadata()).format).toBe('jpeg');
      const { dominant } = await sharp(full.rawPayload).stats();
      if (type === 'image/png') expect(dominant).toEqual({ r: 248, g: 248, b: 248 });
    }
  });

  it('lists every input error at once, and refuses what is not a multipart upload', async () => {
    const [interventionId] = await record(referent.cookie);
    const res = await upload(interventionId, referent.cookie, multipart([{ name: 'clientId', value: 'pas-un-uuid' }]));
    expect(res.statusCode).toBe(400);
    expect(res.json().errors).toEqual([
      { key: 'clientId', error: 'Identifiant de photo invalide' },
      { key: 'photo', error: 'Aucune photo reçue' },
    ]);
    const json = await ctx.app.inject({ method: 'POST', url: `/api/admin/intervention/${interventionId}/photo`, headers: { cookie: referent.cookie }, payload: { clientId: crypto.randomUUID() } });
    expect(json.statusCode).toBe(415);
    const twoFiles = await upload(
      interventionId,
      referent.cookie,
      multipart([
        { name: 'clientId', value: crypto.randomUUID() },
        { name: 'photo', filename: 'a.jpg', type: 'image/jpeg', data: await jpegWithGps(100, 100) },
        { name: 'photo', filename: 'b.jpg', type: 'image/jpeg', data: await jpegWithGps(100, 100) },
      ]),
    );
    expect(twoFiles.statusCode).toBe(400);
    expect(twoFiles.json().message).toBe('Une seule photo par envoi, avec son identifiant.');
    // A body cut in the middle of the photo.
    const whole = photoForm(crypto.randomUUID(), await jpegWithGps(100, 100));
    const cut = await upload(interventionId, referent.cookie, { ...whole, payload: whole.payload.subarray(0, whole.payload.length - 300) });
    expect(cut.statusCode).toBe(400);
    expect(cut.json()).toEqual({ status: 'error', message: 'Requête invalide.' });
    const unknown = await upload(2_000_000_000, referent.cookie, photoForm(crypto.randomUUID(), await jpegWithGps(100, 100)));
    expect(unknown.statusCode).toBe(404);
    expect(unknown.json().message).toBe('Intervention introuvable');
  });

  it('lets the author and ROLE_ADMIN add a photo; refuses a referent of another site, a provider who is not the author and an anonymous caller', async () => {
    const [mine] = await record(referent.cookie);
    const image = await jpegWithGps(400, 300);
    const before = await count();
    const anonymous = await upload(mine, undefined, photoForm(crypto.randomUUID(), image));
    expect(anonymous.statusCode).toBe(401);
    const stranger = await upload(mine, otherReferent, photoForm(crypto.randomUUID(), image));
    expect(stranger.statusCode).toBe(403);
    expect(stranger.json()).toEqual({ status: 'error', message: 'Accès non authorisé.' });
    expect((await upload(mine, provider, photoForm(crypto.randomUUID(), image))).statusCode).toBe(403);
    expect((await upload(mine, siteAdmin, photoForm(crypto.randomUUID(), image))).statusCode).toBe(403);
    expect(await count()).toBe(before);
    expect((await upload(mine, admin, photoForm(crypto.randomUUID(), image))).statusCode).toBe(200);
    // The provider on their own entry.
    const [theirs] = await record(provider);
    expect((await upload(theirs, provider, photoForm(crypto.randomUUID(), image))).statusCode).toBe(200);
    // A referent no longer on the site cannot add to their old entries.
    await ctx.db.deleteFrom('site_referent').where('account_id', '=', referent.id).where('site_id', '=', site.id).execute();
    try {
      expect((await upload(mine, referent.cookie, photoForm(crypto.randomUUID(), image))).statusCode).toBe(403);
    } finally {
      await ctx.db.insertInto('site_referent').values({ site_id: site.id, account_id: referent.id }).execute();
    }
  });

  it('shows a photo to those who see its intervention, privately cached with an ETag and a 304', async () => {
    const [plain, repair] = await record(referent.cookie, [1, 18]);
    const image = await jpegWithGps(400, 300);
    const plainPhoto = (await upload(plain, referent.cookie, photoForm(crypto.randomUUID(), image))).json().photo.id as number;
    const repairPhoto = (await upload(repair, referent.cookie, photoForm(crypto.randomUUID(), image))).json().photo.id as number;

    const res = await read(repairPhoto, admin, '?taille=miniature');
    expect(res.statusCode).toBe(200);
    expect(res.headers['cache-control']).toBe('private, no-cache');
    const etag = res.headers.etag as string;
    expect(etag).toMatch(/^"[0-9a-f]{32}-m"$/);
    const again = await read(repairPhoto, admin, '?taille=miniature', { 'if-none-match': etag });
    expect(again.statusCode).toBe(304);
    expect(again.rawPayload.length).toBe(0);
    // The full size is another representation.
    expect((await read(repairPhoto, admin, '?taille=complete', { 'if-none-match': etag })).statusCode).toBe(200);

    // The provider sees the photo of an entry that raised a request (18), not of any entry.
    expect((await read(repairPhoto, provider)).statusCode).toBe(200);
    expect((await read(plainPhoto, provider)).statusCode).toBe(403);
    expect((await read(plainPhoto, siteAdmin)).statusCode).toBe(200);
    expect((await read(plainPhoto, referent.cookie)).statusCode).toBe(200);
    const stranger = await read(plainPhoto, otherReferent);
    expect(stranger.statusCode).toBe(403);
    // A refusal is no image, and is not kept.
    expect(stranger.headers['content-type']).toMatch(/^application\/json/);
    expect(stranger.headers['cache-control']).toBe('no-store');
    // Never public, not even with the ETag.
    expect((await read(plainPhoto, undefined)).statusCode).toBe(401);
    expect((await read(plainPhoto, undefined, '', { 'if-none-match': etag })).statusCode).toBe(401);
    expect((await read(plainPhoto, deleter)).statusCode).toBe(403);
    expect((await read(2_000_000_000, admin)).statusCode).toBe(404);
    const badSize = await read(plainPhoto, admin, '?taille=enorme');
    expect(badSize.statusCode).toBe(400);
    expect(badSize.json().errors).toEqual([{ key: 'taille', error: 'Taille invalide : miniature ou complete' }]);
  });

  it('shows the provider the photo of a later entry that called again for a pending request', async () => {
    const cell = await ctx.db
      .insertInto('site_composteur')
      .values({ site_id: site.id, type_composteur_id: site.typeComposteurId, type_bac_id: 1, numero: 9 })
      .returning('id')
      .executeTakeFirstOrThrow();
    const image = await jpegWithGps(400, 300);
    const [first] = await record(referent.cookie, [18], site.id, cell.id);
    const [again] = await record(referent.cookie, [18], site.id, cell.id);
    const pending = await ctx.db.selectFrom('demande_intervention').where('site_composteur_id', '=', cell.id).select('intervention_declenchante_id').execute();
    // One request for both entries: the second only called for it again.
    expect(pending).toEqual([{ intervention_declenchante_id: first }]);
    const photo = (await upload(again, referent.cookie, photoForm(crypto.randomUUID(), image))).json().photo.id as number;
    expect((await read(photo, provider)).statusCode).toBe(200);
  });

  it('deletes the photos with their intervention, and gives list rows their photo ids', async () => {
    const [first, second] = await record(referent.cookie, [1, 5]);
    const image = await jpegWithGps(400, 300);
    const a = (await upload(first, referent.cookie, photoForm(crypto.randomUUID(), image))).json().photo.id as number;
    const b = (await upload(first, referent.cookie, photoForm(crypto.randomUUID(), image))).json().photo.id as number;
    const c = (await upload(second, referent.cookie, photoForm(crypto.randomUUID(), image))).json().photo.id as number;

    const repo = createPhotosRepository(ctx.db);
    expect(await repo.photoIdsByIntervention([second, first, 2_000_000_000])).toEqual(
      new Map([
        [second, [{ id: c }]],
        [first, [{ id: a }, { id: b }]],
        [2_000_000_000, []],
      ]),
    );

    const res = await ctx.app.inject({ method: 'PUT', url: `/api/admin/intervention/delete/${first}`, headers: { cookie: deleter } });
    expect(res.statusCode, res.body).toBe(200);
    const left = await ctx.db.selectFrom('intervention_photo').where('id', 'in', [a, b, c]).select('id').execute();
    expect(left).toEqual([{ id: c }]);
    expect((await read(a, admin)).statusCode).toBe(404);
  });
});
