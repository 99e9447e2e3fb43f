// The worker thread that holds PGlite (by default for a database in a directory; pglite-worker-client.ts starts it):
// statements run here, so a long one no longer holds the server's event loop. It answers the
// main thread's requests one message each, rows copied back by postMessage; a failed statement
// comes back as the fields of PostgreSQL's error (code, constraint, detail...), which the main
// thread turns back into an error the app reads as it reads PGlite's own.
import { parentPort, workerData } from 'node:worker_threads';
import type { PGlite } from '@electric-sql/pglite';
import { createPGlite } from './pglite-engine.js';

export type WorkerRequest =
  | { id: number; op: 'query'; sql: string; params: unknown[] }
  | { id: number; op: 'exec'; sql: string }
  | { id: number; op: 'close' };

export interface WorkerResult {
  rows: unknown[];
  affectedRows?: number;
}

/** An error as it crosses the thread boundary: its message and its string and number fields. */
export interface SerializedError {
  message: string;
  name: string;
  fields: Record<string, string | number>;
}

export type WorkerReply =
  | { id: number; ok: true; result?: WorkerResult; results?: WorkerResult[] }
  | { id: number; ok: false; error: SerializedError };

export type WorkerStartup = { ready: true } | { ready: false; error: SerializedError };

export interface WorkerOptions {
  dir: string | null;
}

export function serializeError(e: unknown): SerializedError {
  if (!(e instanceof Error)) return { message: String(e), name: 'Error', fields: {} };
  const fields: Record<string, string | number> = {};
  for (const [key, value] of Object.entries(e)) {
    if (key !== 'message' && (typeof value === 'string' || typeof value === 'number')) fields[key] = value;
  }
  return { message: e.message, name: e.name, fields };
}

const plain = (r: { rows: unknown[]; affectedRows?: number }): WorkerResult => ({ rows: r.rows, affectedRows: r.affectedRows });

async function answer(pg: PGlite, m: WorkerRequest): Promise<WorkerReply> {
  try {
    switch (m.op) {
      case 'query':
        return { id: m.id, ok: true, result: plain(await pg.query(m.sql, m.params)) };
      case 'exec':
        return { id: m.id, ok: true, results: (await pg.exec(m.sql)).map(plain) };
      case 'close':
        await pg.close();
        return { id: m.id, ok: true };
    }
  } catch (e) {
    return { id: m.id, ok: false, error: serializeError(e) };
  }
}

const port = parentPort;
if (port) {
  const { dir } = workerData as WorkerOptions;
  let pg: PGlite | null = null;
  try {
    pg = await createPGlite(dir);
  } catch (e) {
    port.postMessage({ ready: false, error: serializeError(e) } satisfies WorkerStartup);
  }
  if (pg) {
    const db = pg;
    port.on('message', (m: WorkerRequest) => {
      void answer(db, m).then((reply) => {
        port.postMessage(reply);
        // Nothing is left to hold the thread: it ends, and the main thread sees it exit.
        if (m.op === 'close') port.close();
      });
    });
    port.postMessage({ ready: true } satisfies WorkerStartup);
  }
}
