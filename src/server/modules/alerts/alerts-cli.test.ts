// `npm run alerts` (src/server/cli/alerts.ts) the way a system cron runs it: on the database of
// DATA_DIR, once, printing what it did.
import fs from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import { runCliProcess } from '../../../../tests/helpers/cli-process.js';
import { emptyDataDir } from '../../../../tests/helpers/data-dir.js';

const dirs: string[] = [];
afterAll(() => dirs.forEach((d) => fs.rmSync(d, { recursive: true, force: true })));

const run = (args: string[], dataDir: string) => runCliProcess('alerts', args, { DATA_DIR: dataDir });

describe('npm run alerts', { timeout: 180_000 }, () => {
  it('computes the alerts once on the database of DATA_DIR and says what it did, and refuses arguments', async () => {
    const dataDir = await emptyDataDir('compost-alerts-cli-', dirs);
    const done = await run([], dataDir);
    expect(done.stderr).toBe('');
    expect(done.code).toBe(0);
    expect(done.stdout.trim()).toBe('Alertes calculées : 0 ouverte, 0 fermée, 0 e-mail envoyé.');
    const refused = await run(['--now'], dataDir);
    expect(refused.code).toBe(1);
    expect(refused.stderr.trim()).toBe('Usage : npm run alerts');
  });
});
