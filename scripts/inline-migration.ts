// Rewrites migrations as one SQL literal: the file's leading comment lines, then `up` exactly as
// its code produces it now (no import, no generator). A migration is frozen that way before its
// hash is pinned (src/server/db/migrations/README.md). Usage: npx tsx scripts/inline-migration.ts 028 [029...]
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const dir = fileURLToPath(new URL('../src/server/db/migrations/', import.meta.url));
const escape = (sql: string) => sql.replaceAll('\\', '\\\\').replaceAll('`', '\\`').replaceAll('${', '\\${');
// Every `up` is computed before any file is written: one migration's code may import another's.
const rendered: { file: string; text: string }[] = [];
for (const id of process.argv.slice(2)) {
  const name = fs.readdirSync(dir).find((f) => f.startsWith(`${id.padStart(3, '0')}-`) && f.endsWith('.ts'));
  if (!name) throw new Error(`No migration ${id} in ${dir}`);
  const file = path.join(dir, name);
  const { up } = (await import(pathToFileURL(file).href)) as { up: string };
  const lines = fs.readFileSync(file, 'utf8').split('\n');
  const comments = lines.slice(0, lines.findIndex((l) => !l.startsWith('//'))).map((l) => `${l}\n`).join('');
  rendered.push({ file, text: `${comments}${comments ? '\n' : ''}export const up = \`${escape(up)}\`;\n` });
}
for (const r of rendered) {
  fs.writeFileSync(r.file, r.text);
  console.log(`Inlined ${path.relative(process.cwd(), r.file)}`);
}
