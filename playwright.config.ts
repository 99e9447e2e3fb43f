import { defineConfig } from '@playwright/test';
import { e2ePortOf } from './tests/helpers/e2e-env';

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
      executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
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
