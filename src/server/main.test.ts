import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { spawn, spawnSync } from 'node:child_process';
import { afterAll, describe, expect, it } from 'vitest';
import { loadConfig } from './config.js';
import { firstStartLines, startServer, webBuildNeeded } from './main.js';
import { DatabaseLockedError } from './db/client.js';

const dirs: string[] = [];
function tempDir() {
  const d = fs.mkdtempSync(path.join(os.tmpdir(), 'compost-main-'));
  dirs.push(d);
  return d;
}
afterAll(() => dirs.forEach((d) => fs.rmSync(d, { recursive: true, force: true })));

/** `npm start` without the build step, on its own data directory; output collected as it comes. */
function startProcess(env: NodeJS.ProcessEnv) {
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/server/start.ts'], {
    env: { ...process.env, DATABASE_URL: '', SKIP_BUILD: '1', PORT: '0', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const io = { stdout: '', stderr: '' };
  child.stdout.on('data', (d) => (io.stdout += d));
  child.stderr.on('data', (d) => (io.stderr += d));
  const exited = new Promise<number | null>((resolve) => child.on('exit', resolve));
  const ready = () =>
    new Promise<void>((resolve, reject) => {
      const t = setInterval(() => {
        if (io.stdout.includes('est prêt')) {
          clearInterval(t);
          resolve();
        }
        if (child.exitCode !== null) {
          clearInterval(t);
          reject(new Error(io.stdout + io.stderr));
        }
      }, 50);
    });
  return { child, io, exited, ready };
}

describe('web build freshness', () => {
  it('asks for a build when dist has no index.html or a source is newer, not otherwise', () => {
    const root = tempDir();
    const dist = path.join(root, 'dist');
    fs.mkdirSync(path.join(root, 'src', 'web'), { recursive: true });
    fs.writeFileSync(path.join(root, 'src', 'web', 'main.tsx'), '');
    expect(webBuildNeeded(root, dist)).toBe(true);
    fs.mkdirSync(dist);
    fs.writeFileSync(path.join(dist, 'index.html'), '');
    const past = new Date(Date.now() - 60_000);
    fs.utimesSync(path.join(root, 'src', 'web', 'main.tsx'), past, past);
    expect(webBuildNeeded(root, dist)).toBe(false);
    fs.mkdirSync(path.join(root, 'src', 'shared'));
    fs.writeFileSync(path.join(root, 'src', 'shared', 'permissions.ts'), '');
    const future = new Date(Date.now() + 60_000);
    fs.utimesSync(path.join(root, 'src', 'shared', 'permissions.ts'), future, future);
    expect(webBuildNeeded(root, dist)).toBe(true);
  });
});

describe('console logs', () => {
  const snippet = "import('./src/server/main.ts').then((m) => m.createLogger('info').info({ login: 'chef' }, 'premier administrateur créé'))";

  it('are one JSON object a line when the output is piped', () => {
    const out = spawnSync(process.execPath, ['--import', 'tsx', '-e', snippet], { encoding: 'utf8' }).stdout;
    const line = JSON.parse(out.trim());
    expect(line).toMatchObject({ level: 30, msg: 'premier administrateur créé', login: 'chef' });
  });

  it('are lines a person can read on a terminal', () => {
    // `script` gives the child a terminal as its output.
    const cmd = [process.execPath, '--import', 'tsx', '-e', JSON.stringify(snippet)].join(' ');
    const out = spawnSync('script', ['-qec', cmd, '/dev/null'], { encoding: 'utf8' }).stdout;
    const plain = out.replace(new RegExp(`${String.fromCharCode(27)}\\[[0-9;]*m`, 'g'), '');
    expect(plain).toMatch(/\[\d{2}:\d{2}:\d{2}\] INFO: premier administrateur créé/);
    expect(plain).toContain('login: "chef"');
    expect(plain).not.toContain('"msg"');
  });
});

describe('first-start message', () => {
  it('tells how to log in with the generated password, or with ADMIN_PASSWORD, and nothing on later starts', () => {
    const generated = firstStartLines('http://127.0.0.1:3000', { created: true, login: 'admin', generatedPassword: 'Secret-123456789' });
    expect(generated.join('\n')).toContain('connectez-vous sur http://127.0.0.1:3000/login avec l\'identifiant « admin »');
    expect(generated.join('\n')).toContain('mot de passe généré (affiché une seule fois, notez-le) : Secret-123456789');
    expect(firstStartLines('http://x', { created: true, login: 'chef' }).join('\n')).toContain('le mot de passe de ADMIN_PASSWORD');
    expect(firstStartLines('http://x', { created: false })).toEqual([]);
  });
});

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
      env: { ...process.env, DATABASE_URL: '', SKIP_BUILD: '1', PORT: '0', DATA_DIR: dataDir, ADMIN_PASSWORD: 'un-mot-de-passe', LOG_LEVEL: 'warn' },
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

  it('prints the URL and a generated password once, refuses a second process on the same directory, and stops on SIGINT', async () => {
    const dataDir = tempDir();
    const first = startProcess({ DATA_DIR: dataDir, ADMIN_PASSWORD: '', ADMIN_LOGIN: 'chef', LOG_LEVEL: 'info' });
    try {
      await first.ready();
      expect(first.io.stdout).toMatch(/Compost est prêt : http:\/\/127\.0\.0\.1:\d+/);
      const password = first.io.stdout.match(/mot de passe généré \(affiché une seule fois, notez-le\) : (\S+)/)?.[1];
      expect(password).toMatch(/^[\w-]{16}$/);
      // Printed once on the console; the JSON log lines never carry it.
      expect((first.io.stdout + first.io.stderr).split(password!).length - 1).toBe(1);
      expect(first.io.stdout).toContain('"msg":"first administrator created"');

      const second = startProcess({ DATA_DIR: dataDir, LOG_LEVEL: 'silent' });
      expect(await second.exited).toBe(1);
      expect(second.io.stderr).toContain('est déjà ouverte par un autre processus');
      expect(second.io.stderr).toContain('utilisez PostgreSQL (DATABASE_URL) pour plusieurs processus');
      expect(second.io.stdout).not.toContain('est prêt');
    } finally {
      first.child.kill('SIGINT');
    }
    expect(await first.exited).toBe(0);
    expect(fs.existsSync(path.join(dataDir, 'db', 'compost.lock'))).toBe(false);

    // The next start finds the administrator and says nothing about passwords.
    const again = startProcess({ DATA_DIR: dataDir, LOG_LEVEL: 'silent' });
    try {
      await again.ready();
      expect(again.io.stdout).not.toContain('Premier démarrage');
      expect(again.io.stdout).not.toContain('mot de passe');
    } finally {
      again.child.kill('SIGTERM');
    }
    expect(await again.exited).toBe(0);
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
