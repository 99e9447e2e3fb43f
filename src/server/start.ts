// `npm start`: builds the web app when the build is missing or older than its sources,
// then starts the server (migrations, seed, PWA and /api on one port).
import fs from 'node:fs';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import { runMain } from './main.js';

const root = process.cwd();
const dist = path.join(root, 'dist');

function newestMtime(p: string): number {
  if (!fs.existsSync(p)) return 0;
  const st = fs.statSync(p);
  if (!st.isDirectory()) return st.mtimeMs;
  let max = 0;
  for (const entry of fs.readdirSync(p)) max = Math.max(max, newestMtime(path.join(p, entry)));
  return max;
}

function buildNeeded(): boolean {
  const builtAt = newestMtime(path.join(dist, 'index.html'));
  if (!builtAt) return true;
  const sources = ['src/web', 'src/shared', 'public', 'index.html', 'vite.config.ts', 'package-lock.json'];
  return sources.some((s) => newestMtime(path.join(root, s)) > builtAt);
}

if (process.env.SKIP_BUILD !== '1' && buildNeeded()) {
  console.log('Construction de l’application web…');
  const res = spawnSync(process.execPath, [path.join(root, 'node_modules', 'vite', 'bin', 'vite.js'), 'build'], { stdio: 'inherit' });
  if (res.status !== 0) {
    console.error('La construction de l’application web a échoué.');
    process.exit(1);
  }
}

await runMain({ webDir: dist });
