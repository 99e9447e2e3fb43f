// The server the route bench talks to, in a child process of its own (the load generator must
// not share its event loop): the app's createApp over the dataset's database, exactly as
// main.ts builds it, except that the Kysely instance records every statement with its
// parameters while the parent asks it to (IPC), so the bench can replay the SQL one request
// issued. Also answers 'bare' (replay statements on its own database: the PGlite figures,
// where no second connection can open the directory) and 'rss'.
//
// Env: DATABASE_URL (PostgreSQL) or DATA_DIR (PGlite, in a worker thread unless PGLITE_WORKER=0),
// PORT (0 = any), LOG_LEVEL.
import path from 'node:path';
import os from 'node:os';
import { CompiledQuery, Kysely, type LogEvent } from 'kysely';
import pino from 'pino';
import { loadConfig } from '../src/server/config.js';
import { createApp } from '../src/server/app.js';
import { createMailer } from '../src/server/mailer.js';
import { migrate } from '../src/server/db/migrate.js';
import { seedAdmin, seedCities } from '../src/server/db/seed.js';
import { seedStreetsSample } from '../src/server/modules/reference/public.js';
import { PGliteDialect } from '../src/server/db/pglite-dialect.js';
import { createPGlite } from '../src/server/db/pglite-engine.js';
import { PGliteWorkerClient } from '../src/server/db/pglite-worker-client.js';
import { pgliteWorkerWanted } from '../src/server/db/pglite.js';
import type { Database } from '../src/server/db/schema.js';
import { createPostgres, type Db } from '../src/server/db/client.js';
import { AuthChanges, ConnectionWatcher, type AuthChangeFeed } from '../src/server/db/auth-changes.js';
import { tuneGarbageCollector } from '../src/server/gc-tuning.js';

export interface CapturedQuery {
  sql: string;
  parameters: unknown[];
  ms: number;
}

export type ChildRequest =
  | { id: number; cmd: 'capture'; on: boolean }
  | { id: number; cmd: 'take' }
  | { id: number; cmd: 'bare'; statements: { sql: string; parameters: unknown[] }[]; runs: number; capMs: number }
  | { id: number; cmd: 'query'; sql: string; parameters: unknown[] }
  | { id: number; cmd: 'rss' };

const t0 = performance.now();
// The collector's setting of the production server (main.ts).
tuneGarbageCollector();
const config = loadConfig(process.env);
const log = pino({ level: config.LOG_LEVEL });

let capturing = false;
let captured: CapturedQuery[] = [];
const onLog = (e: LogEvent) => {
  if (!capturing || e.level !== 'query') return;
  // A COPY export hands node-postgres a stream object rather than text: keep its statement.
  const text = typeof e.query.sql === 'string' ? e.query.sql : String((e.query.sql as { text?: unknown }).text ?? '');
  captured.push({ sql: text, parameters: [...e.query.parameters], ms: e.queryDurationMillis });
};

let db: Db;
let changes: AuthChangeFeed;
let closeDb: () => Promise<void>;
if (config.DATABASE_URL) {
  // The handle db/postgres-pool.ts's openPostgres makes (its pool, its LISTEN connection), with the query log.
  const handle = createPostgres(config.DATABASE_URL, { queryLog: onLog });
  db = handle.db;
  changes = handle.changes;
  closeDb = handle.close;
} else {
  // As db/pglite.ts's openPGlite opens it, on this thread or (the default for a directory) in a worker thread,
  // without the directory lock: the parent owns it.
  const dir = path.join(config.dataDir, 'db');
  const pglite = pgliteWorkerWanted(dir) ? await PGliteWorkerClient.start(dir) : await createPGlite(dir);
  const feed = new AuthChanges(true);
  changes = feed;
  db = new Kysely<Database>({ dialect: new PGliteDialect(pglite, new ConnectionWatcher(feed)), log: onLog });
  closeDb = async () => {
    await db.destroy();
    await pglite.close();
  };
}

// What main.ts's prepareDatabase does.
await migrate(db);
await seedCities(db, config.TERRITORY);
await seedStreetsSample(db);
await seedAdmin(db, config);
const mailer = createMailer({ smtpUrl: undefined, mailDir: path.join(os.tmpdir(), 'compost-bench-mail'), from: config.MAIL_FROM, log });
const app = await createApp({ db, mailer, authChanges: changes, config: { ...config, webDir: undefined } }, { loggerInstance: log });
await app.listen({ port: config.PORT, host: config.HOST });
const address = app.server.address();
const port = typeof address === 'object' && address ? address.port : config.PORT;

const send = (m: unknown) => process.send?.(m);

async function bare(statements: { sql: string; parameters: unknown[] }[], runs: number, capMs: number): Promise<number[]> {
  const times: number[] = [];
  const start = performance.now();
  await db.connection().execute(async (conn) => {
    for (let i = 0; i < runs; i++) {
      const t = performance.now();
      for (const s of statements) await conn.executeQuery(CompiledQuery.raw(s.sql, s.parameters));
      times.push(performance.now() - t);
      if (performance.now() - start > capMs && times.length >= 5) break;
    }
  });
  return times;
}

process.on('message', (m: ChildRequest) => {
  void (async () => {
    try {
      switch (m.cmd) {
        case 'capture':
          capturing = m.on;
          captured = [];
          send({ id: m.id, ok: true });
          break;
        case 'take': {
          const out = captured;
          captured = [];
          send({ id: m.id, queries: out });
          break;
        }
        case 'bare':
          send({ id: m.id, times: await bare(m.statements, m.runs, m.capMs) });
          break;
        case 'query':
          send({ id: m.id, rows: (await db.executeQuery(CompiledQuery.raw(m.sql, m.parameters))).rows });
          break;
        case 'rss':
          send({ id: m.id, rss: process.memoryUsage().rss });
          break;
      }
    } catch (e) {
      send({ id: m.id, error: (e as Error).message });
    }
  })();
});

const shutdown = async () => {
  await app.close().catch(() => undefined);
  await closeDb().catch(() => undefined);
  process.exit(0);
};
process.once('SIGTERM', () => void shutdown());
process.once('disconnect', () => void shutdown());
send({ ready: true, url: `http://127.0.0.1:${port}`, startMs: performance.now() - t0 });
