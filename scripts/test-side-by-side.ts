// Runs the unit and API tests (vitest) and the end-to-end journeys (Playwright) at the same time,
// each line of output prefixed with the suite it comes from; fails when either fails, after both
// have finished. The unit tests keep both cores of a small machine busy, while the journeys spend
// most of their time waiting on the browser, the service worker and the network (about half of
// two cores when they run alone): side by side, the two take little more than the longer of them
// instead of their sum. The web app must be built first (the journeys serve dist/).
import { spawn, type ChildProcess } from 'node:child_process';
import readline from 'node:readline';

const SUITES = [
  { name: 'unit', script: 'test:unit' },
  { name: 'e2e', script: 'test:e2e' },
];

const children: ChildProcess[] = [];

function run(name: string, script: string): Promise<{ name: string; code: number; seconds: number }> {
  const started = Date.now();
  // A process group of its own, so that stopping this script stops the suite's servers too.
  const child = spawn('npm', ['run', '-s', script], { stdio: ['ignore', 'pipe', 'pipe'], detached: true });
  children.push(child);
  for (const stream of [child.stdout!, child.stderr!]) {
    readline.createInterface({ input: stream, crlfDelay: Infinity }).on('line', (line) => process.stdout.write(`[${name}] ${line}\n`));
  }
  return new Promise((resolve) => {
    child.on('close', (code, signal) => resolve({ name, code: code ?? (signal ? 1 : 0), seconds: Math.round((Date.now() - started) / 1000) }));
  });
}

function stopAll(signal: NodeJS.Signals) {
  for (const child of children) {
    if (child.pid !== undefined && child.exitCode === null) {
      try {
        process.kill(-child.pid, signal);
      } catch {
        // Already gone.
      }
    }
  }
  process.exit(1);
}
process.once('SIGINT', () => stopAll('SIGINT'));
process.once('SIGTERM', () => stopAll('SIGTERM'));

const results = await Promise.all(SUITES.map((s) => run(s.name, s.script)));
for (const r of results) console.log(`${r.name}: ${r.code === 0 ? 'passed' : `failed (exit code ${r.code})`} in ${r.seconds} s`);
process.exit(results.every((r) => r.code === 0) ? 0 : 1);
