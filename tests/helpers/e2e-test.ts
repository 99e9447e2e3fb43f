// The journeys' `test`: Playwright's own, with each worker pointed at a server of its own.
// playwright.config.ts starts one e2e server per worker (ports E2E_PORT, E2E_PORT + 1, ...),
// each on its own embedded database and mail directory, so journeys running side by side
// never see each other's accounts, requests or mails, and a journey sees what it would see
// if the journeys ran one after the other on one server.
import { test as base } from '@playwright/test';
import { e2eDataDir, e2ePortOf } from './e2e-env.js';

/** The port of the server this worker's journeys talk to. */
export function e2ePort(): number {
  return e2ePortOf(base.info().parallelIndex);
}

/** The data directory (database, mail) of this worker's server. */
export function e2eWorkerDataDir(): string {
  return e2eDataDir(e2ePort());
}

export const test = base.extend({
  // Playwright reads a fixture's dependencies from its first parameter, which must be a pattern.
  // eslint-disable-next-line no-empty-pattern
  baseURL: async ({}, use, testInfo) => {
    await use(`http://127.0.0.1:${e2ePortOf(testInfo.parallelIndex)}`);
  },
});

export { expect } from '@playwright/test';
