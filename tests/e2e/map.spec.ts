// The map of the sites on a desktop, with no tile server reachable (every request off the app's
// own server is refused): the administrator still sees a marker per placed site and the list
// beside the map, and opens a site's card from the list with the keyboard alone, with its links
// to the site's sheet and to the requests board. Runs on the demo programme the e2e server seeds.
import type { APIRequestContext, Page } from '@playwright/test';
import { expect, test } from '../helpers/e2e-test';
import { expectAccessible } from '../helpers/e2e-axe';
import { logInAsAdmin } from '../helpers/e2e-login';

interface CarteSite {
  id: number;
  nom: string;
  latitude: number | null;
  longitude: number | null;
  alertes: number;
  demandesEnAttente: number;
}

const carte = async (api: APIRequestContext) => {
  const res = await api.get('/api/admin/site/get/carte');
  expect(res.ok(), await res.text()).toBe(true);
  return (await res.json()) as { sites: CarteSite[]; tuiles: { url: string; attribution: string } };
};

/** A site with a position: one of the demo's, else the first site placed in Brest through the sites API. */
async function placedSite(page: Page): Promise<CarteSite> {
  const { sites } = await carte(page.request);
  expect(sites.length).toBeGreaterThan(0);
  const placed = sites.find((s) => s.latitude !== null);
  if (placed) return placed;
  const id = sites[0].id;
  const detail = (await (await page.request.get(`/api/admin/site/get/${id}`)).json()) as Record<string, unknown>;
  const res = await page.request.put(`/api/admin/site/update/${id}`, {
    data: {
      nom: detail.nom,
      adresse: detail.adresse,
      numero: detail.numero,
      complement: detail.complement,
      type: detail.idType,
      observations: detail.observations,
      cadena: detail.cadena,
      statut: detail.idStatut,
      latitude: 48.3904,
      longitude: -4.4861,
    },
  });
  expect(res.ok(), await res.text()).toBe(true);
  return (await carte(page.request)).sites.find((s) => s.id === id)!;
}

test('an administrator reads the map of the sites without tiles and opens a site’s card from the list with the keyboard', async ({ page, baseURL }) => {
  test.setTimeout(120_000);
  // No tile server: whatever is not the app's own server is refused (and counted).
  const offSite: string[] = [];
  await page.route(
    (url) => !url.href.startsWith(baseURL!),
    (route) => {
      offSite.push(route.request().url());
      return route.abort('internetdisconnected');
    },
  );
  await logInAsAdmin(page);
  const site = await placedSite(page);
  const { sites, tuiles } = await carte(page.request);
  const placedCount = sites.filter((s) => s.latitude !== null).length;

  await page.goto('/admin/carte');
  await expect(page.getByRole('heading', { level: 1, name: 'Carte des sites' })).toBeVisible();
  await expect(page).toHaveTitle('Carte des sites – Compost');

  // Markers stand on the blank map: each placed site, alone or in a group with its count.
  const markers = page.locator('.leaflet-marker-icon');
  await expect(markers.first()).toBeVisible();
  const drawn = await page.locator('.leaflet-marker-icon').evaluateAll((els) =>
    els.reduce((n, el) => n + (el.querySelector('.compost-cluster') ? Number(el.querySelector('.compost-cluster')!.textContent) : 1), 0),
  );
  expect(drawn).toBe(placedCount);
  // The map asked for the server's tiles and drew none of them (refused here, or by the page's
  // security policy before they even leave).
  const host = new URL(tuiles.url.replace(/\{[a-z]\}/g, '0')).host;
  await expect(page.locator('.leaflet-tile').first()).toBeAttached();
  const tileHosts = await page.locator('.leaflet-tile').evaluateAll((imgs) => imgs.map((img) => new URL((img as HTMLImageElement).src).host));
  expect(new Set(tileHosts)).toEqual(new Set([host]));
  await expect(page.locator('.leaflet-tile-loaded')).toHaveCount(0);
  expect(offSite.every((u) => new URL(u).host === host), offSite.join('\n')).toBe(true);

  // The list beside the map names every placed site.
  const list = page.getByRole('region', { name: `Sites sur la carte (${placedCount})` });
  await expect(list.getByRole('listitem')).toHaveCount(placedCount);
  const unplaced = sites.length - placedCount;
  if (unplaced > 0) await expect(page.getByRole('region', { name: 'Sans position' }).getByRole('listitem')).toHaveCount(unplaced);

  await expectAccessible(page, '/admin/carte');

  // Keyboard only: the site's entry in the list takes the focus, Enter opens its card.
  const entry = list.getByRole('button', { name: new RegExp(`^${site.nom.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} `) });
  await entry.focus();
  await expect(entry).toBeFocused();
  await page.keyboard.press('Enter');
  const card = page.getByRole('region', { name: site.nom, exact: true });
  await expect(card).toBeVisible();
  await expect(card.getByRole('heading', { name: site.nom })).toBeFocused();
  await expect(card).toContainText(`Alertes ouvertes : ${site.alertes}`);
  await expect(card.getByRole('link', { name: 'Fiche du site' })).toHaveAttribute('href', `/admin/fiche/site/${site.id}`);
  await expect(card.getByRole('link', { name: 'Tableau des demandes' })).toHaveAttribute('href', `/admin/demande/intervention/list?site=${site.id}`);
  // The site's marker is the selected one, its own (not in a group) once the map centred on it.
  await expect(page.locator('.leaflet-marker-icon', { hasText: `${site.nom} :` }).locator('[data-selected="true"]')).toBeVisible();
  await expectAccessible(page, '/admin/carte with a card open');

  // Tab goes on to the card's close button, and Enter there closes it and gives the list back.
  await page.keyboard.press('Tab');
  await expect(card.getByRole('button', { name: 'Fermer la fiche du site' })).toBeFocused();
  await page.keyboard.press('Enter');
  await expect(card).toHaveCount(0);
  await expect(entry).toBeFocused();

  // The card's link leads to the site's sheet.
  await page.keyboard.press('Enter');
  await card.getByRole('link', { name: 'Fiche du site' }).click();
  await expect(page).toHaveURL(new RegExp(`/admin/fiche/site/${site.id}$`));
});

test('the drawer leads the administrator to the map and to the day’s route', async ({ page }) => {
  await logInAsAdmin(page);
  const drawer = page.getByRole('navigation', { name: 'Menu principal' });
  await expect(drawer.getByRole('link', { name: 'Tournée du jour' })).toBeVisible();
  await drawer.getByRole('link', { name: 'Carte des sites' }).click();
  await expect(page).toHaveURL(/\/admin\/carte$/);
  await expect(page.getByRole('heading', { level: 1, name: 'Carte des sites' })).toBeVisible();
});
