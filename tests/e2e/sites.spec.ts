// Sites administration: an administrator records a site request, installs it
// (status 1 with cells), gives it a referent, retires a cell and exports the list.
import fs from 'node:fs';
import type { Page } from '@playwright/test';
import { expect, test } from '../helpers/e2e-test';
import { logInAsAdmin } from '../helpers/e2e-login';
import { linkFrom } from '../helpers/e2e-mail';

async function choose(page: Page, scope: ReturnType<Page['getByRole']>, label: string, option: string | RegExp) {
  await scope.getByRole('combobox', { name: label, exact: true }).click();
  await page.getByRole('option', { name: option, exact: typeof option === 'string' }).click();
}

test('an administrator turns a site request into an installed site with cells and a referent, then exports it', async ({ page, request }) => {
  // The longest journey without waits of its own: 51 s to 1 min on a loaded 2-core machine.
  test.setTimeout(180_000);
  const stamp = Date.now().toString(36);
  const siteName = `Ecole ${stamp}`;
  const email = `referent.${stamp}@exemple.fr`;
  const password = 'motdepasse-referent';

  // A future referent signs up and validates their e-mail.
  const signup = await request.post('/api/signup', {
    data: { type: 1, organisme: '', nom: 'LE BRIS', prenom: 'Anne', tel: '0601020304', email, password, confirmPassword: password },
  });
  expect(signup.ok(), await signup.text()).toBe(true);
  await page.goto(linkFrom(email, '/confirmation/'));
  await expect(page.getByRole('heading', { name: 'Validation adresse mail' })).toBeVisible();

  await logInAsAdmin(page);
  // The administrator activates the account (users screen, covered by its own journey).
  const users = await page.request.get(`/api/admin/user/get/list/by/filters?filter[email]=${encodeURIComponent(email)}`);
  expect(users.ok(), await users.text()).toBe(true);
  const userId = ((await users.json()) as { users: { id: number }[] }).users[0].id;
  expect((await page.request.put(`/api/admin/user/active/${userId}`)).ok()).toBe(true);

  await page.goto('/admin/site');
  await expect(page.getByRole('heading', { name: 'Sites' })).toBeVisible();

  // 1. A request (status 2): the requester section replaces the cells and dates.
  await page.getByRole('button', { name: 'Ajouter un site' }).click();
  const add = page.getByRole('dialog', { name: 'Ajouter un site' });
  await expect(add.getByRole('group', { name: 'Composteurs' })).toBeVisible();
  await add.getByRole('button', { name: 'Enregistrer' }).click();
  await expect(add.getByRole('alert')).toHaveText('Veuillez renseigner les champs obligatoires');
  await choose(page, add, 'Statut', 'Demande');
  await expect(add.getByRole('group', { name: 'Composteurs' })).toBeHidden();
  const requester = add.getByRole('group', { name: 'Demandeur' });
  await choose(page, add, 'Type de site', /Établissement scolaire/);
  await add.getByRole('textbox', { name: 'Nom', exact: true }).first().fill(siteName);
  await add.getByRole('combobox', { name: 'Ville', exact: true }).fill('Guipavas');
  await page.getByRole('option', { name: 'Guipavas (29490)' }).click();
  await expect(add.getByRole('textbox', { name: 'Code postal' })).toHaveValue('29490');
  // The address is free text with the streets of the chosen city as suggestions.
  await add.getByRole('combobox', { name: 'Adresse', exact: true }).fill('paris');
  await page.getByRole('option', { name: 'Rue de Paris' }).click();
  await expect(add.getByRole('combobox', { name: 'Adresse', exact: true })).toHaveValue('Rue de Paris');
  await choose(page, requester, 'Civilité', 'Madame');
  await choose(page, requester, 'Fonction', 'Ecole');
  await requester.getByRole('textbox', { name: 'Nom', exact: true }).fill('le gall');
  await expect(requester.getByRole('textbox', { name: 'Nom', exact: true })).toHaveValue('LE GALL');
  await requester.getByRole('textbox', { name: 'Prénom', exact: true }).fill('marie');
  await expect(requester.getByRole('textbox', { name: 'Prénom', exact: true })).toHaveValue('Marie');
  await requester.getByRole('textbox', { name: 'Téléphone', exact: true }).fill('0298001122');
  await requester.getByRole('textbox', { name: 'Date de la demande' }).fill('15/09/2024');
  await choose(page, requester, "Période d'implantation", 'Printemps');
  await choose(page, requester, "Année d'implantation", String(new Date().getFullYear() + 1));
  await add.getByRole('textbox', { name: 'Observations' }).fill('Projet des parents d’élèves');
  await add.getByRole('button', { name: 'Enregistrer' }).click();
  await expect(page.getByText('Site ajouté')).toBeVisible();
  await expect(add).toBeHidden();

  await page.getByRole('button', { name: 'Filtrer la colonne Nom / Code' }).click();
  await page.getByRole('textbox', { name: 'Nom / Code' }).fill(stamp);
  await page.keyboard.press('Enter');
  const row = page.getByRole('row').filter({ hasText: siteName });
  await expect(row).toHaveCount(1);
  await expect(row).toContainText('Demande');
  await expect(row).toContainText(/SCO\d{3}/);
  // A request has neither referents nor cells to manage yet.
  await expect(row.getByRole('button', { name: /^Référents du site/ })).toHaveCount(0);
  await expect(row.getByRole('button', { name: /^Composteurs du site/ })).toHaveCount(0);

  // The requester's details are kept.
  await row.getByRole('button', { name: /^Actions du site/ }).click();
  await page.getByRole('menuitem', { name: 'Détails demande' }).click();
  const details = page.getByRole('dialog', { name: 'Détails demande' });
  await expect(details.getByText('Madame LE GALL Marie')).toBeVisible();
  await expect(details.getByText(/Demande du 15\/09\/2024/)).toBeVisible();
  await expect(details.getByRole('combobox', { name: "Année d'implantation" })).toHaveValue(String(new Date().getFullYear() + 1));
  await details.getByRole('button', { name: 'Annuler' }).click();

  // 2. Installed: status 1 through the edit dialog, with a convention date.
  await row.getByRole('button', { name: /^Actions du site/ }).click();
  await page.getByRole('menuitem', { name: 'Modifier Site' }).click();
  const edit = page.getByRole('dialog', { name: 'Modifier Site' });
  await choose(page, edit, 'Statut', 'Actif');
  await edit.getByRole('textbox', { name: 'Date Convention' }).fill('05/03/2025');
  await edit.getByRole('textbox', { name: 'Cadena' }).fill('4321');
  await edit.getByRole('button', { name: 'Enregistrer' }).click();
  await expect(page.getByText('Site modifié')).toBeVisible();
  await expect(row).toContainText('Actif');
  await expect(row).toContainText('05/03/2025');

  // Cells: two added, the first then retired with the 'Désactiver' switch.
  await row.getByRole('button', { name: /^Composteurs du site/ }).click();
  const cellsDialog = page.getByRole('dialog', { name: /^Composteurs du site/ });
  await expect(cellsDialog.getByText('Aucun composteur sur ce site.')).toBeVisible();
  await cellsDialog.getByRole('button', { name: 'Ajouter un composteur' }).click();
  await cellsDialog.getByRole('button', { name: 'Ajouter un composteur' }).click();
  await cellsDialog.getByRole('combobox', { name: 'Composteur', exact: true }).nth(0).click();
  await page.getByRole('option', { name: '400 L - Bac bois 400 L' }).click();
  await cellsDialog.getByRole('combobox', { name: 'Usage', exact: true }).nth(0).click();
  await page.getByRole('option', { name: 'Apport' }).click();
  await cellsDialog.getByRole('combobox', { name: 'Composteur', exact: true }).nth(1).click();
  await page.getByRole('option', { name: '800 L - Bac bois 800 L' }).click();
  await cellsDialog.getByRole('combobox', { name: 'Usage', exact: true }).nth(1).click();
  await page.getByRole('option', { name: 'Maturation' }).click();
  await cellsDialog.getByRole('button', { name: 'Enregistrer les composteurs' }).click();
  await expect(page.getByText('Composteur(s) Site ajouté(s)')).toBeVisible();
  await expect(cellsDialog.getByText('Cellule n°1 - Apport - 400 L - Bac bois 400 L')).toBeVisible();
  await expect(cellsDialog.getByText('Cellule n°2 - Maturation - 800 L - Bac bois 800 L')).toBeVisible();

  await cellsDialog.getByRole('switch', { name: 'Désactiver la cellule n°1' }).click();
  await expect(page.getByText('Composteur du site modifié')).toBeVisible();
  await expect(cellsDialog.getByText('Désactivé - Cellule n°1 - Apport - 400 L - Bac bois 400 L')).toBeVisible();
  await page.keyboard.press('Escape');
  await expect(cellsDialog).toBeHidden();
  const cells = row.getByRole('cell');
  await expect(row).toContainText('800 L');

  // 3. The referent.
  await row.getByRole('button', { name: /^Référents du site/ }).click();
  const referents = page.getByRole('dialog', { name: 'Référent(s) du site' });
  await referents.getByRole('combobox', { name: 'Référent(s)' }).fill('LE BRIS');
  await page.getByRole('option', { name: new RegExp(`LE BRIS Anne \\(${email.replace(/\./g, '\\.')}\\)`) }).click();
  // The multi-select stays open for more choices: a click on the title closes it.
  await referents.getByRole('heading', { name: 'Référent(s) du site' }).click();
  await referents.getByRole('button', { name: 'Enregistrer' }).click();
  await expect(page.getByText('Référent(s) Site modifié(s)')).toBeVisible();
  await expect(row).toContainText('LE BRIS Anne');
  await expect(cells.nth(8)).toContainText('1');

  // 4. Export of the current filter.
  const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: 'Exporter en CSV' }).click()]);
  expect(download.suggestedFilename()).toBe('exportSites.csv');
  const csv = fs.readFileSync((await download.path())!, 'utf8');
  expect(csv.charCodeAt(0)).toBe(0xfeff);
  const lines = csv.slice(1).trim().split('\r\n');
  expect(lines[0]).toBe(
    'Nom / Code;Ville;Adresse;Précisions;Type;Référent(s);Volume total;nb Composteurs;Cadena;Observations;Statut;Date Convention;Date Implantation;Date inauguration',
  );
  expect(lines).toHaveLength(2);
  const values = lines[1].split(';');
  expect(values[0]).toMatch(new RegExp(`^${siteName} / SCO\\d{3}$`));
  expect(values.slice(1)).toEqual([
    'Guipavas',
    'Rue de Paris',
    '',
    'Établissement scolaire',
    'LE BRIS Anne',
    '800',
    '1',
    '4321',
    'Projet des parents d’élèves',
    'Actif',
    '05/03/2025',
    '',
    '',
  ]);

  // 5. The site's interventions, full screen, with the administrator's columns.
  await row.getByRole('button', { name: /^Actions du site/ }).click();
  await page.getByRole('menuitem', { name: 'Voir les interventions' }).click();
  const interventions = page.getByRole('dialog', { name: new RegExp(`^Interventions du site ${siteName} - SCO\\d{3}$`) });
  await expect(interventions).toHaveAttribute('data-full-screen', 'true');
  await expect(interventions.locator('thead th')).toHaveText(['Date', 'Intervenant', 'Cellule', 'N°', 'Action', 'Valeur', 'Observations']);
  await expect(interventions.getByRole('button', { name: 'Filtrer la colonne Action' })).toBeVisible();
});
