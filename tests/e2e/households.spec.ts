// The households of a site in a real browser, on 390 px phones: a household registers from the
// public page of one of the demo referent's sites ('Je composte ici'), the referent opens the
// site's 'Foyers' screen and confirms it, and the counts take it in; then the household follows
// the leave link of its welcome e-mail and its record goes, which the counts show too.
import { expect, test } from '../helpers/e2e-test';
import { PHONE, REFERENT, loggedBrowser } from '../helpers/e2e-login';
import { noSidewaysScroll, siteOfUser } from '../helpers/e2e-field';
import { linkFrom } from '../helpers/e2e-mail';
import { expectAccessible } from '../helpers/e2e-axe';

const RUN = Date.now().toString(36);

interface Counts {
  confirmes: number;
  personnes: number;
}

test('a household registers from the public page, the referent confirms it, and it can leave', async ({ browser }) => {
  test.setTimeout(120_000);
  const referent = await loggedBrowser(browser, REFERENT, PHONE);
  const household = await browser.newContext({ locale: 'fr-FR', timezoneId: 'Europe/Paris', ...PHONE });
  try {
    const site = await siteOfUser(referent.page, 0);
    const counts = async (): Promise<Counts> => {
      const res = await referent.page.request.get(`/api/admin/foyer/get/list/by/site/${site.id}`);
      expect(res.ok(), await res.text()).toBe(true);
      return (await res.json()) as Counts;
    };
    const before = await counts();
    const prenom = `Léa ${RUN}`;
    const email = `foyer.${RUN}@exemple.fr`;

    // The household, without an account.
    const phone = await household.newPage();
    await phone.goto(`/s/${site.code}`);
    const form = phone.getByRole('region', { name: 'Je composte ici' });
    await form.getByLabel('Prénom (facultatif)').fill(prenom);
    await form.getByLabel(/Personnes dans le foyer/).fill('3');
    await form.getByRole('checkbox', { name: 'J’ai reçu un bio-seau' }).check();
    await form.getByLabel(/Adresse mail pour recevoir les nouvelles du site/).fill(email);
    await form.getByRole('checkbox', { name: /J’accepte que cette adresse serve uniquement/ }).check();
    await form.getByRole('button', { name: 'Inscrire mon foyer' }).click();
    await expect(form.getByRole('status')).toHaveText('Merci ! Votre foyer est inscrit : les référents du site le confirmeront.');
    expect(await noSidewaysScroll(phone)).toBeLessThanOrEqual(390);

    // The referent confirms it from the site's 'Foyers' screen.
    await referent.page.goto(`/admin/fiche/site/${site.id}/foyers`);
    await expect(referent.page.getByRole('heading', { level: 1, name: 'Foyers' })).toBeVisible();
    const card = referent.page.getByRole('article', { name: `Foyer ${prenom}` });
    await expect(card).toContainText('3 personnes · bio-seau reçu');
    await expect(card).toContainText('À confirmer');
    await card.getByRole('button', { name: `Confirmer ${prenom}` }).click();
    await expect(referent.page.getByText('Foyer confirmé', { exact: true })).toBeVisible();
    await expect(card).toContainText('Confirmé');
    const confirmed = referent.page.getByText(/^foyers? confirmés?$/).locator('xpath=preceding-sibling::*[1]');
    const people = referent.page.getByText(/^personnes?$/).locator('xpath=preceding-sibling::*[1]');
    await expect(confirmed).toHaveText(String(before.confirmes + 1));
    await expect(people).toHaveText(String(before.personnes + 3));
    expect(await noSidewaysScroll(referent.page)).toBeLessThanOrEqual(390);
    await expectAccessible(referent.page, 'Foyers (phone)');

    // The household leaves through the link of its welcome e-mail: its record is deleted.
    let leave = '';
    await expect
      .poll(() => {
        try {
          leave = linkFrom(email, '/foyer/quitter');
        } catch {
          leave = '';
        }
        return leave;
      })
      .not.toBe('');
    const url = new URL(leave);
    await phone.goto(url.pathname + url.search);
    await expect(phone.getByRole('heading', { level: 1, name: 'Quitter le site de compostage' })).toBeVisible();
    await expectAccessible(phone, 'Quitter le site (phone)');
    await phone.getByRole('button', { name: 'Quitter le site et supprimer mes données' }).click();
    await expect(phone.getByText('Votre foyer a quitté le site : vos données ont été supprimées.')).toBeVisible();
    await referent.page.reload();
    await expect(referent.page.getByRole('heading', { level: 1, name: 'Foyers' })).toBeVisible();
    await expect(card).toHaveCount(0);
    await expect(confirmed).toHaveText(String(before.confirmes));
  } finally {
    await household.close();
    await referent.context.close();
  }
});
