// GET /api/metrics in Prometheus's text format, for whoever holds METRICS_TOKEN (Authorization:
// Bearer …); 404 when no token is set, so the route does not exist for anyone. Registered on
// the app itself (not under /api), so its hooks time every request: durations by route and
// status, the field entries received, deduplicated and refused, the database pool, the last
// success of the alerts job and of the backup, the process's memory. docs/deploy.md lists them.
import crypto from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import { sql } from 'kysely';
import client from 'prom-client';
import { z } from 'zod';
import type { Db } from '../../db/client.js';
import { NotFoundError, UnauthorizedError } from '../../errors.js';
import { listBackups, type BackupConfig } from '../backup/public.js';
import { entryWasReplayed } from '../field-entry/public.js';
import type { MetricsConfig } from './metrics.config.js';

export interface PoolStats {
  total: number;
  idle: number;
  waiting: number;
}

export interface MetricsDeps {
  db: Db;
  config: { metrics?: MetricsConfig; backup?: BackupConfig };
  /** The PostgreSQL pool's counts (pg.Pool's totalCount, idleCount, waitingCount); absent on PGlite. */
  poolStats?: () => PoolStats;
}

export const INVALID_TOKEN_MESSAGE = 'Jeton des métriques absent ou invalide.';

/** The field entry route, whose answers count entries. */
const ENTRY_ROUTE = '/api/admin/intervention/add';

const digest = (s: string) => crypto.createHash('sha256').update(s).digest();

async function metricsPlugin(app: FastifyInstance, deps: MetricsDeps) {
  const registry = new client.Registry();
  const registers = [registry];
  const duration = new client.Histogram({
    name: 'compost_http_request_duration_seconds',
    help: 'Durée des requêtes HTTP, par méthode, route et statut',
    labelNames: ['method', 'route', 'status'] as const,
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    registers,
  });
  const entries = new client.Counter({
    name: 'compost_field_entries_total',
    help: 'Saisies terrain reçues : received (enregistrée), deduplicated (déjà reçue, rejouée), refused (refusée, 4xx)',
    labelNames: ['result'] as const,
    registers,
  });
  for (const result of ['received', 'deduplicated', 'refused']) entries.inc({ result }, 0);
  if (deps.poolStats) {
    const stats = deps.poolStats;
    new client.Gauge({
      name: 'compost_db_pool_connections',
      help: 'Connexions du pool PostgreSQL : in_use (prêtées), idle (libres), waiting (requêtes en attente d’une connexion)',
      labelNames: ['state'] as const,
      registers,
      collect() {
        const s = stats();
        this.set({ state: 'in_use' }, s.total - s.idle);
        this.set({ state: 'idle' }, s.idle);
        this.set({ state: 'waiting' }, s.waiting);
      },
    });
  }
  new client.Gauge({
    name: 'compost_alerts_last_success_timestamp_seconds',
    help: 'Fin du dernier calcul des alertes réussi (secondes depuis 1970)',
    registers,
    async collect() {
      this.reset();
      const { rows } = await sql<{ t: number | null }>`SELECT extract(epoch FROM max(finished_at))::float8 AS t FROM alerte_run`.execute(deps.db).catch(() => ({ rows: [] }));
      if (rows[0]?.t != null) this.set(rows[0].t);
    },
  });
  const backupDir = deps.config.backup?.dir;
  if (backupDir) {
    new client.Gauge({
      name: 'compost_backup_last_success_timestamp_seconds',
      help: 'Heure de la dernière sauvegarde de BACKUP_DIR (secondes depuis 1970)',
      registers,
      collect() {
        this.reset();
        const newest = listBackups(backupDir)[0];
        if (newest) this.set(newest.time.getTime() / 1000);
      },
    });
  }
  new client.Gauge({
    name: 'compost_process_memory_bytes',
    help: 'Mémoire du processus : rss, heap_used, heap_total, external',
    labelNames: ['type'] as const,
    registers,
    collect() {
      const m = process.memoryUsage();
      this.set({ type: 'rss' }, m.rss);
      this.set({ type: 'heap_used' }, m.heapUsed);
      this.set({ type: 'heap_total' }, m.heapTotal);
      this.set({ type: 'external' }, m.external);
    },
  });

  app.addHook('onResponse', async (request, reply) => {
    const route = request.routeOptions.url ?? 'aucune';
    const status = reply.statusCode;
    duration.observe({ method: request.method, route, status: String(status) }, reply.elapsedTime / 1000);
    if (route !== ENTRY_ROUTE || request.method !== 'POST') return;
    // A replayed entry answers as the first did: the entry route says which answers were one.
    if (status === 200) entries.inc({ result: entryWasReplayed(request) ? 'deduplicated' : 'received' });
    else if (status >= 400 && status < 500) entries.inc({ result: 'refused' });
  });

  const expected = deps.config.metrics?.token ? digest(`Bearer ${deps.config.metrics.token}`) : null;
  app.get(
    '/api/metrics',
    {
      schema: {
        response: {
          // 401 (another token) and 404 (no METRICS_TOKEN) answer the usual error body.
          200: z.string().meta({ description: 'Métriques au format texte de Prometheus (Authorization: Bearer METRICS_TOKEN ; 404 sans METRICS_TOKEN, 401 avec un autre jeton)' }),
        },
      },
    },
    async (request, reply) => {
      if (!expected) throw new NotFoundError();
      if (!crypto.timingSafeEqual(digest(request.headers.authorization ?? ''), expected)) throw new UnauthorizedError(INVALID_TOKEN_MESSAGE);
      return reply.header('content-type', registry.contentType).send(await registry.metrics());
    },
  );
}

export default fp(metricsPlugin, { name: 'compost-metrics' });
