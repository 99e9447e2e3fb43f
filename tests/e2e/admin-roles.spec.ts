// Issue 3, roles administration: a role administrator gives a role to an agent found by the
// server-side search, then takes it back; the last administrator cannot be removed.
import { expect, test, type Page } from '@playwright/test';
import { E2E_ADMIN } from '../helpers/e2e-env';

async function loginAsAdmin(page: Page) {
  await page.goto('/login');
  await page.getByLabel('Identifiant ou adresse mail').fill(E2E_ADMIN.login);
  await page.getByLabel('Mot de passe').fill(E2E_ADMIN.password);
  await page.getByRole('button', { name: 'Connexion' }).click();
  await expect(page).toHaveURL(/\/admin\//);
}

async function myRoles(page: Page): Promise<string[]> {
  const res = await page.request.get('/api/logged');
  return ((await res.json()) as { user: { roles: string[] } }).user.roles;
}

test('a role administrator adds an agent to a role and removes them', async ({ page }) => {
  await loginAsAdmin(page);
  await page.goto('/admin/role');
  await expect(page.getByRole('heading', { name: 'Roles' })).toBeVisible();
  await expect(page.getByText('Signification des rôles')).toBeVisible();
  await expect(page.getByText('Gérer les types de composteurs.')).toBeVisible();
  await expect(page.getByText('1 - 9 / 9')).toBeVisible();

  await page.getByRole('button', { name: 'Filtrer la colonne Role' }).click();
  await page.getByRole('textbox', { name: 'Role' }).fill('update');
  await page.keyboard.press('Enter');
  await expect(page.getByText('1 - 1 / 1')).toBeVisible();

  await page.getByRole('button', { name: 'Gérer les agents du rôle ROLE_ADMIN_UPDATE' }).click();
  const roleDialog = page.getByRole('dialog', { name: 'ROLE_ADMIN_UPDATE' });
  await expect(roleDialog.getByText('Aucun agent')).toBeVisible();
  await roleDialog.getByRole('button', { name: 'Ajouter' }).click();

  const addDialog = page.getByRole('dialog', { name: 'Ajouter', exact: true });
  await addDialog.getByRole('button', { name: 'Ajouter' }).click();
  await expect(addDialog.getByText('Veuillez sélectionner un agent')).toBeVisible();
  const search = addDialog.getByRole('combobox', { name: 'Ajouter un agent' });
  await search.fill('personne inconnue');
  await expect(addDialog.getByText('Aucun résultat')).toBeVisible();
  await search.fill('administ');
  await addDialog.getByRole('option', { name: 'Administrateur' }).click();
  await addDialog.getByRole('button', { name: 'Ajouter' }).click();
  await expect(addDialog).toBeHidden();

  await expect(roleDialog.getByText('Administrateur')).toBeVisible();
  await roleDialog.getByRole('button', { name: 'Enregistrer' }).click();
  await expect(page.getByText('Enregistrement effectué')).toBeVisible();
  await expect(roleDialog).toBeHidden();
  expect(await myRoles(page)).toContain('ROLE_ADMIN_UPDATE');

  await page.getByRole('button', { name: 'Gérer les agents du rôle ROLE_ADMIN_UPDATE' }).click();
  await expect(roleDialog.getByText('Administrateur')).toBeVisible();
  await roleDialog.getByRole('button', { name: 'Retirer Administrateur' }).click();
  await expect(roleDialog.getByText('Aucun agent')).toBeVisible();
  await roleDialog.getByRole('button', { name: 'Enregistrer' }).click();
  await expect(roleDialog).toBeHidden();
  await expect.poll(() => myRoles(page)).not.toContain('ROLE_ADMIN_UPDATE');
});

test('the last administrator cannot be removed from ROLE_ADMIN', async ({ page }) => {
  await loginAsAdmin(page);
  await page.goto('/admin/role');
  await page.getByRole('button', { name: 'Gérer les agents du rôle ROLE_ADMIN', exact: true }).click();
  const roleDialog = page.getByRole('dialog', { name: 'ROLE_ADMIN' });
  await roleDialog.getByRole('button', { name: 'Retirer Administrateur' }).click();
  await roleDialog.getByRole('button', { name: 'Enregistrer' }).click();
  await expect(roleDialog.getByRole('alert')).toContainText('Impossible de retirer le dernier administrateur');
  await roleDialog.getByRole('button', { name: 'Annuler' }).click();
  await expect(roleDialog).toBeHidden();
  expect(await myRoles(page)).toContain('ROLE_ADMIN');
});
