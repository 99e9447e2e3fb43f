// The day's route on a provider's 390 px phone: a request raised on a placed site is planned
// for today, the provider opens 'Tournée du jour' and sees it as a stop, loses the network,
// reloads and still reads the route (kept on the phone with the board), then, back online,
// processes the stop with 'Traiter': the site sheet opens with the request prefilled, and the
// entry closes it. Runs on the demo programme the e2e server seeds (referent1's sites have
// cells n°1-2 Apport, n°3 Broyat, n°4 Maturation; prestataire@demo.compost.fr is the provider).
import crypto from 'node:crypto';
import type { APIRequestContext } from '@playwright/test';
import { expect, test } from '../helpers/e2e-test';
import { expectAccessible } from '../helpers/e2e-axe';
import { REFERENT, clearPendingRequests, keptQuery, logIn, waitUntilReadyOffline, type SiteInfos } from '../helpers/e2e-field';
import { ADMIN, PROVIDER, apiContextAs } from '../helpers/e2e-login';

// The service worker is part of what these journeys check (playwright.config.ts blocks it elsewhere).
test.use({ serviceWorkers: 'allow' });

test.use({ viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true });

const RUN = `e2e-tournee-${Date.now().toString(36)}`;
const ACTION_REPARATION_A_EFFECTUER = 18;
/** Today in Paris, YYYY-MM-DD. */
const TODAY = new Intl.DateTimeFormat('fr-FR', { timeZone: 'Europe/Paris', day: '2-digit', month: '2-digit', year: 'numeric' }).format(new Date()).split('/').reverse().join('-');
const STAMP = /^Données du \d\d\/\d\d à \d\d:\d\d$/;

interface CarteSite {
  id: number;
  latitude: number | null;
}
interface Stop {
  ordre: number;
  idDemande: number;
  site: string;
  latitude: number;
  longitude: number;
}

async function json<T>(res: Awaited<ReturnType<APIRequestContext['get']>>): Promise<T> {
  expect(res.ok(), await res.text()).toBe(true);
  return (await res.json()) as T;
}

/** One of the referent's sites with a position (placing one in Brest through the sites API when none has one yet). */
async function placedSiteOfReferent(referent: APIRequestContext, provider: APIRequestContext, baseURL: string): Promise<number> {
  const mine = await json<{ id: number }[]>(await referent.get('/api/admin/site/get/all/actif'));
  const { sites } = await json<{ sites: CarteSite[] }>(await provider.get('/api/admin/site/get/carte'));
  const placed = mine.find((m) => sites.some((s) => s.id === m.id && s.latitude !== null));
  if (placed) return placed.id;
  const id = mine[0].id;
  const admin = await apiContextAs(baseURL, ADMIN);
  try {
    const detail = await json<Record<string, unknown>>(await admin.get(`/api/admin/site/get/${id}`));
    const data = { nom: detail.nom, adresse: detail.adresse, numero: detail.numero, complement: detail.complement, type: detail.idType, observations: detail.observations, cadena: detail.cadena, statut: detail.idStatut, latitude: 48.3904, longitude: -4.4861 };
    await json(await admin.put(`/api/admin/site/update/${id}`, { data }));
  } finally {
    await admin.dispose();
  }
  return id;
}

test('a provider reads today’s route offline after a reload and processes its stop once back online', async ({ page, context, baseURL }) => {
  test.setTimeout(240_000);
  const referent = await apiContextAs(baseURL!, REFERENT);
  const provider = await apiContextAs(baseURL!, PROVIDER);
  let requestId = 0;
  let siteId = 0;
  let cellId = 0;
  try {
    // A referent's entry 'Réparation à effectuer' on cell n°1 of a placed site raises a request,
    // which the provider plans for today.
    siteId = await placedSiteOfReferent(referent, provider, baseURL!);
    const site = await json<SiteInfos>(await referent.get(`/api/admin/site/get/infos/pour/intervention/${siteId}`));
    cellId = site.siteComposteurs.find((c) => c.numero === 1)!.id;
    await clearPendingRequests(provider, siteId, cellId);
    await json(
      await referent.post('/api/admin/intervention/add', {
        data: { clientId: crypto.randomUUID(), site: siteId, date: new Date(Date.now() - 60_000).toISOString(), values: [{ composteur: cellId, action: ACTION_REPARATION_A_EFFECTUER, valeur: `${RUN} charnière cassée` }] },
      }),
    );
    const pending = await json<{ demandesInterventions: { id: number; idBac: number }[] }>(
      await provider.get(`/api/admin/demande/intervention/get/list?filter[site]=${siteId}&rowsPerPage=100`),
    );
    requestId = pending.demandesInterventions.find((d) => d.idBac === cellId)!.id;
    await json(await provider.post('/api/admin/demande/intervention/programmer', { data: { values: [{ demandeIntervention: requestId, date: TODAY }] } }));
  } finally {
    await referent.dispose();
  }

  try {
    const route = await json<{ etapes: Stop[]; distanceTotaleKm: number }>(await provider.get(`/api/admin/tournee?date=${TODAY}`));
    const planned = route.etapes.find((e) => e.idDemande === requestId);
    expect(planned, 'the planned request is a stop of today’s route').toBeDefined();

    // With signal: the app is kept on the phone, the route is opened once.
    await logIn(page, PROVIDER);
    await page.goto('/admin/choix/site');
    await waitUntilReadyOffline(page);
    await page.goto('/admin/tournee');
    await expect(page.getByRole('heading', { level: 1, name: 'Tournée du jour' })).toBeVisible();
    const stop = page.getByRole('article', { name: `Étape ${planned!.ordre} : ${planned!.site}` });
    await expect(stop).toContainText('Réparation effectuée');
    await expect(page.getByTestId('distance-totale')).toContainText('Distance totale :');
    await expect(stop.getByRole('link', { name: 'Itinéraire' })).toHaveAttribute('href', new RegExp(`^https://www\\.openstreetmap\\.org/directions\\?route=.*%3B${planned!.latitude}%2C${planned!.longitude}$`));
    await expect(stop.getByRole('link', { name: 'Ouvrir dans le GPS' })).toHaveAttribute('href', `geo:${planned!.latitude},${planned!.longitude}`);
    await expect(page.getByRole('button', { name: 'Imprimer' })).toBeVisible();
    await expectAccessible(page, '/admin/tournee');
    const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
    expect(overflow, 'the route scrolls sideways on a 390 px phone').toBeLessThanOrEqual(0);
    // Saved on the phone within a second or so of being shown.
    await expect.poll(() => keptQuery(page, ['map', 'tournee', TODAY]), { timeout: 15_000 }).toContain(`"idDemande":${requestId}`);

    // No signal, and the page is reloaded: the route is still there, saying where it comes from.
    await context.setOffline(true);
    await page.reload();
    await expect(page.getByRole('heading', { level: 1, name: 'Tournée du jour' })).toBeVisible();
    await expect(stop).toContainText('Réparation effectuée');
    await expect(page.getByText('Vous lisez la tournée gardée sur ce téléphone', { exact: false })).toBeVisible();
    await expect(page.getByText(STAMP)).toBeVisible();

    // Back online: 'Traiter' opens the site sheet with the request, and the entry closes it.
    await context.setOffline(false);
    await expect(page.getByText('Vous lisez la tournée gardée sur ce téléphone', { exact: false })).toHaveCount(0);
    await stop.getByRole('button', { name: 'Traiter' }).click();
    await expect(page).toHaveURL(new RegExp(`/admin/fiche/site/${siteId}$`));
    const block = page.getByRole('group', { name: /Action 1/ });
    await expect(block.getByRole('combobox', { name: /Choix de la cellule/ })).toHaveValue(String(cellId));
    await expect(block.getByRole('combobox', { name: /Quelle action/ })).toHaveValue('14');
    await block.getByRole('textbox', { name: /Précisions/ }).fill(`${RUN} charnière changée`);
    await page.getByRole('button', { name: 'Enregistrer' }).click();
    await expect(page.getByText('Intervention(s) enregistrée(s) avec succès')).toBeVisible({ timeout: 60_000 });
    await expect
      .poll(async () => (await json<{ demandesInterventions: { id: number }[] }>(await provider.get(`/api/admin/demande/intervention/get/list?filter[site]=${siteId}&rowsPerPage=100`))).demandesInterventions.some((d) => d.id === requestId))
      .toBe(false);
  } finally {
    await provider.dispose();
  }
});
