// Administration on a 390 px phone: the rows of the admin tables read as cards with their
// buttons beside their first values (nothing 1,000 px away to the right), and a form dialog
// refused for empty fields takes the user to the first field to correct, the count of fields
// to correct beside 'Enregistrer'.
import type { Locator, Page } from '@playwright/test';
import { expect, test } from '../helpers/e2e-test';
import { ADMIN, PHONE, loggedBrowser } from '../helpers/e2e-login';

const inView = async (page: Page, target: Locator) => {
  const box = (await target.boundingBox())!;
  const width = page.viewportSize()!.width;
  expect(box.x).toBeGreaterThanOrEqual(0);
  expect(box.x + box.width).toBeLessThanOrEqual(width);
  return box;
};

test('the users and rules tables show their rows as cards, buttons within reach', async ({ browser }) => {
  const { context, page } = await loggedBrowser(browser, ADMIN, PHONE);
  try {
    await page.goto('/admin/user');
    const row = page.getByRole('table', { name: 'Utilisateurs' }).getByRole('row').nth(1);
    const action = row.getByRole('button', { name: /^Modifier le type de / });
    await expect(action).toBeVisible();
    const date = row.getByRole('cell').first();
    const [actionBox, dateBox] = [await inView(page, action), await inView(page, date)];
    // The row's buttons and its first value are a glance apart, not a scroll apart.
    expect(Math.abs(actionBox.y - dateBox.y)).toBeLessThan(120);
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);

    await page.goto('/admin/demande/regles');
    const rule = page.getByRole('button', { name: /^Modifier la règle / }).first();
    await expect(rule).toBeVisible();
    await inView(page, rule);
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
  } finally {
    await context.close();
  }
});

test("an empty 'Ajouter un site' goes to its first field to correct and counts them beside the button", async ({ browser }) => {
  const { context, page } = await loggedBrowser(browser, ADMIN, PHONE);
  try {
    await page.goto('/admin/site');
    await page.getByRole('button', { name: 'Ajouter un site' }).click();
    const dialog = page.getByRole('dialog', { name: 'Ajouter un site' });
    const save = dialog.getByRole('button', { name: 'Enregistrer' });
    await save.scrollIntoViewIfNeeded();
    await save.click();
    const focused = page.locator(':focus');
    await expect(focused).toHaveAttribute('aria-invalid', 'true');
    await expect(focused).toBeInViewport();
    const summary = dialog.getByRole('button', { name: /^\d+ champs? à corriger$/ });
    await expect(summary).toBeVisible();
    // Beside the button: on its line, or just above it where the phone's width wraps the footer.
    const [s, b] = [(await summary.boundingBox())!, (await save.boundingBox())!];
    expect(b.y + b.height - s.y).toBeLessThan(3 * b.height);
    expect(s.y + s.height).toBeGreaterThan(b.y - 2 * b.height);
  } finally {
    await context.close();
  }
});
