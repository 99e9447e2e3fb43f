// `npm run bench -- --memory` or `tsx bench/memory.ts`: how much memory the default set-up
// (embedded PGlite in a worker thread) takes at 100,000 interventions, for a small VM.
// The 100k dataset of bench/dataset.ts is built once into BENCH_MEMORY_DIR (default
// <tmp>/compost-bench-memory-100k) and copied to a fresh temporary DATA_DIR for each run; the
// real entry point (src/server/start.ts, as `npm start` runs it, the web build skipped) serves
// it. Then: the main lists and the site sheet under load (autocannon, 10 connections, the
// routes in turn) and one list timed alone (p50/p95). Printed: the RSS idle, at the end, and
// its peak (the kernel's high-water mark VmHWM of the process, which holds the worker thread
// and PGlite's WebAssembly memory).
// Options: --seconds <n> of load (default 30); --runs <n> of the timed list (default 60).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';
import { startCommand } from './start-command.js';
import { BENCH_ADMIN_LOGIN, BENCH_PASSWORD, BENCH_PROVIDER_EMAIL, preparePgliteDataset } from './dataset.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

function procStatus(pid: number): { rssMb: number; peakMb: number } {
  const text = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = (key: string) => Number(new RegExp(`${key}:\\s+(\\d+) kB`).exec(text)?.[1] ?? 0);
  return { rssMb: Math.round(kb('VmRSS') / 1024), peakMb: Math.round(kb('VmHWM') / 1024) };
}

async function login(url: string, username: string): Promise<string> {
  const r = await fetch(`${url}/api/login`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ username, password: BENCH_PASSWORD }) });
  if (!r.ok) throw new Error(`login ${username}: ${r.status} ${await r.text()}`);
  return r.headers
    .getSetCookie()
    .map((c) => c.split(';')[0])
    .join('; ');
}

async function timed(url: string, cookie: string, runs: number): Promise<{ p50: number; p95: number }> {
  const times: number[] = [];
  for (let i = 0; i < runs; i++) {
    const t = performance.now();
    const r = await fetch(url, { headers: { cookie } });
    await r.arrayBuffer();
    if (!r.ok) throw new Error(`${url}: ${r.status}`);
    times.push(performance.now() - t);
  }
  times.sort((a, b) => a - b);
  const pick = (q: number) => Math.round(times[Math.ceil(q * times.length) - 1] * 10) / 10;
  return { p50: pick(0.5), p95: pick(0.95) };
}

export async function measureMemory(opts: { seconds?: number; runs?: number } = {}) {
  const seconds = opts.seconds ?? 30;
  const runs = opts.runs ?? 60;
  const cache = process.env.BENCH_MEMORY_DIR ?? path.join(os.tmpdir(), 'compost-bench-memory-100k');
  const { info } = await preparePgliteDataset('100k', cache);
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'compost-bench-memory-'));
  fs.cpSync(path.join(cache, 'db'), path.join(dataDir, 'db'), { recursive: true });
  fs.rmSync(path.join(dataDir, 'db', 'compost.lock'), { force: true });
  const port = 20000 + Math.floor(Math.random() * 20000);
  const url = `http://127.0.0.1:${port}`;
  const t0 = performance.now();
  // The environment and node flags of `npm start` (package.json) and of deploy/compost.service.
  const start = startCommand();
  const proc = spawn(process.execPath, [...start.nodeArgs, path.join(root, 'src/server/start.ts')], {
    cwd: root,
    // The daily jobs stay off: a catch-up backup or alerts run at start would be measured too.
    env: { ...process.env, ...start.env, SKIP_BUILD: '1', PORT: String(port), HOST: '127.0.0.1', DATA_DIR: dataDir, DATABASE_URL: '', LOG_LEVEL: 'warn', DEMO_DATA: '', BACKUP_AT: 'off', ALERTS_AT: 'off' },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  const pid = proc.pid!;
  let sampledPeak = 0;
  const sampler = setInterval(() => {
    try {
      sampledPeak = Math.max(sampledPeak, procStatus(pid).rssMb);
    } catch {
      /* exited */
    }
  }, 100);
  try {
    for (;;) {
      if (proc.exitCode !== null) throw new Error(`server exited (${proc.exitCode})`);
      const ok = await fetch(`${url}/api/app/info/get`).then((r) => r.ok, () => false);
      if (ok) break;
      await new Promise((r) => setTimeout(r, 50));
    }
    const startMs = Math.round(performance.now() - t0);
    const admin = await login(url, BENCH_ADMIN_LOGIN);
    const provider = await login(url, BENCH_PROVIDER_EMAIL);
    await new Promise((r) => setTimeout(r, 1000));
    const idle = procStatus(pid);
    console.log(`memory: PGlite 100k (${info.counts.interventions} interventions), server ready in ${startMs} ms, RSS idle ${idle.rssMb} MB`);

    const site = info.busiestSiteId;
    const lists = [
      '/api/admin/intervention/get/list/by/filters?page=0&rowsPerPage=20',
      '/api/admin/intervention/get/list/by/filters?page=0&rowsPerPage=20&sort[name]=site&sort[direction]=asc',
      '/api/admin/intervention/get/list/by/filters?page=499&rowsPerPage=20&sort[name]=date&sort[direction]=asc',
      '/api/admin/site/get/list/by/filters?page=0&rowsPerPage=20',
      '/api/admin/user/get/list/by/filters?page=0&rowsPerPage=20',
      '/api/admin/demande/intervention/get/all/by/filters?page=0&rowsPerPage=20',
      '/api/admin/demande/intervention/get/list?page=0&rowsPerPage=20',
      `/api/intervention/get/list/by/site/${site}?page=0&rowsPerPage=20&sort[name]=date&sort[direction]=desc`,
      `/api/admin/site/get/infos/pour/intervention/${site}`,
    ];
    const load = (cookie: string, paths: string[]) =>
      autocannon({ url, connections: 5, duration: seconds, headers: { cookie }, requests: paths.map((p) => ({ method: 'GET', path: p })) });
    const [a, p] = await Promise.all([load(admin, lists), load(provider, [`/api/admin/site/get/infos/pour/intervention/${info.typicalSiteId}`, lists[6]])]);
    const afterLoad = procStatus(pid);
    console.log(
      `  load ${seconds} s, 10 connections over ${lists.length} lists and the site sheet: ${Math.round(a.requests.average + p.requests.average)} req/s, ` +
        `p99 ${Math.max(a.latency.p99, p.latency.p99)} ms, errors ${a.errors + p.errors}, non-2xx ${a.non2xx + p.non2xx}`,
    );
    const list = await timed(`${url}${lists[0]}`, admin, runs);
    const sorted = await timed(`${url}${lists[1]}`, admin, runs);
    const end = procStatus(pid);
    console.log(`  interventions list alone (${runs} runs): default order p50 ${list.p50} ms p95 ${list.p95} ms; by site p50 ${sorted.p50} ms p95 ${sorted.p95} ms`);
    console.log(`  RSS after load ${afterLoad.rssMb} MB, at the end ${end.rssMb} MB; peak ${Math.max(end.peakMb, sampledPeak)} MB (VmHWM ${end.peakMb} MB, sampled ${sampledPeak} MB)`);
    return { startMs, idleMb: idle.rssMb, afterLoadMb: afterLoad.rssMb, peakMb: Math.max(end.peakMb, sampledPeak), list, sorted, errors: a.errors + p.errors + a.non2xx + p.non2xx };
  } finally {
    clearInterval(sampler);
    const exited = new Promise((r) => proc.once('exit', r));
    if (proc.exitCode === null) proc.kill('SIGTERM');
    await exited;
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const arg = (name: string) => {
    const i = process.argv.indexOf(name);
    return i > 0 ? Number(process.argv[i + 1]) || undefined : undefined;
  };
  const r = await measureMemory({ seconds: arg('--seconds'), runs: arg('--runs') });
  process.exit(r.errors === 0 ? 0 : 1);
}
