// Embedded PGlite, in a directory or in memory (tests), with the lock file that keeps a second
// process out of its directory. A directory's database runs in a worker thread of its own
// (pglite-worker-client.ts), an in-memory one on the main thread; PGLITE_WORKER chooses otherwise
// (docs/sizing.md compares the two).
import fs from 'node:fs';
import path from 'node:path';
import { Kysely } from 'kysely';
import type { Database } from './schema.js';
import type { DatabaseHandle } from './handle.js';
import { PGliteDialect } from './pglite-dialect.js';
import { AuthChanges, ConnectionWatcher } from './auth-changes.js';
import { createPGlite } from './pglite-engine.js';
import { PGliteWorkerClient } from './pglite-worker-client.js';

export class DatabaseLockedError extends Error {}

function pidAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}

function readProc(file: string): string | null {
  try {
    return fs.readFileSync(file, 'utf8');
  } catch {
    return null;
  }
}

/** When the process started, in clock ticks since boot (field 22 of /proc/<pid>/stat); null without /proc. */
function processStart(pid: number): string | null {
  const stat = readProc(`/proc/${pid}/stat`);
  if (!stat) return null;
  // The command name (field 2) may hold spaces and parentheses: count from the last ')'.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return fields[19] ?? null;
}

const bootId = () => readProc('/proc/sys/kernel/random/boot_id')?.trim() ?? null;

interface LockOwner {
  pid: number;
  start?: string | null;
  boot?: string | null;
  dir?: string;
}

function lockContent(dir: string): string {
  return JSON.stringify({ pid: process.pid, start: processStart(process.pid), boot: bootId(), dir } satisfies LockOwner);
}

function readLockOwner(lockFile: string): LockOwner | null {
  const text = readProc(lockFile)?.trim() ?? '';
  if (/^\d+$/.test(text)) return { pid: Number(text) }; // written by an older version
  try {
    const owner = JSON.parse(text) as LockOwner;
    return Number.isInteger(owner.pid) && owner.pid > 0 ? owner : null;
  } catch {
    return null;
  }
}

/**
 * Whether the process a lock names still holds this directory. A process id is reused after
 * a reboot or a container restart, so with /proc the lock must name the same boot, the same
 * process start time and this directory; a lock of an older version (pid alone) counts only
 * if that pid runs node. Without /proc, a live pid is all there is to go on.
 */
function ownerHoldsLock(owner: LockOwner, dir: string): boolean {
  if (!pidAlive(owner.pid)) return false;
  if (processStart(process.pid) === null) return true;
  if (owner.start === undefined) {
    // This process never wrote such a lock, so one naming it comes from a previous life.
    if (owner.pid === process.pid) return false;
    const argv0 = (readProc(`/proc/${owner.pid}/cmdline`) ?? '').split('\0')[0];
    return path.basename(argv0).startsWith('node');
  }
  return owner.boot === bootId() && owner.start === processStart(owner.pid) && owner.dir === dir;
}

/** PGlite does not guard its directory: two processes would corrupt it. */
function takeLock(dir: string): () => void {
  const realDir = fs.realpathSync(dir);
  const lockFile = path.join(dir, 'compost.lock');
  const mine = lockContent(realDir);
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      fs.writeFileSync(lockFile, mine, { flag: 'wx' });
      return () => {
        try {
          if (fs.readFileSync(lockFile, 'utf8') === mine) fs.unlinkSync(lockFile);
        } catch {
          /* already gone */
        }
      };
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
      const owner = readLockOwner(lockFile);
      if (owner && ownerHoldsLock(owner, realDir)) {
        throw new DatabaseLockedError(
          `La base embarquée ${dir} est déjà ouverte par un autre processus (pid ${owner.pid}). ` +
            'Arrêtez-le, ou utilisez PostgreSQL (DATABASE_URL) pour plusieurs processus.',
        );
      }
      // Stale: left by a crash, or naming a process id now used by something else.
      fs.rmSync(lockFile, { force: true });
    }
  }
  throw new DatabaseLockedError(`Impossible de verrouiller ${dir}`);
}

/**
 * Whether PGlite runs in a worker thread. A database in a directory (the served app, the
 * command-line tools) does by default: a long statement (an export's batch, a deep list) then
 * no longer holds requests that need no statement, such as /api/health or a known session.
 * An in-memory database (tests) stays on the main thread, where it starts faster.
 * PGLITE_WORKER=0 (or false) keeps a directory on the main thread, 1 (or true) moves memory to
 * a worker.
 */
export function pgliteWorkerWanted(dir: string | null, env: NodeJS.ProcessEnv = process.env): boolean {
  const value = env.PGLITE_WORKER?.trim() ?? '';
  if (/^(1|true)$/i.test(value)) return true;
  if (/^(0|false)$/i.test(value)) return false;
  return dir !== null;
}

/**
 * `image`: a database in memory on the main thread starts from these files (see createPGlite);
 * such a handle also offers `image()`, its own files, for the next copy.
 */
export async function openPGlite(dir: string | null, opts: { worker?: boolean; image?: Blob | Uint8Array } = {}): Promise<DatabaseHandle & { image?: () => Promise<Blob> }> {
  const worker = opts.worker ?? pgliteWorkerWanted(dir);
  let unlock = () => {};
  if (dir) {
    fs.mkdirSync(dir, { recursive: true });
    unlock = takeLock(dir);
  }
  try {
    const pglite = worker ? await PGliteWorkerClient.start(dir) : await createPGlite(dir, { image: opts.image });
    // One process holds the directory: its own writes are every change there is.
    const changes = new AuthChanges(true);
    const db = new Kysely<Database>({ dialect: new PGliteDialect(pglite, new ConnectionWatcher(changes)) });
    return {
      db,
      kind: 'pglite',
      changes,
      async close() {
        await db.destroy();
        await pglite.close();
        unlock();
      },
      ...(pglite instanceof PGliteWorkerClient || dir !== null ? {} : { image: () => pglite.dumpDataDir('none') }),
    };
  } catch (e) {
    unlock();
    throw e;
  }
}
