// `npm run import` as an operator runs it on the embedded database of DATA_DIR: a dry run that
// writes nothing, then --apply, then the same file again changing nothing; an unknown file and
// a programme without an administrator refused with a French message.
import fs from 'node:fs';
import path from 'node:path';
import { text } from 'node:stream/consumers';
import { afterAll, describe, expect, it } from 'vitest';
import { openDatabase } from '../../db/client.js';
import { migrate } from '../../db/migrate.js';
import { seedCities } from '../../db/seed.js';
import { createAccount } from '../../../../tests/helpers/test-app.js';
import { templateCsv } from './import-templates.js';
import { runCliProcess } from '../../../../tests/helpers/cli-process.js';
import { emptyDataDir } from '../../../../tests/helpers/data-dir.js';

const dirs: string[] = [];
afterAll(() => dirs.forEach((d) => fs.rmSync(d, { recursive: true, force: true })));

const run = (args: string[], dataDir: string) => runCliProcess('import', args, { DATA_DIR: dataDir });

describe('npm run import', { timeout: 180_000 }, () => {
  it('tries a sites file, imports it with --apply, and changes nothing the second time', async () => {
    const dataDir = await emptyDataDir('compost-import-cli-', dirs);
    const file = path.join(dataDir, 'sites.csv');
    const h = await openDatabase({ dataDir });
    try {
      await migrate(h.db);
      await seedCities(h.db, '242900314');
      // The template's own example line is a valid site.
      fs.writeFileSync(file, await text(await templateCsv(h.db, 'sites', false)));
    } finally {
      await h.close();
    }

    const noAdmin = await run(['sites', file], dataDir);
    expect(noAdmin.code).toBe(1);
    expect(noAdmin.stderr).toContain('Aucun administrateur actif : créez-en un avant d’importer.');

    const h2 = await openDatabase({ dataDir });
    await createAccount(h2.db, { roles: ['ROLE_ADMIN'] });
    await h2.close();

    const dry = await run(['sites', file], dataDir);
    // Off a terminal the progress bar prints only its last state.
    expect(dry.stderr.trim()).toBe('Terminé      [##############################] 100 %');
    expect(dry.code).toBe(0);
    expect(dry.stdout).toContain('1 ligne(s) : 1 à créer, 0 à modifier, 0 inchangée(s), 0 erreur(s).');
    expect(dry.stdout).toContain('Essai seulement : relancez avec --apply pour importer.');

    const applied = await run(['sites', file, '--apply'], dataDir);
    expect(applied.code).toBe(0);
    expect(applied.stdout).toContain('1 ligne(s) : 1 créée(s), 0 modifiée(s), 0 inchangée(s), 0 erreur(s).');
    const again = await run(['sites', file, '--apply'], dataDir);
    expect(again.stdout).toContain('1 ligne(s) : 0 créée(s), 0 modifiée(s), 1 inchangée(s), 0 erreur(s).');

    const missing = await run(['sites', path.join(dataDir, 'absent.csv')], dataDir);
    expect(missing.code).toBe(1);
    expect(missing.stderr.trim()).toBe(`Fichier introuvable : ${path.join(dataDir, 'absent.csv')}`);
    const usage = await run(['lieux', file], dataDir);
    expect(usage.code).toBe(1);
    expect(usage.stderr).toContain('Usage : npm run import --');
  });
});
