// The requests board after 'Traiter' → 'Enregistrer' online on a phone: back on the board the
// processed request is gone at once, and still gone after a reload (the board kept on the phone
// was brought up to date before the screen came back), so a second 'Traiter' cannot happen.
import { expect, test } from '../helpers/e2e-test';
import { ADMIN, PHONE, PROVIDER, REFERENT, apiContextAs, loggedBrowser } from '../helpers/e2e-login';
import { clearPendingRequests, type SiteInfos } from '../helpers/e2e-field';

const RUN = `fresh-${Date.now().toString(36)}`;

test('a request processed from the board leaves it at once, and after a reload', async ({ browser, baseURL }) => {
  test.setTimeout(120_000);
  // A referent records 'Réparation à effectuer' on cell n°2 of one of their sites: a request.
  const referent = await apiContextAs(baseURL!, REFERENT);
  const admin = await apiContextAs(baseURL!, ADMIN);
  try {
    const sites = (await (await referent.get('/api/admin/site/get/all/actif')).json()) as { id: number }[];
    const site = (await (await referent.get(`/api/admin/site/get/infos/pour/intervention/${sites[1].id}`)).json()) as SiteInfos;
    const cell = site.siteComposteurs.find((c) => c.numero === 2)!;
    await clearPendingRequests(admin, site.id, cell.id);
    const added = await referent.post('/api/admin/intervention/add', {
      data: {
        clientId: crypto.randomUUID(),
        site: site.id,
        date: new Date(Date.now() - 60_000).toISOString(),
        values: [{ composteur: cell.id, action: 18, valeur: `${RUN} charnière`, bacDestination: null, observations: null, demandeIntervention: null }],
      },
    });
    expect(added.ok(), await added.text()).toBe(true);

    const { context, page } = await loggedBrowser(browser, PROVIDER, PHONE);
    try {
      await page.goto('/admin/demande/intervention/list');
      const siteName = site.nom ?? site.code;
      await page.getByRole('combobox', { name: 'Site' }).fill(siteName);
      await page.getByRole('option', { name: new RegExp(`^${siteName.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} \\(`) }).click();
      const card = page.getByTestId('request-card').filter({ hasText: RUN });
      await expect(card).toHaveCount(1);
      await card.getByRole('button', { name: 'Traiter' }).click();
      await expect(page.getByRole('heading', { name: 'Gérer' })).toBeVisible();
      await page.getByRole('button', { name: 'Enregistrer' }).click();
      await expect(page).toHaveURL(/\/admin\/demande\/intervention\/list/);
      // Well within the 30 s the board's data would otherwise count as fresh.
      await expect(card).toHaveCount(0, { timeout: 8_000 });
      await page.reload();
      await expect(page.getByRole('heading', { name: /Demandes/ }).first()).toBeVisible();
      await expect(card).toHaveCount(0, { timeout: 8_000 });
    } finally {
      await context.close();
    }
  } finally {
    await referent.dispose();
    await admin.dispose();
  }
});
