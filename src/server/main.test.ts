import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { spawn } from 'node:child_process';
import { afterAll, describe, expect, it } from 'vitest';
import { loadConfig } from './config.js';
import { startServer } from './main.js';
import { DatabaseLockedError } from './db/client.js';

const dirs: string[] = [];
function tempDir() {
  const d = fs.mkdtempSync(path.join(os.tmpdir(), 'compost-main-'));
  dirs.push(d);
  return d;
}
afterAll(() => dirs.forEach((d) => fs.rmSync(d, { recursive: true, force: true })));

describe('server start', () => {
  it('migrates, seeds the first admin once, serves the API and refuses a second process on the same data directory', async () => {
    const dataDir = tempDir();
    const config = loadConfig({ PORT: '0', DATA_DIR: dataDir, ADMIN_LOGIN: 'chef', LOG_LEVEL: 'silent' });
    const first = await startServer(config);
    try {
      expect(first.admin).toMatchObject({ created: true, login: 'chef' });
      expect(first.admin.generatedPassword).toMatch(/^[\w-]{12,}$/);
      const info = await fetch(`${first.url}/api/app/info/get`).then((r) => r.json());
      expect(info.appName).toBe('Compost');
      const login = await fetch(`${first.url}/api/login`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ username: 'chef', password: first.admin.generatedPassword }),
      });
      expect(login.status).toBe(200);
      await expect(startServer(config)).rejects.toBeInstanceOf(DatabaseLockedError);
    } finally {
      await first.close();
    }
    const again = await startServer(config);
    try {
      expect(again.admin.created).toBe(false);
    } finally {
      await again.close();
    }
  });

  it('closes the server and the database cleanly on SIGTERM', async () => {
    const dataDir = tempDir();
    const child = spawn(process.execPath, ['--import', 'tsx', 'src/server/start.ts'], {
      env: { ...process.env, SKIP_BUILD: '1', PORT: '0', DATA_DIR: dataDir, ADMIN_PASSWORD: 'un-mot-de-passe', LOG_LEVEL: 'warn' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => (out += d));
    await new Promise<void>((resolve, reject) => {
      const t = setInterval(() => {
        if (out.includes('Compost est prêt')) {
          clearInterval(t);
          resolve();
        }
        if (child.exitCode !== null) {
          clearInterval(t);
          reject(new Error(out));
        }
      }, 100);
    });
    expect(out).toContain('ADMIN_PASSWORD');
    expect(out).not.toContain('un-mot-de-passe');
    expect(fs.existsSync(path.join(dataDir, 'db', 'compost.lock'))).toBe(true);
    child.kill('SIGTERM');
    const code = await new Promise<number | null>((resolve) => child.on('exit', resolve));
    expect(code).toBe(0);
    expect(fs.existsSync(path.join(dataDir, 'db', 'compost.lock'))).toBe(false);
  });

  it('stops with a clear message on a bad configuration value', async () => {
    const child = spawn(process.execPath, ['--import', 'tsx', 'src/server/start.ts'], {
      env: { ...process.env, SKIP_BUILD: '1', PORT: 'abc', DATA_DIR: tempDir() },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let err = '';
    child.stderr.on('data', (d) => (err += d));
    const code = await new Promise<number | null>((resolve) => child.on('exit', resolve));
    expect(code).toBe(2);
    expect(err).toContain('Configuration invalide');
    expect(err).toContain('PORT');
  });
});
