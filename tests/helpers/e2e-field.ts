// What the field journeys (offline entry, poisoned outbox entry, requests) share: the demo
// referent, logging in through the form, the referent's sites as the site sheet knows them, and
// the wait until the app works offline.
import { expect, type APIRequestContext, type Page } from '@playwright/test';

export const REFERENT = { login: 'referent1@demo.compost.fr', password: 'demo-compost' };

export const QUEUED = 'Intervention enregistrée sur le téléphone, elle sera envoyée dès le retour du réseau';

export interface Cell {
  id: number;
  numero: number;
  typeBac: number;
  libelleTypeBac: string;
}

export interface SiteInfos {
  id: number;
  code: string;
  nom: string | null;
  siteComposteurs: Cell[];
}

/** Logs in through the login form and waits for the landing screen. */
export async function logIn(page: Page, who: { login: string; password: string } = REFERENT) {
  await page.goto('/login');
  await page.getByLabel('Identifiant ou adresse mail').fill(who.login);
  await page.getByLabel('Mot de passe').fill(who.password);
  await page.getByRole('button', { name: 'Connexion' }).click();
  await expect(page).toHaveURL(/\/admin\//);
}

/** One of the logged-in user's active sites (by position), with its cells, asked while online. */
export async function siteOfUser(page: Page, index: number): Promise<SiteInfos> {
  const sites = (await (await page.request.get('/api/admin/site/get/all/actif')).json()) as { id: number }[];
  expect(sites.length).toBeGreaterThan(index);
  const res = await page.request.get(`/api/admin/site/get/infos/pour/intervention/${sites[index].id}`);
  expect(res.ok()).toBe(true);
  return (await res.json()) as SiteInfos;
}

/**
 * Waits until the page is controlled by the service worker and the app says the user's sites
 * are on the phone (it writes that once every site's cells are stored).
 */
export async function waitUntilReadyOffline(page: Page) {
  const workerState = () =>
    page.evaluate(async () => {
      const registration = await navigator.serviceWorker.getRegistration();
      return `${registration?.installing?.state ?? '-'}/${registration?.waiting?.state ?? '-'}/${registration?.active?.state ?? '-'}/${navigator.serviceWorker.controller ? 'controlled' : 'free'}`;
    });
  await expect.poll(workerState, { timeout: 60_000 }).toMatch(/\/activated\/controlled$/);
  await expect(page.getByText(/^Vos sites sont disponibles hors ligne/)).toBeVisible({ timeout: 30_000 });
}

/**
 * Cancels the pending requests of one cell (as a provider or ROLE_ADMIN), so that the next entry
 * matching a rule raises its own request: while one is pending for a cell and action, later
 * entries only add to it.
 */
export async function clearPendingRequests(api: APIRequestContext, siteId: number, cellId: number) {
  const res = await api.get(`/api/admin/demande/intervention/get/list?filter[site]=${siteId}&rowsPerPage=100`);
  expect(res.ok(), await res.text()).toBe(true);
  const pending = ((await res.json()) as { demandesInterventions: { id: number; idBac: number }[] }).demandesInterventions;
  const ids = pending.filter((d) => d.idBac === cellId).map((d) => d.id);
  if (ids.length === 0) return;
  const cancel = await api.put('/api/admin/demande/intervention/delete', { data: { demandesInterventions: ids } });
  expect(cancel.ok(), await cancel.text()).toBe(true);
}
