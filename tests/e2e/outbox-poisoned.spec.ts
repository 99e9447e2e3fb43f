// A poisoned outbox entry in a real browser: a referent queues three entries with the network cut; back online,
// the server answers 500 for the first one only. The two others reach the server anyway, the
// first stays on the phone with the server's reason and ends as 'Erreur serveur'; once the
// server is fixed, 'Renvoyer' delivers it, exactly once.
// Runs on the demo programme the e2e server seeds: referent1 has several sites, each with cells
// n°1-2 Apport, n°3 Broyat, n°4 Maturation.
import type { Page } from '@playwright/test';
import { expect, test } from '../helpers/e2e-test';
import { QUEUED, logIn, siteOfUser, waitUntilReadyOffline, type SiteInfos } from '../helpers/e2e-field';

// The service worker is part of what these journeys check (playwright.config.ts blocks it elsewhere).
test.use({ serviceWorkers: 'allow' });

const ADD_ROUTE = '**/api/admin/intervention/add';
/** Observations are tagged with a per-run prefix so the counts only see this run's rows. */
const RUN = `e2e-poison-${Date.now().toString(36)}-`;

async function recordOffline(page: Page, site: SiteInfos, marker: string) {
  await page.goto('/admin/choix/site');
  await expect(page.getByText('Choisir le site de votre intervention')).toBeVisible();
  await page.getByRole('combobox', { name: 'Site' }).click();
  await page.getByRole('option', { name: new RegExp(`^${site.code} - `) }).click();
  await expect(page.getByRole('heading', { name: 'Gérer' })).toBeVisible();
  const cell = site.siteComposteurs.find((c) => c.numero === 1)!;
  const group = page.getByRole('group', { name: 'Action 1' });
  await group.getByRole('combobox', { name: /Choix de la cellule/ }).selectOption({ label: `Cellule n°${cell.numero} - ${cell.libelleTypeBac}` });
  await group.getByRole('combobox', { name: /Quelle action/ }).selectOption({ label: 'Retournement' });
  await group.getByLabel(/Observations/).fill(RUN + marker);
  await page.getByRole('button', { name: 'Enregistrer' }).click();
  await expect(page.getByText(QUEUED).first()).toBeVisible();
  await expect(page).toHaveURL(/\/admin\/choix\/site$/);
}

/** How many rows of this run the server holds, per marker. */
async function serverCounts(page: Page, siteId: number): Promise<Record<string, number>> {
  const res = await page.request.get(`/api/intervention/get/list/by/site/${siteId}?rowsPerPage=100&sort[name]=date&sort[direction]=desc`);
  expect(res.ok()).toBe(true);
  const counts: Record<string, number> = {};
  for (const r of ((await res.json()) as { interventions: { observations: string | null }[] }).interventions) {
    if (!r.observations?.startsWith(RUN)) continue;
    const marker = r.observations.slice(RUN.length);
    counts[marker] = (counts[marker] ?? 0) + 1;
  }
  return counts;
}

/** The clientId of the queued entry whose observations carry `marker`, read from the phone's IndexedDB. */
function queuedClientId(page: Page, marker: string): Promise<string> {
  return page.evaluate(
    (observations) =>
      new Promise<string>((resolve, reject) => {
        const open = indexedDB.open('compost-offline');
        open.onerror = () => reject(open.error);
        open.onsuccess = () => {
          const all = open.result.transaction('outbox').objectStore('outbox').getAll();
          all.onerror = () => reject(all.error);
          all.onsuccess = () => {
            open.result.close();
            const rows = all.result as { clientId: string; payload: { values: { observations: string | null }[] } }[];
            const row = rows.find((r) => r.payload.values.some((b) => b.observations === observations));
            if (row) resolve(row.clientId);
            else reject(new Error(`no queued entry for ${observations}`));
          };
        };
      }),
    RUN + marker,
  );
}

test('an entry the server answers 500 for does not hold the next ones, and arrives once after Renvoyer', async ({ context, page }) => {
  test.setTimeout(240_000);
  // 1. Online once: log in, let the service worker install and the phone copy the sites.
  await logIn(page);
  const site = await siteOfUser(page, 1);
  await page.goto('/admin/choix/site');
  await waitUntilReadyOffline(page);

  // 2. No network: three entries.
  await context.setOffline(true);
  await page.reload();
  await expect(page.getByText('Hors ligne').first()).toBeVisible();
  for (const marker of ['p1', 'p2', 'p3']) await recordOffline(page, site, marker);
  await expect(page.getByRole('link', { name: '3 envois en attente' })).toBeVisible();
  const poisoned = await queuedClientId(page, 'p1');

  // 3. The server fails on the first entry only (matched by its clientId).
  let failing = true;
  const poisonedPosts: number[] = [];
  const delivered: string[] = [];
  await context.route(ADD_ROUTE, async (route) => {
    const body = route.request().postDataJSON() as { clientId?: string } | null;
    if (body?.clientId === poisoned && failing) {
      poisonedPosts.push(Date.now());
      await route.fulfill({ status: 500, contentType: 'application/json', body: JSON.stringify({ status: 'error', message: 'Une erreur est survenue.' }) });
      return;
    }
    const response = await route.fetch();
    if (response.status() === 200 && body?.clientId) delivered.push(body.clientId);
    await route.fulfill({ response });
  });

  // 4. Back online: the second and third reach the server; the first stays, with its reason.
  await context.setOffline(false);
  await expect.poll(() => serverCounts(page, site.id), { timeout: 30_000 }).toEqual({ p2: 1, p3: 1 });
  expect(poisonedPosts.length).toBeGreaterThanOrEqual(1);
  await page.getByRole('link', { name: /en attente|en échec/ }).first().click();
  await expect(page).toHaveURL(/\/admin\/envois$/);
  const card = page.getByRole('listitem', { name: new RegExp(site.code) });
  await expect(card).toHaveCount(1);
  await expect(card.getByText('Dernière erreur : Erreur serveur (500) : Une erreur est survenue.')).toBeVisible();

  // 5. Each 'Envoyer maintenant' is one more try; after five the entry is 'Erreur serveur' and
  //    is no longer retried by itself. It stays on the phone.
  //    Each click waits for its own try to reach the server, not for a fixed time.
  const sendNow = page.getByRole('button', { name: 'Envoyer maintenant' });
  while (poisonedPosts.length < 5) {
    const tries = poisonedPosts.length;
    await sendNow.click();
    await expect.poll(() => poisonedPosts.length).toBeGreaterThan(tries);
    await expect(sendNow).toBeEnabled();
  }
  await expect(card.getByText('Erreur serveur', { exact: true })).toBeVisible();
  expect(poisonedPosts).toHaveLength(5);
  await expect(page.getByRole('link', { name: '1 envoi en échec' })).toBeVisible();
  await expect(card.getByText(/n’est plus renvoyée automatiquement/)).toBeVisible();
  await page.getByRole('button', { name: 'Envoyer maintenant' }).click();
  await expect(page.getByRole('button', { name: 'Envoyer maintenant' })).toBeEnabled();
  expect(poisonedPosts).toHaveLength(5);

  // 6. The server is fixed: 'Renvoyer' delivers it, once.
  failing = false;
  await card.getByRole('button', { name: 'Renvoyer' }).click();
  await expect(page.getByText('Aucun résultat')).toBeVisible({ timeout: 30_000 });
  expect(await serverCounts(page, site.id)).toEqual({ p1: 1, p2: 1, p3: 1 });
  expect(delivered.filter((id) => id === poisoned)).toHaveLength(1);
  await context.unroute(ADD_ROUTE);
});
