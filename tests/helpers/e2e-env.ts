// Shared by the e2e server and the Playwright journeys.
import os from 'node:os';
import path from 'node:path';

export const E2E_ADMIN = { login: 'admin', password: 'admin-e2e-motdepasse', email: 'admin@compost.test' };

export function e2eDataDir(port = Number(process.env.E2E_PORT ?? 3100)) {
  return path.join(os.tmpdir(), `compost-e2e-${port}`);
}
