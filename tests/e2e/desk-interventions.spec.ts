// The interventions table on a 1440 px desktop, and the requests board on a 390 px phone.
// - An agent with the edit and delete roles (the demo agent rpenven, given them through the roles
//   API) filters the interventions by site and date: the filters live in the URL, so a reload
//   shows the same list with its chips, and 'Réinitialiser' empties both. The Date filter says
//   its format, a long observation is cut to one line and whole in a tooltip, and the edit and
//   delete buttons stay pinned to the right while the table is wider than the screen.
// - The demo provider, on a phone, selects two requests of one site: 'Programmer (2)' and the
//   status badges are whole, nothing scrolls sideways; the history shows cards, not the table.
import crypto from 'node:crypto';
import type { APIRequestContext, Locator, Page } from '@playwright/test';
import { expect, test } from '../helpers/e2e-test';
import { ADMIN, PHONE, PROVIDER, REFERENT, apiContextAs, loggedBrowser, logIn } from '../helpers/e2e-login';
import { clearPendingRequests, cutOffElements, noSidewaysScroll, type SiteInfos } from '../helpers/e2e-field';

const DESKTOP = { width: 1440, height: 900 };
const AGENT = { login: 'rpenven', password: 'demo-compost' };
const ROLES = ['ROLE_ADMIN_SITE', 'ROLE_ADMIN_UPDATE', 'ROLE_ADMIN_DELETE'];
const ACTION_TEMPERATURE = 6;
const ACTION_REPARATION_A_EFFECTUER = 18;
const PARIS_DAY = new Intl.DateTimeFormat('fr-FR', { timeZone: 'Europe/Paris', day: '2-digit', month: '2-digit', year: 'numeric' });

// Each journey takes most of a minute on a busy two-core machine.
test.describe.configure({ timeout: 150_000 });

/** Adds the agent to each role through the roles API, keeping the role's other agents. */
async function giveRoles(api: APIRequestContext) {
  const [agent] = (await (await api.get('/api/admin/agent/get/by/name?name=penven')).json()) as { id: number }[];
  const roles = (await (await api.get('/api/admin/role/get/list/by/filters?rowsPerPage=100')).json()) as { roles: { id: number; libelle: string }[] };
  for (const code of ROLES) {
    const role = roles.roles.find((r) => r.libelle === code)!;
    const detail = (await (await api.get(`/api/admin/role/get/${role.id}`)).json()) as { agents: { id: number }[] };
    const agents = [...new Set([...detail.agents.map((a) => a.id), agent.id])];
    expect((await api.put(`/api/admin/role/update/${role.id}`, { data: { agents } })).status()).toBe(200);
  }
}

/** The chip of an applied filter, by its label and value ('Site : x'). */
function chip(page: Page, label: string, value: string): Locator {
  const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  return page.getByRole('group', { name: 'Filtres actifs' }).getByRole('button', { name: new RegExp(`^Retirer le filtre ${escape(label)}\\s:\\s${escape(value)}$`) });
}

/** The query string of the page as an object. */
const urlState = (page: Page) => Object.fromEntries(new URL(page.url()).searchParams);

const escapeRegExp = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

test('the interventions table keeps its site and date filters across a reload, with chips, whole long texts and pinned actions', async ({ page, baseURL }) => {
  const admin = await apiContextAs(baseURL!, ADMIN);
  await giveRoles(admin);
  await admin.dispose();

  await page.setViewportSize(DESKTOP);
  await logIn(page, AGENT);
  const stamp = `desk-${crypto.randomBytes(3).toString('hex')}`;
  const longObservations = `Sonde plantée au centre du bac puis sur les bords, matière humide et bien décomposée, odeur normale ${stamp}`;
  const sites = (await (await page.request.get('/api/admin/site/get/all/actif')).json()) as { id: number; code: string; nom: string | null }[];
  const site = sites[0];
  const siteLabel = site.nom ? `${site.nom} (${site.code})` : site.code;
  const infos = (await (await page.request.get(`/api/admin/site/get/infos/pour/intervention/${site.id}`)).json()) as SiteInfos;
  const apport = infos.siteComposteurs.find((c) => c.typeBac === 1)!;
  const when = new Date(Date.now() - 3_600_000);
  const day = PARIS_DAY.format(when);
  const add = await page.request.post('/api/admin/intervention/add', {
    data: {
      clientId: crypto.randomUUID(),
      site: site.id,
      date: when.toISOString(),
      values: [{ composteur: apport.id, action: ACTION_TEMPERATURE, valeur: 36.5, observations: longObservations }],
    },
  });
  expect(add.status(), await add.text()).toBe(200);

  await page.goto('/admin/interventions');
  await expect(page.getByRole('heading', { level: 1, name: 'Interventions' })).toBeVisible();
  await page.getByRole('button', { name: 'Filtrer la colonne Site' }).click();
  await page.getByRole('combobox', { name: 'Site', exact: true }).fill(siteLabel);
  await page.getByRole('option', { name: siteLabel, exact: true }).click();
  await page.keyboard.press('Escape');
  // The Date filter says what it accepts.
  await page.getByRole('button', { name: 'Filtrer la colonne Date' }).click();
  const dateInput = page.getByRole('textbox', { name: 'Date', exact: true });
  await expect(dateInput).toHaveAttribute('placeholder', 'jj/mm/aaaa hh:mm');
  await expect(page.getByText('Format jj/mm/aaaa hh:mm ; une partie suffit (03/2024, 14:30).')).toBeVisible();
  await dateInput.fill(day);
  await page.keyboard.press('Enter');
  await expect.poll(() => urlState(page)).toEqual({ site: String(site.id), date: day });

  const row = page.getByRole('row').filter({ hasText: stamp });
  for (const moment of ['before the reload', 'after the reload']) {
    if (moment === 'after the reload') await page.reload();
    await expect(chip(page, 'Site', siteLabel), moment).toBeVisible();
    await expect(chip(page, 'Date', day), moment).toBeVisible();
    await expect(row, moment).toHaveCount(1);
    await expect(row, moment).toContainText('36,5 °C');
    expect(urlState(page), moment).toEqual({ site: String(site.id), date: day });
  }

  // The long observation on one line, whole in a tooltip on hover.
  const observation = row.getByText(longObservations);
  expect(await observation.evaluate((el) => el.scrollWidth > el.clientWidth && getComputedStyle(el).textOverflow === 'ellipsis')).toBe(true);
  await observation.hover();
  await expect(page.getByRole('tooltip')).toHaveText(longObservations);

  // The table is wider than the screen; edit and delete stay pinned in view at its right edge.
  const viewport = page.locator('.mantine-datatable .mantine-ScrollArea-viewport').first();
  expect(await viewport.evaluate((el) => el.scrollWidth > el.clientWidth)).toBe(true);
  await expect(row.getByRole('cell').last()).toHaveAttribute('data-pinned', 'right');
  await expect(row.getByRole('cell').nth(-2)).toHaveAttribute('data-pinned', 'right');
  await expect(row.getByRole('button', { name: 'Modifier' })).toBeInViewport();
  await expect(row.getByRole('button', { name: 'Supprimer' })).toBeInViewport();
  await viewport.evaluate((el) => el.scrollBy({ left: 2000 }));
  await expect(row.getByRole('button', { name: 'Modifier' })).toBeInViewport();

  // One chip removes its filter at once; Réinitialiser empties the URL.
  await chip(page, 'Date', day).click();
  await expect.poll(() => urlState(page)).toEqual({ site: String(site.id) });
  await page.getByRole('button', { name: 'Réinitialiser' }).click();
  await expect(page).toHaveURL(/\/admin\/interventions$/);
  await expect(page.getByRole('group', { name: 'Filtres actifs' })).toBeHidden();
});

test('a provider on a 390 px phone sees whole buttons and badges on the board, and the requests history as cards', async ({ browser, baseURL }) => {
  const run = `e2e-cartes-${Date.now().toString(36)}`;
  // A referent records two repairs to do on cells n°1 and n°2 of one site: two pending requests.
  const referent = await apiContextAs(baseURL!, REFERENT);
  const sites = (await (await referent.get('/api/admin/site/get/all/actif')).json()) as { id: number }[];
  const site = (await (await referent.get(`/api/admin/site/get/infos/pour/intervention/${sites[2].id}`)).json()) as SiteInfos;
  const cells = [1, 2].map((n) => site.siteComposteurs.find((c) => c.numero === n)!);
  const provider = await apiContextAs(baseURL!, PROVIDER);
  for (const cell of cells) await clearPendingRequests(provider, site.id, cell.id);
  await provider.dispose();
  const raised = await referent.post('/api/admin/intervention/add', {
    data: {
      clientId: crypto.randomUUID(),
      site: site.id,
      date: new Date(Date.now() - 60_000).toISOString(),
      values: cells.map((c) => ({ composteur: c.id, action: ACTION_REPARATION_A_EFFECTUER, valeur: `${run} cellule ${c.numero}` })),
    },
  });
  expect(raised.status(), await raised.text()).toBe(200);
  await referent.dispose();

  const { context, page } = await loggedBrowser(browser, PROVIDER, PHONE);
  try {
    await page.goto('/admin/demande/intervention/list');
    const siteName = site.nom ?? site.code;
    await page.getByRole('combobox', { name: 'Site' }).fill(siteName);
    await page.getByRole('option', { name: new RegExp(`^${escapeRegExp(siteName)} \\(`) }).click();
    const cards = page.getByTestId('request-card').filter({ hasText: run });
    await expect(cards).toHaveCount(2);
    for (const card of await cards.all()) await card.getByRole('checkbox').check();
    const first = cards.first();
    for (const name of ['Programmer (2)', 'Annuler (2)', 'Traiter (2)']) await expect(first.getByRole('button', { name })).toBeVisible();
    await expect(first.getByText('En attente', { exact: true })).toBeVisible();
    // No label cut off (an ellipsis or hidden overflow), nothing past the right edge, no sideways scroll.
    expect(await cutOffElements(page, '[data-testid="request-card"]', { cutOnly: true })).toEqual([]);
    expect(await noSidewaysScroll(page)).toBeLessThanOrEqual(390);

    // The history, as cards in a full-screen dialog: newest first, so the two new requests lead.
    await page.getByRole('button', { name: "Voir l'historique" }).click();
    const history = page.getByRole('dialog', { name: "Historique des demandes d'interventions" });
    const historyCards = history.getByRole('article');
    await expect(historyCards.first()).toBeVisible();
    await expect(history.getByRole('table')).toHaveCount(0);
    for (const i of [0, 1]) {
      await expect(historyCards.nth(i)).toContainText(`Site : ${siteName}`);
      await expect(historyCards.nth(i)).toContainText('Réparation effectuée');
      await expect(historyCards.nth(i).getByText('En attente', { exact: true })).toBeVisible();
    }
    await expect(history.getByText(/^1 - \d+ \/ \d+$/)).toBeVisible();
    const newest = historyCards.first();
    await newest.getByRole('button', { name: /^Interventions liées/ }).click();
    await expect(newest.getByRole('region', { name: /^Interventions liées/ })).toContainText(run);
    expect(await cutOffElements(page, '[role="dialog"]', { cutOnly: true })).toEqual([]);
    expect(await noSidewaysScroll(page)).toBeLessThanOrEqual(390);

    // The status filter asks the server again.
    const reloaded = page.waitForResponse((r) => r.url().includes('/api/admin/demande/intervention/get/all/by/filters') && decodeURIComponent(r.url()).includes('filter[statut]=3'));
    await history.getByRole('combobox', { name: 'Statut' }).click();
    await page.getByRole('option', { name: 'En attente', exact: true }).click();
    await reloaded;
    await expect(historyCards.first()).toContainText('En attente');
  } finally {
    await context.close();
  }
});
