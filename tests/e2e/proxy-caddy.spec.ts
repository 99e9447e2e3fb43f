// The deployment recipe of docs/deploy.md, for real: a server started with PUBLIC_URL set
// to Caddy's https address and TRUST_PROXY=127.0.0.1, behind Caddy running deploy/Caddyfile
// (with `tls internal` for 127.0.0.1: Caddy is its own CA). Through Caddy a referent logs in,
// gets a Secure session cookie, the service worker registers over https, and an entry
// recorded offline reaches the server. The login limits count the client Caddy saw, not
// Caddy's own loopback address, and an X-Forwarded-For the client makes up is not believed.
// Chromium trusts exactly Caddy's CA for this browser (--ignore-certificate-errors-spki-list
// with the keys of its root and intermediate): the page is then a secure context without
// certificate error, which the service worker needs.
import https from 'node:https';
import { chromium, type Browser, type Page } from '@playwright/test';
import { expect, test } from '../helpers/e2e-test';
import { QUEUED, REFERENT, logIn, phoneCellLabel, queuedOwners, waitUntilReadyOffline, type SiteInfos } from '../helpers/e2e-field';
import { PROVIDER } from '../helpers/e2e-login';
import { CADDY_BIN, caddyMissing, startBehindCaddy, type ProxiedCompost } from '../helpers/e2e-caddy';

// The service worker is part of what these journeys check (playwright.config.ts blocks it elsewhere).
test.use({ serviceWorkers: 'allow' });

test.skip(caddyMissing, `Caddy is not installed (${CADDY_BIN}): apt-get install caddy, or set CADDY_PATH, to run the journey behind a reverse proxy`);

let proxied: ProxiedCompost;
let browser: Browser | undefined;

// Playwright reads a hook's fixtures from its first parameter, which must be a pattern.
// eslint-disable-next-line no-empty-pattern
test.beforeAll(async ({}, testInfo) => {
  test.setTimeout(120_000);
  proxied = await startBehindCaddy({ TRUST_PROXY: '127.0.0.1' });
  const launch = testInfo.project.use.launchOptions ?? {};
  browser = await chromium.launch({ ...launch, args: [...(launch.args ?? []), `--ignore-certificate-errors-spki-list=${proxied.caSpki.join(',')}`] });
});

test.afterAll(async () => {
  await browser?.close();
  await proxied?.stop();
});

const RUN = `e2e-caddy-${Date.now().toString(36)}`;

/**
 * A GET of the API by the page itself: Playwright's own request client (page.request) runs in
 * Node, which does not trust Caddy's CA, and the browser alone should prove that it does.
 */
async function inPage<T>(page: Page, url: string): Promise<T> {
  const { status, body } = await page.evaluate(async (u) => {
    const r = await fetch(u);
    return { status: r.status, body: await r.text() };
  }, url);
  expect(status, body).toBe(200);
  return JSON.parse(body) as T;
}

async function recordOffline(page: Page, site: SiteInfos) {
  await page.goto('/admin/choix/site');
  await page.getByRole('combobox', { name: 'Site' }).click();
  await page.getByRole('option', { name: new RegExp(`^${site.code} - `) }).click();
  const group = page.getByRole('group', { name: 'Action 1' });
  await group.getByRole('combobox', { name: /Choix de la cellule/ }).selectOption({ label: phoneCellLabel(site, 1) });
  await group.getByRole('combobox', { name: /Quelle action/ }).selectOption({ label: 'Retournement' });
  await group.getByLabel(/Observations/).fill(RUN);
  await page.getByRole('button', { name: 'Enregistrer' }).click();
  await expect(page.getByText(QUEUED).first()).toBeVisible();
}

test('through Caddy over https: Secure session cookie, service worker, an offline entry sent once', async () => {
  test.setTimeout(180_000);
  const context = await browser!.newContext({ baseURL: proxied.url, locale: 'fr-FR', timezoneId: 'Europe/Paris' });
  const page = await context.newPage();
  try {
    const loginAnswer = page.waitForResponse((r) => r.url().endsWith('/api/login'));
    await logIn(page, REFERENT);
    expect((await (await loginAnswer).allHeaders())['set-cookie']).toMatch(/;\s*Secure/i);
    const cookies = await context.cookies(proxied.url);
    expect(cookies.length).toBeGreaterThan(0);
    for (const c of cookies) expect({ name: c.name, secure: c.secure, httpOnly: c.httpOnly }).toEqual({ name: c.name, secure: true, httpOnly: true });
    // PUBLIC_URL is https: HSTS on the pages Caddy passes on.
    const shell = await page.goto('/admin/choix/site');
    expect(shell!.headers()['strict-transport-security']).toMatch(/max-age=\d+/);
    const sites = await inPage<{ id: number }[]>(page, '/api/admin/site/get/all/actif');
    const site = await inPage<SiteInfos>(page, `/api/admin/site/get/infos/pour/intervention/${sites[0].id}`);
    expect(await page.evaluate(() => window.isSecureContext && location.protocol)).toBe('https:');
    await waitUntilReadyOffline(page);
    expect(await page.evaluate(async () => (await navigator.serviceWorker.getRegistration())?.active?.scriptURL)).toMatch(new RegExp(`^${proxied.url}/`));

    await context.setOffline(true);
    await page.reload();
    await recordOffline(page, site);
    expect(await queuedOwners(page)).toHaveLength(1);
    await context.setOffline(false);
    await expect.poll(() => queuedOwners(page), { timeout: 30_000 }).toHaveLength(0);
    const { interventions: rows } = await inPage<{ interventions: { observations: string | null }[] }>(
      page,
      `/api/intervention/get/list/by/site/${site.id}?rowsPerPage=100&sort[name]=date&sort[direction]=desc`,
    );
    expect(rows.filter((r) => r.observations === RUN)).toHaveLength(1);
  } finally {
    await context.close();
  }
});

/** A wrong-password login sent to Caddy from local address `from`, with an X-Forwarded-For of the client's own. */
function failedLogin(from: string, forwardedFor?: string): Promise<{ status: number; body: string }> {
  const body = JSON.stringify({ username: PROVIDER.login, password: 'pas-le-bon-mot-de-passe' });
  return new Promise((resolve, reject) => {
    const req = https.request(
      `${proxied.url}/api/login`,
      {
        method: 'POST',
        localAddress: from,
        ca: proxied.rootCa,
        agent: false,
        headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body), ...(forwardedFor ? { 'x-forwarded-for': forwardedFor } : {}) },
      },
      (res) => {
        let text = '';
        res.on('data', (d: Buffer) => (text += d.toString()));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text }));
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

test('the login limit counts the client address Caddy forwards, and ignores one the client makes up', async () => {
  // Linux routes all of 127.0.0.0/8 to loopback: two "clients" at 127.0.0.2 and 127.0.0.3 reach
  // Caddy at 127.0.0.1, and Caddy reaches the server from 127.0.0.1.
  for (let i = 1; i <= 10; i++) {
    // Each claims to be someone else: Caddy puts the address it sees in X-Forwarded-For, and the
    // server believes only Caddy's hop, so every try counts for 127.0.0.2.
    const r = await failedLogin('127.0.0.2', `198.51.100.${i}`);
    expect(r.status, r.body).toBe(400);
  }
  const refused = await failedLogin('127.0.0.2', '198.51.100.99');
  expect(refused.status, refused.body).toBe(429);
  expect(JSON.parse(refused.body).message).toBe('Trop de tentatives. Veuillez réessayer dans quelques minutes.');
  // Another client, even one claiming to be the refused address, has its own count.
  const other = await failedLogin('127.0.0.3', '127.0.0.2');
  expect(other.status, other.body).toBe(400);
});
