// Offline entry in a real browser: a referent records interventions with the network cut, closes the
// browser, reopens it on the same profile, the network comes back, and the server holds
// exactly those submissions once each, also when a reply is lost after the server committed.
// Runs on the demo programme the e2e server seeds: referent1 has several sites, each with cells
// n°1-2 Apport, n°3 Broyat, n°4 Maturation.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { chromium, type BrowserContext, type Page } from '@playwright/test';
import { expect, test } from '../helpers/e2e-test';
import { QUEUED, logIn, siteOfUser, waitUntilReadyOffline, type SiteInfos } from '../helpers/e2e-field';

// The service worker is part of what these journeys check (playwright.config.ts blocks it elsewhere).
test.use({ serviceWorkers: 'allow' });


interface Row {
  observations: string | null;
  typeAction: string;
  numeroBac: number;
  valeur: string;
}

async function launch(profile: string, baseURL: string, launchOptions: object): Promise<{ context: BrowserContext; page: Page }> {
  const context = await chromium.launchPersistentContext(profile, { ...launchOptions, baseURL, locale: 'fr-FR', timezoneId: 'Europe/Paris' });
  const page = context.pages()[0] ?? (await context.newPage());
  return { context, page };
}

function cellLabel(site: SiteInfos, numero: number) {
  const cell = site.siteComposteurs.find((c) => c.numero === numero)!;
  return `Cellule n°${cell.numero} - ${cell.libelleTypeBac}`;
}

/** The site sheet's selects are native <select>s. */
async function choose(scope: ReturnType<Page['getByRole']> | Page, label: RegExp, option: string) {
  await scope.getByRole('combobox', { name: label }).selectOption({ label: option });
}

/** The label of the option a native select shows. */
const shownOption = (scope: ReturnType<Page['getByRole']> | Page, label: RegExp) =>
  scope.getByRole('combobox', { name: label }).evaluate((select) => (select as HTMLSelectElement).selectedOptions[0]?.textContent ?? null);

/** Fills block `index` (0-based) of the site sheet. */
async function fillBlock(page: Page, index: number, block: { cell: string; action: string; value?: string; choice?: string; destination?: string; observations: string }) {
  if (index > 0) await page.getByRole('button', { name: 'Ajouter action' }).click();
  const group = page.getByRole('group', { name: `Action ${index + 1}` });
  await choose(group, /Choix de la cellule/, block.cell);
  await choose(group, /Quelle action/, block.action);
  if (block.value !== undefined) await group.getByRole('textbox', { name: /Quantité|Température/ }).fill(block.value);
  if (block.choice !== undefined) await choose(group, new RegExp(block.action), block.choice);
  if (block.destination !== undefined) await choose(group, /Cellule de destination/, block.destination);
  await group.getByLabel(/Observations/).fill(RUN + block.observations);
}

async function chooseSite(page: Page, site: SiteInfos) {
  await page.goto('/admin/choix/site');
  await expect(page.getByText('Choisir le site de votre intervention')).toBeVisible();
  await page.getByRole('combobox', { name: 'Site' }).click();
  await page.getByRole('option', { name: new RegExp(`^${site.code} - `) }).click();
  await expect(page.getByRole('heading', { name: 'Gérer' })).toBeVisible();
}

async function siteRows(page: Page, siteId: number): Promise<Row[]> {
  const res = await page.request.get(`/api/intervention/get/list/by/site/${siteId}?rowsPerPage=100&sort[name]=date&sort[direction]=desc`);
  expect(res.ok()).toBe(true);
  return ((await res.json()) as { interventions: Row[] }).interventions;
}

/** Observations are tagged with a per-run prefix so the counts only see this run's rows. */
const RUN = `e2e-${Date.now().toString(36)}-`;

function markerCounts(rows: Row[]): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const r of rows) {
    if (!r.observations?.startsWith(RUN)) continue;
    const marker = r.observations.slice(RUN.length);
    counts[marker] = (counts[marker] ?? 0) + 1;
  }
  return counts;
}

test('entries recorded offline survive a browser restart and reach the server exactly once', async ({ baseURL }, testInfo) => {
  test.setTimeout(240_000);
  const launchOptions = testInfo.project.use.launchOptions ?? {};
  const profile = fs.mkdtempSync(path.join(os.tmpdir(), 'compost-e2e-profile-'));
  try {
    // 1. Online once: log in, let the service worker install and the phone copy the reference data.
    let { context, page } = await launch(profile, baseURL!, launchOptions);
    await logIn(page);
    const site = await siteOfUser(page, 0);
    await page.goto('/admin/choix/site');
    await waitUntilReadyOffline(page);

    // 2. No network: reload, choose the site, record three submissions of several blocks.
    await context.setOffline(true);
    await page.reload();
    await expect(page.getByText('Hors ligne').first()).toBeVisible();
    const submissions = [
      [
        { cell: cellLabel(site, 1), action: 'Retournement', observations: '1a' },
        { cell: cellLabel(site, 4), action: 'Température', value: '55,5', observations: '1b' },
      ],
      [
        { cell: cellLabel(site, 1), action: 'Transfert', value: '200', destination: cellLabel(site, 4), observations: '2a' },
        { cell: cellLabel(site, 3), action: 'Niveau de broyat', choice: 'Plein', observations: '2b' },
      ],
      [
        { cell: cellLabel(site, 3), action: 'Autre intervention', observations: '3a' },
        { cell: cellLabel(site, 4), action: 'Arrosage', value: '30', observations: '3b' },
        { cell: cellLabel(site, 2), action: 'Brassage', observations: '3c' },
      ],
    ];
    for (const blocks of submissions) {
      await chooseSite(page, site);
      for (const [i, block] of blocks.entries()) await fillBlock(page, i, block);
      await page.getByRole('button', { name: 'Enregistrer' }).click();
      await expect(page.getByText(QUEUED).first()).toBeVisible();
      await expect(page).toHaveURL(/\/admin\/choix\/site$/);
    }
    await expect(page.getByRole('link', { name: '3 envois en attente' })).toBeVisible();

    // 3. Close the browser; reopen it on the same profile, still offline: the entries are there.
    await context.close();
    ({ context, page } = await launch(profile, baseURL!, launchOptions));
    await context.setOffline(true);
    await page.goto('/admin/envois');
    await expect(page.getByRole('listitem', { name: new RegExp(site.code) })).toHaveCount(3);
    await expect(page.getByRole('link', { name: '3 envois en attente' })).toBeVisible();

    // 4. The network comes back: everything is sent, once.
    await context.setOffline(false);
    await expect(page.getByRole('link', { name: /en attente$/ })).toHaveCount(0, { timeout: 30_000 });
    await expect(page.getByText('Aucun résultat')).toBeVisible();
    const counts = markerCounts(await siteRows(page, site.id));
    expect(counts).toEqual({ '1a': 1, '1b': 1, '2a': 1, '2b': 1, '3a': 1, '3b': 1, '3c': 1 });
    const rows = await siteRows(page, site.id);
    expect(rows.find((r) => r.observations === `${RUN}1b`)?.valeur).toBe('55.5 °C');
    expect(rows.find((r) => r.observations === `${RUN}2a`)?.valeur).toBe('200 L vers le composteur n°4');
    expect(rows.find((r) => r.observations === `${RUN}2b`)?.valeur).toBe('Plein');

    // 5. A reply lost after the server committed: the outbox resends, the server stores it once.
    await context.setOffline(true);
    await chooseSite(page, site);
    await fillBlock(page, 0, { cell: cellLabel(site, 4), action: 'Tamisage', value: '120', observations: 'cut' });
    await page.getByRole('button', { name: 'Enregistrer' }).click();
    await expect(page.getByText(QUEUED).first()).toBeVisible();
    const statuses: (number | 'aborted')[] = [];
    await context.route('**/api/admin/intervention/add', async (route) => {
      if (statuses.length === 0) {
        const response = await route.fetch();
        statuses.push(response.status(), 'aborted');
        await route.abort('connectionreset');
        return;
      }
      const response = await route.fetch();
      statuses.push(response.status());
      await route.fulfill({ response });
    });
    await context.setOffline(false);
    await expect(page.getByRole('link', { name: /en attente$/ })).toHaveCount(0, { timeout: 60_000 });
    expect(statuses.slice(0, 3)).toEqual([200, 'aborted', 200]);
    expect(markerCounts(await siteRows(page, site.id)).cut).toBe(1);
    await context.close();
  } finally {
    fs.rmSync(profile, { recursive: true, force: true });
  }
});

test('a QR label opens the site sheet on its cell', async ({ page }) => {
  await logIn(page);
  const site = await siteOfUser(page, 0);
  const maturation = site.siteComposteurs.find((c) => c.typeBac === 3)!;
  await page.goto(`/admin/fiche/site/${site.id}/etiquettes`);
  await expect(page.getByRole('img', { name: /^QR code : Cellule n°/ })).toHaveCount(site.siteComposteurs.length);
  const url = `${new URL(page.url()).origin}/admin/fiche/site/${site.id}?cellule=${maturation.id}`;
  await expect(page.getByText(url, { exact: true })).toBeVisible();

  await page.goto(url);
  await expect(page.getByRole('heading', { name: 'Gérer' })).toBeVisible();
  await expect.poll(() => shownOption(page, /Choix de la cellule/)).toBe(`Cellule n°${maturation.numero} - ${maturation.libelleTypeBac}`);
  // The cell is really chosen: its actions are offered.
  await choose(page, /Quelle action/, 'Tamisage');
  await expect(page.getByRole('textbox', { name: /Quantité/ })).toBeVisible();
});
