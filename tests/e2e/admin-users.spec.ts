// Users administration: an administrator takes a signed-up account through its whole life on
// /admin/user (activate, give a site, change its type, deactivate, delete), and finds the
// table as they left it after a reload.
import { expect, test } from '../helpers/e2e-test';
import { apiLogIn, logInAsAdmin } from '../helpers/e2e-login';
import { linkFrom, readMails } from '../helpers/e2e-mail';

test('an administrator activates a signed-up user, gives them a site, changes their type, deactivates and deletes them', async ({ page, request, playwright, baseURL }) => {
  const stamp = Date.now().toString(36);
  const email = `camille.${stamp}@exemple.fr`;
  const password = 'motdepasse-camille';

  // The visitor signs up and follows the validation link of the e-mail.
  const signup = await request.post('/api/signup', {
    data: { type: 1, organisme: '', nom: 'KERVELLA', prenom: 'Camille', tel: '0601020304', email, password, confirmPassword: password },
  });
  expect(signup.ok(), await signup.text()).toBe(true);
  await page.goto(linkFrom(email, '/confirmation/'));
  await expect(page.getByRole('heading', { name: 'Validation adresse mail' })).toBeVisible();

  await logInAsAdmin(page);
  const site = await page.request.post('/api/admin/site/add', {
    data: { nom: `Jardin ${stamp}`, ville: 'Brest', adresse: 'Rue de Siam', type: 2, statut: 1 },
  });
  expect(site.ok(), await site.text()).toBe(true);
  const siteCode = ((await site.json()) as { code: string }).code;

  await page.goto('/admin/user');
  await expect(page.getByRole('heading', { name: 'Utilisateurs' })).toBeVisible();
  await page.getByRole('button', { name: 'Filtrer la colonne Email' }).click();
  await page.getByRole('textbox', { name: 'Email' }).fill(stamp);
  await page.keyboard.press('Enter');
  const row = page.getByRole('row').filter({ hasText: email });
  await expect(row).toHaveCount(1);
  await expect(page.getByText('1 - 1 / 1')).toBeVisible();
  const cells = row.getByRole('cell');
  await expect(cells.nth(7)).toHaveText('Aucun');
  await expect(cells.nth(8)).toHaveText('Non');
  await expect(row.getByRole('button', { name: 'Voir / Modifier les sites de Camille KERVELLA' })).toBeDisabled();

  // Activation: the account gets its role, the user an e-mail with the login link.
  await row.getByRole('button', { name: 'Activer Camille KERVELLA' }).click();
  await expect(page.getByText('Compte activé')).toBeVisible();
  await expect(cells.nth(8)).toHaveText('Oui');
  // The list reloaded with the e-mail filter still applied.
  await expect(page.getByText('1 - 1 / 1')).toBeVisible();
  await expect(page.getByRole('button', { name: 'Filtrer la colonne Email' })).toBeVisible();
  const activation = readMails(email).find((m) => m.subject.includes('activé'));
  expect(activation?.body).toContain('/login');
  const userApi = await playwright.request.newContext({ baseURL });
  await apiLogIn(userApi, { login: email, password });
  await userApi.dispose();

  // Sites: nothing chosen is refused, then one site is given.
  await row.getByRole('button', { name: 'Voir / Modifier les sites de Camille KERVELLA' }).click();
  const sitesDialog = page.getByRole('dialog', { name: 'Site' });
  await expect(sitesDialog.getByText('Aucun Site')).toBeVisible();
  await sitesDialog.getByRole('button', { name: 'Enregistrer' }).click();
  await expect(sitesDialog.getByText('Veuillez sélectionner au moins un site')).toBeVisible();
  await sitesDialog.getByRole('combobox', { name: 'Sites' }).fill(stamp);
  await sitesDialog.getByRole('option', { name: new RegExp(`${siteCode} - Jardin ${stamp}`) }).click();
  // The multi-select stays open for more choices: a click beside it closes it.
  await sitesDialog.getByText('Sites de Camille KERVELLA').click();
  await sitesDialog.getByRole('button', { name: 'Enregistrer' }).click();
  await expect(page.getByText("Sites(s) de l'utilisateur modifié(s)")).toBeVisible();
  await expect(sitesDialog).toBeHidden();
  await expect(cells.nth(7)).toHaveText(`${siteCode} - Jardin ${stamp}`);

  // Type: from Particulier to Organisme.
  await expect(cells.nth(6)).toHaveText('Particulier');
  await row.getByRole('button', { name: 'Modifier le type de Camille KERVELLA' }).click();
  const typeDialog = page.getByRole('dialog', { name: "Type d'utilisateur" });
  await typeDialog.getByRole('combobox', { name: 'Type' }).click();
  await typeDialog.getByRole('option', { name: 'Organisme' }).click();
  await typeDialog.getByRole('button', { name: 'Enregistrer' }).click();
  await expect(page.getByText("Type de l'utilisateur modifié")).toBeVisible();
  await expect(cells.nth(6)).toHaveText('Organisme');

  // An active account cannot be deleted: deactivate it first.
  await expect(row.getByRole('button', { name: 'Supprimer Camille KERVELLA' })).toBeDisabled();
  await row.getByRole('button', { name: 'Désactiver Camille KERVELLA' }).click();
  const deactivate = page.getByRole('dialog', { name: 'Désactiver ce compte ?' });
  await deactivate.getByRole('button', { name: 'Désactiver' }).click();
  await expect(cells.nth(8)).toHaveText('Non');
  await expect(row.getByRole('button', { name: 'Refuser Camille KERVELLA' })).toBeVisible();
  // The success toast sits over the row's last buttons and stays while hovered: let it go.
  await page.mouse.move(0, 0);
  await expect(page.getByText('Compte désactivé')).toBeHidden();

  await row.getByRole('button', { name: 'Supprimer Camille KERVELLA' }).click();
  const confirm = page.getByRole('dialog', { name: 'Supprimer ?' });
  await expect(confirm.getByText('Etes-vous sûre de vouloir supprimer cet utilisateur ? Cette action est irréversible.')).toBeVisible();
  await confirm.getByRole('button', { name: 'Oui' }).click();
  await expect(page.getByText('Utilisateur supprimé')).toBeVisible();
  await expect(row).toHaveCount(0);
  await expect(page.getByText('Aucun résultat')).toBeVisible();
});

test('the filters and sort of the users table survive a reload and Réinitialiser clears them', async ({ page, request }) => {
  const stamp = `url${Date.now().toString(36)}`;
  for (const prenom of ['Alice', 'Bruno']) {
    const email = `${prenom.toLowerCase()}.${stamp}@exemple.fr`;
    const signup = await request.post('/api/signup', {
      data: { type: 1, organisme: '', nom: 'LE GALL', prenom, tel: '0601020304', email, password: 'motdepasse-url', confirmPassword: 'motdepasse-url' },
    });
    expect(signup.ok(), await signup.text()).toBe(true);
  }
  await logInAsAdmin(page);
  await page.goto('/admin/user');
  await expect(page).toHaveTitle('Utilisateurs – Compost');

  await page.getByRole('button', { name: 'Filtrer la colonne Email' }).click();
  await page.getByRole('textbox', { name: 'Email' }).fill(stamp);
  await page.keyboard.press('Enter');
  await expect(page.getByText('1 - 2 / 2')).toBeVisible();
  const prenom = page.getByRole('columnheader', { name: 'Prénom', exact: true });
  await prenom.getByRole('button', { name: 'Trier par Prénom' }).click();
  await expect(prenom).toHaveAttribute('aria-sort', 'ascending');
  await prenom.getByRole('button', { name: 'Trier par Prénom' }).click();
  await expect(prenom).toHaveAttribute('aria-sort', 'descending');
  await expect(page).toHaveURL(new RegExp(`/admin/user\\?email=${stamp}&tri=prenom&sens=desc$`));

  const rows = page.getByRole('row').filter({ hasText: stamp });
  const chip = page.getByRole('group', { name: 'Filtres actifs' }).getByRole('button', { name: new RegExp(`^Retirer le filtre Email\\s:\\s${stamp}$`) });
  for (const when of ['before', 'after'] as const) {
    if (when === 'after') await page.reload();
    await expect(page.getByText('1 - 2 / 2'), when).toBeVisible();
    await expect(rows.nth(0), when).toContainText('Bruno');
    await expect(rows.nth(1), when).toContainText('Alice');
    await expect(chip, when).toBeVisible();
    await expect(prenom, when).toHaveAttribute('aria-sort', 'descending');
  }

  await page.getByRole('button', { name: 'Réinitialiser' }).click();
  await expect(page).toHaveURL(/\/admin\/user$/);
  await expect(page.getByRole('group', { name: 'Filtres actifs' })).toBeHidden();
  await expect(prenom).toHaveAttribute('aria-sort', 'none');
  await expect(page.getByRole('columnheader', { name: 'Nom', exact: true })).toHaveAttribute('aria-sort', 'ascending');
  await expect(page.getByText('1 - 2 / 2')).toBeHidden();
});
