// A Compost server behind Caddy for the proxy journey: the real start (config from the
// environment, migrations, demo programme, the built web app) on a free loopback port, and
// Caddy in front of it on another free port with the site block of deploy/Caddyfile, its
// address changed to https://127.0.0.1:<port> and `tls internal` added (Caddy is then its own
// CA). Caddy keeps its certificates in a temporary directory (XDG_DATA_HOME), runs without its
// admin endpoint and never touches the system's trust store.
import crypto from 'node:crypto';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { spawn, type ChildProcess } from 'node:child_process';
import { initialisedCluster } from './data-dir.js';

export const CADDY_BIN = process.env.CADDY_PATH ?? '/usr/bin/caddy';
export const caddyMissing = !fs.existsSync(CADDY_BIN);

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as net.AddressInfo;
      srv.close(() => resolve(port));
    });
  });
}

/** Starts `proc` and waits until its output matches `ready` (or it exits: the output is the error). */
function waitForOutput(proc: ChildProcess, ready: RegExp, what: string): Promise<string> {
  let out = '';
  return new Promise((resolve, reject) => {
    const onData = (d: Buffer) => {
      out += d.toString();
      if (ready.test(out)) resolve(out);
    };
    proc.stdout?.on('data', onData);
    proc.stderr?.on('data', onData);
    proc.once('exit', (code) => reject(new Error(`${what} exited (${code}):\n${out}`)));
  });
}

async function stop(proc: ChildProcess | undefined) {
  if (!proc || proc.exitCode !== null || proc.signalCode !== null) return;
  const exited = new Promise((resolve) => proc.once('exit', resolve));
  proc.kill('SIGTERM');
  await exited;
}

/** The site block of deploy/Caddyfile, served at `address` by a CA of Caddy's own, proxying to `upstream`. */
export function testCaddyfile(address: string, upstream: string, logFile: string): string {
  const recipe = fs.readFileSync(path.resolve('deploy/Caddyfile'), 'utf8');
  const site = recipe
    .replace(/^compost\.example\.fr \{$/m, `${address} {\n\ttls internal`)
    .replace(/127\.0\.0\.1:3000/g, upstream)
    .replace(/\/var\/log\/caddy\/compost-access\.log/g, logFile);
  if (!site.includes('tls internal') || !site.includes(upstream)) throw new Error('deploy/Caddyfile no longer has the expected site block');
  // Test-only globals: no admin endpoint, no system trust store, no http->https listener on :80.
  return `{\n\tadmin off\n\tskip_install_trust\n\tauto_https disable_redirects\n}\n${site}`;
}

export interface ProxiedCompost {
  /** https://127.0.0.1:<caddy port>: what users type (PUBLIC_URL). */
  url: string;
  /** The server's own http address, behind Caddy. */
  upstream: string;
  /** Caddy's root certificate (PEM), to trust it in a client. */
  rootCa: string;
  /** base64 SHA-256 of the public keys of Caddy's CA (root and intermediate), for Chromium's --ignore-certificate-errors-spki-list. */
  caSpki: string[];
  stop(): Promise<void>;
}

/** The server (with `env` added) behind Caddy. */
export async function startBehindCaddy(env: Record<string, string>): Promise<ProxiedCompost> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'compost-caddy-'));
  // An initialised, empty cluster (data-dir.ts): the start migrates and seeds it as a first start.
  fs.cpSync(await initialisedCluster(), path.join(dir, 'data', 'db'), { recursive: true });
  const [caddyPort, serverPort] = [await freePort(), await freePort()];
  const url = `https://127.0.0.1:${caddyPort}`;
  const upstream = `127.0.0.1:${serverPort}`;
  const webDir = path.resolve(process.env.E2E_WEB_DIR ?? 'dist');
  let server: ChildProcess | undefined;
  let caddy: ChildProcess | undefined;
  const stopAll = async () => {
    await stop(caddy);
    await stop(server);
    fs.rmSync(dir, { recursive: true, force: true });
  };
  try {
    const script = `
      const { loadConfig } = await import('./src/server/config.ts');
      const { startServer } = await import('./src/server/main.ts');
      const server = await startServer(loadConfig(), { webDir: ${JSON.stringify(webDir)} });
      console.log('listening ' + server.url);
      process.once('SIGTERM', () => server.close().then(() => process.exit(0)));`;
    server = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
      env: {
        ...process.env,
        HOST: '127.0.0.1',
        PORT: String(serverPort),
        DATA_DIR: path.join(dir, 'data'),
        DATABASE_URL: '',
        PUBLIC_URL: url,
        ADMIN_PASSWORD: 'admin-e2e-motdepasse',
        LOG_LEVEL: 'warn',
        DEMO_DATA: '1',
        ...env,
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    fs.mkdirSync(path.join(dir, 'data'), { recursive: true });
    const serverUp = waitForOutput(server, /listening /, 'Compost server');

    const caddyfile = path.join(dir, 'Caddyfile');
    fs.writeFileSync(caddyfile, testCaddyfile(url, upstream, path.join(dir, 'access.log')));
    caddy = spawn(CADDY_BIN, ['run', '--config', caddyfile, '--adapter', 'caddyfile'], {
      env: { ...process.env, HOME: dir, XDG_DATA_HOME: path.join(dir, 'xdg-data'), XDG_CONFIG_HOME: path.join(dir, 'xdg-config') },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    await Promise.all([serverUp, waitForOutput(caddy, /certificate obtained successfully/, 'Caddy')]);
    const pki = path.join(dir, 'xdg-data', 'caddy', 'pki', 'authorities', 'local');
    const rootCa = fs.readFileSync(path.join(pki, 'root.crt'), 'utf8');
    const caSpki = ['root.crt', 'intermediate.crt'].map((f) => {
      const der = new crypto.X509Certificate(fs.readFileSync(path.join(pki, f))).publicKey.export({ type: 'spki', format: 'der' });
      return crypto.createHash('sha256').update(der).digest('base64');
    });
    return { url, upstream: `http://${upstream}`, rootCa, caSpki, stop: stopAll };
  } catch (e) {
    await stopAll();
    throw e;
  }
}
