// `npm start`: builds the web app when the build is missing or older than its sources,
// then starts the server (migrations, seed, PWA and /api on one port).
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import { runMain, webBuildNeeded } from './main.js';

const root = process.cwd();
const dist = path.join(root, 'dist');

// SKIP_BUILD=1 serves whatever dist/ holds (tests that only need the API).
if (process.env.SKIP_BUILD !== '1' && webBuildNeeded(root, dist)) {
  console.log('Construction de l’application web…');
  const res = spawnSync(process.execPath, [path.join(root, 'node_modules', 'vite', 'bin', 'vite.js'), 'build'], { stdio: 'inherit' });
  if (res.status !== 0) {
    console.error('La construction de l’application web a échoué.');
    process.exit(1);
  }
}

await runMain({ webDir: dist });
