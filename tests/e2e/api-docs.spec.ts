// The API description page (/api/docs): Swagger UI renders the document generated from the
// route schemas, with its scripts and styles served by this server under the page's own
// content security policy (a refused script or style would leave the page blank or unstyled),
// and it passes the same accessibility checks as the app's screens.
import { expect, test } from '../helpers/e2e-test';
import { expectAccessible } from '../helpers/e2e-axe';

test('the API description page renders every route group from this server alone, without a CSP refusal', async ({ page, baseURL }) => {
  const origin = new URL(baseURL!).origin;
  const violations: string[] = [];
  const foreign: string[] = [];
  page.on('console', (message) => {
    if (/Content Security Policy|Refused to/i.test(message.text())) violations.push(message.text());
  });
  page.on('request', (request) => {
    if (new URL(request.url()).origin !== origin) foreign.push(request.url());
  });

  const response = await page.goto('/api/docs');
  expect(response?.status()).toBe(200);
  expect(response?.headers()['content-security-policy']).toContain("script-src 'self'");

  // The document's title and a few operations, by method and path.
  await expect(page.getByRole('heading', { name: /API Compost/ })).toBeVisible();
  await expectAccessible(page, '/api/docs');
  const requests = page.locator('.opblock-tag-section', { has: page.getByRole('heading', { name: 'requests' }) });
  await requests.getByRole('heading', { name: 'requests' }).click();
  const programmer = page.locator('.opblock', { hasText: '/api/admin/demande/intervention/programmer' });
  await expect(programmer.locator('.opblock-summary-method')).toHaveText('POST');

  // An operation opens with who may call it and its error answers.
  await programmer.locator('.opblock-summary').click();
  await expect(programmer.getByText('Accès : ROLE_ADMIN, ROLE_PRESTATAIRE (permission request.manage).')).toBeVisible();
  for (const code of ['200', '400', '401', '403', '409']) {
    await expect(programmer.locator(`.responses-table tr.response[data-code="${code}"]`)).toHaveCount(1);
  }
  await expectAccessible(page, '/api/docs, une opération ouverte');

  // Swagger UI's own stylesheet applied (an inline or file style refused would leave it unstyled).
  const methodColour = await programmer.locator('.opblock-summary-method').evaluate((el) => getComputedStyle(el).backgroundColor);
  expect(methodColour).not.toBe('rgba(0, 0, 0, 0)');

  expect(violations).toEqual([]);
  expect(foreign).toEqual([]);
});
