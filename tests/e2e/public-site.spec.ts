// The neighbourhood's door in a real browser: a household's phone (390 px, no account) opens a
// site's public page from its label, sees the site's next permanence and its calendar feed, and
// reports that the input bin is full; an administrator turns the report into an intervention
// request; the provider finds it on the requests board.
// Runs on the demo programme the e2e server seeds (each demo site has cells n°1-2 Apport, n°3
// Broyat, n°4 Maturation; prestataire@demo.compost.fr is the provider).
import { expect, test } from '../helpers/e2e-test';
import { ADMIN, PROVIDER, loggedBrowser } from '../helpers/e2e-login';
import { axeFindings } from '../helpers/e2e-axe';

const RUN = `e2e-${Date.now().toString(36)}`;

test('a phone reports a full bin without an account; an administrator turns it into a request the provider sees', async ({ browser }) => {
  test.setTimeout(120_000);
  const admin = await loggedBrowser(browser, ADMIN);
  const sites = (await (await admin.page.request.get('/api/admin/site/get/all/actif')).json()) as { id: number; code: string; nom: string | null }[];
  const site = sites[0];
  const siteName = site.nom ?? site.code;
  // A permanence tomorrow, 07:00-08:00 Paris time whatever the machine's zone: early, so that it
  // is among the next three whatever other journeys schedule on the site.
  const day = new Intl.DateTimeFormat('en-CA', { timeZone: 'Europe/Paris', year: 'numeric', month: '2-digit', day: '2-digit' }).format(new Date(Date.now() + 24 * 3600_000));
  const scheduled = await admin.page.request.post('/api/admin/permanence/add', { data: { site: site.id, debut: `${day}T07:00`, fin: `${day}T08:00`, titre: `Permanence ${RUN}` } });
  expect(scheduled.ok(), await scheduled.text()).toBe(true);

  // The household: a phone that never logged in.
  const phone = await browser.newContext({ locale: 'fr-FR', timezoneId: 'Europe/Paris', viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true });
  try {
    const page = await phone.newPage();
    const scripts: string[] = [];
    page.on('request', (r) => {
      if (r.resourceType() === 'script') scripts.push(new URL(r.url()).pathname);
    });
    const answer = await page.goto(`/s/${site.code}`);
    expect(answer?.status()).toBe(200);
    await expect(page.getByRole('heading', { level: 1, name: siteName })).toBeVisible();
    await expect(page.getByRole('heading', { name: 'Où en est le site ?' })).toBeVisible();
    await expect(page.getByText(/Contactez le programme : 02 98 33 50 50/)).toBeVisible();
    const openings = page.getByRole('region', { name: 'Prochaines permanences' });
    await expect(openings.getByRole('listitem').filter({ hasText: `Permanence ${RUN}` })).toContainText('de 7 h à 8 h');
    const feed = await page.request.get((await openings.getByRole('link', { name: 'Ajouter à mon agenda' }).getAttribute('href'))!);
    expect(feed.headers()['content-type']).toMatch(/^text\/calendar/);
    expect(await feed.text()).toContain(`Permanence ${RUN}`);
    // The page's own entry: none of the app's shell or screens.
    expect(scripts.length).toBeGreaterThan(0);
    expect(scripts.filter((s) => /\/assets\/(index|field-form|app-layout|bootstrap)[-.]/.test(s))).toEqual([]);
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
    expect(await axeFindings(page)).toEqual([]);

    // Sent empty: every missing field is said, under the field, and read out.
    await page.getByRole('button', { name: 'Envoyer le signalement' }).click();
    await expect(page.getByRole('alert')).toHaveText('Vérifiez les champs signalés.');
    await expect(page.getByText('Choisissez une catégorie')).toBeVisible();
    expect(await axeFindings(page)).toEqual([]);

    await page.getByRole('radio', { name: 'Bac plein' }).check();
    await page.getByLabel(/Description du problème/).fill(`${RUN} : le bac d’apport déborde.`);
    await page.getByRole('button', { name: 'Envoyer le signalement' }).click();
    await expect(page.getByRole('status')).toHaveText('Merci ! Votre signalement a été transmis à l’équipe du site.');
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);

    // A site that is not public: a plain 404.
    const missing = await page.goto('/s/ZZZ999');
    expect(missing?.status()).toBe(404);
    await expect(page.getByRole('heading', { name: 'Site introuvable' })).toBeVisible();
  } finally {
    await phone.close();
  }

  // The administrator turns it into a request.
  await admin.page.goto('/admin/signalements');
  const card = admin.page.getByRole('article').filter({ hasText: RUN });
  await expect(card).toHaveCount(1);
  await expect(card).toContainText('Bac plein');
  await card.getByRole('button', { name: 'Transformer en demande' }).click();
  const dialog = admin.page.getByRole('dialog', { name: 'Transformer en demande' });
  await expect(dialog.getByRole('combobox', { name: 'Action à programmer' })).toHaveValue('Transfert');
  await dialog.getByRole('combobox', { name: 'Cellule' }).click();
  await admin.page.getByRole('option', { name: 'Cellule n°1 - Apport' }).click();
  const saved = admin.page.waitForResponse((r) => r.url().includes('/api/admin/signalement/transformer/') && r.request().method() === 'PUT');
  await dialog.getByRole('button', { name: 'Enregistrer' }).click();
  const { idDemande } = (await (await saved).json()) as { idDemande: number };
  await expect(admin.page.getByText('Signalement transformé en demande d’intervention')).toBeVisible();
  await expect(card).toHaveCount(0);
  await admin.context.close();

  // The provider finds it on the board, on that site.
  const provider = await loggedBrowser(browser, PROVIDER);
  try {
    await provider.page.goto('/admin/demande/intervention/list');
    await provider.page.getByRole('combobox', { name: 'Site' }).fill(siteName);
    await provider.page.getByRole('option', { name: new RegExp(`^${siteName.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} \\(`) }).click();
    const request = provider.page.getByRole('article', { name: `Demande ${idDemande}` });
    await expect(request).toBeVisible();
    await expect(request).toContainText('A faire : Transfert');
  } finally {
    await provider.context.close();
  }
});
