// Roles administration: an administrator gives a role to an agent found by the
// server-side search, then takes it back; an agent made role administrator manages roles
// from their next request, and loses the screen as soon as the role is withdrawn; the last
// administrator cannot be removed. The demo programme seeds two agents without a role
// (rpenven, tlhostis; password demo-compost).
import type { Locator, Page } from '@playwright/test';
import { expect, test } from '../helpers/e2e-test';
import { logIn, logInAsAdmin } from '../helpers/e2e-login';

async function myRoles(page: Page): Promise<string[]> {
  const res = await page.request.get('/api/logged');
  return ((await res.json()) as { user: { roles: string[] } }).user.roles;
}

test('an administrator adds an agent to a role and removes them', async ({ page }) => {
  await logInAsAdmin(page);
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
  await logInAsAdmin(page);
  await page.goto('/admin/role');
  await page.getByRole('button', { name: 'Gérer les agents du rôle ROLE_ADMIN', exact: true }).click();
  const roleDialog = page.getByRole('dialog', { name: 'ROLE_ADMIN' });
  await roleDialog.getByRole('button', { name: 'Retirer Administrateur' }).click();
  await roleDialog.getByRole('button', { name: 'Enregistrer' }).click();
  // Removing one's own ROLE_ADMIN is confirmed first; the server then refuses the last one.
  await page.getByRole('dialog', { name: 'Retirer votre propre rôle ROLE_ADMIN ?' }).getByRole('button', { name: 'Retirer mon rôle' }).click();
  await expect(roleDialog.getByRole('alert')).toContainText('Impossible de retirer le dernier administrateur');
  await expect(page.getByRole('dialog', { name: 'Retirer votre propre rôle ROLE_ADMIN ?' })).toBeHidden();
  // The closed question stays in the role dialog's tree: its own 'Annuler' comes first.
  await roleDialog.getByRole('button', { name: 'Annuler' }).first().click();
  await expect(roleDialog).toBeHidden();
  expect(await myRoles(page)).toContain('ROLE_ADMIN');
});

async function openRole(page: Page, role: string): Promise<Locator> {
  await page.getByRole('button', { name: `Gérer les agents du rôle ${role}`, exact: true }).click();
  return page.getByRole('dialog', { name: role, exact: true });
}

async function addAgent(page: Page, roleDialog: Locator, search: string, name: string) {
  await roleDialog.getByRole('button', { name: 'Ajouter' }).click();
  const addDialog = page.getByRole('dialog', { name: 'Ajouter', exact: true });
  await addDialog.getByRole('combobox', { name: 'Ajouter un agent' }).fill(search);
  await addDialog.getByRole('option', { name }).click();
  await addDialog.getByRole('button', { name: 'Ajouter' }).click();
  await expect(addDialog).toBeHidden();
  await expect(roleDialog.getByText(name)).toBeVisible();
}

test('an agent made role administrator manages roles at their next request, until the role is withdrawn', async ({ page, browser }) => {
  await logInAsAdmin(page);
  await page.goto('/admin/role');
  let roleDialog = await openRole(page, 'ROLE_ADMIN_ROLE');
  await addAgent(page, roleDialog, 'penven', 'Rozenn PENVEN');
  await roleDialog.getByRole('button', { name: 'Enregistrer' }).click();
  await expect(page.getByText('Enregistrement effectué')).toBeVisible();

  // The agent logs in on another browser: /admin leads to the roles screen, the drawer has
  // only what the role allows.
  const agentContext = await browser.newContext();
  const agent = await agentContext.newPage();
  try {
    await logIn(agent, { login: 'rpenven', password: 'demo-compost' }, /\/admin\/role$/);
    const drawer = agent.getByRole('navigation', { name: 'Menu principal' });
    await expect(drawer.getByRole('link', { name: 'Roles' })).toBeVisible();
    await expect(drawer.getByRole('link', { name: 'Sites', exact: true })).toHaveCount(0);
    await expect(drawer.getByRole('link', { name: 'Utilisateurs' })).toHaveCount(0);

    // She gives ROLE_ADMIN_UPDATE to a colleague, then takes it back.
    roleDialog = await openRole(agent, 'ROLE_ADMIN_UPDATE');
    await addAgent(agent, roleDialog, "l'hostis", "Tanguy L'HOSTIS");
    await roleDialog.getByRole('button', { name: 'Enregistrer' }).click();
    await expect(agent.getByText('Enregistrement effectué')).toBeVisible();
    await expect(roleDialog).toBeHidden();
    roleDialog = await openRole(agent, 'ROLE_ADMIN_UPDATE');
    await roleDialog.getByRole('button', { name: "Retirer Tanguy L'HOSTIS" }).click();
    await expect(roleDialog.getByText('Aucun agent')).toBeVisible();
    await roleDialog.getByRole('button', { name: 'Enregistrer' }).click();
    await expect(roleDialog).toBeHidden();
    roleDialog = await openRole(agent, 'ROLE_ADMIN_UPDATE');
    await expect(roleDialog.getByText('Aucun agent')).toBeVisible();
    await roleDialog.getByRole('button', { name: 'Annuler' }).click();

    // The administrator withdraws her role: her very next call is refused, in place, and she
    // stays logged in (a refusal is not a lost session).
    await page.reload();
    roleDialog = await openRole(page, 'ROLE_ADMIN_ROLE');
    await roleDialog.getByRole('button', { name: 'Retirer Rozenn PENVEN' }).click();
    await roleDialog.getByRole('button', { name: 'Enregistrer' }).click();
    await expect(roleDialog).toBeHidden();
    await agent.getByRole('button', { name: 'Filtrer la colonne Role' }).click();
    await agent.getByRole('textbox', { name: 'Role' }).fill('site');
    await expect(agent.getByText('Accès non authorisé.').first()).toBeVisible({ timeout: 15_000 });
    await expect(agent).toHaveURL(/\/admin\/role/);
  } finally {
    await agentContext.close();
  }
});
