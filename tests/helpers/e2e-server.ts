// The server Playwright starts: a fresh embedded database in a temporary DATA_DIR, the
// built web app (E2E_WEB_DIR, default dist/), e-mails written as .eml files there, and the
// demo programme seeded.
import fs from 'node:fs';
import path from 'node:path';
import { e2eDataDir, E2E_ADMIN } from './e2e-env.js';
import { initialisedCluster } from './data-dir.js';
import { loadConfig } from '../../src/server/config.js';
import { startServer } from '../../src/server/main.js';

const port = Number(process.env.E2E_PORT ?? 3100);
const dataDir = e2eDataDir(port);
fs.rmSync(dataDir, { recursive: true, force: true });
fs.mkdirSync(dataDir, { recursive: true });
// An initialised, empty cluster (data-dir.ts): the start migrates and seeds it as a first start.
fs.cpSync(await initialisedCluster(), path.join(dataDir, 'db'), { recursive: true });

const config = loadConfig({
  PORT: String(port),
  HOST: '127.0.0.1',
  DATA_DIR: dataDir,
  APP_NAME: 'Compost',
  APP_CONTACT: '02 98 33 50 50',
  ADMIN_LOGIN: E2E_ADMIN.login,
  ADMIN_PASSWORD: E2E_ADMIN.password,
  ADMIN_EMAIL: E2E_ADMIN.email,
  // The demo programme gives the field journeys referents with several sites and cells.
  DEMO_DATA: '1',
  LOG_LEVEL: 'warn',
});
const webDir = path.resolve(process.env.E2E_WEB_DIR ?? 'dist');
if (!fs.existsSync(path.join(webDir, 'index.html'))) {
  console.error(`No built web app in ${webDir}: run \`npm run build\` first.`);
  process.exit(1);
}
const server = await startServer(config, { webDir });
console.log(`e2e server on ${server.url}`);
const stop = () => server.close().then(() => process.exit(0));
process.once('SIGTERM', stop);
process.once('SIGINT', stop);
