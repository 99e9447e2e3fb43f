// Statistics dashboard: an administrator opens /admin/stats on the demo programme
// (a year of interventions), switches year and site, sees the temperatures of the site and
// downloads a yearly export per site; on a phone, the kilos of a permanence's tally reach the
// 'Kilos détournés' chart.
import crypto from 'node:crypto';
import fs from 'node:fs';
import type { Page } from '@playwright/test';
import { expect, test } from '../helpers/e2e-test';
import { logInAsAdmin } from '../helpers/e2e-login';

/** A chart card once loaded (the skeleton card of the same name is aria-busy). */
const card = (page: Page, name: string | RegExp) => page.locator('section:not([aria-busy])').filter({ has: page.getByRole('heading', { name }) });

test('an administrator browses the yearly charts of the network and of a site, then downloads an export per site', async ({ page }) => {
  await logInAsAdmin(page);
  const years = ((await (await page.request.get('/api/admin/annee/get/all')).json()) as { annee: number }[]).map((y) => y.annee);
  expect(years.length).toBeGreaterThanOrEqual(1);

  await page.goto('/admin/stats');
  // First load: the newest year, the whole network, every chart with its total.
  await expect(page.getByRole('combobox', { name: 'Année', exact: true })).toHaveValue(String(years[0]));
  const interventions = card(page, 'Interventions · Tout le réseau');
  await expect(interventions.getByRole('img')).toBeVisible();
  await expect(interventions.getByLabel(/^Total de l'année : [1-9]/)).toBeVisible();
  await expect(card(page, 'Tamisage · Tout le réseau').getByRole('img')).toBeVisible();
  await expect(page.getByRole('heading', { name: /^Températures/ })).toHaveCount(0);

  // Another year: the URL keeps it, the charts reload.
  if (years.length > 1) {
    await page.getByRole('combobox', { name: 'Année', exact: true }).click();
    await page.getByRole('option', { name: String(years[1]), exact: true }).click();
    await expect(page).toHaveURL(new RegExp(`annee=${years[1]}`));
    await expect(card(page, 'Interventions · Tout le réseau').getByLabel(/^Total de l'année : [1-9]/)).toBeVisible();
    await page.goBack();
    await expect(page.getByRole('combobox', { name: 'Année', exact: true })).toHaveValue(String(years[0]));
  }

  // One site: titles name it and the temperature chart appears. The site is the busiest of the
  // year (other journeys add sites without history to the same database).
  const perSite = await (await page.request.get(`/api/admin/intervention/export/all/by/site?annee=${years[0]}`)).text();
  const busiest = perSite.slice(1).trimEnd().split('\r\n').slice(1).map((l) => l.split(';')).sort((a, b) => Number(b[15]) - Number(a[15]))[0];
  await page.getByRole('combobox', { name: 'Site', exact: true }).click();
  const option = page.getByRole('option').filter({ hasText: `${busiest[0]} - ` }).first();
  const siteName = (await option.textContent())!.trim();
  await option.click();
  await expect(page).toHaveURL(/site=\d+/);
  await expect(card(page, `Interventions · ${siteName}`).getByRole('img')).toBeVisible();
  const temperatures = card(page, `Températures (°C) · ${siteName}`);
  await expect(temperatures.getByRole('img')).toHaveAccessibleName(/relevé\(s\) sur \d+ cellule\(s\)/);

  // The yearly export per site: every site, a BOM, ';', twelve months and a total.
  const sitesCount = ((await (await page.request.get('/api/admin/site/get/list/by/filters?page=0&rowsPerPage=5&filter[statut][]=1')).json()) as { count: number }).count;
  const downloading = page.waitForEvent('download');
  await page.getByRole('button', { name: "Télécharger les interventions par site pour l'année" }).click();
  const download = await downloading;
  expect(download.suggestedFilename()).toBe(`export_all_par_site_${years[0]}.csv`);
  const text = fs.readFileSync((await download.path())!, 'utf8');
  expect(text.startsWith('\uFEFF')).toBe(true);
  const lines = text.slice(1).trimEnd().split('\r\n').map((l) => l.split(';'));
  expect(lines[0]).toEqual(['Code', 'Nom', 'Ville', 'Janvier', 'Février', 'Mars', 'Avril', 'Mai', 'Juin', 'Juillet', 'Août', 'Septembre', 'Octobre', 'Novembre', 'Décembre', 'Total']);
  expect(lines).toHaveLength(sitesCount + 1);
  for (const line of lines.slice(1)) {
    const figures = line.slice(3).map(Number);
    expect(figures.slice(0, 12).reduce((a, b) => a + b, 0)).toBe(figures[12]);
  }
  expect(lines.slice(1).some((l) => Number(l[15]) > 0)).toBe(true);
});

/** Paris wall-clock parts of an instant, as the permanence form types them ('2026-11-28T17:00'). */
function parisLocal(d: Date): { annee: number; local: string } {
  const parts = Object.fromEntries(
    new Intl.DateTimeFormat('en-GB', { timeZone: 'Europe/Paris', year: 'numeric', month: '2-digit', day: '2-digit', hour: '2-digit', minute: '2-digit', hourCycle: 'h23' })
      .formatToParts(d)
      .map((p) => [p.type, p.value]),
  );
  return { annee: Number(parts.year), local: `${parts.year}-${parts.month}-${parts.day}T${parts.hour}:${parts.minute}` };
}

test('the dashboard reads on a 390 px phone: one chart per row, full width, no sideways scrolling; the kilos of a tally show', async ({ page }) => {
  await page.setViewportSize({ width: 390, height: 844 });
  await logInAsAdmin(page);

  // An opening of a site that began an hour ago, recorded afterwards, and its tally of 12,5 kg weighed.
  const now = Date.now();
  const debut = parisLocal(new Date(now - 3600_000));
  const fin = parisLocal(new Date(now - 60_000));
  // Other journeys of this worker may have recorded tallies this year: the chart adds ours to theirs.
  const before = ((await (await page.request.get(`/api/admin/kgDetournes/get/by/mois?annee=${debut.annee}`)).json()) as { kg: number }[]).reduce((a, m) => a + m.kg, 0);
  const site = ((await (await page.request.get('/api/admin/site/get/all/actif')).json()) as { id: number }[])[0];
  const added = await page.request.post('/api/admin/permanence/add', { data: { site: site.id, debut: debut.local, fin: fin.local } });
  expect(added.status(), await added.text()).toBe(200);
  const [id] = ((await added.json()) as { ids: number[] }).ids;
  const bilan = await page.request.put(`/api/permanence/${id}/bilan`, { data: { clientId: crypto.randomUUID(), foyers: 9, seaux: 5, kg: 12.5 } });
  expect(bilan.status(), await bilan.text()).toBe(200);

  await page.goto(`/admin/stats?annee=${debut.annee}`);
  const kilos = new Intl.NumberFormat('fr-FR', { maximumFractionDigits: 2 }).format(Math.round((before + 12.5) * 100) / 100).replace(/\s/g, '\\s');
  await expect(card(page, 'Kilos détournés · Tout le réseau').getByLabel(new RegExp(`^Total de l'année : ${kilos}\\skg`))).toBeVisible();
  const first = card(page, 'Interventions · Tout le réseau');
  const second = card(page, 'Apports de broyat · Tout le réseau');
  await expect(first.getByRole('img')).toBeVisible();
  await expect(second.getByRole('img')).toBeVisible();
  const [a, b] = [await first.boundingBox(), await second.boundingBox()];
  expect(b!.y).toBeGreaterThanOrEqual(a!.y + a!.height);
  expect(a!.width).toBeGreaterThan(300);
  expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
  if (process.env.H12_SCREENSHOT) await page.screenshot({ path: process.env.H12_SCREENSHOT, fullPage: false });
});
