// The README's phone-on-the-LAN mode. A server listening on an address of this
// machine other than loopback, over plain http: the app loads with every asset over http
// (no https upgrade, no HSTS), and the login page shows. Such a page is not a secure context:
// no service worker, so no offline mode; the field screens say so, and an entry that cannot
// reach the server is not kept (nor said to be) on the phone.
import os from 'node:os';
import path from 'node:path';
import fs from 'node:fs';
import { spawn, type ChildProcess } from 'node:child_process';
import { expect, test } from '../helpers/e2e-test';
import { REFERENT, phoneCellLabel, queuedOwners, type SiteInfos } from '../helpers/e2e-field';
import { emptyDataDir } from '../helpers/data-dir';

// The service worker is part of what these journeys check (playwright.config.ts blocks it elsewhere).
test.use({ serviceWorkers: 'allow' });

const PORT = 3205;

/** The first IPv4 address of this machine that is not loopback. */
function lanAddress(): string | undefined {
  for (const list of Object.values(os.networkInterfaces())) {
    for (const a of list ?? []) if (a.family === 'IPv4' && !a.internal) return a.address;
  }
  return undefined;
}

const host = lanAddress();
let server: ChildProcess | undefined;
let dataDir: string;

test.beforeAll(async () => {
  expect(host, 'this machine needs a network address other than loopback').toBeTruthy();
  dataDir = await emptyDataDir('compost-plain-http-');
  const webDir = path.resolve(process.env.E2E_WEB_DIR ?? 'dist');
  // The real start (config from the environment, migrations, seed, web app), on HOST.
  const script = `
    const { loadConfig } = await import('./src/server/config.ts');
    const { startServer } = await import('./src/server/main.ts');
    const server = await startServer(loadConfig(), { webDir: ${JSON.stringify(webDir)} });
    console.log('listening ' + server.url);
    process.once('SIGTERM', () => server.close().then(() => process.exit(0)));`;
  server = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
    // The demo programme gives a referent with sites and cells.
    env: { ...process.env, HOST: host, PORT: String(PORT), DATA_DIR: dataDir, DATABASE_URL: '', PUBLIC_URL: '', ADMIN_PASSWORD: 'admin-e2e-motdepasse', LOG_LEVEL: 'warn', DEMO_DATA: '1' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  server.stdout!.on('data', (d) => (out += d));
  server.stderr!.on('data', (d) => (out += d));
  await new Promise<void>((resolve, reject) => {
    const t = setInterval(() => {
      if (out.includes('listening')) {
        clearInterval(t);
        resolve();
      } else if (server!.exitCode !== null) {
        clearInterval(t);
        reject(new Error(out));
      }
    }, 100);
  });
});

test.afterAll(async () => {
  if (server && server.exitCode === null) {
    const exited = new Promise((resolve) => server!.once('exit', resolve));
    server.kill('SIGTERM');
    await exited;
  }
  if (dataDir) fs.rmSync(dataDir, { recursive: true, force: true });
});

test('over plain http on a LAN address, the app loads its assets over http and shows the login page', async ({ page }) => {
  const origin = `http://${host}:${PORT}`;
  const requested: string[] = [];
  const failed: string[] = [];
  page.on('request', (r) => requested.push(r.url()));
  page.on('requestfailed', (r) => failed.push(`${r.url()} ${r.failure()?.errorText}`));

  const res = await page.goto(`${origin}/login`);
  expect(res!.status()).toBe(200);
  const headers = res!.headers();
  expect(headers['strict-transport-security']).toBeUndefined();
  expect(headers['content-security-policy']).not.toContain('upgrade-insecure-requests');

  await expect(page.getByLabel('Identifiant ou adresse mail')).toBeVisible();
  await expect(page.getByRole('button', { name: 'Connexion' })).toBeVisible();
  expect(page.url()).toBe(`${origin}/login`);

  // Scripts and styles came from this server over http; nothing was sent to https.
  const assets = requested.filter((u) => u.includes('/assets/'));
  expect(assets.some((u) => u.endsWith('.js'))).toBe(true);
  expect(assets.some((u) => u.endsWith('.css'))).toBe(true);
  expect(requested.filter((u) => u.startsWith('https:'))).toEqual([]);
  expect(failed).toEqual([]);

  const api = await page.request.get(`${origin}/api/health`);
  expect(api.status()).toBe(200);
  expect(api.headers()['cache-control']).toBe('no-store');
  expect(api.headers()['strict-transport-security']).toBeUndefined();
});

test.describe('on a phone over plain http', () => {
  test.use({ viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true });

  test('the field screens say the offline mode is off and why, and keep nothing they could not send', async ({ page, context }) => {
    test.setTimeout(120_000);
    const origin = `http://${host}:${PORT}`;
    const OFF = 'Mode hors ligne indisponible : cette adresse n’est pas sécurisée (https). Les saisies ne seront pas gardées sans réseau.';
    await page.goto(`${origin}/login`);
    await page.getByLabel('Identifiant ou adresse mail').fill(REFERENT.login);
    await page.getByLabel('Mot de passe').fill(REFERENT.password);
    await page.getByRole('button', { name: 'Connexion' }).click();
    await expect(page).toHaveURL(/\/admin\/choix\/site$/);
    // Not a secure context: the browser offers no service worker.
    expect(await page.evaluate(() => [window.isSecureContext, 'serviceWorker' in navigator])).toEqual([false, false]);
    await expect(page.getByText(OFF)).toBeVisible();
    await expect(page.getByText(/Vos sites sont disponibles hors ligne/)).toHaveCount(0);

    const [first] = (await (await page.request.get(`${origin}/api/admin/site/get/all/actif`)).json()) as { id: number }[];
    const site = (await (await page.request.get(`${origin}/api/admin/site/get/infos/pour/intervention/${first.id}`)).json()) as SiteInfos;
    await page.goto(`${origin}/admin/fiche/site/${site.id}`);
    await expect(page.getByRole('heading', { name: 'Gérer' })).toBeVisible();
    await expect(page.getByText(OFF)).toBeVisible();
    const marker = `e2e-plain-http-${Date.now().toString(36)}`;
    const block = page.getByRole('group', { name: 'Action 1' });
    await block.getByRole('combobox', { name: /Choix de la cellule/ }).selectOption({ label: phoneCellLabel(site, 1) });
    await block.getByRole('combobox', { name: /Quelle action/ }).selectOption({ label: 'Retournement' });
    await block.getByLabel(/Observations/).fill(marker);

    // No network: nothing is promised, nothing is kept, the entry stays in the form.
    await context.setOffline(true);
    await expect(page.getByText(/Sur cette adresse, les saisies ne peuvent pas être gardées sur le téléphone/)).toBeVisible();
    await page.getByRole('button', { name: 'Enregistrer' }).click();
    await expect(page.getByText('Intervention non enregistrée : pas de réseau')).toBeVisible();
    await expect(page.getByText(/enregistrée sur le téléphone/)).toHaveCount(0);
    expect(await queuedOwners(page)).toEqual([]);
    await expect(block.getByLabel(/Observations/)).toHaveValue(marker);
    await expect(page).toHaveURL(new RegExp(`/admin/fiche/site/${site.id}$`));

    // The network is back: the same entry is saved, once.
    await context.setOffline(false);
    await page.getByRole('button', { name: 'Enregistrer' }).click();
    await expect(page.getByText('Intervention(s) ajouté(s)')).toBeVisible({ timeout: 30_000 });
    await expect(page).toHaveURL(/\/admin\/choix\/site$/);
    const rows = (await (await page.request.get(`${origin}/api/intervention/get/list/by/site/${site.id}?rowsPerPage=100`)).json()) as { interventions: { observations: string | null }[] };
    expect(rows.interventions.filter((r) => r.observations === marker)).toHaveLength(1);
  });
});
