// Catalogues: a composter type and a site type are added, each after a first
// attempt that the form or the server refuses.
import { expect, test } from '../helpers/e2e-test';
import { logInAsAdmin } from '../helpers/e2e-login';

test('a composter type is added after a validation error', async ({ page }) => {
  await logInAsAdmin(page);
  await page.goto('/admin/composteur');
  await expect(page.getByRole('heading', { name: 'Composteurs' })).toBeVisible();
  await expect(page.getByRole('cell', { name: 'Bac bois 400 L' })).toBeVisible();

  await page.getByRole('button', { name: 'Ajouter un Composteur' }).click();
  const dialog = page.getByRole('dialog', { name: 'Ajouter un Composteur' });
  await dialog.getByRole('button', { name: 'Enregistrer' }).click();
  await expect(dialog.getByRole('alert')).toHaveText('Veuillez renseigner les champs obligatoires');
  await expect(dialog.getByText('Le volume est obligatoire')).toBeVisible();
  await expect(dialog.getByText('Les précisions sont obligatoires')).toBeVisible();

  await dialog.getByLabel('Volume en Litres').fill('750');
  await dialog.getByLabel('Précisions').fill('Bac métal 750 L');
  await dialog.getByRole('button', { name: 'Enregistrer' }).click();
  await expect(page.getByText('Site ajouté')).toBeVisible();
  await expect(dialog).toBeHidden();

  await page.getByRole('button', { name: 'Filtrer la colonne Volume' }).click();
  await page.getByRole('textbox', { name: 'Volume (litres)' }).fill('750');
  await page.keyboard.press('Enter');
  await expect(page.getByText('1 - 1 / 1')).toBeVisible();
  await expect(page.getByRole('cell', { name: 'Bac métal 750 L' })).toBeVisible();
});

test('a site type is added after the server refused a code already used', async ({ page }) => {
  await logInAsAdmin(page);
  await page.goto('/admin/typeSite');
  await expect(page.getByRole('heading', { name: 'Types de Site' })).toBeVisible();

  await page.getByRole('button', { name: 'Ajouter un type de site' }).click();
  const dialog = page.getByRole('dialog', { name: 'Ajouter un type de site' });
  await dialog.getByLabel('Libellé').fill('Marché couvert');
  const code = dialog.getByLabel('Code');
  await code.pressSequentially('qua');
  await expect(code).toHaveValue('QUA');
  await dialog.getByRole('button', { name: 'Enregistrer' }).click();
  await expect(dialog.getByText('Ce code est déjà utilisé par un autre type de site')).toBeVisible();
  await expect(dialog.getByRole('alert')).toHaveText('Veuillez renseigner les champs obligatoires');

  await code.fill('');
  await code.pressSequentially('mç1ab');
  await expect(code).toHaveValue('MCA');
  await dialog.getByRole('button', { name: 'Enregistrer' }).click();
  await expect(page.getByText('Enregistrement effectué')).toBeVisible();
  await expect(dialog).toBeHidden();

  await page.getByRole('button', { name: 'Filtrer la colonne Libellé' }).click();
  await page.getByRole('textbox', { name: 'Libellé' }).fill('marche');
  await page.keyboard.press('Enter');
  const row = page.getByRole('row').filter({ hasText: 'Marché couvert' });
  await expect(row).toHaveCount(1);
  await expect(row.getByRole('cell', { name: 'MCA' })).toBeVisible();
});
