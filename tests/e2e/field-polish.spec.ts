// The field screens on a 390 px phone: a refused save leads to the first field to correct and
// counts what is left beside the save button; a referent opening another site's QR label is
// told so in place and keeps their session and queue; the outbox 'Envois' says what each entry
// became and why a send could not happen; nothing in the top bar or the pages is cut off; the
// per-site interventions page names its site and leads back to the site choice; an account
// without a role is told so on the login page.
// Runs on the demo programme the e2e server seeds: referent1 has several sites, each with cells
// n°1-2 Apport, n°3 Broyat, n°4 Maturation.
import { request as playwrightRequest, type Page } from '@playwright/test';
import { expect, test } from '../helpers/e2e-test';
import { ADMIN, apiLogIn, submitLogin } from '../helpers/e2e-login';
import {
  QUEUED,
  cutOffElements,
  logIn,
  noSidewaysScroll,
  phoneCellLabel,
  queuedOwners,
  siteOfUser,
  waitUntilReadyOffline,
  type SiteInfos,
} from '../helpers/e2e-field';

// The service worker is part of what these journeys check (playwright.config.ts blocks it elsewhere).
test.use({ serviceWorkers: 'allow' });

test.use({ viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true });

const ADD_ROUTE = '**/api/admin/intervention/add';
/** Observations are tagged with a per-run prefix so the server's rows of this run can be told. */
const RUN = `e2e-polish-${Date.now().toString(36)}-`;

/** Fills block `index` (0-based) of the site sheet with a 'Retournement' on cell n°1. */
async function fillTurning(page: Page, site: SiteInfos, index: number, marker: string) {
  const group = page.getByRole('group', { name: `Action ${index + 1}` });
  await group.getByRole('combobox', { name: /Choix de la cellule/ }).selectOption({ label: phoneCellLabel(site, 1) });
  await group.getByRole('combobox', { name: /Quelle action/ }).selectOption({ label: 'Retournement' });
  await group.getByLabel(/Observations/).fill(RUN + marker);
}

async function serverCount(page: Page, siteId: number, marker: string): Promise<number> {
  const res = await page.request.get(`/api/intervention/get/list/by/site/${siteId}?rowsPerPage=100&sort[name]=date&sort[direction]=desc`);
  expect(res.ok()).toBe(true);
  return ((await res.json()) as { interventions: { observations: string | null }[] }).interventions.filter((r) => r.observations === RUN + marker).length;
}

/** Whether `locator` is inside the visual viewport (the phone's screen), not merely in the page. */
async function onScreen(page: Page, selector: string): Promise<boolean> {
  return page.evaluate((s) => {
    const el = document.querySelector(s);
    if (!el) return false;
    const r = el.getBoundingClientRect();
    return r.top >= 0 && r.bottom <= window.innerHeight;
  }, selector);
}

test('a refused save leads to the first field to correct, outlines its block and counts what is left beside the save button', async ({ page }) => {
  await logIn(page);
  const site = await siteOfUser(page, 0);
  await page.goto(`/admin/fiche/site/${site.id}`);
  await expect(page.getByRole('heading', { name: 'Gérer' })).toBeVisible();

  // Block 1 complete, block 2 left empty; the save button is far below the first blocks.
  await fillTurning(page, site, 0, 'refused');
  await page.getByRole('button', { name: 'Ajouter action' }).click();
  await page.getByRole('button', { name: 'Ajouter action' }).click();
  await fillTurning(page, site, 2, 'refused-3');
  const save = page.getByRole('button', { name: 'Enregistrer' });
  await save.scrollIntoViewIfNeeded();
  const second = page.getByRole('group', { name: 'Action 2' });
  const secondCell = second.getByRole('combobox', { name: /Choix de la cellule/ });
  await secondCell.evaluate((el) => el.setAttribute('data-e2e', 'second-cell'));
  expect(await onScreen(page, '[data-e2e="second-cell"]')).toBe(false);
  await save.click();

  // Scrolled to, focused, marked; its block outlined and captioned; the count beside the button.
  await expect(secondCell).toBeFocused();
  expect(await onScreen(page, '[data-e2e="second-cell"]')).toBe(true);
  await expect(secondCell).toHaveAttribute('aria-invalid', 'true');
  await expect(second).toHaveAttribute('data-invalid', 'true');
  await expect(second.getByText('2 champs à corriger dans cette action')).toBeVisible();
  // Outlined in the theme's error colour.
  const [border, errorColour] = await second.evaluate((el) => {
    const probe = document.createElement('span');
    probe.style.color = 'var(--mantine-color-error)';
    document.body.append(probe);
    const colour = getComputedStyle(probe).color;
    probe.remove();
    return [getComputedStyle(el).borderTopColor, colour];
  });
  expect(border).toBe(errorColour);
  await expect(page.getByRole('group', { name: 'Action 1' })).not.toHaveAttribute('data-invalid', 'true');
  const summary = page.getByRole('button', { name: '2 champs à corriger' });
  await expect(summary).toBeVisible();
  const [summaryBox, saveBox] = [await summary.boundingBox(), await save.boundingBox()];
  // Beside the save button: on its row, or just above it.
  expect(Math.abs(summaryBox!.y + summaryBox!.height / 2 - (saveBox!.y + saveBox!.height / 2))).toBeLessThan(60);
  await expect(page.getByText('Veuillez renseigner les champs obligatoires')).toBeVisible();
  expect(await noSidewaysScroll(page)).toBeLessThanOrEqual(390);

  // The server refuses several fields: the same, from its answer (first field in page order).
  await page.getByRole('button', { name: 'Supprimer dernière action' }).click();
  await page.getByRole('button', { name: 'Supprimer dernière action' }).click();
  await expect(page.getByText(/champs? à corriger/)).toHaveCount(0);
  await page.getByRole('button', { name: 'Ajouter action' }).click();
  await fillTurning(page, site, 1, 'refused-2');
  await page.route(ADD_ROUTE, (route) =>
    route.fulfill({
      status: 400,
      contentType: 'application/json',
      body: JSON.stringify({
        status: 'error',
        message: 'Veuillez renseigner les champs obligatoires',
        errors: [
          { key: 'values1.observations', error: 'Observations refusées par le serveur' },
          { key: 'values0.composteur', error: 'Cette cellule est désactivée' },
        ],
      }),
    }),
  );
  await save.scrollIntoViewIfNeeded();
  await save.click();
  const firstCell = page.getByRole('group', { name: 'Action 1' }).getByRole('combobox', { name: /Choix de la cellule/ });
  await expect(firstCell).toBeFocused();
  await firstCell.evaluate((el) => el.setAttribute('data-e2e', 'first-cell'));
  expect(await onScreen(page, '[data-e2e="first-cell"]')).toBe(true);
  await expect(page.getByText('Cette cellule est désactivée')).toBeVisible();
  await expect(page.getByRole('group', { name: 'Action 2' }).getByText('1 champ à corriger dans cette action')).toBeVisible();
  await expect(page.getByRole('button', { name: '2 champs à corriger' })).toBeVisible();
  await page.unroute(ADD_ROUTE);
});

test("a referent opening another site's QR label is told so in place and keeps the session and the queue", async ({ page, baseURL }) => {
  // A site that is not referent1's, with one of its cells, as the administrator sees it.
  const admin = await playwrightRequest.newContext({ baseURL });
  try {
    await apiLogIn(admin, ADMIN);
    await logIn(page);
    const mine = ((await (await page.request.get('/api/admin/site/get/all/actif')).json()) as { id: number }[]).map((s) => s.id);
    const all = (await (await admin.get('/api/admin/site/get/all/actif')).json()) as { id: number }[];
    const other = all.find((s) => !mine.includes(s.id));
    expect(other, 'the demo programme has sites referent1 is not the referent of').toBeDefined();
    const otherInfos = (await (await admin.get(`/api/admin/site/get/infos/pour/intervention/${other!.id}`)).json()) as SiteInfos;
    const site = await siteOfUser(page, 0);

    // One entry waits on the phone: the network is cut for the sends.
    await page.route(ADD_ROUTE, (route) => route.abort('internetdisconnected'));
    await page.goto(`/admin/fiche/site/${site.id}`);
    await fillTurning(page, site, 0, 'qr-other');
    await page.getByRole('button', { name: 'Enregistrer' }).click();
    await expect(page.getByText(QUEUED).first()).toBeVisible({ timeout: 40_000 });
    await expect(page.getByRole('link', { name: '1 envoi en attente' })).toBeVisible();

    const logouts: string[] = [];
    page.on('request', (r) => {
      if (new URL(r.url()).pathname === '/logout') logouts.push(r.url());
    });
    await page.goto(`/admin/fiche/site/${other!.id}?cellule=${otherInfos.siteComposteurs[0].id}`);
    await expect(page.getByRole('heading', { level: 1, name: 'Accès non authorisé.' })).toBeVisible();
    await expect(page.getByText(/Ce site n’est pas l’un des vôtres/)).toBeVisible();
    await expect(page.getByRole('link', { name: 'Retour à l’accueil' })).toHaveAttribute('href', '/admin');
    await expect(page.getByRole('link', { name: '1 envoi en attente' })).toBeVisible();
    expect(await noSidewaysScroll(page)).toBeLessThanOrEqual(390);

    await page.getByRole('link', { name: 'Retour au choix du site' }).click();
    await expect(page.getByText('Choisir le site de votre intervention')).toBeVisible();
    expect(logouts).toEqual([]);
    expect(await queuedOwners(page)).toHaveLength(1);

    // Still logged in: the entry goes as soon as the network is back.
    await page.unroute(ADD_ROUTE);
    await page.getByRole('link', { name: '1 envoi en attente' }).click();
    await page.getByRole('button', { name: 'Envoyer maintenant' }).click();
    await expect(page.getByText('Aucun résultat')).toBeVisible({ timeout: 30_000 });
    expect(await serverCount(page, site.id, 'qr-other')).toBe(1);
    expect(logouts).toEqual([]);
  } finally {
    await admin.dispose();
  }
});

test("the outbox 'Envois' is in the menu and tells each entry's state, why it waits, and what was sent", async ({ page, context }) => {
  test.setTimeout(180_000);
  await logIn(page);
  const site = await siteOfUser(page, 0);
  await page.goto('/admin/choix/site');
  await waitUntilReadyOffline(page);

  // From the drawer.
  await page.getByRole('button', { name: 'Ouvrir le menu' }).click();
  await page.getByRole('navigation', { name: 'Menu principal' }).getByRole('link', { name: 'Envois' }).click();
  await expect(page).toHaveURL(/\/admin\/envois$/);
  await expect(page.getByRole('heading', { name: 'Envois en attente' })).toBeVisible();
  await expect(page.getByText('Aucun résultat')).toBeVisible();

  // No network: an entry waits; 'Envoyer maintenant' says there is no network.
  await context.setOffline(true);
  await page.goto(`/admin/fiche/site/${site.id}`);
  // A temperature with a decimal comma: the outbox writes it the French way too.
  const block = page.getByRole('group', { name: 'Action 1' });
  await block.getByRole('combobox', { name: /Choix de la cellule/ }).selectOption({ label: phoneCellLabel(site, 4) });
  await block.getByRole('combobox', { name: /Quelle action/ }).selectOption({ label: 'Température' });
  await block.getByRole('textbox', { name: /Température/ }).fill('48,5');
  await block.getByLabel(/Observations/).fill(`${RUN}outbox-1`);
  await page.getByRole('button', { name: 'Enregistrer' }).click();
  await expect(page.getByText(QUEUED).first()).toBeVisible();
  await page.getByRole('link', { name: '1 envoi en attente' }).click();
  const card = page.getByRole('listitem', { name: new RegExp(`^${site.code}`) });
  await expect(card.getByText('En attente', { exact: true })).toBeVisible();
  await expect(card).toContainText('48,5 °C');
  await page.getByRole('button', { name: 'Envoyer maintenant' }).click();
  await expect(page.getByText('Pas de réseau : les saisies seront envoyées automatiquement dès son retour.')).toBeVisible();

  // Another account's entry on the same phone is listed, and not counted at this logout.
  await page.evaluate(
    () =>
      new Promise<void>((resolve, reject) => {
        const open = indexedDB.open('compost-offline');
        open.onsuccess = () => {
          const tx = open.result.transaction('outbox', 'readwrite');
          const clientId = '7d1e4a52-0000-4000-8000-000000000001';
          tx.objectStore('outbox').put({
            clientId,
            payload: { clientId, site: 1, date: '2026-03-02T09:30:00.000Z', values: [] },
            createdAt: Date.now(),
            ownerId: 999_999,
            ownerName: 'autre.referent@demo.compost.fr',
            siteLabel: 'Autre site',
            state: 'pending',
            attempts: 0,
            failures: 0,
            nextAttemptAt: Date.now(),
            lastError: null,
            fieldErrors: [],
          });
          tx.oncomplete = () => {
            open.result.close();
            resolve();
          };
          tx.onerror = () => reject(tx.error);
        };
        open.onerror = () => reject(open.error);
      }),
  );
  await page.reload();
  await expect(page.getByText(/^Saisie de autre\.referent@demo\.compost\.fr/)).toBeVisible();
  await page.getByRole('button', { name: 'Compte', exact: true }).click();
  await page.getByRole('menuitem', { name: 'Déconnexion' }).click();
  const warning = page.getByRole('dialog', { name: 'Saisies non envoyées' });
  await expect(warning).toContainText('1 saisie n’a pas encore été envoyée au serveur');
  await warning.getByRole('button', { name: 'Rester connecté' }).click();
  await expect(warning).toHaveCount(0);

  // The network is back but the server is down (the gateway answers 503): said as such.
  await context.route(ADD_ROUTE, (route) =>
    route.fulfill({ status: 503, contentType: 'application/json', body: JSON.stringify({ status: 'error', message: 'Service indisponible' }) }),
  );
  await context.setOffline(false);
  await expect(card.getByText('Dernière erreur : Serveur indisponible : nouvel essai automatique')).toBeVisible({ timeout: 30_000 });
  await expect(page.getByRole('banner').getByText('Serveur indisponible')).toHaveCount(1);
  await expect(page.getByRole('banner').getByText('Hors ligne')).toHaveCount(0);
  await page.getByRole('button', { name: 'Envoyer maintenant' }).click();
  await expect(page.getByText('Serveur indisponible : nouvel essai automatique dans quelques minutes.')).toBeVisible();

  // The server refuses it: 'Refusée', with its reasons.
  await context.unroute(ADD_ROUTE);
  await context.route(ADD_ROUTE, (route) =>
    route.fulfill({
      status: 400,
      contentType: 'application/json',
      body: JSON.stringify({ status: 'error', message: 'Veuillez renseigner les champs obligatoires', errors: [{ key: 'values0.composteur', error: 'Cette cellule est désactivée' }] }),
    }),
  );
  await page.getByRole('button', { name: 'Envoyer maintenant' }).click();
  await expect(card.getByText('Refusée', { exact: true })).toBeVisible();
  await expect(card.getByText('Motif du refus : Veuillez renseigner les champs obligatoires')).toBeVisible();
  await expect(card.getByText('Cette cellule est désactivée')).toBeVisible();
  await expect(page.getByRole('link', { name: '1 envoi en échec' })).toBeVisible();

  // Fixed on the server: 'Renvoyer' delivers it, it is listed as sent.
  await context.unroute(ADD_ROUTE);
  await card.getByRole('button', { name: 'Renvoyer' }).click();
  await expect(page.getByText('1 saisie(s) envoyée(s)')).toBeVisible({ timeout: 30_000 });
  await expect(card).toHaveCount(0);
  await page.getByRole('button', { name: 'Afficher (1)' }).click();
  const sent = page.getByRole('list', { name: 'Saisies envoyées' });
  await expect(sent.getByRole('listitem', { name: /, envoyée$/ })).toHaveCount(1);
  await expect(sent.getByText('Envoyée', { exact: true })).toBeVisible();
  expect(await serverCount(page, site.id, 'outbox-1')).toBe(1);

  // An entry queued without network leaves by itself when it comes back, with the same toast.
  await context.setOffline(true);
  await page.goto(`/admin/fiche/site/${site.id}`);
  await fillTurning(page, site, 0, 'outbox-2');
  await page.getByRole('button', { name: 'Enregistrer' }).click();
  await expect(page.getByText(QUEUED).first()).toBeVisible();
  await page.goto('/admin/envois');
  await context.setOffline(false);
  await expect(page.getByText('1 saisie(s) envoyée(s)')).toBeVisible({ timeout: 30_000 });
  await page.getByRole('button', { name: 'Afficher (2)' }).click();
  await expect(sent.getByRole('listitem', { name: /, envoyée$/ })).toHaveCount(2);
  expect(await serverCount(page, site.id, 'outbox-2')).toBe(1);
  // What waits now is only the other account's entry: not this account's to send.
  expect(await queuedOwners(page)).toEqual([999_999]);
});

test('nothing is cut off at 390 px: the top bar with its indicators, the site choice, the site sheet, the outbox and the site interventions', async ({ page }) => {
  test.setTimeout(120_000);
  await logIn(page);
  const site = await siteOfUser(page, 0);
  // One entry refused, one waiting, and no network: every indicator of the top bar at once.
  await page.route(ADD_ROUTE, (route) =>
    route.fulfill({
      status: 400,
      contentType: 'application/json',
      body: JSON.stringify({ status: 'error', message: 'Veuillez renseigner les champs obligatoires', errors: [{ key: 'values0.composteur', error: 'Cette cellule est désactivée' }] }),
    }),
  );
  await page.goto(`/admin/fiche/site/${site.id}`);
  await fillTurning(page, site, 0, 'width-1');
  await page.getByRole('button', { name: 'Enregistrer' }).click();
  await expect(page.getByText('Cette cellule est désactivée')).toBeVisible();
  await page.unroute(ADD_ROUTE);
  await page.route(ADD_ROUTE, (route) => route.abort('internetdisconnected'));
  await page.goto(`/admin/fiche/site/${site.id}`);
  await fillTurning(page, site, 0, 'width-2');
  await page.getByRole('button', { name: 'Enregistrer' }).click();
  await expect(page.getByText(QUEUED).first()).toBeVisible({ timeout: 40_000 });

  const banner = page.getByRole('banner');
  await expect(banner.getByRole('link', { name: '1 envoi en attente' })).toBeVisible();
  await expect(banner.getByRole('link', { name: '1 envoi en échec' })).toBeVisible();
  await expect(banner.getByText('Hors ligne')).toHaveCount(1);

  const check = async (where: string) => {
    expect(await cutOffElements(page, 'header'), `${where}: top bar`).toEqual([]);
    expect(await cutOffElements(page, 'main', { cutOnly: true }), `${where}: page`).toEqual([]);
    expect(await noSidewaysScroll(page), `${where}: sideways scroll`).toBeLessThanOrEqual(390);
    // The top bar's items are all on the screen.
    for (const box of await banner.locator('a, button, [role="status"] > *').evaluateAll((els) => els.map((e) => e.getBoundingClientRect().right))) {
      expect(box, `${where}: top bar item past the right edge`).toBeLessThanOrEqual(390);
    }
  };

  await expect(page.getByText('Choisir le site de votre intervention')).toBeVisible();
  await check('site choice');

  await page.goto(`/admin/fiche/site/${site.id}`);
  await expect(page.getByRole('heading', { name: 'Gérer' })).toBeVisible();
  await page.getByRole('button', { name: 'Ajouter action' }).click();
  await page.getByRole('button', { name: 'Enregistrer' }).click();
  await expect(page.getByRole('button', { name: /champs? à corriger$/ })).toBeVisible();
  await check('site sheet');

  await page.goto('/admin/envois');
  await expect(page.getByRole('listitem', { name: new RegExp(`^${site.code}`) })).toHaveCount(2);
  await check('outbox');

  await page.goto(`/interventions/site/${site.id}`);
  await expect(page.getByRole('heading', { level: 1, name: site.nom ?? site.code })).toBeVisible();
  await expect(page.getByRole('table')).toBeVisible();
  await check('site interventions');
});

test("the site interventions page is titled with the site's name and leads back to the site choice", async ({ page }) => {
  await logIn(page);
  const site = await siteOfUser(page, 0);
  await page.goto(`/admin/fiche/site/${site.id}`);
  await page.getByRole('link', { name: 'Voir les interventions' }).click();
  await expect(page).toHaveURL(new RegExp(`/interventions/site/${site.id}$`));
  await expect(page.getByRole('heading', { level: 1 })).toHaveText(site.nom ?? site.code);
  await expect(page).toHaveTitle(new RegExp(`^${(site.nom ?? site.code).replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} – `));
  await page.getByRole('link', { name: 'Retour au choix du site' }).click();
  await expect(page).toHaveURL(/\/admin\/choix\/site$/);
  await expect(page.getByText('Choisir le site de votre intervention')).toBeVisible();
});

test('an agent who logs in before being given a role is told so on the login page, on a phone', async ({ page }) => {
  // tlhostis: a demo agent left without a role (the README's tour gives one a role by hand).
  await submitLogin(page, { login: 'tlhostis', password: 'demo-compost' });
  await expect(page.getByRole('alert')).toContainText("Votre compte n'a pas encore de rôle : contactez un administrateur.");
  await expect(page).toHaveURL(/\/login$/);
  expect(await noSidewaysScroll(page)).toBeLessThanOrEqual(390);
});
