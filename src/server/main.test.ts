import fs from 'node:fs';
import https from 'node:https';
import os from 'node:os';
import path from 'node:path';
import { spawn, spawnSync } from 'node:child_process';
import { afterAll, describe, expect, it } from 'vitest';
import { loadConfig } from './config.js';
import { FIRST_ACCESS_FILE, firstStartLines, firstStartOutput, lanUrls, migrationsLine, readyLine, startServer, webBuildNeeded } from './main.js';
import { DatabaseLockedError } from './db/client.js';
import { emptyDataDir } from '../../tests/helpers/data-dir.js';

const dirs: string[] = [];
function tempDir() {
  const d = fs.mkdtempSync(path.join(os.tmpdir(), 'compost-main-'));
  dirs.push(d);
  return d;
}
afterAll(() => dirs.forEach((d) => fs.rmSync(d, { recursive: true, force: true })));
/**
 * A data directory whose embedded database is initialised and empty, as a first start finds it
 * once PGlite has made its cluster. The first test below starts on a truly empty directory.
 */
const dataDirWithCluster = () => emptyDataDir('compost-main-', dirs);

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
    // One line: the message, then the other fields inline.
    expect(plain).toMatch(/\[\d{2}:\d{2}:\d{2}\] INFO: premier administrateur créé \{"login":"chef"\}\r?\n/);
    expect(plain).not.toContain('"msg"');
  });
});

describe('first-start message', () => {
  it('frames the identifiant and the generated password in a box', () => {
    const generated = firstStartLines('http://127.0.0.1:3000', { created: true, login: 'admin', generatedPassword: 'Secret-123456789' });
    expect(generated).toEqual([
      '┌────────────────────────────────────────────────────────────────────┐',
      '│ Premier démarrage : connectez-vous sur http://127.0.0.1:3000/login │',
      '│ Identifiant : admin                                                │',
      '│ Mot de passe généré : Secret-123456789                             │',
      '│ Il n’est affiché qu’une fois : notez-le maintenant.                │',
      '└────────────────────────────────────────────────────────────────────┘',
    ]);
  });

  it('never prints a password from ADMIN_PASSWORD, and nothing on later starts', () => {
    expect(firstStartLines('http://x', { created: true, login: 'chef' })).toEqual([
      'Premier démarrage : connectez-vous sur http://x/login avec l\'identifiant « chef »',
      '  et le mot de passe de ADMIN_PASSWORD.',
    ]);
    expect(firstStartLines('http://x', { created: false })).toEqual([]);
  });

  it('shows the box on a terminal, and otherwise writes it to DATA_DIR/premier-acces.txt (mode 0600) and names only that file', () => {
    const admin = { created: true, login: 'admin', generatedPassword: 'Secret-123456789' };
    const dataDir = tempDir();
    const file = path.join(dataDir, FIRST_ACCESS_FILE);
    expect(firstStartOutput('http://x', admin, { terminal: true, dataDir })).toEqual(firstStartLines('http://x', admin));
    expect(fs.existsSync(file)).toBe(false);

    // A file an earlier start left, readable by all: replaced, not reused.
    fs.writeFileSync(file, 'ancien', { mode: 0o644 });
    const piped = firstStartOutput('http://x', admin, { terminal: false, dataDir });
    expect(piped).toEqual([`Premier démarrage : l'identifiant et le mot de passe générés de l'administrateur sont dans ${file} (lisible par ce seul compte).`]);
    expect(piped.join('\n')).not.toContain('Secret-123456789');
    expect(fs.statSync(file).mode & 0o777).toBe(0o600);
    expect(fs.readFileSync(file, 'utf8')).toBe(
      'Premier démarrage : connectez-vous sur http://x/login\nIdentifiant : admin\nMot de passe généré : Secret-123456789\nSupprimez ce fichier une fois connecté et le mot de passe changé.\n',
    );

    // No generated password: nothing secret, nothing written.
    const chosenDir = tempDir();
    expect(firstStartOutput('http://x', { created: true, login: 'chef' }, { terminal: false, dataDir: chosenDir })).toEqual(firstStartLines('http://x', { created: true, login: 'chef' }));
    expect(firstStartOutput('http://x', { created: false }, { terminal: false, dataDir: chosenDir })).toEqual([]);
    expect(fs.readdirSync(chosenDir)).toEqual([]);

    // A directory it cannot write to: the password is shown nowhere, the way out is named.
    const unwritable = path.join(tempDir(), 'fichier');
    fs.writeFileSync(unwritable, '');
    const failed = firstStartOutput('http://x', admin, { terminal: false, dataDir: unwritable }).join('\n');
    expect(failed).toContain('npm run admin:password -- admin');
    expect(failed).not.toContain('Secret-123456789');
  });

  it('says where the server is ready, with its addresses on the local network', () => {
    expect(readyLine('Compost', 'https://localhost:3000', ['https://192.168.1.20:3000'])).toBe(
      'Compost est prêt : https://localhost:3000 (réseau local : https://192.168.1.20:3000)',
    );
    expect(readyLine('Compost', 'http://127.0.0.1:3000')).toBe('Compost est prêt : http://127.0.0.1:3000');
    expect(lanUrls('127.0.0.1', 3000, 'http')).toEqual([]);
    for (const url of lanUrls('0.0.0.0', 3000, 'https')) expect(url).toMatch(/^https:\/\/\d+\.\d+\.\d+\.\d+:3000$/);
  });

  it('says which migrations a start applied', () => {
    expect(migrationsLine([20])).toBe('Base de données : 1 migration appliquée (20)');
    expect(migrationsLine([1, 2, 3])).toBe('Base de données : 3 migrations appliquées (1 à 3)');
  });
});

// Each test starts real server processes (tsx compiles the server in each): on a loaded 2-core machine
// three starts in one test take well over the default 30 s cap, though each waits for its own signal.
describe('server start', { timeout: 90_000 }, () => {
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
    const dataDir = await dataDirWithCluster();
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

  it('prints the URL, writes a generated password to its file, refuses a second process on the same directory, and stops on SIGINT', async () => {
    const dataDir = await dataDirWithCluster();
    // No daily backup: its catch-up at start would add its own line to the ones counted here.
    const first = startProcess({ DATA_DIR: dataDir, ADMIN_PASSWORD: '', ADMIN_LOGIN: 'chef', LOG_LEVEL: 'info', BACKUP_AT: 'off' });
    try {
      await first.ready();
      expect(first.io.stdout).toMatch(/Compost est prêt : http:\/\/127\.0\.0\.1:\d+/);
      // The output is no terminal (a service manager would keep it in its logs): the password
      // is in DATA_DIR/premier-acces.txt, readable by this account only, and the console names the file.
      const file = path.join(dataDir, FIRST_ACCESS_FILE);
      expect(first.io.stdout).toContain(`sont dans ${file} (lisible par ce seul compte)`);
      expect(fs.statSync(file).mode & 0o777).toBe(0o600);
      const password = fs.readFileSync(file, 'utf8').match(/^Mot de passe généré : (\S+)$/m)?.[1];
      expect(password).toMatch(/^[\w-]{16}$/);
      expect(first.io.stdout + first.io.stderr).not.toContain(password);
      const logLines = first.io.stdout.split('\n').filter((l) => l.startsWith('{')).map((l) => JSON.parse(l) as { msg: string });
      expect(logLines.map((l) => l.msg)).toEqual([expect.stringMatching(/^Base de données : \d+ migrations appliquées \(1 à \d+\)$/), 'Premier administrateur créé : « chef »']);
      // Requests write no line at the default level.
      const url = first.io.stdout.match(/est prêt : (\S+)/)![1];
      for (let i = 0; i < 3; i++) expect((await fetch(`${url}/api/app/info/get`)).status).toBe(200);
      await new Promise((r) => setTimeout(r, 200));
      expect(first.io.stdout.split('\n').filter((l) => l.startsWith('{'))).toHaveLength(2);
      // The password of the file opens a session.
      const login = await fetch(`${url}/api/login`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ username: 'chef', password }) });
      expect(login.status).toBe(200);

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

describe('HTTPS', () => {
  /** A self-signed certificate for localhost and 127.0.0.1, valid one day, made by openssl. */
  function selfSigned(dir: string, name: string) {
    const cert = path.join(dir, `${name}.crt`);
    const key = path.join(dir, `${name}.key`);
    const args = ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-subj', '/CN=localhost', '-addext', 'subjectAltName=DNS:localhost,IP:127.0.0.1', '-days', '1'];
    const res = spawnSync('openssl', [...args, '-keyout', key, '-out', cert], { encoding: 'utf8' });
    if (res.status !== 0) throw new Error(res.stderr);
    return { cert, key };
  }

  /** GET over https trusting only `ca`. */
  function get(url: string, ca?: Buffer) {
    return new Promise<{ status: number; headers: Record<string, unknown>; body: string }>((resolve, reject) => {
      https
        .get(url, { ca }, (res) => {
          let body = '';
          res.on('data', (d) => (body += d));
          res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body }));
        })
        .on('error', reject);
    });
  }

  it('serves https with TLS_CERT and TLS_KEY and prints the https address', async () => {
    const dir = await dataDirWithCluster();
    const { cert, key } = selfSigned(dir, 'server');
    const server = startProcess({ DATA_DIR: dir, TLS_CERT: cert, TLS_KEY: key, ADMIN_PASSWORD: 'un-mot-de-passe', LOG_LEVEL: 'warn' });
    try {
      await server.ready();
      const url = server.io.stdout.match(/Compost est prêt : (https:\/\/127\.0\.0\.1:\d+)\n/)?.[1];
      expect(url, server.io.stdout).toBeDefined();
      const res = await get(`${url}/api/app/info/get`, fs.readFileSync(cert));
      expect(res.status).toBe(200);
      expect(JSON.parse(res.body).appName).toBe('Compost');
      // Over https the browser is told to stay on https.
      expect(res.headers['strict-transport-security']).toBe('max-age=15552000');
      // The certificate is really the one served: without it as a trusted authority, refused.
      await expect(get(`${url}/api/app/info/get`)).rejects.toThrow(/self[- ]signed/i);
    } finally {
      server.child.kill('SIGTERM');
    }
    expect(await server.exited).toBe(0);
  });

  it('stops with a French message on a key that does not match the certificate or a file that is no certificate', async () => {
    const dir = tempDir();
    const a = selfSigned(dir, 'a');
    const b = selfSigned(dir, 'b');
    const start = (env: Record<string, string>) => startServer(loadConfig({ PORT: '0', DATA_DIR: dir, LOG_LEVEL: 'silent', ...env }));
    await expect(start({ TLS_CERT: a.cert, TLS_KEY: b.key })).rejects.toThrow(`TLS_KEY : la clé privée de ${b.key} ne correspond pas au certificat de ${a.cert}.`);
    await expect(start({ TLS_CERT: 'package.json', TLS_KEY: a.key })).rejects.toThrow('TLS_CERT : le fichier package.json n’est pas un certificat PEM');
    await expect(start({ TLS_CERT: a.cert, TLS_KEY: a.cert })).rejects.toThrow(`TLS_KEY : le fichier ${a.cert} n’est pas une clé privée PEM lisible`);
    await expect(start({ TLS_CERT: dir, TLS_KEY: a.key })).rejects.toThrow(`TLS_CERT : impossible de lire le fichier ${dir} (c’est un dossier).`);
    // Nothing was opened: the data directory holds no database.
    expect(fs.existsSync(path.join(dir, 'db'))).toBe(false);
  });
});
