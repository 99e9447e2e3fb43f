// Runs a command of src/server/cli as `npm run` does (tsx, a process of its own) on an embedded
// database: DATABASE_URL blank whatever the caller's environment, logs silent, no seeded admin
// password. Resolves with its exit code and what it printed.
import { spawn } from 'node:child_process';

export interface CliRun {
  code: number | null;
  stdout: string;
  stderr: string;
}

export function runCliProcess(script: string, args: string[], env: NodeJS.ProcessEnv = {}): Promise<CliRun> {
  const child = spawn(process.execPath, ['--import', 'tsx', `src/server/cli/${script}.ts`, ...args], {
    env: { ...process.env, DATABASE_URL: '', LOG_LEVEL: 'silent', ADMIN_PASSWORD: '', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d) => (stdout += d));
  child.stderr.on('data', (d) => (stderr += d));
  return new Promise((resolve) => child.on('exit', (code) => resolve({ code, stdout, stderr })));
}
