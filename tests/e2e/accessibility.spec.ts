// Every screen, as each kind of user, on a 390 px phone and a 1440 px desktop, checked with
// axe-core against WCAG 2.2 A and AA: no serious or critical violation, and no page that
// scrolls sideways. The screens listed in NAMED below also carry exactly one <h1>, which names
// them in the document title ('<h1> – Compost').
// One test per kind of user and device, each screen reported on its own (expect.soft), so a
// slow machine that runs out of time still says what it found on the screens it reached.
import { expect, test, type Page } from '@playwright/test';
import { E2E_ADMIN } from '../helpers/e2e-env';
import { axeFindings } from '../helpers/e2e-axe';
import { REFERENT, logIn } from '../helpers/e2e-field';

const PROVIDER = { login: 'prestataire@demo.compost.fr', password: 'demo-compost' };
const ADMIN = { login: E2E_ADMIN.login, password: E2E_ADMIN.password };

const DEVICES = [
  ['phone', { width: 390, height: 844 }],
  ['desktop', { width: 1440, height: 900 }],
] as const;

/** Screens that name themselves with one <h1> and the document title. */
const NAMED = new Set(['/login', '/signup', '/password', '/admin/site', '/admin/user', '/admin/role', '/admin/composteur', '/admin/typeSite', '/admin/interventions']);

/** Waits for a screen to settle: no loader left, the main landmark filled. */
async function settle(page: Page) {
  await expect(page.locator('main')).toBeVisible();
  await expect(page.locator('.mantine-Loader-root, [aria-busy="true"]')).toHaveCount(0, { timeout: 15_000 });
}

async function check(page: Page, path: string, who: string) {
  const label = `${who} ${path}`;
  await page.goto(path);
  await settle(page);
  expect.soft(await axeFindings(page), `${label}: serious or critical WCAG violations`).toEqual([]);
  const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
  expect.soft(overflow, `${label}: the page scrolls sideways`).toBeLessThanOrEqual(0);
  if (NAMED.has(path)) {
    const h1 = page.getByRole('heading', { level: 1 });
    await expect.soft(h1, `${label}: one h1`).toHaveCount(1);
    const name = (await h1.first().textContent())?.trim();
    await expect.soft(page, `${label}: the document title names the screen`).toHaveTitle(`${name} – Compost`);
  }
}

const firstSite = async (page: Page) => ((await (await page.request.get('/api/admin/site/get/all/actif')).json()) as { id: number }[])[0].id;

interface Journey {
  who: string;
  account: { login: string; password: string } | null;
  screens: (page: Page) => Promise<string[]>;
}

const JOURNEYS: Journey[] = [
  { who: 'visiteur', account: null, screens: async () => ['/login', '/signup', '/password'] },
  {
    who: 'administrateur',
    account: ADMIN,
    screens: async (page) => {
      const site = await firstSite(page);
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
        `/admin/fiche/site/${site}`,
        `/interventions/site/${site}`,
      ];
    },
  },
  {
    who: 'référent',
    account: REFERENT,
    screens: async (page) => ['/admin/choix/site', `/admin/fiche/site/${await firstSite(page)}`],
  },
  { who: 'prestataire', account: PROVIDER, screens: async () => ['/admin/demande/intervention/list'] },
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
