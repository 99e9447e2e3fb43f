// The LISTEN connection that brings other processes' changes to sessions, accounts and roles
// (PostgreSQL only): the triggers of migration 011 NOTIFY AUTH_CHANNEL on commit, and this
// connection turns each notification into a change of the process's AuthChanges feed.
import pg from 'pg';
import { AUTH_CHANNEL, AuthChanges } from './auth-changes.js';
import { KEEPALIVE_IDLE_MS, errorSummary, type DbLogger } from './postgres-connection.js';

/** How long the LISTEN connection waits before trying again after a loss (doubling up to the max). */
export const LISTEN_RETRY_MS = { first: 500, max: 10_000 };
/**
 * A connection cut without a word (a dead peer, a dropped route) would leave the listener waiting
 * forever while notifications go nowhere: it is asked a trivial query this often, and counted lost
 * when the answer does not come in time.
 */
export const LISTEN_HEARTBEAT_MS = { every: 5_000, timeout: 3_000 };

/**
 * The LISTEN connection that brings other processes' changes (AUTH_CHANNEL): opened when
 * the first subscriber arrives, reopened after a loss. The feed is live only between a
 * confirmed LISTEN and the next loss; every transition also counts as a change, since
 * notifications sent while it was down are lost.
 */
export function authListener(url: string, log?: DbLogger) {
  let client: pg.Client | null = null;
  let stopped = false;
  let retry: NodeJS.Timeout | null = null;
  let delay = LISTEN_RETRY_MS.first;
  let heartbeat: NodeJS.Timeout | null = null;
  const changes = new AuthChanges(false, () => void connect());

  function beat(c: pg.Client) {
    heartbeat = setTimeout(() => {
      heartbeat = null;
      if (client !== c) return;
      const silent = setTimeout(() => lost(new Error('no answer to the heartbeat')), LISTEN_HEARTBEAT_MS.timeout);
      silent.unref();
      c.query('SELECT 1').then(
        () => {
          clearTimeout(silent);
          if (client === c) beat(c);
        },
        (e) => {
          clearTimeout(silent);
          if (client === c) lost(e);
        },
      );
    }, LISTEN_HEARTBEAT_MS.every);
    heartbeat.unref();
  }

  function lost(err?: unknown) {
    const dead = client;
    client = null;
    if (heartbeat) clearTimeout(heartbeat);
    heartbeat = null;
    if (!dead) return;
    dead.removeAllListeners();
    dead.on('error', () => undefined);
    dead.end().catch(() => undefined);
    changes.setLive(false);
    changes.changed();
    if (stopped) return;
    if (err) log?.warn({ err: errorSummary(err) }, 'Connexion LISTEN à PostgreSQL perdue : les sessions sont lues dans la base jusqu’à son retour');
    schedule();
  }

  function schedule() {
    if (stopped || retry) return;
    retry = setTimeout(() => {
      retry = null;
      void connect();
    }, delay);
    retry.unref();
    delay = Math.min(delay * 2, LISTEN_RETRY_MS.max);
  }

  async function connect() {
    if (stopped || client) return;
    const c = new pg.Client({ connectionString: url, keepAlive: true, keepAliveInitialDelayMillis: KEEPALIVE_IDLE_MS });
    client = c;
    c.on('error', (err) => lost(err));
    c.on('end', () => lost(new Error('connection ended')));
    c.on('notification', (msg) => {
      if (msg.channel === AUTH_CHANNEL) changes.changed();
    });
    try {
      await c.connect();
      await c.query(`LISTEN ${AUTH_CHANNEL}`);
      if (client !== c) return;
      delay = LISTEN_RETRY_MS.first;
      changes.changed();
      changes.setLive(true);
      beat(c);
    } catch (e) {
      if (client === c) lost(e);
    }
  }

  return {
    changes,
    async stop() {
      stopped = true;
      if (retry) clearTimeout(retry);
      retry = null;
      if (heartbeat) clearTimeout(heartbeat);
      heartbeat = null;
      const c = client;
      client = null;
      changes.setLive(false);
      if (c) {
        c.removeAllListeners();
        c.on('error', () => undefined);
        await c.end().catch(() => undefined);
      }
    },
  };
}

