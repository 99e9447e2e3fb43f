// Photos of field entries in a real browser, on a 390 px phone: a referent with no network
// records 'Réparation à effectuer' with two photos, reloads the app (the entry and its photos
// are still on the phone), the network comes back: the entry, then each photo, reach the
// server. The provider then sees both thumbnails on the request card and opens one.
// Runs on the demo programme the e2e server seeds (referent1 has several sites, each with cells
// n°1-2 Apport, n°3 Broyat, n°4 Maturation; prestataire@demo.compost.fr is the provider).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import sharp from 'sharp';
import { chromium, type BrowserContext, type Page } from '@playwright/test';
import { expect, test } from '../helpers/e2e-test';
import { QUEUED, REFERENT, logIn, siteOfUser, waitUntilReadyOffline } from '../helpers/e2e-field';

// The service worker is part of what these journeys check (playwright.config.ts blocks it elsewhere).
test.use({ serviceWorkers: 'allow' });

const PROVIDER = { login: 'prestataire@demo.compost.fr', password: 'demo-compost' };
const RUN = `e2e-${Date.now().toString(36)}`;
const PHONE = { viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true, locale: 'fr-FR', timezoneId: 'Europe/Paris' };

/** A camera-sized JPEG (noise, so it does not compress to nothing) carrying a GPS position. */
async function cameraPhoto(seed: number): Promise<Buffer> {
  const raw = Buffer.alloc(120 * 90 * 3);
  for (let i = 0; i < raw.length; i++) raw[i] = (i * 31 + seed * 97) % 251;
  return sharp(raw, { raw: { width: 120, height: 90, channels: 3 } })
    .resize(4000, 3000, { kernel: 'nearest' })
    .jpeg({ quality: 85 })
    .withExif({ IFD3: { GPSLatitudeRef: 'N', GPSLatitude: '48/1 23/1 5/1', GPSLongitudeRef: 'W', GPSLongitude: '4/1 29/1 10/1' } })
    .toBuffer();
}

async function phone(profile: string, baseURL: string, launchOptions: object): Promise<{ context: BrowserContext; page: Page }> {
  const context = await chromium.launchPersistentContext(profile, { ...launchOptions, ...PHONE, baseURL });
  return { context, page: context.pages()[0] ?? (await context.newPage()) };
}

const noSidewaysScroll = (page: Page) => page.evaluate(() => document.documentElement.scrollWidth);

/** Cells of the site with a pending 'Réparation effectuée' request, as the provider's board knows them. */
async function pendingRepairCells(baseURL: string, launchOptions: object, siteId: number): Promise<number[]> {
  const browser = await chromium.launch(launchOptions);
  try {
    const page = await (await browser.newContext({ baseURL })).newPage();
    await logIn(page, PROVIDER);
    const res = await page.request.get(`/api/admin/demande/intervention/get/list?filter[site]=${siteId}&rowsPerPage=100`);
    expect(res.ok()).toBe(true);
    const body = (await res.json()) as { demandesInterventions: { idBac: number; idActionProgrammee: number }[] };
    return body.demandesInterventions.filter((d) => d.idActionProgrammee === 14).map((d) => d.idBac);
  } finally {
    await browser.close();
  }
}

test('photos taken offline reach the server after their entry and show on the request card', async ({ baseURL }, testInfo) => {
  test.setTimeout(300_000);
  const launchOptions = testInfo.project.use.launchOptions ?? {};
  const profile = fs.mkdtempSync(path.join(os.tmpdir(), 'compost-e2e-photos-'));
  const photos = [await cameraPhoto(1), await cameraPhoto(2)];
  let siteName = '';
  const photoIds: number[] = [];
  try {
    // 1. The referent's phone, online once: the app and the sites are kept on the phone.
    let { context, page } = await phone(profile, baseURL!, launchOptions);
    await logIn(page, REFERENT);
    const site = await siteOfUser(page, 0);
    siteName = site.nom ?? site.code;
    // A cell without a pending repair: the entry raises a request of its own (on a cell that has
    // one, it would only call for that one again).
    const pending = await pendingRepairCells(baseURL!, launchOptions, site.id);
    const cell1 = site.siteComposteurs.find((c) => !pending.includes(c.id))!;
    expect(cell1).toBeDefined();
    await page.goto('/admin/choix/site');
    await waitUntilReadyOffline(page);

    // 2. No network: the site sheet, 'Réparation à effectuer' with two photos from the gallery.
    await context.setOffline(true);
    await page.reload();
    await expect(page.getByText('Hors ligne').first()).toBeVisible();
    await expect(page.getByText(/^Données du \d\d\/\d\d à \d\d:\d\d$/)).toBeVisible();
    await page.getByRole('combobox', { name: 'Site' }).click();
    await page.getByRole('option', { name: new RegExp(`^${site.code} - `) }).click();
    await expect(page.getByRole('heading', { name: 'Gérer' })).toBeVisible();
    await expect(page.getByText(/^Données du \d\d\/\d\d à \d\d:\d\d$/)).toBeVisible();
    const block = page.getByRole('group', { name: 'Action 1' });
    await block.getByRole('combobox', { name: /Choix de la cellule/ }).selectOption({ label: `Cellule n°${cell1.numero} - ${cell1.libelleTypeBac}` });
    await block.getByRole('combobox', { name: /Quelle action/ }).selectOption({ label: 'Réparation à effectuer' });
    await block.getByRole('textbox', { name: /Précisions/ }).fill(`${RUN} couvercle cassé`);
    const chooser = page.waitForEvent('filechooser');
    await block.getByRole('button', { name: 'Choisir une image' }).click();
    await (await chooser).setFiles([
      { name: 'couvercle.jpg', mimeType: 'image/jpeg', buffer: photos[0] },
      { name: 'charniere.jpg', mimeType: 'image/jpeg', buffer: photos[1] },
    ]);
    await expect(block.getByText('Photos (2/3)')).toBeVisible({ timeout: 30_000 });
    const strip = block.getByRole('list', { name: 'Photos de l’action 1' });
    const thumbnails = strip.getByRole('img', { name: /^Photo \d sur 2 de l’action 1$/ });
    await expect(thumbnails).toHaveCount(2);
    // Shrunk on the phone: at most 1600 px on the long side.
    const sizes = await thumbnails.evaluateAll(async (imgs) =>
      Promise.all(
        (imgs as HTMLImageElement[]).map(async (img) => {
          await img.decode();
          return Math.max(img.naturalWidth, img.naturalHeight);
        }),
      ),
    );
    expect(sizes).toEqual([1600, 1600]);
    expect(await noSidewaysScroll(page)).toBeLessThanOrEqual(390);
    await page.getByRole('button', { name: 'Enregistrer' }).click();
    await expect(page.getByText(QUEUED).first()).toBeVisible();
    await expect(page).toHaveURL(/\/admin\/choix\/site$/);
    // The entry and its two photos wait, counted apart.
    await expect(page.getByRole('link', { name: '1 envoi · 2 photos en attente' })).toBeVisible();

    // 3. A reload, still offline: everything is still on the phone.
    await context.close();
    ({ context, page } = await phone(profile, baseURL!, launchOptions));
    await context.setOffline(true);
    await page.goto('/admin/envois');
    const card = page.getByRole('listitem', { name: new RegExp(site.code) });
    await expect(card).toHaveCount(1);
    await expect(card.getByText(/^2 photos \(\d+ Ko\), envoyées après la saisie$/)).toBeVisible();
    await expect(card.getByRole('button', { name: /Agrandir la photo/ })).toHaveCount(2);

    // 4. The network comes back: the entry, then each photo; the phone keeps the ids the server gave.
    page.on('response', async (response) => {
      if (/\/api\/admin\/intervention\/\d+\/photo$/.test(response.url()) && response.status() === 200) photoIds.push(((await response.json()) as { photo: { id: number } }).photo.id);
    });
    await context.setOffline(false);
    await expect(page.getByRole('link', { name: /en attente$/ })).toHaveCount(0, { timeout: 60_000 });
    await expect(page.getByText('Aucun résultat')).toBeVisible();
    await expect.poll(() => photoIds.length).toBe(2);
    await context.close();
  } finally {
    fs.rmSync(profile, { recursive: true, force: true });
  }

  // 5. The provider, on a phone: the photos are stored without their GPS position...
  const browser = await chromium.launch(launchOptions);
  try {
    const context = await browser.newContext({ ...PHONE, baseURL });
    const page = await context.newPage();
    await logIn(page, PROVIDER);
    for (const id of photoIds) {
      const res = await page.request.get(`/api/admin/photo/${id}?taille=complete`);
      expect(res.status()).toBe(200);
      expect(res.headers()['content-type']).toBe('image/jpeg');
      const meta = await sharp(await res.body()).metadata();
      expect([meta.width, meta.height, meta.exif]).toEqual([1600, 1200, undefined]);
    }

    // ... and both thumbnails are on the request card; one opens full screen.
    await page.goto('/admin/demande/intervention/list');
    await page.getByRole('combobox', { name: 'Site' }).fill(siteName);
    await page.getByRole('option', { name: new RegExp(`^${siteName.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} \\(`) }).click();
    const request = page.getByTestId('request-card').filter({ hasText: RUN });
    await expect(request).toHaveCount(1);
    const thumbnailButtons = request.getByRole('button', { name: /^Agrandir la photo \d sur 2$/ });
    await expect(thumbnailButtons).toHaveCount(2);
    const loaded = await request.locator('img').evaluateAll((imgs) => Promise.all((imgs as HTMLImageElement[]).map((img) => img.decode().then(() => img.naturalWidth))));
    expect(loaded.every((w) => w > 0 && w <= 320)).toBe(true);
    await thumbnailButtons.first().click();
    const viewer = page.getByRole('dialog', { name: 'Photo 1 sur 2' });
    await expect(viewer).toBeVisible();
    const full = viewer.locator('img');
    await expect.poll(() => full.evaluate((img) => (img as HTMLImageElement).naturalWidth)).toBe(1600);
    expect(await noSidewaysScroll(page)).toBeLessThanOrEqual(390);
    await viewer.getByRole('button', { name: 'Photo suivante' }).click();
    await expect(page.getByRole('dialog', { name: 'Photo 2 sur 2' })).toBeVisible();
    await page.getByRole('button', { name: 'Fermer' }).click();
    await expect(page.getByRole('dialog')).toHaveCount(0);
    await context.close();
  } finally {
    await browser.close();
  }
});
