// Interventions administration: an agent with ROLE_ADMIN_SITE, ROLE_ADMIN_UPDATE and
// ROLE_ADMIN_DELETE (the demo agent rpenven, given those roles by the e2e administrator
// through the roles API) filters the log by site and action, corrects a temperature, deletes
// a repair-to-do whose request is still pending (warned that the request goes too), and
// downloads export.csv. The two entries are recorded through the add API in the setup.
import { readFile } from 'node:fs/promises';
import crypto from 'node:crypto';
import type { APIRequestContext, Page } from '@playwright/test';
import { expect, test } from '../helpers/e2e-test';
import { ADMIN, apiLogIn, logIn } from '../helpers/e2e-login';
import { clearPendingRequests } from '../helpers/e2e-field';

const AGENT = { login: 'rpenven', password: 'demo-compost', name: 'PENVEN Rozenn' };
const ROLES = ['ROLE_ADMIN_SITE', 'ROLE_ADMIN_UPDATE', 'ROLE_ADMIN_DELETE'];

/** Adds the agent to each role through the roles API, keeping the role's other agents. */
async function giveRoles(request: APIRequestContext) {
  await apiLogIn(request, ADMIN);
  const [agent] = (await (await request.get('/api/admin/agent/get/by/name?name=penven')).json()) as { id: number }[];
  const agentId = agent.id;
  const roles = (await (await request.get('/api/admin/role/get/list/by/filters?rowsPerPage=100')).json()) as { roles: { id: number; libelle: string }[] };
  for (const code of ROLES) {
    const role = roles.roles.find((r) => r.libelle === code)!;
    const detail = (await (await request.get(`/api/admin/role/get/${role.id}`)).json()) as { agents: { id: number }[] };
    const agents = [...new Set([...detail.agents.map((a) => a.id), agentId])];
    expect((await request.put(`/api/admin/role/update/${role.id}`, { data: { agents } })).status()).toBe(200);
  }
}

/**
 * Picks a dropdown filter, then waits for the list the filter reloads (filters apply after the
 * spec's 1000 ms debounce: acting on the table before would act on the unfiltered one).
 */
async function chooseFilter(page: Page, column: string, option: string, param: string) {
  const reloaded = page.waitForResponse((r) => r.url().includes('/api/admin/intervention/get/list/by/filters') && decodeURIComponent(r.url()).includes(`filter[${param}]=`));
  await page.getByRole('button', { name: `Filtrer la colonne ${column}` }).click();
  await page.getByRole('combobox', { name: column, exact: true }).fill(option);
  await page.getByRole('option', { name: option, exact: true }).click();
  await page.keyboard.press('Escape');
  await reloaded;
}

test('an agent filters, corrects, deletes with its pending request, and exports the interventions', async ({ page, browser }) => {
  // Setup: the roles, then two entries on the first active site, recorded by the agent.
  const adminContext = await browser.newContext();
  await giveRoles(adminContext.request);

  await logIn(page, AGENT, /\/admin/);
  const request = page.request;
  const sites = (await (await request.get('/api/admin/site/get/all/actif')).json()) as { id: number; code: string; nom: string | null }[];
  const site = sites[0];
  const siteLabel = site.nom ? `${site.nom} (${site.code})` : site.code;
  const infos = (await (await request.get(`/api/admin/site/get/infos/pour/intervention/${site.id}`)).json()) as { siteComposteurs: { id: number; typeBac: number }[] };
  const apport = infos.siteComposteurs.find((c) => c.typeBac === 1)!;
  // A repair entry on a cell that already has a pending repair request adds to it: start clean.
  await clearPendingRequests(adminContext.request, site.id, apport.id);
  await adminContext.close();
  const marker = `E2E-${crypto.randomBytes(3).toString('hex')}`;
  const add = await request.post('/api/admin/intervention/add', {
    data: {
      clientId: crypto.randomUUID(),
      site: site.id,
      date: new Date(Date.now() - 3_600_000).toISOString(),
      values: [
        { composteur: apport.id, action: 6, valeur: 55.5, observations: `${marker} sonde` },
        { composteur: apport.id, action: 18, valeur: `${marker} trappe`, observations: null },
      ],
    },
  });
  expect(add.status(), await add.text()).toBe(200);
  expect(((await add.json()) as { demandes: number[] }).demandes).toHaveLength(1);

  await page.goto('/admin/interventions');
  await expect(page.getByRole('table', { name: 'Interventions' })).toBeVisible();
  await chooseFilter(page, 'Site', siteLabel, 'site');
  await chooseFilter(page, 'Action', 'Température', 'action');
  const tempRow = page.getByRole('row').filter({ hasText: `${marker} sonde` });
  await expect(tempRow).toContainText('55,5 °C');

  await tempRow.getByRole('button', { name: 'Modifier' }).click();
  const dialog = page.getByRole('dialog', { name: "Modifier l'intervention" });
  await expect(dialog.getByText('Jamais modifiée')).toBeVisible();
  const temperature = dialog.getByRole('textbox', { name: /Température/ });
  await temperature.fill('42');
  await dialog.getByRole('button', { name: 'Enregistrer' }).click();
  await expect(page.getByText('Intervention modifiée')).toBeVisible();
  await expect(dialog).toBeHidden();
  await expect(tempRow).toContainText('42 °C');
  await expect(tempRow).toContainText(`${AGENT.name} le`);

  // The export carries the table's filters: this site's temperatures, the corrected one included.
  const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: 'Exporter en CSV' }).click()]);
  expect(download.suggestedFilename()).toBe('export.csv');
  const csv = await readFile((await download.path())!, 'utf8');
  expect(csv.startsWith('\uFEFF')).toBe(true);
  const lines = csv.slice(1).split('\r\n');
  expect(lines[0]).toBe('Date;Site;Intervenant;Type Cellule;N° Cellule;Action;Valeur;Unité;Observations;Modifiée par');
  const line = lines.find((l) => l.includes(`${marker} sonde`))!;
  // The value a number a spreadsheet adds up, its unit in the next column.
  expect(line.split(';').slice(2, 9)).toEqual([AGENT.name, 'Apport', expect.any(String), 'Température', '42', '°C', `${marker} sonde`]);
  expect(lines.filter((l) => l !== '' && !l.startsWith('Date;')).every((l) => l.includes(';Température;'))).toBe(true);

  await chooseFilter(page, 'Action', 'Réparation à effectuer', 'action');
  const repairRow = page.getByRole('row').filter({ hasText: `${marker} trappe` });
  await expect(repairRow).toBeVisible();
  await repairRow.getByRole('button', { name: 'Supprimer' }).click();
  const confirm = page.getByRole('dialog', { name: 'Supprimer ?' });
  await expect(confirm).toContainText('la demande sera également supprimée');
  await expect(confirm).toContainText('irréversible');
  await confirm.getByRole('button', { name: 'Supprimer' }).click();
  await expect(page.getByText("Intervention et demande d'intervention liée supprimées")).toBeVisible();
  await expect(repairRow).toHaveCount(0);
});
