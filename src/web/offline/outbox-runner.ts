// Drives the app's outbox (outbox.ts) from the page: sends on app start, when the network comes
// back, when the app becomes visible, on a backoff timer, from the 'Envoyer maintenant' button
// and from an entry's 'Renvoyer'; and submits new entries for the site sheet. Sends use quietApi: a 401 must park the
// queue and ask for a new login, not throw the user out mid-entry.
import { quietApi } from '../lib/api';
import { useSessionStore } from '../app/session-store';
import type { InterventionSubmission } from '../../shared/schemas/interventions';
import type { FieldError } from '../../shared/errors';
import { openOfflineDb } from './store';
import { reportReachable, watchConnectivity } from './connectivity';
import { Outbox, type AddMeta, type DrainReport } from './outbox';
import { refreshReferenceCache } from './reference-cache';
import { httpSender, type PostJson } from './sender';

export const ADD_PATH = 'admin/intervention/add';
const SEND_TIMEOUT_MS = 20_000;
/** How long the site sheet waits for its own entry before saying it is kept on the phone. */
const SUBMIT_WAIT_MS = 25_000;

const post: PostJson = async (body) => {
  try {
    const response = await quietApi.post(ADD_PATH, { json: body, throwHttpErrors: false, timeout: SEND_TIMEOUT_MS });
    // A 500 is the app failing on this entry: the server itself is there.
    reportReachable(response.status < 502 || response.status > 504);
    return response;
  } catch (error) {
    reportReachable(false);
    throw error;
  }
};

/** Two tabs never send the same queue at once (the server would cope, the counters would not). */
function acrossTabs<T>(fn: () => Promise<T>): Promise<T> {
  const locks = typeof navigator !== 'undefined' ? navigator.locks : undefined;
  if (!locks?.request) return fn();
  return locks.request('compost-outbox', () => fn()) as Promise<T>;
}

let outbox: Promise<Outbox<InterventionSubmission>> | null = null;

export function appOutbox(): Promise<Outbox<InterventionSubmission>> {
  outbox ??= openOfflineDb().then((db) => new Outbox<InterventionSubmission>({ table: db.outbox, send: httpSender(post), lock: acrossTabs }));
  return outbox;
}

export type DrainReason = 'start' | 'online' | 'visible' | 'timer' | 'button' | 'resend' | 'login' | 'submit';

let timer: ReturnType<typeof setTimeout> | null = null;
const authListeners = new Set<() => void>();

/** Called when a send met a 401 (the indicator shows the login request). */
export function onAuthRequired(listener: () => void): () => void {
  authListeners.add(listener);
  return () => {
    authListeners.delete(listener);
  };
}

function currentOwner(): number | null {
  const { logged, id } = useSessionStore.getState();
  return logged && id !== null ? id : null;
}

async function schedule(ownerId: number) {
  if (timer) clearTimeout(timer);
  timer = null;
  const due = await (await appOutbox()).nextDueAt(ownerId);
  if (due === null) return;
  timer = setTimeout(() => void drainNow('timer'), Math.max(1_000, due - Date.now()));
}

/** Sends what is due for the logged-in account; resolves with what happened (null: nobody to send for). */
export async function drainNow(reason: DrainReason): Promise<DrainReport | null> {
  const ownerId = currentOwner();
  if (ownerId === null) return null;
  // No attempt is made while the browser knows it has no network; the 'online' event will
  // come. Only the buttons try anyway (the user asked).
  if (reason !== 'button' && reason !== 'resend' && typeof navigator !== 'undefined' && !navigator.onLine) {
    await schedule(ownerId);
    return null;
  }
  const report = await (await appOutbox()).drain({
    ownerId,
    // Every trigger but the timer may mean the network is back: the wait after an outage ends.
    force: reason !== 'timer',
    // An entry backing off after server errors waits for its time, unless the user asks for
    // everything now ('Renvoyer' makes its own entry due by itself).
    ignoreBackoff: reason === 'button',
    includeAuth: reason === 'start' || reason === 'button' || reason === 'resend' || reason === 'login',
  });
  if (report.sent.length > 0) reportReachable(true);
  if (report.authRequired) for (const listener of authListeners) listener();
  await schedule(ownerId);
  return report;
}

let started = false;

/** Starts the triggers once per page. */
export function startOutboxRunner() {
  if (started || typeof window === 'undefined') return;
  started = true;
  watchConnectivity();
  // Ask the browser not to evict the queue under storage pressure.
  void navigator.storage?.persisted?.().then((already) => (already ? true : navigator.storage.persist?.())).catch(() => undefined);

  const refresh = (force = false) => {
    const ownerId = currentOwner();
    if (ownerId !== null && navigator.onLine) void refreshReferenceCache(ownerId, { force });
  };
  void appOutbox()
    .then((box) => box.recover())
    .then(() => drainNow('start'))
    .catch(() => undefined);
  refresh();

  window.addEventListener('online', () => {
    void drainNow('online');
    refresh(true);
  });
  document.addEventListener('visibilitychange', () => {
    if (document.visibilityState === 'visible') void drainNow('visible');
  });
  // A (new) login: send what waited for it, entries parked by a 401 included.
  let lastOwner = currentOwner();
  useSessionStore.subscribe(() => {
    const owner = currentOwner();
    if (owner === lastOwner) return;
    lastOwner = owner;
    if (owner === null) {
      if (timer) clearTimeout(timer);
      timer = null;
      return;
    }
    void drainNow('login');
    refresh();
  });
}

export type SubmitOutcome =
  | { kind: 'sent' }
  | { kind: 'queued' }
  | { kind: 'invalid'; errors: FieldError[]; message: string }
  | { kind: 'rejected'; message: string }
  | { kind: 'auth' };

/**
 * Writes the submission to the outbox (a new entry, or the correction of a refused one), then,
 * when the network seems there, waits a little for it to be sent so the user learns at once
 * whether it reached the server.
 */
export async function submitIntervention(payload: InterventionSubmission, meta: AddMeta, options: { correcting?: boolean } = {}): Promise<SubmitOutcome> {
  const box = await appOutbox();
  if (options.correcting) await box.correct(payload.clientId, payload);
  else await box.add(payload, meta);

  if (typeof navigator !== 'undefined' && !navigator.onLine) {
    await schedule(meta.ownerId);
    return { kind: 'queued' };
  }
  try {
    await Promise.race([drainNow('submit'), new Promise((resolve) => setTimeout(resolve, SUBMIT_WAIT_MS))]);
  } catch {
    // The entry is safely in the outbox; the runner will try again.
    return { kind: 'queued' };
  }
  const entry = await box.get(payload.clientId);
  if (!entry) return { kind: 'sent' };
  if (entry.state === 'failed') {
    return entry.fieldErrors.length > 0
      ? { kind: 'invalid', errors: entry.fieldErrors, message: entry.lastError ?? '' }
      : { kind: 'rejected', message: entry.lastError ?? '' };
  }
  if (entry.state === 'auth') return { kind: 'auth' };
  return { kind: 'queued' };
}
