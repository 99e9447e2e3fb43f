import os from 'node:os';
import { defineConfig } from 'vitest/config';
import react from '@vitejs/plugin-react';

export default defineConfig({
  plugins: [react()],
  test: {
    // Vitest's default is one worker fewer than the cores: one on a 2-core machine. The test
    // files spend much of their time waiting on PostgreSQL and on timers, so one per core
    // (at least two) runs the suite in about half the time.
    maxWorkers: Math.max(2, os.availableParallelism()),
    projects: [
      {
        extends: true,
        test: {
          name: 'server',
          environment: 'node',
          include: ['src/server/**/*.test.ts', 'src/shared/**/*.test.ts'],
          // One migrated database to copy for every test database (tests/helpers/test-app.ts).
          globalSetup: ['tests/helpers/server-global-setup.ts'],
          isolate: false,
          testTimeout: 30000,
          hookTimeout: 60000,
        },
      },
      {
        extends: true,
        test: {
          name: 'web',
          environment: 'jsdom',
          include: ['src/web/**/*.test.{ts,tsx}'],
          setupFiles: ['tests/helpers/web-setup.ts'],
          testTimeout: 20000,
        },
      },
    ],
  },
});
