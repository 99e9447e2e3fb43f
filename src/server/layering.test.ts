// The walls between server modules are lint rules (eslint.config.js), like the web's; these
// tests run the project's own ESLint configuration on sample imports, so a rule that is dropped
// or loosened fails here. The second part reads the import graph of all of src/ and refuses any
// circle, type-only ones included.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { ESLint } from 'eslint';
import { beforeAll, describe, expect, it } from 'vitest';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
let eslint: ESLint;

beforeAll(() => {
  eslint = new ESLint({ cwd: root });
}, 60_000);

async function importErrors(file: string, code: string) {
  const [result] = await eslint.lintText(code, { filePath: path.join(root, file) });
  return result.messages.filter((m) => m.ruleId === 'no-restricted-imports' || m.ruleId === 'no-restricted-syntax').map((m) => ({ line: m.line, message: m.message }));
}

const NOT_PUBLIC = "a server module imports another module only through that module's public.ts";
const NO_MODULE = 'db/ and plugins/ never import a module';

describe('a server module', () => {
  it("reaches another module only through its public.ts, in both path forms and in a lazy import", async () => {
    const code = [
      "import { createPhotosRepository } from '../photos/photos.repository.js';",
      "import { createRequestLifecycle } from '../../modules/requests/request-lifecycle.service.js';",
      "import type { SignalRow } from '../requests/request-lifecycle.repository.js';",
      "export const lazy = () => import('../alerts/alerts.scheduler.js');",
      'export const used: unknown[] = [createPhotosRepository, createRequestLifecycle, {} as SignalRow];',
    ].join('\n');
    const errors = await importErrors('src/server/modules/yearly-report/sample.ts', code);
    expect(errors.map((e) => e.line)).toEqual([1, 2, 3, 4]);
    for (const e of errors) expect(e.message).toContain(NOT_PUBLIC);
  });

  it('may import public.ts files, its own files and the layers below', async () => {
    const code = [
      "import { createPhotosRepository } from '../photos/public.js';",
      "import { createStatisticsRepository } from '../../modules/statistics/public.js';",
      "import { createYearlyReportRepository } from './yearly-report.repository.js';",
      "import type { Db } from '../../db/client.js';",
      "import { HttpError } from '../../errors.js';",
      "import type { CurrentUser } from '../../plugins/auth.js';",
      "import { MESSAGES } from '../../../shared/errors.js';",
      'export const used: unknown[] = [createPhotosRepository, createStatisticsRepository, createYearlyReportRepository, {} as Db, HttpError, {} as CurrentUser, MESSAGES];',
    ].join('\n');
    expect(await importErrors('src/server/modules/yearly-report/sample.ts', code)).toEqual([]);
  });
});

describe('db/ and plugins/', () => {
  it.each(['src/server/db/sample.ts', 'src/server/plugins/sample.ts'])('import no module, not even its public.ts (%s)', async (file) => {
    const code = [
      "import { importStreets } from '../modules/reference/public.js';",
      "import { createSessionsRepository } from '../modules/account/sessions.repository.js';",
      "export const lazy = () => import('../modules/alerts/public.js');",
      'export const used: unknown[] = [importStreets, createSessionsRepository];',
    ].join('\n');
    const errors = await importErrors(file, code);
    expect(errors.map((e) => e.line)).toEqual([1, 2, 3]);
    for (const e of errors) expect(e.message).toContain(NO_MODULE);
  });
});

/** Every .ts/.tsx file of src/ but the tests, with the files it imports (relative imports, types included). */
function importGraph(): Map<string, string[]> {
  const files: string[] = [];
  const walk = (dir: string) => {
    for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
      const p = path.join(dir, e.name);
      if (e.isDirectory()) walk(p);
      else if (/\.tsx?$/.test(e.name) && !/\.test\.tsx?$/.test(e.name)) files.push(p);
    }
  };
  walk(path.join(root, 'src'));
  const known = new Set(files);
  const graph = new Map<string, string[]>();
  for (const f of files) {
    const { importedFiles } = ts.preProcessFile(fs.readFileSync(f, 'utf8'), true, true);
    const deps: string[] = [];
    for (const { fileName } of importedFiles) {
      if (!fileName.startsWith('.')) continue;
      const base = path.resolve(path.dirname(f), fileName).replace(/\.js$/, '');
      const target = [`${base}.ts`, `${base}.tsx`, path.join(base, 'index.ts')].find((c) => known.has(c));
      if (target) deps.push(target);
    }
    graph.set(f, deps);
  }
  return graph;
}

/** The import circles of a graph: its strongly connected components of more than one file, or a file importing itself. */
function circles(graph: Map<string, string[]>): string[][] {
  let next = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  const visit = (v: string) => {
    index.set(v, next);
    low.set(v, next++);
    stack.push(v);
    onStack.add(v);
    for (const w of graph.get(v) ?? []) {
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!));
    }
    if (low.get(v) === index.get(v)) {
      const part: string[] = [];
      let w: string;
      do {
        w = stack.pop()!;
        onStack.delete(w);
        part.push(path.relative(root, w));
      } while (w !== v);
      if (part.length > 1 || (graph.get(v) ?? []).includes(v)) found.push(part.sort());
    }
  };
  for (const v of graph.keys()) if (!index.has(v)) visit(v);
  return found;
}

describe('the import graph of src/', () => {
  it('finds a circle when there is one', () => {
    const g = new Map([
      ['/a', ['/b']],
      ['/b', ['/c']],
      ['/c', ['/a']],
      ['/d', ['/a']],
    ]);
    expect(circles(g)).toHaveLength(1);
    expect(circles(g)[0]).toHaveLength(3);
  });

  it('has no circle, on the server, the web or shared side', () => {
    const graph = importGraph();
    expect(graph.size).toBeGreaterThan(200);
    expect(circles(graph)).toEqual([]);
  });
});
