import fs from 'node:fs';
import { defineConfig } from '@playwright/test';
import { e2ePortOf } from './tests/helpers/e2e-env';

// Debian's Chromium in its headless build (package chromium-headless-shell, same sources and
// version as chromium) when it is installed: the 69 journeys took 376 s and 693 CPU-seconds with
// it against 457 s and 865 with the full browser in headless mode, same machine, same hour, all
// passing on both. Without it, the full browser. CHROMIUM_PATH names another.
const HEADLESS_SHELL = '/usr/bin/chromium-headless-shell';
const chromium = process.env.CHROMIUM_PATH ?? (fs.existsSync(HEADLESS_SHELL) ? HEADLESS_SHELL : '/usr/bin/chromium');

// Two workers run the journey files side by side, each against a server and an embedded
// database of its own (tests/helpers/e2e-test.ts points a worker at its server); the journeys
// of one file run in order in one worker. E2E_WORKERS=1 runs them all one after the other.
const workers = Math.max(1, Number(process.env.E2E_WORKERS ?? 2));

export default defineConfig({
  testDir: 'tests/e2e',
  // On a 2-core machine under load the longest journeys without a timeout of their own took
  // 51 s: twice that, and some room.
  timeout: 120_000,
  expect: { timeout: 10_000 },
  fullyParallel: false,
  workers,
  retries: 0,
  reporter: process.env.CI ? 'list' : 'list',
  use: {
    // Most journeys need no service worker: registering one makes every new browser context
    // download and cache the whole app again, which cost about a third of the browser's CPU time
    // on a two-core machine. The journeys of the offline behaviour (the phone's cache, the
    // outbox, a reload without signal, the proxy's https) allow it with test.use.
    serviceWorkers: 'block',
    locale: 'fr-FR',
    timezoneId: 'Europe/Paris',
    launchOptions: {
      executablePath: chromium,
      args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
    },
  },
  webServer: Array.from({ length: workers }, (_, i) => ({
    command: 'tsx tests/helpers/e2e-server.ts',
    url: `http://127.0.0.1:${e2ePortOf(i)}/api/app/info/get`,
    reuseExistingServer: false,
    timeout: 120_000,
    stdout: 'pipe' as const,
    env: { E2E_PORT: String(e2ePortOf(i)) },
  })),
});
