// Site names read in natural order on a desktop: 'École 2' before 'École 13', in the sites table
// (both directions) and in the site choice's list of active sites.
import { expect, test } from '../helpers/e2e-test';
import { logInAsAdmin } from '../helpers/e2e-login';

const DESKTOP = { width: 1440, height: 900 };

test('the sites table and the site select put École 2 before École 13', async ({ page }) => {
  await page.setViewportSize(DESKTOP);
  const stamp = `nat${Date.now().toString(36)}`;
  await logInAsAdmin(page);
  // Created out of order, so that neither the ids nor the creation dates give the expected order.
  for (const n of [13, 2, 1]) {
    const res = await page.request.post('/api/admin/site/add', { data: { nom: `École ${stamp} ${n}`, ville: 'Brest', adresse: 'Rue de Siam', type: 2, statut: 1 } });
    expect(res.ok(), await res.text()).toBe(true);
  }

  await page.goto(`/admin/site?nom=${stamp}`);
  const rows = page.getByRole('row').filter({ hasText: stamp });
  await expect(rows).toHaveCount(3);
  const names = async () => (await rows.allTextContents()).map((t) => /École \S+ (\d+)/.exec(t)?.[1]);
  await expect.poll(names).toEqual(['1', '2', '13']);
  const nomHeader = page.getByRole('columnheader', { name: 'Nom / Code', exact: true });
  await nomHeader.getByRole('button', { name: 'Trier par Nom / Code' }).click();
  await expect(nomHeader).toHaveAttribute('aria-sort', 'descending');
  await expect.poll(names).toEqual(['13', '2', '1']);

  // The site choice's list (by city, then by name) reads the same way.
  const active = (await (await page.request.get('/api/admin/site/get/all/actif')).json()) as { nom: string | null }[];
  expect(active.filter((s) => s.nom?.includes(stamp)).map((s) => /(\d+)$/.exec(s.nom!)?.[1])).toEqual(['1', '2', '13']);
});
