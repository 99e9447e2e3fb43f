// The account journey in a real browser: sign up, confirm the address from the
// e-mail, be refused while inactive, get activated by an administrator, log in, see the
// role's drawer and home, log out; then the forgotten-password loop.
import { expect, test } from '../helpers/e2e-test';
import { ADMIN, apiContextAs, submitLogin } from '../helpers/e2e-login';
import { linkFrom } from '../helpers/e2e-mail';

const email = `referent.${Date.now()}@exemple.fr`;
const password = 'motdepasse-initial';
const newPassword = 'motdepasse-nouveau';

/** The newest link of that kind e-mailed to the referent, or '' while the mail is not written yet. */
function mailedLink(pathPart: string) {
  try {
    return linkFrom(email, pathPart);
  } catch {
    return '';
  }
}

/** The path of an e-mailed link, opened on the server under test. */
function pathOf(link: string) {
  const url = new URL(link);
  return url.pathname + url.search;
}

test.describe.configure({ mode: 'serial' });

test('a referent signs up, confirms, is activated, logs in and out', async ({ page, baseURL }) => {
  await page.goto('/signup');
  const type = page.getByRole('combobox', { name: 'Type d’utilisateur' });
  await type.click();
  await page.getByRole('option', { name: 'Particulier' }).click();
  await page.getByLabel(/^Nom/).fill('le gall');
  await expect(page.getByLabel(/^Nom/)).toHaveValue('LE GALL');
  await page.getByLabel('Prénom').fill('anne-marie');
  await expect(page.getByLabel('Prénom')).toHaveValue('Anne-Marie');
  await page.getByLabel('Téléphone').fill('0601020304');
  await page.getByLabel('Adresse mail').fill(email);
  await page.getByLabel(/^Mot de passe/).fill(password);
  await page.getByLabel('Confirmation du mot de passe').fill(password);
  await page.getByRole('button', { name: 'Créer mon compte' }).click();
  await expect(page.getByText('Un mail de confirmation vous sera envoyé une fois le compte validé')).toBeVisible();

  await expect.poll(() => mailedLink('/confirmation/'), { timeout: 10_000 }).toContain('/confirmation/');
  await page.goto(pathOf(mailedLink('/confirmation/')));
  await expect(page.getByRole('heading', { name: 'Validation adresse mail' })).toBeVisible();

  await submitLogin(page, { login: email, password });
  await expect(page.getByRole('alert')).toContainText('n’est pas encore activé');

  const admin = await apiContextAs(baseURL!, ADMIN);
  const list = await admin.get(`/api/admin/user/get/list/by/filters?filter[email]=${encodeURIComponent(email)}`);
  expect(list.ok()).toBe(true);
  const { users } = (await list.json()) as { users: { id: number; email: string }[] };
  const user = users.find((u) => u.email === email);
  expect(user).toBeDefined();
  expect((await admin.put(`/api/admin/user/active/${user!.id}`)).ok()).toBe(true);
  await admin.dispose();

  await submitLogin(page, { login: email, password });
  await expect(page).toHaveURL(/\/admin\/choix\/site$/);
  const drawer = page.getByRole('navigation', { name: 'Menu principal' });
  await expect(drawer.getByRole('link', { name: 'Choix du site' })).toBeVisible();
  await expect(drawer.getByRole('link', { name: 'Utilisateurs' })).toHaveCount(0);

  await page.getByRole('button', { name: 'Compte' }).click();
  await page.getByRole('menuitem', { name: 'Déconnexion' }).click();
  await expect(page).toHaveURL(/\/login$/);
  await expect(page.getByRole('button', { name: 'Connexion' })).toBeVisible();
  await expect(page.getByRole('navigation', { name: 'Menu principal' })).toHaveCount(0);

  // The session really ended: a logged-in screen sends back to the login page.
  await page.goto('/admin');
  await expect(page).toHaveURL(/\/login$/);
});

test('a forgotten password is replaced through the e-mailed link', async ({ page }) => {
  await page.goto('/login');
  await page.getByRole('link', { name: 'Mot de passe oublié ?' }).click();
  await expect(page).toHaveURL(/\/password$/);
  // The screen may render again once the session check of the logged-out page answers: fill and
  // send until the confirmation shows (a second request only mails a newer link).
  await expect(async () => {
    await page.getByLabel('Adresse mail').fill(email);
    await page.getByRole('button', { name: 'Envoyer' }).click();
    await expect(page.getByText(/Si un compte correspond à cette adresse/)).toBeVisible({ timeout: 3_000 });
  }).toPass({ timeout: 20_000 });

  await expect.poll(() => mailedLink('/reset/'), { timeout: 10_000 }).toContain('/reset/');
  const resetPath = pathOf(mailedLink('/reset/'));
  await page.goto(resetPath);
  await expect(page.getByRole('heading', { name: 'Modification du mot de passe' })).toBeVisible();
  await page.getByLabel('Nouveau mot de passe').fill(newPassword);
  await page.getByLabel('Confirmation du mot de passe').fill(newPassword);
  await page.getByRole('button', { name: 'Enregistrer' }).click();
  await expect(page).toHaveURL(/\/login$/);
  await expect(page.getByText('Mot de passe modifié : vous pouvez vous connecter.')).toBeVisible();

  // Single use: the same link no longer works.
  await page.goto(resetPath);
  await expect(page.getByRole('heading', { name: 'Compte introuvable' })).toBeVisible();

  await submitLogin(page, { login: email, password });
  await expect(page.getByRole('alert')).toContainText('Identifiant ou mot de passe incorrect');
  await submitLogin(page, { login: email, password: newPassword });
  await expect(page).toHaveURL(/\/admin\/choix\/site$/);
});
