// The administrator's tables on a 1440 px desktop: the users and sites tables keep their
// search, filters and sort in the URL (a reload, or the link opened in another tab, shows the
// same list), show them as chips with 'Réinitialiser', keep each row on one line with the long
// texts whole in a tooltip, and keep the row actions pinned; 'Désactiver' asks before shutting
// an account. On a phone, the statistics charts abbreviate the months.
import type { Locator, Page } from '@playwright/test';
import { expect, test } from '../helpers/e2e-test';
import { logInAsAdmin } from '../helpers/e2e-login';
import { linkFrom } from '../helpers/e2e-mail';

const DESKTOP = { width: 1440, height: 900 };

// Each journey takes most of a minute on a busy two-core machine.
test.describe.configure({ timeout: 150_000 });

/** The chip of an applied filter, by its label and value ('Email : x'). */
function chip(page: Page, label: string, value: string): Locator {
  const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  return page.getByRole('group', { name: 'Filtres actifs' }).getByRole('button', { name: new RegExp(`^Retirer le filtre ${escape(label)}\\s:\\s${escape(value)}$`) });
}

/** The query string of the page as an object (repeated keys as lists). */
function urlState(page: Page): Record<string, string | string[]> {
  const params = new URL(page.url()).searchParams;
  const out: Record<string, string | string[]> = {};
  for (const key of new Set(params.keys())) {
    const all = params.getAll(key);
    out[key] = all.length === 1 ? all[0] : all;
  }
  return out;
}

/** Every row of `rows` is as tall as a row of one line (no wrapped text). */
async function expectOneLine(rows: Locator, reference: Locator) {
  const oneLine = (await reference.boundingBox())!.height;
  for (const row of await rows.all()) expect((await row.boundingBox())!.height).toBeLessThanOrEqual(oneLine + 1);
}

test('the users table keeps its search, filter and sort across a reload and in a shared link, one line a row, actions pinned', async ({ page, request, context }) => {
  await page.setViewportSize(DESKTOP);
  const stamp = `desk${Date.now().toString(36)}`;
  const longOrganisme = `Association des jardins partagés et du compostage collectif du quartier de Kerinou ${stamp}`;
  const people = [
    { prenom: 'Alice', type: 1, organisme: '' },
    { prenom: 'Bruno', type: 2, organisme: longOrganisme },
    { prenom: 'Chloé', type: 2, organisme: `Amicale ${stamp}` },
  ];
  for (const p of people) {
    const email = `${p.prenom.toLowerCase().replace('é', 'e')}.${stamp}@exemple.fr`;
    const signup = await request.post('/api/signup', {
      data: { type: p.type, organisme: p.organisme, nom: 'KERGUELEN', prenom: p.prenom, tel: '0601020304', email, password: 'motdepasse-desk', confirmPassword: 'motdepasse-desk' },
    });
    expect(signup.ok(), await signup.text()).toBe(true);
  }
  await logInAsAdmin(page);
  await page.goto('/admin/user');
  await expect(page.getByRole('heading', { level: 1, name: 'Utilisateurs' })).toBeVisible();

  await page.getByRole('textbox', { name: 'Rechercher' }).fill(stamp);
  await page.getByRole('button', { name: 'Filtrer la colonne Type' }).click();
  await page.getByRole('textbox', { name: 'Type' }).fill('Organisme');
  await page.keyboard.press('Enter');
  await expect(page.getByText('1 - 2 / 2')).toBeVisible();
  const emailHeader = page.getByRole('columnheader', { name: 'Email', exact: true });
  await emailHeader.getByRole('button', { name: 'Trier par Email' }).click();
  await expect(emailHeader).toHaveAttribute('aria-sort', 'ascending');
  await emailHeader.getByRole('button', { name: 'Trier par Email' }).click();
  await expect(emailHeader).toHaveAttribute('aria-sort', 'descending');
  await expect.poll(() => urlState(page)).toEqual({ recherche: stamp, type: 'Organisme', tri: 'email', sens: 'desc' });
  const sharedLink = page.url();

  const rows = page.getByRole('row').filter({ hasText: stamp });
  const expectState = async (p: Page, when: string) => {
    const list = p.getByRole('row').filter({ hasText: stamp });
    await expect(p.getByText('1 - 2 / 2'), when).toBeVisible();
    await expect(list.nth(0), when).toContainText('Chloé');
    await expect(list.nth(1), when).toContainText('Bruno');
    await expect(chip(p, 'Recherche', stamp), when).toBeVisible();
    await expect(chip(p, 'Type', 'Organisme'), when).toBeVisible();
    await expect(p.getByRole('textbox', { name: 'Rechercher' }), when).toHaveValue(stamp);
    await expect(p.getByRole('columnheader', { name: 'Email', exact: true }), when).toHaveAttribute('aria-sort', 'descending');
  };
  await expectState(page, 'before the reload');
  await page.reload();
  await expectState(page, 'after the reload');

  // The link opened in another tab.
  const other = await context.newPage();
  await other.setViewportSize(DESKTOP);
  await other.goto(sharedLink);
  await expectState(other, 'in a shared link');
  await other.close();

  // One line a row: the long organisme is cut, whole in a tooltip on hover.
  const bruno = rows.filter({ hasText: 'Bruno' });
  await expectOneLine(rows, page.getByRole('row').filter({ hasText: 'Chloé' }));
  const organisme = bruno.getByRole('cell').nth(1);
  await organisme.getByText(longOrganisme).hover();
  await expect(page.getByRole('tooltip')).toHaveText(longOrganisme);
  // The actions stay pinned to the right edge of the table.
  await expect(bruno.getByRole('cell').last()).toHaveAttribute('data-pinned', 'right');
  await expect(bruno.getByRole('button', { name: 'Supprimer Bruno KERGUELEN' })).toBeVisible();

  // Réinitialiser: back to the screen's first state, and the URL with it.
  await page.getByRole('button', { name: 'Réinitialiser' }).click();
  await expect(page).toHaveURL(/\/admin\/user$/);
  await expect(page.getByRole('group', { name: 'Filtres actifs' })).toBeHidden();
  await expect(page.getByRole('textbox', { name: 'Rechercher' })).toHaveValue('');
  await expect(page.getByRole('columnheader', { name: 'Nom', exact: true })).toHaveAttribute('aria-sort', 'ascending');
  await expect(page.getByText('1 - 2 / 2')).toBeHidden();
});

test("'Désactiver' asks before shutting an account; Escape and 'Annuler' leave it active", async ({ page, request }) => {
  await page.setViewportSize(DESKTOP);
  const stamp = `off${Date.now().toString(36)}`;
  const email = `yann.${stamp}@exemple.fr`;
  const signup = await request.post('/api/signup', {
    data: { type: 1, organisme: '', nom: 'LE DUFF', prenom: 'Yann', tel: '0601020304', email, password: 'motdepasse-yann', confirmPassword: 'motdepasse-yann' },
  });
  expect(signup.ok(), await signup.text()).toBe(true);
  await page.goto(linkFrom(email, '/confirmation/'));
  await expect(page.getByRole('heading', { name: 'Validation adresse mail' })).toBeVisible();
  await logInAsAdmin(page);
  const found = await page.request.get(`/api/admin/user/get/list/by/filters?filter[email]=${encodeURIComponent(email)}`);
  const userId = ((await found.json()) as { users: { id: number }[] }).users[0].id;
  expect((await page.request.put(`/api/admin/user/active/${userId}`)).ok()).toBe(true);
  const isActive = async () =>
    ((await (await page.request.get(`/api/admin/user/get/list/by/filters?filter[email]=${encodeURIComponent(email)}`)).json()) as { users: { actif: boolean }[] }).users[0].actif;

  // The filter comes from the link.
  await page.goto(`/admin/user?email=${stamp}`);
  await expect(chip(page, 'Email', stamp)).toBeVisible();
  const row = page.getByRole('row').filter({ hasText: email });
  const actif = row.getByRole('cell').nth(8);
  await expect(actif).toHaveText('Oui');

  const deactivate = row.getByRole('button', { name: 'Désactiver Yann LE DUFF' });
  const question = page.getByRole('dialog', { name: 'Désactiver ce compte ?' });
  await deactivate.click();
  await expect(question.getByText('Yann LE DUFF ne pourra plus se connecter tant que le compte ne sera pas réactivé.')).toBeVisible();
  // The focus starts on the answer that does nothing.
  await expect(question.getByRole('button', { name: 'Annuler' })).toBeFocused();
  await page.keyboard.press('Escape');
  await expect(question).toBeHidden();
  await deactivate.click();
  await question.getByRole('button', { name: 'Annuler' }).click();
  await expect(question).toBeHidden();
  await expect(actif).toHaveText('Oui');
  expect(await isActive()).toBe(true);

  await deactivate.click();
  await question.getByRole('button', { name: 'Désactiver' }).click();
  await expect(actif).toHaveText('Non');
  await expect(row.getByRole('button', { name: 'Refuser Yann LE DUFF' })).toBeVisible();
  expect(await isActive()).toBe(false);
});

test('the sites table keeps its filters and sort across a reload, one line a row, the row menu pinned', async ({ page }) => {
  await page.setViewportSize(DESKTOP);
  const stamp = `desk${Date.now().toString(36)}`;
  const longObservations = `Bac à compost installé au fond du jardin, derrière la serre, accès par le portail de la rue ; clé chez la gardienne ${stamp}`;
  await logInAsAdmin(page);
  const sites = [
    { nom: `Verger ${stamp} A`, ville: 'Brest', adresse: 'Rue de Siam' },
    { nom: `Verger ${stamp} B`, ville: 'Guipavas', adresse: 'Rue de Paris' },
    { nom: `Verger ${stamp} C`, ville: 'Guipavas', adresse: 'Rue de Brest', observations: longObservations },
  ];
  for (const s of sites) {
    const res = await page.request.post('/api/admin/site/add', { data: { ...s, type: 2, statut: 1 } });
    expect(res.ok(), await res.text()).toBe(true);
  }

  await page.goto('/admin/site');
  await expect(page.getByRole('heading', { level: 1, name: 'Sites' })).toBeVisible();
  await page.getByRole('button', { name: 'Filtrer la colonne Nom / Code' }).click();
  await page.getByRole('textbox', { name: 'Nom / Code' }).fill(stamp);
  await page.keyboard.press('Enter');
  await expect(page.getByText('1 - 3 / 3')).toBeVisible();
  await page.getByRole('button', { name: 'Filtrer la colonne Ville' }).click();
  await page.getByRole('combobox', { name: 'Ville' }).click();
  await page.getByRole('option', { name: 'Guipavas', exact: true }).click();
  await page.keyboard.press('Escape');
  await page.keyboard.press('Escape');
  await expect(page.getByText('1 - 2 / 2')).toBeVisible();
  const nomHeader = page.getByRole('columnheader', { name: 'Nom / Code', exact: true });
  await expect(nomHeader).toHaveAttribute('aria-sort', 'ascending');
  await nomHeader.getByRole('button', { name: 'Trier par Nom / Code' }).click();
  await expect(nomHeader).toHaveAttribute('aria-sort', 'descending');
  await expect.poll(() => urlState(page)).toEqual({ nom: stamp, ville: 'Guipavas', tri: 'nom', sens: 'desc' });

  const rows = page.getByRole('row').filter({ hasText: stamp });
  for (const when of ['before the reload', 'after the reload']) {
    if (when === 'after the reload') await page.reload();
    await expect(page.getByText('1 - 2 / 2'), when).toBeVisible();
    await expect(rows.nth(0), when).toContainText(`Verger ${stamp} C`);
    await expect(rows.nth(1), when).toContainText(`Verger ${stamp} B`);
    await expect(chip(page, 'Nom / Code', stamp), when).toBeVisible();
    await expect(chip(page, 'Ville', 'Guipavas'), when).toBeVisible();
    await expect(nomHeader, when).toHaveAttribute('aria-sort', 'descending');
  }

  // One line a row: the long observations are cut, whole in a tooltip on hover.
  const withNotes = rows.filter({ hasText: `Verger ${stamp} C` });
  await expectOneLine(rows, rows.filter({ hasText: `Verger ${stamp} B` }));
  await withNotes.getByText(longObservations).hover();
  await expect(page.getByRole('tooltip')).toHaveText(longObservations);
  // The row menu (the first column) stays pinned while the table scrolls sideways.
  const menuCell = withNotes.getByRole('cell').first();
  await expect(menuCell).toHaveAttribute('data-pinned', 'left');
  await page.locator('.mantine-datatable .mantine-ScrollArea-viewport').first().evaluate((el) => el.scrollBy({ left: 2000 }));
  await expect(withNotes.getByRole('button', { name: /^Actions du site/ })).toBeInViewport();

  // A removed chip applies at once; Réinitialiser empties the URL.
  await chip(page, 'Ville', 'Guipavas').click();
  await expect(page.getByText('1 - 3 / 3')).toBeVisible();
  await expect.poll(() => urlState(page)).toEqual({ nom: stamp, tri: 'nom', sens: 'desc' });
  await page.getByRole('button', { name: 'Réinitialiser' }).click();
  await expect(page).toHaveURL(/\/admin\/site$/);
  await expect(page.getByRole('group', { name: 'Filtres actifs' })).toBeHidden();
  await expect(nomHeader).toHaveAttribute('aria-sort', 'ascending');
});

test('the statistics charts name the months in full on a desktop and abbreviate them on a 390 px phone', async ({ page }) => {
  await logInAsAdmin(page);
  const card = page.locator('section:not([aria-busy])').filter({ has: page.getByRole('heading', { name: 'Interventions · Tout le réseau' }) });
  const ticks = card.locator('.recharts-xAxis-tick-labels .recharts-cartesian-axis-tick-value');
  await page.setViewportSize(DESKTOP);
  await page.goto('/admin/stats');
  // Every chart of the dashboard loads at once: slow on a busy machine.
  await expect(card.getByRole('img')).toBeVisible({ timeout: 30_000 });
  await expect(ticks).toHaveText(['Janvier', 'Février', 'Mars', 'Avril', 'Mai', 'Juin', 'Juillet', 'Août', 'Septembre', 'Octobre', 'Novembre', 'Décembre'], { timeout: 20_000 });
  await page.setViewportSize({ width: 390, height: 844 });
  await page.reload();
  await expect(card.getByRole('img')).toBeVisible({ timeout: 30_000 });
  await expect(ticks).toHaveText(['Janv.', 'Févr.', 'Mars', 'Avr.', 'Mai', 'Juin', 'Juil.', 'Août', 'Sept.', 'Oct.', 'Nov.', 'Déc.'], { timeout: 20_000 });
});
