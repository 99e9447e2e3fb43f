// Permanences on a 390 px phone: a referent schedules a weekly permanence from the site sheet,
// signs up for it, records an opening that started an hour ago, loses the network, reloads the
// screen (kept on the phone) and records that opening's tally, which waits in the outbox; the
// network comes back and the server holds the tally once: a replay of the same entry changes
// nothing. Runs on the demo programme the e2e server seeds (referent1 has several sites).
import { expect, test } from '../helpers/e2e-test';
import { REFERENT, keptQuery, logIn, waitUntilReadyOffline } from '../helpers/e2e-field';
import { PHONE } from '../helpers/e2e-login';

// The service worker is part of what these journeys check (playwright.config.ts blocks it elsewhere).
test.use({ serviceWorkers: 'allow' });

const RUN = `e2e-permanence-${Date.now().toString(36)}`;

interface Row {
  id: number;
  titre: string | null;
  debut: string;
  jeTiens: boolean;
  bilan: { foyers: number; seaux: number; kg: number; kgEstime: boolean } | null;
}

/** Paris wall-clock parts of an instant: 'YYYY-MM-DD' and 'HH:mm'. */
function paris(at: Date): { day: string; time: string } {
  const p = Object.fromEntries(
    new Intl.DateTimeFormat('fr-FR', { timeZone: 'Europe/Paris', year: 'numeric', month: '2-digit', day: '2-digit', hour: '2-digit', minute: '2-digit', hourCycle: 'h23' })
      .formatToParts(at)
      .map((x) => [x.type, x.value]),
  );
  return { day: `${p.year}-${p.month}-${p.day}`, time: `${p.hour}:${p.minute}` };
}

test('a referent schedules a weekly permanence, signs up, and records a tally offline that arrives once', async ({ browser }) => {
  test.setTimeout(180_000);
  const context = await browser.newContext({ locale: 'fr-FR', timezoneId: 'Europe/Paris', ...PHONE });
  try {
    const page = await context.newPage();
    await logIn(page, REFERENT);
    const sites = (await (await page.request.get('/api/admin/site/get/all/actif')).json()) as { id: number }[];
    expect(sites.length).toBeGreaterThan(3);
    const siteId = sites[3].id;
    const list = async () => ((await (await page.request.get(`/api/admin/permanence/get/list/by/site/${siteId}`)).json()) as { permanences: Row[] }).permanences;

    await page.goto('/admin/choix/site');
    await waitUntilReadyOffline(page);

    // From the site sheet to its permanences.
    await page.goto(`/admin/fiche/site/${siteId}`);
    await page.getByRole('link', { name: 'Permanences' }).click();
    await expect(page.getByRole('heading', { level: 1, name: 'Permanences' })).toBeVisible();
    await expect(page).toHaveTitle(/^Permanences – /);

    // A weekly permanence, from next week for three weeks, 17:00 – 19:00 Paris time.
    const first = paris(new Date(Date.now() + 7 * 86_400_000)).day;
    const until = paris(new Date(Date.now() + 21 * 86_400_000)).day;
    await page.getByRole('button', { name: 'Programmer une permanence' }).click();
    let dialog = page.getByRole('dialog', { name: 'Programmer une permanence' });
    await dialog.getByLabel(/^Date/).fill(first);
    await dialog.getByLabel(/^Début/).fill('17:00');
    await dialog.getByLabel(/^Fin/).fill('19:00');
    await dialog.getByLabel(/^Titre/).fill(`${RUN} hebdo`);
    await dialog.getByRole('checkbox', { name: 'Répéter' }).check();
    await dialog.getByRole('combobox', { name: 'Fréquence' }).selectOption({ label: 'Chaque semaine' });
    await dialog.getByLabel(/^Jusqu’au/).fill(until);
    await dialog.getByRole('button', { name: 'Enregistrer' }).click();
    await expect(page.getByText('Permanence enregistrée')).toBeVisible();
    const weekly = page.getByRole('listitem').filter({ hasText: `${RUN} hebdo` });
    await expect(weekly).toHaveCount(3);
    await expect(weekly.first()).toContainText('17:00 – 19:00');

    // The referent holds the first one.
    await weekly.first().getByRole('button', { name: 'Je tiens la permanence' }).click();
    await expect(page.getByText('Vous tenez cette permanence')).toBeVisible();
    await expect(weekly.first().getByText('Vous la tenez')).toBeVisible();
    expect((await list()).filter((p) => p.titre === `${RUN} hebdo` && p.jeTiens)).toHaveLength(1);

    // An opening that started an hour ago, recorded afterwards.
    const start = new Date(Date.now() - 3600_000);
    const from = paris(start);
    const to = paris(new Date(start.getTime() + 2 * 3600_000));
    await page.getByRole('button', { name: 'Programmer une permanence' }).click();
    dialog = page.getByRole('dialog', { name: 'Programmer une permanence' });
    await dialog.getByLabel(/^Date/).fill(from.day);
    await dialog.getByLabel(/^Début/).fill(from.time);
    // Past midnight in Paris, the opening ends at the end of its day.
    await dialog.getByLabel(/^Fin/).fill(to.day === from.day ? to.time : '23:59');
    await dialog.getByLabel(/^Titre/).fill(`${RUN} après coup`);
    await expect(dialog.getByText(/ouverture non programmée/)).toBeVisible();
    await dialog.getByRole('button', { name: 'Enregistrer' }).click();
    // The first save's notice may still show: the opening in the list is what proves this one.
    await expect(dialog).toBeHidden();
    const held = page.getByRole('listitem').filter({ hasText: `${RUN} après coup` });
    await expect(held.getByRole('button', { name: 'Saisir le bilan' })).toBeVisible();
    await expect.poll(() => keptQuery(page, ['permanences', 'site', siteId, 'a_venir']), { timeout: 15_000 }).toContain(`${RUN} après coup`);

    // At the bin without network: the screen reopens from the phone, the tally waits there.
    await context.setOffline(true);
    await page.reload();
    await expect(page.getByRole('heading', { level: 1, name: 'Permanences' })).toBeVisible();
    await held.getByRole('button', { name: 'Saisir le bilan' }).click();
    dialog = page.getByRole('dialog', { name: 'Saisir le bilan' });
    await dialog.getByLabel(/Foyers reçus/).fill('14');
    await dialog.getByLabel(/Seaux apportés/).fill('9');
    await expect(dialog.getByText('Kilos : estimés à partir des seaux')).toBeVisible();
    await dialog.getByRole('button', { name: 'Enregistrer' }).click();
    await expect(page.getByText('Bilan enregistré sur le téléphone, il sera envoyé dès le retour du réseau')).toBeVisible();
    await expect(held.getByText('En attente d’envoi')).toBeVisible();
    const queued = await page.evaluate(
      () =>
        new Promise<{ clientId: string; payload: unknown; target: { path: string } }[]>((resolve, reject) => {
          const open = indexedDB.open('compost-offline');
          open.onerror = () => reject(open.error);
          open.onsuccess = () => {
            const read = open.result.transaction('outbox').objectStore('outbox').getAll();
            read.onsuccess = () => resolve(read.result as never);
            read.onerror = () => reject(read.error);
          };
        }),
    );
    expect(queued).toHaveLength(1);

    // The network returns: the tally leaves by itself and the server holds it once.
    await context.setOffline(false);
    await expect
      .poll(async () => (await list()).find((p) => p.titre === `${RUN} après coup`)?.bilan ?? null, { timeout: 60_000 })
      .toMatchObject({ foyers: 14, seaux: 9, kgEstime: true });
    await expect(held.getByText('Foyers reçus : 14')).toBeVisible({ timeout: 30_000 });

    // The same entry sent again (a reply lost on the way) changes nothing.
    const replay = await page.request.put(`/api/${queued[0].target.path}`, { data: { ...(queued[0].payload as object), foyers: 99 } });
    expect(replay.status(), await replay.text()).toBe(200);
    const after = (await list()).filter((p) => p.titre === `${RUN} après coup`);
    expect(after).toHaveLength(1);
    expect(after[0].bilan).toMatchObject({ foyers: 14, seaux: 9, kgEstime: true });
  } finally {
    await context.close();
  }
});
