// Every screen, as each kind of user, on a 390 px phone and a 1440 px desktop, checked with
// axe-core against WCAG 2.2 A and AA: no serious or critical violation, and no page that
// scrolls sideways. The screens listed in NAMED below also carry exactly one <h1>, which names
// them in the document title ('<h1> – Compost').
// One test per kind of user and device, each screen reported on its own (expect.soft), so a
// slow machine that runs out of time still says what it found on the screens it reached.
// The administrator's dialogs of the sites and users screens (forms, the full-screen
// interventions table, a confirmation) are checked open, on both devices.
import type { Page } from '@playwright/test';
import { expect, test } from '../helpers/e2e-test';
import { E2E_ADMIN } from '../helpers/e2e-env';
import { axeFindings } from '../helpers/e2e-axe';
import { REFERENT, logIn } from '../helpers/e2e-field';

// The checks only read: each test may run in either worker, which keeps the longest file of the
// journeys (about a quarter of their time) from holding one worker to the end.
test.describe.configure({ mode: 'parallel' });

const PROVIDER = { login: 'prestataire@demo.compost.fr', password: 'demo-compost' };
const ADMIN = { login: E2E_ADMIN.login, password: E2E_ADMIN.password };

const DEVICES = [
  ['phone', { width: 390, height: 844 }],
  ['desktop', { width: 1440, height: 900 }],
] as const;

/** Screens that name themselves with one <h1> and the document title (their path, without the query). */
const NAMED = [
  /^\/login$/,
  /^\/signup$/,
  /^\/password$/,
  /^\/reset\/[^/]+$/,
  /^\/confirmation\/[^/]+$/,
  /^\/page-inconnue$/,
  /^\/foyer\/quitter$/,
  /^\/admin\/import$/,
  /^\/admin\/site$/,
  /^\/admin\/user$/,
  /^\/admin\/role$/,
  /^\/admin\/composteur$/,
  /^\/admin\/typeSite$/,
  /^\/admin\/interventions$/,
  /^\/admin\/stats$/,
  /^\/admin\/rapport$/,
  /^\/admin\/alertes$/,
  /^\/admin\/alertes\/seuils$/,
  /^\/admin\/alertes\/preferences$/,
  /^\/admin\/signalements$/,
  /^\/admin\/envois$/,
  /^\/admin\/choix\/site$/,
  /^\/admin\/demande\/intervention\/list$/,
  /^\/admin\/demande\/regles$/,
  /^\/admin\/fiche\/site\/\d+$/,
  /^\/admin\/fiche\/site\/\d+\/etiquettes$/,
  /^\/admin\/fiche\/site\/\d+\/permanences$/,
  /^\/admin\/fiche\/site\/\d+\/foyers$/,
  /^\/admin\/carte$/,
  /^\/admin\/tournee$/,
  /^\/interventions\/site\/\d+$/,
];

/** Waits for a screen to settle: no loader left, the main landmark filled. */
async function settle(page: Page) {
  await expect(page.locator('main')).toBeVisible();
  await expect(page.locator('.mantine-Loader-root, [aria-busy="true"]')).toHaveCount(0, { timeout: 15_000 });
}

/**
 * Opens a screen as a link inside the application would: once the application runs in the page,
 * through the router (the history API), which spares each screen a whole page load; the first
 * screen, and a site's public page, are loaded from the server. The router may keep the previous
 * screen on display while the next one's code loads: the check waits until what <main> shows has
 * changed.
 */
async function open(page: Page, path: string) {
  const main = page.locator('main');
  const running = page.url().startsWith('http') && (await main.count()) > 0;
  // A site's public page is opened from its label, never from inside the application.
  if (!running || path.startsWith('/s/')) return page.goto(path);
  // Already there (a login lands some people on their first screen): nothing will change.
  const here = new URL(page.url());
  if (here.pathname + here.search === path) return;
  const before = await main.innerHTML();
  const titleBefore = await page.title();
  await page.evaluate((to) => {
    window.history.pushState(null, '', to);
    window.dispatchEvent(new PopStateEvent('popstate'));
  }, path);
  await expect(page).toHaveURL((url) => url.pathname + url.search === path);
  await expect.poll(() => main.innerHTML(), { message: `${path}: the screen did not change` }).not.toBe(before);
  // The previous screen may redraw itself on the new address (its table reads the query) before
  // the next one has mounted: a screen that names itself is there once the title has changed.
  if (named(path) && new URL(path, here).pathname !== here.pathname) {
    await expect.poll(() => page.title(), { message: `${path}: the title still names the previous screen` }).not.toBe(titleBefore);
  }
}

const named = (path: string) => NAMED.some((pattern) => pattern.test(path.split('?')[0]));

async function check(page: Page, path: string, who: string) {
  const label = `${who} ${path}`;
  await open(page, path);
  await settle(page);
  expect.soft(await axeFindings(page), `${label}: serious or critical WCAG violations`).toEqual([]);
  const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
  expect.soft(overflow, `${label}: the page scrolls sideways`).toBeLessThanOrEqual(0);
  if (named(path)) {
    const h1 = page.getByRole('heading', { level: 1 });
    await expect.soft(h1, `${label}: one h1`).toHaveCount(1);
    const name = (await h1.first().textContent())?.trim();
    await expect.soft(page, `${label}: the document title names the screen`).toHaveTitle(`${name} – Compost`);
  }
}

const activeSites = async (page: Page) => (await (await page.request.get('/api/admin/site/get/all/actif')).json()) as { id: number; code: string }[];
const firstSite = async (page: Page) => (await activeSites(page))[0].id;

interface Journey {
  who: string;
  account: { login: string; password: string } | null;
  screens: (page: Page) => Promise<string[]>;
}

const JOURNEYS: Journey[] = [
  // A link from a mail that is no longer valid, and an address that leads nowhere. Two screens
  // in a row never share a name: the check knows the next screen is there by its new title (the
  // two stale links both say 'Compte introuvable').
  { who: 'visiteur', account: null, screens: async () => ['/login', '/signup', '/password', '/reset/lien-perime', '/page-inconnue', '/confirmation/lien-perime', '/foyer/quitter?jeton=lien-perime'] },
  {
    who: 'administrateur',
    account: ADMIN,
    screens: async (page) => {
      const sites = await activeSites(page);
      const site = sites[0].id;
      return [
        '/admin/site',
        '/admin/user',
        '/admin/role',
        '/admin/composteur',
        '/admin/typeSite',
        '/admin/interventions',
        '/admin/choix/site',
        '/admin/demande/intervention/list',
        '/admin/demande/regles',
        '/admin/stats',
        // A site's statistics add the temperature chart.
        `/admin/stats?site=${site}`,
        '/admin/rapport',
        `/admin/rapport?site=${site}`,
        '/admin/alertes',
        '/admin/alertes/seuils',
        '/admin/alertes/preferences',
        '/admin/signalements',
        '/admin/import',
        `/admin/fiche/site/${site}`,
        `/admin/fiche/site/${site}/etiquettes`,
        `/admin/fiche/site/${site}/permanences`,
        `/admin/fiche/site/${site}/foyers`,
        '/admin/carte',
        '/admin/tournee',
        `/interventions/site/${site}`,
        '/admin/envois',
        // The page a QR label opens, as anyone sees it.
        `/s/${sites[0].code}`,
      ];
    },
  },
  {
    who: 'référent',
    account: REFERENT,
    screens: async (page) => {
      const site = await firstSite(page);
      return [
        '/admin/choix/site',
        `/admin/fiche/site/${site}`,
        `/admin/fiche/site/${site}/permanences`,
        `/admin/fiche/site/${site}/foyers`,
        `/interventions/site/${site}`,
        '/admin/envois',
        '/admin/alertes/preferences',
      ];
    },
  },
  {
    who: 'prestataire',
    account: PROVIDER,
    screens: async (page) => ['/admin/demande/intervention/list', '/admin/choix/site', `/admin/fiche/site/${await firstSite(page)}`, '/admin/envois', '/admin/carte', '/admin/tournee'],
  },
];

for (const [device, viewport] of DEVICES) {
  for (const journey of JOURNEYS) {
    test(`every screen of the ${journey.who} passes the accessibility check on a ${device}`, async ({ page }) => {
      await page.setViewportSize(viewport);
      if (journey.account) await logIn(page, journey.account);
      const screens = await journey.screens(page);
      // axe takes several seconds a screen on a busy two-core machine.
      test.setTimeout(60_000 + screens.length * 40_000);
      for (const path of screens) await check(page, path, journey.who);
    });
  }
}

/** Checks the dialog on display once its opening transition is over, then closes it. */
async function checkDialog(page: Page, dialog: ReturnType<Page['getByRole']>, label: string, close: () => Promise<void>) {
  await expect(dialog).toBeVisible();
  await expect(dialog.locator('.mantine-Loader-root')).toHaveCount(0, { timeout: 15_000 });
  // Mantine fades a dialog in: axe would measure the contrast of half-transparent text. Wait
  // until the dialog and its overlay are fully opaque.
  await expect(dialog).toHaveCSS('opacity', '1');
  await expect(page.locator('.mantine-Modal-overlay').last()).toHaveCSS('opacity', '1');
  expect.soft(await axeFindings(page), `${label}: serious or critical WCAG violations`).toEqual([]);
  await close();
  await expect(dialog).toBeHidden();
}

for (const [device, viewport] of DEVICES) {
  test(`the administrator's dialogs of the sites and users screens pass the accessibility check on a ${device}`, async ({ page }) => {
    test.setTimeout(240_000);
    await page.setViewportSize(viewport);
    await logIn(page, ADMIN);

    await page.goto('/admin/site');
    await settle(page);
    await page.getByRole('button', { name: 'Ajouter un site' }).click();
    const add = page.getByRole('dialog', { name: 'Ajouter un site' });
    await checkDialog(page, add, 'Ajouter un site', () => add.getByRole('button', { name: 'Fermer' }).click());

    const firstRow = page.getByRole('row').filter({ has: page.getByRole('button', { name: /^Actions du site/ }) }).first();
    await firstRow.getByRole('button', { name: /^Actions du site/ }).click();
    await page.getByRole('menuitem', { name: 'Modifier Site' }).click();
    const edit = page.getByRole('dialog', { name: 'Modifier Site' });
    await checkDialog(page, edit, 'Modifier Site', () => edit.getByRole('button', { name: 'Fermer' }).click());

    await firstRow.getByRole('button', { name: /^Actions du site/ }).click();
    await page.getByRole('menuitem', { name: 'Voir les interventions' }).click();
    const interventions = page.getByRole('dialog', { name: /^Interventions du site/ });
    await expect(interventions.getByRole('table')).toBeVisible();
    await checkDialog(page, interventions, 'Interventions du site', () => interventions.getByRole('button', { name: 'Fermer' }).click());

    await page.goto('/admin/user');
    await settle(page);
    await page.getByRole('button', { name: /^Désactiver / }).first().click();
    const question = page.getByRole('dialog', { name: 'Désactiver ce compte ?' });
    await checkDialog(page, question, 'Désactiver ce compte ?', () => question.getByRole('button', { name: 'Annuler' }).click());
  });
}
