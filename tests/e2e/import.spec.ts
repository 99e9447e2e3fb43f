// Moving in: an administrator downloads the sites template, uploads a file with one bad line,
// reads the error, fixes the line, imports, and finds the sites in the sites list.
import fs from 'node:fs';
import { expect, test } from '../helpers/e2e-test';
import { logInAsAdmin } from '../helpers/e2e-login';

test('an administrator imports sites: template, one bad line, its error, the fix, the import, the sites list', async ({ page }, testInfo) => {
  const stamp = Date.now().toString(36).toUpperCase();
  await logInAsAdmin(page);
  await page.goto('/admin/import');
  await expect(page.getByRole('heading', { name: 'Import' })).toBeVisible();

  // The template: French header and one example line.
  const download = page.waitForEvent('download');
  await page.getByRole('button', { name: 'Télécharger le modèle' }).click();
  const template = fs.readFileSync(await (await download).path(), 'utf8');
  const [header, example] = template.replace(/^\uFEFF/, '').trim().split('\r\n');
  expect(header.split(';').slice(0, 3)).toEqual(['Code', 'Nom', 'Numéro']);
  const cells = example.split(';');
  const line = (code: string, nom: string, ville = cells[6]) => [code, nom, ...cells.slice(2, 6), ville, ...cells.slice(7, 16), '', cells[17]].join(';');

  const write = (name: string, lines: string[]) => {
    const file = testInfo.outputPath(name);
    fs.writeFileSync(file, '\uFEFF' + [header, ...lines].join('\r\n') + '\r\n');
    return file;
  };
  const bad = write('sites-bad.csv', [line(`IMA${stamp}`, `Import A ${stamp}`), line(`IMB${stamp}`, `Import B ${stamp}`, 'Atlantis')]);
  // Mantine's FileInput is a button over a hidden file input, which takes the file.
  await page.locator('input[type="file"]').setInputFiles(bad);
  await page.getByRole('button', { name: 'Vérifier le fichier' }).click();
  const errors = page.getByRole('table', { name: 'Erreurs du fichier' });
  await expect(errors.getByRole('row', { name: /3 Ville Ville inconnue/ })).toBeVisible();
  await expect(page.getByRole('button', { name: 'Importer' })).toHaveCount(0);

  const good = write('sites-good.csv', [line(`IMA${stamp}`, `Import A ${stamp}`), line(`IMB${stamp}`, `Import B ${stamp}`)]);
  await page.locator('input[type="file"]').setInputFiles(good);
  await page.getByRole('button', { name: 'Vérifier le fichier' }).click();
  await expect(page.getByText('Fichier vérifié')).toBeVisible();
  await page.getByRole('button', { name: 'Importer' }).click();
  await expect(page.getByText('Import terminé')).toBeVisible();
  await expect(page.getByText(/2 ligne\(s\) : 2 créé\(s\)/)).toBeVisible();

  await page.goto('/admin/site');
  await expect(page.getByRole('heading', { name: 'Sites' })).toBeVisible();
  await page.getByRole('button', { name: 'Filtrer la colonne Nom / Code' }).click();
  await page.getByRole('textbox', { name: 'Nom / Code' }).fill(stamp);
  await page.keyboard.press('Enter');
  await expect(page.getByRole('row').filter({ hasText: `Import A ${stamp}` })).toHaveCount(1);
  await expect(page.getByRole('row').filter({ hasText: `Import B ${stamp}` })).toHaveCount(1);
});
