// @vitest-environment node
// The import rules of the web zones are lint rules (eslint.config.js); these tests run the
// project's own ESLint configuration on sample imports, so a rule that is dropped or loosened
// fails here and not only in a review.
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { ESLint } from 'eslint';
import { beforeAll, describe, expect, it } from 'vitest';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
let eslint: ESLint;

beforeAll(() => {
  eslint = new ESLint({ cwd: root });
}, 60_000);

/** The import rules' messages for `code` linted as if it were the file at `file`. */
async function importErrors(file: string, code: string) {
  const [result] = await eslint.lintText(code, { filePath: path.join(root, file) });
  return result.messages
    .filter((m) => m.ruleId === 'no-restricted-imports' || m.ruleId === 'no-restricted-syntax')
    .map((m) => ({ line: m.line, rule: m.ruleId, message: m.message }));
}

const MODULE_FILE = 'src/web/modules/yearly-report/sample.ts';
const NOT_PUBLIC = "a module imports another module only through that module's public.ts";
const NO_APP = 'a module never imports app/';

describe('a module', () => {
  it('never imports the shell', async () => {
    const errors = await importErrors(MODULE_FILE, "import { createAppRouter } from '../../app/router';\nexport const a = createAppRouter;\n");
    expect(errors).toHaveLength(1);
    expect(errors[0]).toMatchObject({ line: 1, rule: 'no-restricted-imports' });
    expect(errors[0].message).toContain(NO_APP);
  });

  it("reaches another module only through its public.ts, in both path forms and in a lazy import", async () => {
    const code = [
      "import { requestsKeys } from '../requests/requests.api';",
      "import { yearsQuery } from '../../modules/statistics/statistics.api';",
      "import type { ActiveSite } from '../field-entry/site-sheet-form';",
      "export const lazyPage = () => import('../requests/requests-page');",
      'export const used: unknown[] = [requestsKeys, yearsQuery, {} as ActiveSite];',
    ].join('\n');
    const errors = await importErrors(MODULE_FILE, code);
    expect(errors.map((e) => [e.line, e.rule])).toEqual([
      [1, 'no-restricted-imports'],
      [2, 'no-restricted-imports'],
      [3, 'no-restricted-imports'],
      [4, 'no-restricted-syntax'],
    ]);
    for (const e of errors) expect(e.message).toContain(NOT_PUBLIC);
  });

  it('refuses a lazy import of the shell too', async () => {
    const errors = await importErrors(MODULE_FILE, "export const lazyShell = () => import('../../app/router');\n");
    expect(errors).toHaveLength(1);
    expect(errors[0]).toMatchObject({ line: 1, rule: 'no-restricted-syntax' });
    expect(errors[0].message).toContain(NO_APP);
  });

  it('still never imports server code', async () => {
    const errors = await importErrors(MODULE_FILE, "import { createApp } from '../../../server/app';\nexport const a = createApp;\n");
    expect(errors).toHaveLength(1);
    expect(errors[0].message).toContain('web never imports server code');
  });

  it('may import public.ts files, its own files and the shared zones', async () => {
    const code = [
      "import { requestsKeys } from '../requests/public';",
      "import { yearsQuery } from '../../modules/statistics/public';",
      "import { yearlyReportQuery } from './yearly-report.api';",
      "import { useSessionStore } from '../../session/session-store';",
      "import { api } from '../../lib/api';",
      "import { PageMessage } from '../../components/page-message';",
      "import { openOfflineDb } from '../../offline/store';",
      "import type { Logged } from '../../../shared/schemas/account';",
      "export const lazyPanel = () => import('../public-sites/public');",
      'export const used: unknown[] = [requestsKeys, yearsQuery, yearlyReportQuery, useSessionStore, api, PageMessage, openOfflineDb, {} as Logged];',
    ].join('\n');
    expect(await importErrors(MODULE_FILE, code)).toEqual([]);
  });
});

describe('the shared zones', () => {
  it.each(['src/web/lib/sample.ts', 'src/web/components/sample.tsx', 'src/web/offline/sample.ts', 'src/web/session/sample.ts'])(
    '%s imports neither the shell nor a module',
    async (file) => {
      const code = [
        "import { createAppRouter } from '../app/router';",
        "import { yearsQuery } from '../modules/statistics/public';",
        "export const lazyPage = () => import('../modules/requests/requests-page');",
        'export const used: unknown[] = [createAppRouter, yearsQuery];',
      ].join('\n');
      const errors = await importErrors(file, code);
      expect(errors.map((e) => [e.line, e.rule])).toEqual([
        [1, 'no-restricted-imports'],
        [2, 'no-restricted-imports'],
        [3, 'no-restricted-syntax'],
      ]);
    },
  );
});
