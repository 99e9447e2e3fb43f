// PGlite in a worker thread (the default for a directory, see pglite.ts), seen from the main thread: the same query()
// and exec() as PGlite itself, so PGliteDialect drives it unchanged (one statement at a time,
// a transaction holding the connection until it ends, the auth-change watcher on this side).
// The main thread waits for a statement without running it: other requests are served
// meanwhile, and only the rows' copy across the threads lands here.
import { Worker } from 'node:worker_threads';
import { favourSmallHeap } from '../gc-tuning.js';
import type { PGliteQueries } from './pglite-dialect.js';
import type { SerializedError, WorkerOptions, WorkerReply, WorkerRequest, WorkerResult, WorkerStartup } from './pglite-worker.js';

/** PostgreSQL's connection_failure: what a statement fails with once the thread is gone (a 503, as a lost connection). */
export const WORKER_GONE_CODE = '08006';

/** A statement's failure inside the worker, with PostgreSQL's fields (code, constraint, detail, table...). */
export class PGliteWorkerError extends Error {
  declare code?: string;
  declare constraint?: string;
  declare detail?: string;
  declare table?: string;
  declare column?: string;
  declare severity?: string;
  constructor(e: SerializedError) {
    super(e.message);
    this.name = e.name;
    // Every field PGlite's error had, under the same names (its own `name`, 'error', included).
    Object.assign(this, e.fields);
  }
}

/**
 * The worker's entry. Run from the TypeScript sources (tsx, vitest), the thread registers tsx
 * itself: Node 20 hands a worker neither the parent's loader hooks nor `--import` from execArgv.
 */
function spawnWorker(options: WorkerOptions): Worker {
  const here = import.meta.url;
  // V8 favours a small heap over speed from here on, in both threads (gc-tuning.ts).
  favourSmallHeap();
  // The thread's young generation is capped like the main thread's in `npm start`
  // (--max-semi-space-size=2, a young generation of three semi-spaces): left to grow, each
  // thread's reaches 48 MB, which a process serving a small programme never gives back, for no
  // measurable gain in the time of its statements (docs/deploy.md, "A small server").
  const resourceLimits = { maxYoungGenerationSizeMb: 6 };
  if (here.endsWith('.ts')) {
    const entry = new URL('./pglite-worker.ts', here).href;
    const tsx = import.meta.resolve('tsx/esm/api');
    const boot = `import(${JSON.stringify(tsx)}).then((api) => { api.register(); return import(${JSON.stringify(entry)}); });`;
    return new Worker(boot, { eval: true, workerData: options, resourceLimits });
  }
  return new Worker(new URL('./pglite-worker.js', here), { workerData: options, resourceLimits });
}

/** A request before its id is given. */
type Unsent = WorkerRequest extends infer R ? (R extends WorkerRequest ? Omit<R, 'id'> : never) : never;

export class PGliteWorkerClient implements PGliteQueries {
  private nextId = 1;
  private readonly pending = new Map<number, { resolve: (r: WorkerReply & { ok: true }) => void; reject: (e: Error) => void }>();
  private gone: Error | null = null;

  private constructor(private readonly worker: Worker) {
    worker.on('message', (m: WorkerReply) => {
      const waiting = this.pending.get(m.id);
      if (!waiting) return;
      this.pending.delete(m.id);
      if (this.pending.size === 0) worker.unref();
      if (m.ok) waiting.resolve(m);
      else waiting.reject(new PGliteWorkerError(m.error));
    });
    worker.on('error', (e) => this.stopped(`${e.message}`));
    worker.on('exit', (code) => this.stopped(`exit code ${code}`));
  }

  /** Starts the thread and opens the database in it (a directory, or memory when null). */
  static async start(dir: string | null): Promise<PGliteWorkerClient> {
    const worker = spawnWorker({ dir });
    const startup = await new Promise<WorkerStartup>((resolve, reject) => {
      const onExit = (code: number) => reject(new Error(`Le thread de PGlite s’est arrêté au démarrage (code ${code})`));
      worker.once('error', reject);
      worker.once('exit', onExit);
      worker.once('message', (m: WorkerStartup) => {
        worker.off('error', reject);
        worker.off('exit', onExit);
        resolve(m);
      });
    }).catch(async (e: unknown) => {
      await worker.terminate();
      throw e;
    });
    if (!startup.ready) {
      await worker.terminate();
      throw new PGliteWorkerError(startup.error);
    }
    // Idle, the thread does not keep the process alive; a statement in flight does.
    worker.unref();
    return new PGliteWorkerClient(worker);
  }

  private stopped(why: string) {
    if (this.gone) return;
    const error = new PGliteWorkerError({
      message: `Le thread de PGlite s’est arrêté (${why}) : connexion interrompue`,
      name: 'Error',
      fields: { code: WORKER_GONE_CODE },
    });
    this.gone = error;
    for (const waiting of this.pending.values()) waiting.reject(error);
    this.pending.clear();
  }

  private send(request: Unsent): Promise<WorkerReply & { ok: true }> {
    if (this.gone) return Promise.reject(this.gone);
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      try {
        // Throws at once for a parameter that cannot be copied (a function): nothing is left waiting.
        this.worker.postMessage({ ...request, id } as WorkerRequest);
      } catch (e) {
        reject(e as Error);
        return;
      }
      if (this.pending.size === 0) this.worker.ref();
      this.pending.set(id, { resolve, reject });
    });
  }

  async query<R>(sql: string, params: unknown[] = []): Promise<{ rows: R[]; affectedRows?: number }> {
    const reply = await this.send({ op: 'query', sql, params });
    return reply.result as WorkerResult & { rows: R[] };
  }

  async exec(sql: string): Promise<WorkerResult[]> {
    return (await this.send({ op: 'exec', sql })).results ?? [];
  }

  /** Closes the database in the thread (its files flushed), then waits for the thread to end. */
  async close(): Promise<void> {
    if (this.gone) return;
    const exited = new Promise<void>((resolve) => this.worker.once('exit', () => resolve()));
    try {
      await this.send({ op: 'close' });
    } catch (e) {
      await this.worker.terminate();
      throw e;
    }
    const timer = setTimeout(() => void this.worker.terminate(), 5000);
    await exited;
    clearTimeout(timer);
  }
}
