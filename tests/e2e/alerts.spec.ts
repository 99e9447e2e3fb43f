// Site follow-up alerts in a real browser: an administrator lowers the maximum temperature, a
// referent records a higher reading on a phone, the administrator runs the job ('Lancer
// maintenant'), sees the alert and the count in the top bar, and the digests are in the mail
// folder; the referent does nothing and the alert stays; a reading in range closes it.
// Runs on the demo programme the e2e server seeds (referent1's sites have cells n°1-2 Apport,
// n°3 Broyat, n°4 Maturation).
import type { Page } from '@playwright/test';
import { expect, test } from '../helpers/e2e-test';
import { E2E_ADMIN } from '../helpers/e2e-env';
import type { SiteInfos } from '../helpers/e2e-field';
import { ADMIN, PHONE, REFERENT, loggedBrowser } from '../helpers/e2e-login';
import { readMails } from '../helpers/e2e-mail';

async function setMaximum(page: Page, value: string) {
  await page.goto('/admin/alertes/seuils');
  const field = page.getByLabel('Température maximale (°C)');
  await field.fill(value);
  await page.getByRole('button', { name: 'Enregistrer' }).click();
  await expect(page.getByText("Seuils d'alerte enregistrés")).toBeVisible();
}

async function runNow(page: Page) {
  await page.goto('/admin/alertes/seuils');
  await page.getByRole('button', { name: 'Lancer maintenant' }).click();
  await expect(page.getByRole('status').filter({ hasText: /^Alertes calculées : / })).toBeVisible({ timeout: 60_000 });
}

/** Records a temperature on cell n°4 (Maturation) from the site sheet, as a referent does in the field. */
async function recordTemperature(page: Page, site: SiteInfos, value: string) {
  await page.goto(`/admin/fiche/site/${site.id}`);
  await page.getByRole('combobox', { name: /Choix de la cellule/ }).selectOption({ label: 'Cellule n°4 - Maturation' });
  await page.getByRole('combobox', { name: /Quelle action/ }).selectOption({ label: 'Température' });
  await page.getByLabel(/Température \(°C\)/).fill(value);
  await page.getByRole('button', { name: 'Enregistrer' }).click();
  await expect(page).toHaveURL(/\/admin\/choix\/site$/);
}

test('a reading above a lowered maximum raises an alert, tells the coordinator and the referent, and closes on a reading in range', async ({ browser }) => {
  test.setTimeout(240_000);

  // 1. The administrator lowers the maximum to 60 °C.
  const admin = await loggedBrowser(browser, ADMIN);
  await setMaximum(admin.page, '60');

  // 2. The referent, on a phone, records 66,5 °C in the maturation cell of one of their sites.
  const referent = await loggedBrowser(browser, REFERENT, PHONE);
  const sites = (await (await referent.page.request.get('/api/admin/site/get/all/actif')).json()) as { id: number }[];
  const site = (await (await referent.page.request.get(`/api/admin/site/get/infos/pour/intervention/${sites[0].id}`)).json()) as SiteInfos;
  expect(site.siteComposteurs.some((c) => c.numero === 4 && c.typeBac === 3)).toBe(true);
  await recordTemperature(referent.page, site, '66,5');

  // 3. 'Lancer maintenant': the alert is listed, with the count in the top bar.
  await runNow(admin.page);
  await admin.page.goto(`/admin/alertes?site=${site.id}`);
  const row = admin.page.getByRole('row').filter({ hasText: 'Température trop haute' }).filter({ hasText: '66,5 °C' });
  await expect(row).toHaveCount(1);
  await expect(row).toContainText('n°4');
  await expect(row).toContainText('au-dessus du maximum de 60 °C');
  await expect(row.getByRole('link', { name: /^Ouvrir/ })).toHaveAttribute('href', `/admin/fiche/site/${site.id}`);
  const badge = admin.page.getByTestId('alerts-badge');
  await expect(badge).toBeVisible();
  expect(Number(await badge.textContent())).toBeGreaterThan(0);

  // 4. The digests are in the mail folder: the administrator's, and the referent's with the reading.
  const toAdmin = readMails(E2E_ADMIN.email).filter((m) => /nouvelles? alertes?$/.test(m.subject));
  expect(toAdmin).toHaveLength(1);
  const toReferent = readMails(REFERENT.login).filter((m) => /nouvelles? alertes?$/.test(m.subject));
  expect(toReferent).toHaveLength(1);
  expect(toReferent[0].body).toContain('Température trop haute : 66,5 °C relevés le');
  expect(toReferent[0].body).toContain(`/admin/fiche/site/${site.id}`);
  expect(toReferent[0].body).toContain('/admin/alertes/preferences');

  // The referent sees it too, on the phone, with the count in the top bar.
  await referent.page.goto(`/admin/alertes?site=${site.id}`);
  await expect(referent.page.getByRole('row').filter({ hasText: '66,5 °C' })).toHaveCount(1);
  await expect(referent.page.getByTestId('alerts-badge')).toBeVisible();

  // 5. Nothing is done: another run keeps the alert open, and nobody gets a second digest today.
  await runNow(admin.page);
  await admin.page.goto(`/admin/alertes?site=${site.id}`);
  await expect(admin.page.getByRole('row').filter({ hasText: '66,5 °C' })).toHaveCount(1);
  expect(readMails(E2E_ADMIN.email).filter((m) => /nouvelles? alertes?$/.test(m.subject))).toHaveLength(1);

  // 6. A reading in range, then a run: the alert is closed.
  await recordTemperature(referent.page, site, '45');
  await runNow(admin.page);
  await admin.page.goto(`/admin/alertes?site=${site.id}`);
  await expect(admin.page.getByRole('heading', { name: 'Alertes' })).toBeVisible();
  await expect(admin.page.getByRole('row').filter({ hasText: '66,5 °C' })).toHaveCount(0);

  await setMaximum(admin.page, '70');
  await referent.context.close();
  await admin.context.close();
});
