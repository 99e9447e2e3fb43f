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
          // The server test files share one module graph per worker: each file built the whole
          // app's imports again (2-3 s a file). They mock no module, and every file opens its own
          // database and app; a module-level value a test changes is put back in its finally.
          isolate: false,
          // Twice the slowest test without a timeout of its own on a loaded 2-core machine (29 s).
          testTimeout: 60000,
          hookTimeout: 60000,
        },
      },
      {
        extends: true,
        test: {
          name: 'web',
          environment: './tests/helpers/web-environment.ts',
          include: ['src/web/**/*.test.{ts,tsx}'],
          // Each screen file runs in a worker thread of its own rather than a child process:
          // the same isolation, without a process to start per file (50 files alone: 169 s and
          // 302 CPU-s, against 177 s and 322 CPU-s with processes, on a two-core machine).
          pool: 'threads',
          // The files of a worker share one page and one set of modules: each file imported the
          // screens' modules again and set up a page of its own (50 files: 166 s and 301 CPU-s
          // isolated, 89-110 s and 152 CPU-s shared, same machine and hour). What a page keeps
          // for its lifetime is put back between files (tests/helpers/web-setup.ts). A module
          // another file may have loaded is not mocked but spied on (vi.spyOn on the shared API
          // client); the one module mock, the photos' resizing, is of a module only its file
          // loads. The files pass in any order (--sequence.shuffle.files, six seeds).
          isolate: false,
          // The libraries the screens import, each bundled once into a single file (in
          // node_modules/.vite) rather than read module by module in every worker: Mantine alone
          // is hundreds of files. The 50 files: 150-179 s and 271-328 CPU-s, against 177-196 s and
          // 325-362 CPU-s (setup and import of the files: 45-50 s instead of 91-102 s, summed).
          // Leaflet stays out: bundled apart from the map's own copy, its bounds fail to compare.
          deps: {
            optimizer: {
              client: {
                enabled: true,
                include: [
                  '@mantine/charts',
                  '@mantine/core',
                  '@mantine/dates',
                  '@mantine/form',
                  '@mantine/hooks',
                  '@mantine/modals',
                  '@mantine/notifications',
                  '@tabler/icons-react',
                  '@tanstack/query-async-storage-persister',
                  '@tanstack/react-query',
                  '@tanstack/react-query-persist-client',
                  '@testing-library/react',
                  '@testing-library/user-event',
                  'dayjs',
                  'dayjs/locale/fr',
                  'dexie',
                  'ky',
                  'mantine-datatable',
                  'qrcode',
                  'react',
                  'react-dom',
                  'react-dom/client',
                  'react/jsx-runtime',
                  'react-router',
                  'zod',
                  'zustand',
                ],
              },
            },
          },
          setupFiles: ['tests/helpers/web-setup.ts'],
          testTimeout: 20000,
        },
      },
    ],
  },
});
