// The PWA baseline: manifest, service worker, offline reload, unknown routes and
// the administrator's landing.
import type { Page } from '@playwright/test';
import { expect, test } from '../helpers/e2e-test';
import { PROVIDER, logIn, logInAsAdmin } from '../helpers/e2e-login';

// The service worker is part of what these journeys check (playwright.config.ts blocks it elsewhere).
test.use({ serviceWorkers: 'allow' });

/** Resolves once the service worker is activated and controls the page (it claims clients). */
async function waitForActiveServiceWorker(page: Page) {
  await page.evaluate(async () => {
    const registration = await navigator.serviceWorker.ready;
    const worker = registration.active!;
    if (worker.state !== 'activated') {
      await new Promise<void>((resolve) => worker.addEventListener('statechange', () => worker.state === 'activated' && resolve()));
    }
    if (!navigator.serviceWorker.controller) {
      await new Promise((resolve) => navigator.serviceWorker.addEventListener('controllerchange', resolve, { once: true }));
    }
  });
}

// Offline with context.setOffline only: Playwright's request routing would make Chromium
// bypass the service worker, which is exactly what these tests observe. Requests the worker
// sends itself ignore setOffline, so the tests also check the answers came from its cache.

test('the web manifest is served in French with both icons', async ({ page, request }) => {
  await page.goto('/login');
  const href = await page.locator('link[rel="manifest"]').getAttribute('href');
  expect(href).toBeTruthy();
  const res = await request.get(href!);
  expect(res.ok()).toBe(true);
  const manifest = (await res.json()) as { name: string; lang: string; display: string; theme_color: string; icons: { src: string; sizes: string }[] };
  expect(manifest).toMatchObject({ name: 'Compost – compostage collectif', lang: 'fr', display: 'standalone', theme_color: '#2f9e44' });
  for (const size of ['192x192', '512x512']) {
    const icon = manifest.icons.find((i) => i.sizes === size);
    expect(icon, size).toBeDefined();
    const png = await request.get(icon!.src);
    expect(png.ok()).toBe(true);
    expect(png.headers()['content-type']).toContain('image/png');
  }
});

test('the service worker activates and a screen reloads offline', async ({ page, context }) => {
  await page.goto('/login');
  await waitForActiveServiceWorker(page);
  await expect(page.getByRole('button', { name: 'Connexion' })).toBeVisible();

  await context.setOffline(true);
  const opened = await page.goto('/signup');
  expect(opened?.fromServiceWorker()).toBe(true);
  await expect(page.getByRole('heading', { name: 'Créer un compte' })).toBeVisible();
  const reloaded = await page.reload();
  expect(reloaded?.fromServiceWorker()).toBe(true);
  await expect(page.getByLabel('Adresse mail')).toBeVisible();
  await expect(page.getByRole('link', { name: 'Retour à la connexion' })).toBeVisible();
});

test('a logged-in screen reopens offline with the last known session', async ({ page, context }) => {
  await logInAsAdmin(page, /\/admin\/site$/);
  await waitForActiveServiceWorker(page);
  await page.goto('/admin/choix/site');
  await expect(page.getByRole('navigation', { name: 'Menu principal' }).getByRole('link', { name: 'Sites', exact: true })).toBeVisible();

  await context.setOffline(true);
  const reloaded = await page.reload();
  expect(reloaded?.fromServiceWorker()).toBe(true);
  await expect(page).toHaveURL(/\/admin\/choix\/site$/);
  await expect(page.getByText('Compost', { exact: true })).toBeVisible();
  await expect(page.getByRole('navigation', { name: 'Menu principal' }).getByRole('link', { name: 'Sites', exact: true })).toBeVisible();
});

test('API answers are never served by the service worker', async ({ page, context }) => {
  await page.goto('/login');
  await waitForActiveServiceWorker(page);
  const [online] = await Promise.all([page.waitForResponse('**/api/app/info/get'), page.evaluate(() => fetch('/api/app/info/get'))]);
  expect(online.ok()).toBe(true);
  expect(online.fromServiceWorker()).toBe(false);

  // The browser has seen this answer once; offline it must not come back from any cache.
  await context.setOffline(true);
  const offlineResult = await page.evaluate(async () => {
    try {
      const res = await fetch('/api/app/info/get');
      return `status ${res.status}`;
    } catch {
      return 'network error';
    }
  });
  expect(offlineResult).toBe('network error');
});

test('an unknown address shows Page introuvable with a way home', async ({ page }) => {
  await page.goto('/cette/page/n-existe/pas');
  await expect(page.getByRole('heading', { name: 'Page introuvable' })).toBeVisible();
  await page.getByRole('link', { name: 'Retour à l’accueil' }).click();
  await expect(page.getByRole('button', { name: 'Connexion' })).toBeVisible();
});

test('the administrator logs in and gets the full drawer', async ({ page }) => {
  await logInAsAdmin(page, /\/admin\/site$/);
  await expect(page.getByText('Compost', { exact: true })).toBeVisible();
  const drawer = page.getByRole('navigation', { name: 'Menu principal' });
  await expect(drawer.getByRole('link', { name: 'Saisir une intervention' })).toBeVisible();
  await expect(drawer.getByRole('link', { name: 'Choix du site' })).toHaveCount(0);

  // The burger folds the drawer away and back.
  await page.getByRole('button', { name: 'Fermer le menu' }).click();
  await expect(page.locator('nav[aria-label="Menu principal"]')).not.toBeInViewport();
  await page.getByRole('button', { name: 'Ouvrir le menu' }).click();
  await expect(drawer).toBeInViewport();
  await drawer.getByRole('link', { name: 'Saisir une intervention' }).click();
  await expect(page).toHaveURL(/\/admin\/choix\/site$/);
});

test('a visitor reaches the login screen from the account menu, and at /', async ({ page }) => {
  await page.goto('/signup');
  await page.getByRole('button', { name: 'Compte', exact: true }).click();
  await page.getByRole('menuitem', { name: 'Connexion' }).click();
  await expect(page).toHaveURL(/\/login$/);
  await expect(page.getByRole('heading', { name: 'Connexion' })).toBeVisible();
  await page.goto('/');
  await expect(page.getByLabel('Identifiant ou adresse mail')).toBeVisible();
  await expect(page.getByRole('link', { name: 'Créer un compte' })).toBeVisible();
  await expect(page.getByRole('navigation', { name: 'Menu principal' })).toHaveCount(0);
});

test('a call answered 401 sends the browser to /logout, then the login page says Accès non authorisé.', async ({ page, context }) => {
  await logInAsAdmin(page, /\/admin\/site$/);
  // The session ends behind the open page (expired, or ended from another device).
  await context.clearCookies();
  const logout = page.waitForRequest((r) => new URL(r.url()).pathname === '/logout');
  await page
    .getByRole('navigation', { name: 'Menu principal' })
    .getByRole('link', { name: 'Utilisateurs' })
    .click({ timeout: 5_000 })
    // A background call of the open screen may be refused first and leave before the click.
    .catch(() => undefined);
  await logout;
  await expect(page).toHaveURL(/\/login$/);
  await expect(page.getByRole('alert')).toHaveText('Accès non authorisé.');
  // Said once: a reload no longer shows it.
  await page.reload();
  await expect(page.getByRole('button', { name: 'Connexion' })).toBeVisible();
  await expect(page.getByRole('alert')).toHaveCount(0);
});

test('a call answered 403 keeps the user logged in, on the screen that asked', async ({ page }) => {
  await logInAsAdmin(page);
  // The administrator's role was withdrawn while the page was open: the server refuses the list.
  await page.route('**/api/admin/user/get/list/by/filters**', (route) =>
    route.fulfill({ status: 403, contentType: 'application/json', body: JSON.stringify({ status: 'error', message: 'Accès non authorisé.' }) }),
  );
  const logouts: string[] = [];
  page.on('request', (r) => {
    if (new URL(r.url()).pathname === '/logout') logouts.push(r.url());
  });
  const refused = page.waitForResponse((r) => r.url().includes('/api/admin/user/get/list/by/filters') && r.status() === 403);
  await page.getByRole('navigation', { name: 'Menu principal' }).getByRole('link', { name: 'Utilisateurs' }).click();
  await refused;
  await expect(page.getByRole('alert').filter({ hasText: 'Accès non authorisé.' })).toBeVisible();
  expect(logouts).toEqual([]);
  await expect(page).toHaveURL(/\/admin\/user$/);
  // The session is still there: another screen opens.
  await page.unroute('**/api/admin/user/get/list/by/filters**');
  await page.getByRole('navigation', { name: 'Menu principal' }).getByRole('link', { name: 'Sites', exact: true }).click();
  await expect(page).toHaveURL(/\/admin\/site$/);
  await expect(page.getByRole('heading', { level: 1 })).toBeVisible();
  expect(logouts).toEqual([]);
});

test('a provider lands on the site choice with the drawer of its role', async ({ page }) => {
  await logIn(page, PROVIDER, /\/admin\/choix\/site$/);
  const drawer = page.getByRole('navigation', { name: 'Menu principal' });
  await expect(drawer.getByRole('link', { name: 'Choix du site' })).toBeVisible();
  for (const name of ['Saisir une intervention', 'Utilisateurs', 'Sites', 'Composteurs', 'Roles', 'Statistiques']) {
    await expect(drawer.getByRole('link', { name, exact: true })).toHaveCount(0);
  }
});

