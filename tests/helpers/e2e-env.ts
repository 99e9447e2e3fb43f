// Shared by the e2e servers and the Playwright journeys.
import os from 'node:os';
import path from 'node:path';

export const E2E_ADMIN = { login: 'admin', password: 'admin-e2e-motdepasse', email: 'admin@compost.test' };

/** The first e2e server's port; worker i's server listens on the i-th port after it. */
export const E2E_BASE_PORT = Number(process.env.E2E_PORT ?? 3100);

export function e2ePortOf(workerIndex: number): number {
  return E2E_BASE_PORT + workerIndex;
}

export function e2eDataDir(port = E2E_BASE_PORT) {
  return path.join(os.tmpdir(), `compost-e2e-${port}`);
}
