// A provider's day without signal, on a 390 px phone: the requests board loaded in the morning
// survives a reload with no network (kept on the phone by the query cache, stamped with the
// time it was received), a request is processed from it through the outbox, and once the
// network is back the provider lands on the board with the success message and the history
// shows the request 'Réalisée'. Logging out leaves none of it on the phone.
// Runs on the demo programme the e2e server seeds (prestataire@demo.compost.fr is the provider;
// referent1's sites have cells n°1-2 Apport, n°3 Broyat, n°4 Maturation).
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { chromium, request as apiRequest } from '@playwright/test';
import { expect, test } from '../helpers/e2e-test';
import { REFERENT, keptCache, keptQuery, logIn, waitUntilReadyOffline, type SiteInfos } from '../helpers/e2e-field';
import { apiLogIn } from '../helpers/e2e-login';

// The service worker is part of what these journeys check (playwright.config.ts blocks it elsewhere).
test.use({ serviceWorkers: 'allow' });

const PROVIDER = { login: 'prestataire@demo.compost.fr', password: 'demo-compost' };
const RUN = `e2e-hors-ligne-${Date.now().toString(36)}`;
const ACTION_REPARATION_A_EFFECTUER = 18;
const BOARD = '/admin/demande/intervention/list';
const STAMP = /^Données du \d\d\/\d\d à \d\d:\d\d$/;

test('a provider reloads the requests board without signal, processes a request and sees it done once back online', async ({ baseURL }, testInfo) => {
  test.setTimeout(240_000);

  // A referent records 'Réparation à effectuer' on cell n°1 of one of their sites: the rules raise
  // a pending request 'Réparation effectuée' on it.
  const referent = await apiRequest.newContext({ baseURL });
  await apiLogIn(referent, REFERENT);
  const sites = (await (await referent.get('/api/admin/site/get/all/actif')).json()) as { id: number }[];
  const site = (await (await referent.get(`/api/admin/site/get/infos/pour/intervention/${sites[1].id}`)).json()) as SiteInfos;
  const cell1 = site.siteComposteurs.find((c) => c.numero === 1)!;
  const raised = await referent.post('/api/admin/intervention/add', {
    data: {
      clientId: crypto.randomUUID(),
      site: site.id,
      date: new Date(Date.now() - 60_000).toISOString(),
      values: [{ composteur: cell1.id, action: ACTION_REPARATION_A_EFFECTUER, valeur: `${RUN} charnière cassée` }],
    },
  });
  expect(raised.ok()).toBe(true);
  await referent.dispose();

  const profile = fs.mkdtempSync(path.join(os.tmpdir(), 'compost-e2e-requests-offline-'));
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

    // Morning, with signal: the app and the provider's sites are kept on the phone, the board is loaded.
    await logIn(page, PROVIDER);
    await page.goto('/admin/choix/site');
    await waitUntilReadyOffline(page);
    await page.goto(BOARD);
    const siteName = site.nom ?? site.code;
    const chooseSite = async () => {
      await page.getByRole('combobox', { name: 'Site' }).fill(siteName);
      await page.getByRole('option', { name: new RegExp(`^${siteName.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} \\(`) }).click();
    };
    await chooseSite();
    const card = page.getByTestId('request-card').filter({ hasText: RUN });
    await expect(card).toHaveCount(1);
    // Saved on the phone within a second or so of being shown: the board as first shown (all
    // sites), the board of this site, and the site's sheet.
    await expect.poll(() => keptQuery(page, ['requests', 'pending', 0, site.id]), { timeout: 15_000 }).toContain(RUN);
    await expect.poll(() => keptQuery(page, ['requests', 'pending', 0, null]), { timeout: 15_000 }).toContain('demandesInterventions');
    await expect.poll(() => keptQuery(page, ['interventions', 'siteInfos', site.id]), { timeout: 15_000 }).toContain(site.code);
    const kept = await keptCache(page);
    testInfo.annotations.push({ type: 'query cache kept on the phone (characters)', description: String(kept.length) });
    console.log(`query cache kept on the phone: ${kept.length} characters`);

    // No signal, and the page is reloaded (or the phone restarted): the board is still there,
    // saying how old it is.
    await phone.setOffline(true);
    await page.reload();
    await expect(page.getByRole('heading', { name: 'Demandes d’interventions' })).toBeVisible();
    await expect(page.getByTestId('request-card').first()).toBeVisible();
    await expect(page.getByText(STAMP).first()).toBeVisible();
    await chooseSite();
    await expect(card).toHaveCount(1);
    await expect(card).toContainText('A faire : Réparation effectuée');

    // 'Traiter' opens the site sheet prefilled; the entry waits on the phone.
    await card.getByRole('button', { name: 'Traiter' }).click();
    await expect(page.getByRole('heading', { name: 'Gérer' })).toBeVisible();
    const block = page.getByRole('group', { name: /Action 1/ });
    await expect(block.getByRole('combobox', { name: /Choix de la cellule/ })).toHaveValue(String(cell1.id));
    await expect(block.getByRole('combobox', { name: /Quelle action/ })).toHaveValue('14');
    await block.getByRole('textbox', { name: /Précisions/ }).fill(`${RUN} charnière changée`);
    await page.getByRole('button', { name: 'Enregistrer' }).click();

    // Back on signal: the outbox sends it and the provider is on the board, told it went through.
    await expect(page).toHaveURL(new RegExp(`${BOARD}$`));
    await phone.setOffline(false);
    await expect(page.getByText('Intervention(s) enregistrée(s) avec succès')).toBeVisible({ timeout: 60_000 });
    await expect(page).toHaveURL(new RegExp(`${BOARD}$`));
    await expect(page.getByTestId('request-card').filter({ hasText: RUN })).toHaveCount(0, { timeout: 30_000 });

    // The history, newest first, as cards on the phone: the request is 'Réalisée', with both interventions.
    await page.getByRole('button', { name: "Voir l'historique" }).click();
    const history = page.getByRole('dialog', { name: "Historique des demandes d'interventions" });
    const historyCard = history.getByRole('article').filter({ hasText: siteName }).filter({ hasText: 'Réparation effectuée' }).first();
    await expect(historyCard).toContainText('Réalisée');
    await historyCard.getByRole('button', { name: /Interventions liées/ }).click();
    const linked = historyCard.getByRole('region', { name: /Interventions liées/ });
    await expect(linked).toContainText(`${RUN} charnière cassée`);
    await expect(linked).toContainText(`${RUN} charnière changée`);

    // The history page loaded is kept on the phone too.
    await expect.poll(async () => (await keptCache(page)).includes('"requests","history"'), { timeout: 15_000 }).toBe(true);
    const withHistory = await keptCache(page);
    testInfo.annotations.push({ type: 'query cache with a history page (characters)', description: String(withHistory.length) });
    console.log(`query cache kept on the phone with a history page: ${withHistory.length} characters`);

    // Logging out leaves nothing of the provider's board, history or sites on the phone.
    await page.keyboard.press('Escape');
    await page.getByRole('button', { name: 'Compte' }).click();
    await page.getByRole('menuitem', { name: 'Déconnexion' }).click();
    await expect(page).toHaveURL(/\/login$/);
    const left = await keptCache(page);
    for (const root of ['"requests","pending"', '"requests","history"', '"sites","active"', '"interventions","siteInfos"', RUN]) expect(left).not.toContain(root);
  } finally {
    await phone.close();
    fs.rmSync(profile, { recursive: true, force: true });
  }
});
