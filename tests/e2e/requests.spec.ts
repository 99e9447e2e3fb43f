// Intervention requests in a real browser: an administrator shortens the delay of the 'Réparation à effectuer'
// rule, a referent's entry raises a request with the new due date, the provider on a phone sees
// it in red, plans it, processes it from the board with no network, and once back online the
// history shows it 'Réalisée' with both linked interventions.
// Runs on the demo programme the e2e server seeds (referent1 has several sites, each with cells
// n°1-2 Apport, n°3 Broyat, n°4 Maturation; prestataire@demo.compost.fr is the provider).
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { chromium, type Browser, type Page } from '@playwright/test';
import { expect, test } from '../helpers/e2e-test';
import { E2E_ADMIN } from '../helpers/e2e-env';
import { QUEUED, REFERENT, clearPendingRequests, logIn, type SiteInfos } from '../helpers/e2e-field';

// The service worker is part of what these journeys check (playwright.config.ts blocks it elsewhere).
test.use({ serviceWorkers: 'allow' });

const PROVIDER = { login: 'prestataire@demo.compost.fr', password: 'demo-compost' };
const RUN = `e2e-${Date.now().toString(36)}`;
const DAY_MS = 24 * 3600 * 1000;
const PARIS = new Intl.DateTimeFormat('fr-FR', { timeZone: 'Europe/Paris', day: '2-digit', month: '2-digit', year: 'numeric' });

async function newPage(browser: Browser, who: { login: string; password: string }) {
  const context = await browser.newContext({ locale: 'fr-FR', timezoneId: 'Europe/Paris' });
  const page = await context.newPage();
  await logIn(page, who);
  return { context, page };
}

async function setRuleDelay(page: Page, days: number) {
  await page.goto('/admin/demande/regles');
  await page.getByRole('button', { name: 'Modifier la règle Réparation à effectuer', exact: true }).click();
  const dialog = page.getByRole('dialog', { name: 'Modifier la règle' });
  await dialog.getByLabel('Délai (jours)').fill(String(days));
  await dialog.getByRole('button', { name: 'Enregistrer' }).click();
  await expect(page.getByText('Règle modifiée')).toBeVisible();
  await expect(page.getByRole('row', { name: /Réparation à effectuer Toujours Réparation effectuée/ })).toContainText(String(days));
}

test('a request raised in the field is planned and processed offline on a phone', async ({ browser, baseURL }, testInfo) => {
  test.setTimeout(240_000);

  // 1. The administrator shortens the delay of 'Réparation à effectuer' to 2 days.
  const admin = await newPage(browser, { login: E2E_ADMIN.login, password: E2E_ADMIN.password });
  await setRuleDelay(admin.page, 2);

  // 2. A referent records 'Réparation à effectuer' on cell n°1 of one of their sites.
  const referent = await newPage(browser, REFERENT);
  const sites = (await (await referent.page.request.get('/api/admin/site/get/all/actif')).json()) as { id: number }[];
  const site = (await (await referent.page.request.get(`/api/admin/site/get/infos/pour/intervention/${sites[0].id}`)).json()) as SiteInfos;
  const cell1 = site.siteComposteurs.find((c) => c.numero === 1)!;
  // A repair already pending on that cell (demo data) would take the new entry as one more call.
  await clearPendingRequests(admin.page.request, site.id, cell1.id);
  await referent.page.goto(`/admin/fiche/site/${site.id}`);
  await referent.page.getByRole('combobox', { name: /Choix de la cellule/ }).selectOption({ label: `Cellule n°1 - ${cell1.libelleTypeBac}` });
  await referent.page.getByRole('combobox', { name: /Quelle action/ }).selectOption({ label: 'Réparation à effectuer' });
  await referent.page.getByRole('textbox', { name: /Précisions/ }).fill(`${RUN} couvercle cassé`);
  const recordedAt = Date.now();
  await referent.page.getByRole('button', { name: 'Enregistrer' }).click();
  await expect(referent.page).toHaveURL(/\/admin\/choix\/site$/);
  await referent.context.close();

  // 3. The provider, on a phone, online once so the app and the sites are kept on the phone.
  const profile = fs.mkdtempSync(path.join(os.tmpdir(), 'compost-e2e-requests-'));
  const phone = await chromium.launchPersistentContext(profile, {
    ...(testInfo.project.use.launchOptions ?? {}),
    baseURL,
    locale: 'fr-FR',
    timezoneId: 'Europe/Paris',
    viewport: { width: 390, height: 844 },
    isMobile: true,
    hasTouch: true,
  });
  try {
    const page = phone.pages()[0] ?? (await phone.newPage());
    await logIn(page, PROVIDER);
    await page.goto('/admin/choix/site');
    await expect
      .poll(() => page.evaluate(async () => Boolean((await navigator.serviceWorker.getRegistration())?.active && navigator.serviceWorker.controller)), { timeout: 60_000 })
      .toBe(true);
    // The app writes this once every site's cells are stored on the phone.
    await expect(page.getByText(/^Vos sites sont disponibles hors ligne/)).toBeVisible({ timeout: 60_000 });

    await page.goto('/admin/demande/intervention/list');
    const siteName = site.nom ?? site.code;
    await page.getByRole('combobox', { name: 'Site' }).fill(siteName);
    await page.getByRole('option', { name: new RegExp(`^${siteName.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} \\(`) }).click();
    const card = page.getByTestId('request-card').filter({ hasText: RUN });
    await expect(card).toHaveCount(1);
    // Due in 2 days (the new delay): shown in red.
    const due = card.getByText(/^Echéance : /);
    await expect(due).toHaveText(`Echéance : ${PARIS.format(new Date(recordedAt + 2 * DAY_MS))}`);
    await expect(due).toHaveAttribute('data-urgent', 'true');
    await expect(card).toContainText('A faire : Réparation effectuée');
    await expect(card).toContainText(`Réparation à effectuer : ${RUN} couvercle cassé (cellule n°1)`);
    // Nothing scrolls sideways on a 390 px phone.
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);

  // 4. Plans it for today.
    await card.getByRole('button', { name: 'Programmer' }).click();
    const planDialog = page.getByRole('dialog', { name: 'Programmer' });
    await planDialog.getByLabel(/Date prévue de réalisation/).fill(PARIS.format(new Date()));
    // The calendar opens above the field (the keyboard takes the bottom of a phone), and Escape
    // closes it and only it.
    await expect(page.locator('[data-dates-dropdown]')).toHaveAttribute('data-position', 'top');
    await planDialog.getByLabel(/Date prévue de réalisation/).press('Escape');
    await expect(page.locator('[data-dates-dropdown]')).toHaveCount(0);
    await expect(planDialog).toBeVisible();
    await planDialog.getByRole('button', { name: 'Enregistrer' }).click();
    await expect(page.getByText("Demande(s) d'intervention(s) programmée(s) avec succès")).toBeVisible();
    await expect(card).toContainText(`Programmée le ${PARIS.format(new Date())} par SERVICES Compost`);

  // 5. No signal: 'Traiter' opens the site sheet prefilled, the entry waits on the phone.
    await phone.setOffline(true);
    await card.getByRole('button', { name: 'Traiter' }).click();
    await expect(page.getByRole('heading', { name: 'Gérer' })).toBeVisible();
    const block = page.getByRole('group', { name: /Action 1/ });
    await expect(block.getByRole('combobox', { name: /Choix de la cellule/ })).toHaveValue(String(cell1.id));
    await expect(block.getByRole('combobox', { name: /Quelle action/ })).toHaveValue('14');
    await expect(block.getByRole('textbox', { name: /Précisions/ })).toHaveValue(`${RUN} couvercle cassé`);
    await block.getByRole('textbox', { name: /Précisions/ }).fill(`${RUN} couvercle remplacé`);
    await page.getByRole('button', { name: 'Enregistrer' }).click();
    await expect(page.getByText(QUEUED).first()).toBeVisible();

  // 6. Back online: the outbox sends it, the request is done.
    await phone.setOffline(false);
    await expect
      .poll(
        async () => {
          const res = await page.request.get(`/api/admin/demande/intervention/get/all/by/filters?filter[site]=${site.id}&filter[statut]=5&rowsPerPage=100`);
          const body = (await res.json()) as { demandesInterventions: { interventionDeclenchante: { valeur: string } | null }[] };
          return body.demandesInterventions.some((r) => r.interventionDeclenchante?.valeur === `${RUN} couvercle cassé`);
        },
        { timeout: 60_000 },
      )
      .toBe(true);
  } finally {
    await phone.close();
    fs.rmSync(profile, { recursive: true, force: true });
  }

  // 7. The history (a wider screen): 'Réalisée' with both linked interventions.
  await admin.page.goto('/admin/demande/intervention/list');
  await admin.page.getByRole('button', { name: "Voir l'historique" }).click();
  const history = admin.page.getByRole('dialog', { name: "Historique des demandes d'interventions" });
  const row = history.getByRole('row').filter({ hasText: 'Réalisée' }).first();
  await expect(row).toContainText('Réparation effectuée');
  await row.getByRole('button', { name: /Interventions liées/ }).click();
  const linked = history.getByRole('region', { name: /Interventions liées/ });
  await expect(linked).toContainText(`${RUN} couvercle cassé`);
  await expect(linked).toContainText(`${RUN} couvercle remplacé`);
  await expect(linked).toContainText('SERVICES Compost');

  // 8. Back to the seeded delay, for the next runs on this database.
  await setRuleDelay(admin.page, 14);
  await admin.context.close();
});

test('two requests of one site are cancelled at once with one reason, which the history keeps', async ({ browser }) => {
  test.setTimeout(120_000);
  // Two repairs to do on cells n°1 and n°2 of the referent's second site, raised by one entry.
  const referent = await newPage(browser, REFERENT);
  const sites = (await (await referent.page.request.get('/api/admin/site/get/all/actif')).json()) as { id: number }[];
  const site = (await (await referent.page.request.get(`/api/admin/site/get/infos/pour/intervention/${sites[1].id}`)).json()) as SiteInfos;
  const cells = [1, 2].map((n) => site.siteComposteurs.find((c) => c.numero === n)!);
  const admin = await newPage(browser, { login: E2E_ADMIN.login, password: E2E_ADMIN.password });
  for (const cell of cells) await clearPendingRequests(admin.page.request, site.id, cell.id);
  const entry = await referent.page.request.post('/api/admin/intervention/add', {
    data: {
      clientId: crypto.randomUUID(),
      site: site.id,
      date: new Date(Date.now() - 60_000).toISOString(),
      values: cells.map((c) => ({ composteur: c.id, action: 18, valeur: `${RUN} lot ${c.numero}`, bacDestination: null, observations: null, demandeIntervention: null })),
    },
  });
  expect(entry.ok(), await entry.text()).toBe(true);
  await referent.context.close();

  const page = admin.page;
  await page.goto('/admin/demande/intervention/list');
  const siteName = site.nom ?? site.code;
  await page.getByRole('combobox', { name: 'Site' }).fill(siteName);
  await page.getByRole('option', { name: new RegExp(`^${siteName.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} \\(`) }).click();
  const cards = page.getByTestId('request-card').filter({ hasText: `${RUN} lot` });
  await expect(cards).toHaveCount(2);
  for (const card of await cards.all()) await card.getByRole('checkbox').check();
  await cards.first().getByRole('button', { name: 'Annuler (2)' }).click();
  const dialog = page.getByRole('dialog', { name: "Annuler ces demandes d'interventions ?" });
  await dialog.getByRole('textbox', { name: "Motif d'annulation" }).fill(`${RUN} bacs remplacés par la mairie`);
  await dialog.getByRole('button', { name: 'Oui' }).click();
  await expect(page.getByText('2 demandes annulées')).toBeVisible();
  await expect(cards).toHaveCount(0);

  await page.getByRole('button', { name: "Voir l'historique" }).click();
  const history = page.getByRole('dialog', { name: "Historique des demandes d'interventions" });
  await history.getByRole('textbox', { name: 'Rechercher' }).fill(siteName);
  await expect(history.getByRole('row').filter({ hasText: `${RUN} bacs remplacés par la mairie` })).toHaveCount(2);
  await admin.context.close();
});
