// Logging in during a Playwright journey: through the login form (a page), through the API (a
// request context), and a French desktop or phone browser already logged in. The accounts are
// the e2e administrator (E2E_ADMIN) and the demo programme's people the e2e server seeds.
import { expect, request, type APIRequestContext, type Browser, type BrowserContextOptions, type Page } from '@playwright/test';
import { E2E_ADMIN } from './e2e-env';

export interface Credentials {
  login: string;
  password: string;
}

/** The e2e administrator (ROLE_ADMIN), created at the e2e server's first start. */
export const ADMIN: Credentials = { login: E2E_ADMIN.login, password: E2E_ADMIN.password };
/** The first demo referent (ROLE_USER). */
export const REFERENT: Credentials = { login: 'referent1@demo.compost.fr', password: 'demo-compost' };
/** The demo provider (ROLE_PRESTATAIRE). */
export const PROVIDER: Credentials = { login: 'prestataire@demo.compost.fr', password: 'demo-compost' };

/** Fills and sends the login form, without waiting for what it answers. */
export async function submitLogin(page: Page, who: Credentials) {
  await page.goto('/login');
  await page.getByLabel('Identifiant ou adresse mail').fill(who.login);
  await page.getByLabel('Mot de passe').fill(who.password);
  await page.getByRole('button', { name: 'Connexion' }).click();
}

/** Logs in through the login form and waits for the landing screen (any /admin/ page unless `landing` says which). */
export async function logIn(page: Page, who: Credentials = REFERENT, landing: RegExp = /\/admin\//) {
  await submitLogin(page, who);
  await expect(page).toHaveURL(landing);
}

/** Logs the e2e administrator in through the login form. */
export const logInAsAdmin = (page: Page, landing?: RegExp) => logIn(page, ADMIN, landing);

/** Logs a request context in through the API (its cookie is kept for the next calls). */
export async function apiLogIn(api: APIRequestContext, who: Credentials) {
  const res = await api.post('/api/login', { data: { username: who.login, password: who.password } });
  expect(res.status(), await res.text()).toBe(200);
}

/** A new request context on the server under test, logged in as `who`; dispose of it at the end. */
export async function apiContextAs(baseURL: string, who: Credentials): Promise<APIRequestContext> {
  const api = await request.newContext({ baseURL });
  await apiLogIn(api, who);
  return api;
}

/** A phone of the field: 390 px wide, touch. */
export const PHONE: BrowserContextOptions = { viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true };

/** A new French browser (Paris time) logged in as `who` through the form; `options` adds to it (PHONE). */
export async function loggedBrowser(browser: Browser, who: Credentials, options: BrowserContextOptions = {}) {
  const context = await browser.newContext({ locale: 'fr-FR', timezoneId: 'Europe/Paris', ...options });
  const page = await context.newPage();
  await logIn(page, who);
  return { context, page };
}
