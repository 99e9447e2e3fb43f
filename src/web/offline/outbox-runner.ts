// Drives the app's outbox (outbox.ts) and the photos of its entries (photo-queue.ts) from the
// page: sends on app start, when the network comes back, when the app becomes visible, on a
// backoff timer, from the 'Envoyer maintenant' button and from 'Renvoyer'; and submits new
// entries, with their photos, for the site sheet, and the tallies of permanences (an entry
// with a target: PUT permanence/{id}/bilan, deduplicated by its clientId like an intervention). Every due entry goes before any photo, so a
// photo never holds an entry. Sends never use the app's api client's 401 handling: a 401 must
// park the queue and ask for a new login, not throw the user out mid-entry. Each entry the
// server confirms leaves a receipt (db.ts `sent`) for the outbox page, and each drain is told
// to the listeners of onDrained (the shell's 'N saisie(s) envoyée(s)' toast). Whatever the server
// took makes the requests board, its history and the interventions (site sheets, lists) out of
// date: they are invalidated, on the phone's copy too, before the drain resolves (a tally makes
// the permanences out of date).
import type { QueryKey } from '@tanstack/react-query';
import { quietApi } from '../lib/api';
import { queryClient } from '../lib/query-client';
import { useSessionStore } from '../session/session-store';
import type { InterventionSubmission } from '../../shared/schemas/interventions';
import type { BilanInput } from '../../shared/schemas/permanences';
import type { FieldError } from '../../shared/errors';
import type { BilanMeta, OutboxEntry, OutboxPhoto } from './db';
import { openOfflineDb } from './store';
import { reportReachable, watchConnectivity } from './connectivity';
import { isBilanEntry, Outbox, type AddMeta, type DrainReport, type OutboxPayload } from './outbox';

export { isBilanEntry, type AnyOutboxEntry, type BilanEntry, type OutboxPayload } from './outbox';
import { PhotoQueue, type NewPhoto, type PhotoDrainReport } from './photo-queue';
import { refreshReferenceCache } from './reference-cache';
import { httpSender, interpretResponse, type PostJson } from './sender';

export const ADD_PATH = 'admin/intervention/add';
/** Where a permanence's tally goes (PUT, under /api). */
export const bilanPath = (permanenceId: number) => `permanence/${permanenceId}/bilan`;
/** A target stored on the phone is only ever one of the app's own relative API paths. */
const SAFE_TARGET = /^[a-z0-9_-]+(\/[a-z0-9_-]+)*$/i;

export const photoPath = (interventionId: number) => `/api/admin/intervention/${interventionId}/photo`;
const SEND_TIMEOUT_MS = 20_000;
/** A photo of a few hundred KB on a weak mobile link. */
const PHOTO_TIMEOUT_MS = 60_000;
/** Space kept free for the entries and the phone's copy of the sites when photos are stored. */
export const STORAGE_RESERVE_BYTES = 10 * 1024 * 1024;
/** How long the site sheet waits for its own entry before saying it is kept on the phone. */
const SUBMIT_WAIT_MS = 25_000;

/** A 500 is the app failing on one request: the server itself is there. A 502-504 comes from a gateway: the network works, the server does not. */
const reachableFrom = (status: number) => reportReachable(status < 502 || status > 504, 'server');

const post: PostJson = async (body, target) => {
  if (target && (target.method !== 'PUT' || !SAFE_TARGET.test(target.path))) {
    // Never sent anywhere else than the app's API: the entry is refused, for the user to discard.
    return new Response(JSON.stringify({ status: 'error', message: 'Destination d’envoi invalide' }), { status: 400, headers: { 'content-type': 'application/json' } });
  }
  try {
    const options = { json: body, throwHttpErrors: false, timeout: SEND_TIMEOUT_MS };
    const response = await (target ? quietApi.put(target.path, options) : quietApi.post(ADD_PATH, options));
    reachableFrom(response.status);
    return response;
  } catch (error) {
    reportReachable(false, 'network');
    throw error;
  }
};

/**
 * One photo in its own multipart request. fetch rather than the app's api client, which sends
 * JSON only and logs out on a 401.
 */
async function postPhoto(photo: OutboxPhoto, data: ArrayBuffer): Promise<Response> {
  const form = new FormData();
  form.append('clientId', photo.clientId);
  form.append('photo', new Blob([data], { type: photo.type }), photo.type === 'image/webp' ? 'photo.webp' : 'photo.jpg');
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(new DOMException('Request timed out', 'TimeoutError')), PHOTO_TIMEOUT_MS);
  try {
    const response = await fetch(photoPath(photo.interventionId!), {
      method: 'POST',
      body: form,
      credentials: 'same-origin',
      headers: { accept: 'application/json' },
      signal: controller.signal,
    });
    reachableFrom(response.status);
    return response;
  } catch (error) {
    reportReachable(false, 'network');
    throw error;
  } finally {
    clearTimeout(timer);
  }
}

/** Two tabs never send the same queue at once (the server would cope, the counters would not). */
function acrossTabs<T>(fn: () => Promise<T>): Promise<T> {
  const locks = typeof navigator !== 'undefined' ? navigator.locks : undefined;
  if (!locks?.request) return fn();
  return locks.request('compost-outbox', () => fn()) as Promise<T>;
}

let outbox: Promise<Outbox<OutboxPayload>> | null = null;
let photoQueue: Promise<PhotoQueue> | null = null;

export function appPhotoQueue(): Promise<PhotoQueue> {
  photoQueue ??= openOfflineDb().then(
    (db) =>
      new PhotoQueue({
        photos: db.photos,
        data: db.photoData,
        entries: db.outbox,
        send: async (photo, data) => interpretResponse(await postPhoto(photo, data)),
        lock: acrossTabs,
      }),
  );
  return photoQueue;
}

export function appOutbox(): Promise<Outbox<OutboxPayload>> {
  outbox ??= Promise.all([openOfflineDb(), appPhotoQueue()]).then(
    ([db, photos]) =>
      new Outbox<OutboxPayload>({
        table: db.outbox,
        send: httpSender(post),
        lock: acrossTabs,
        onSent: async (entry, body) => {
          // Before the entry leaves: its photos must know their interventions.
          if (!isBilanEntry(entry)) await photos.link(entry.clientId, body);
          await keepReceipt(entry);
          // The listeners read interventions (the requests they processed); a tally has none.
          if (!isBilanEntry(entry)) for (const listener of sentListeners) listener(entry as OutboxEntry<InterventionSubmission>);
        },
      }),
  );
  return outbox;
}

export type DrainReason = 'start' | 'online' | 'visible' | 'timer' | 'button' | 'resend' | 'login' | 'submit';

/** Receipts kept per account for the outbox page's list of entries sent. */
export const SENT_KEPT = 20;

/** Records that the server confirmed `entry`, keeping the SENT_KEPT newest of its account; never fails the send. */
async function keepReceipt(entry: OutboxEntry<OutboxPayload>): Promise<void> {
  try {
    const db = await openOfflineDb();
    await db.sent.put({
      clientId: entry.clientId,
      ownerId: entry.ownerId,
      siteLabel: entry.siteLabel,
      payload: entry.payload,
      ...(entry.bilan ? { bilan: entry.bilan } : {}),
      sentAt: Date.now(),
    });
    const mine = await db.sent.where('ownerId').equals(entry.ownerId).sortBy('sentAt');
    const old = mine.slice(0, Math.max(0, mine.length - SENT_KEPT)).map((r) => r.clientId);
    if (old.length > 0) await db.sent.bulkDelete(old);
  } catch {
    /* a receipt is a convenience: the entry itself reached the server */
  }
}

/** What a drain did to the entries, and to the photos when the entries let it go on to them. */
export type RunnerReport = DrainReport & { photos: PhotoDrainReport | null };

let timer: ReturnType<typeof setTimeout> | null = null;
const authListeners = new Set<() => void>();
const drainListeners = new Set<(report: RunnerReport & { reason: DrainReason; unawaited: string[] }) => void>();
const sentListeners = new Set<(entry: OutboxEntry<InterventionSubmission>) => void>();
/** Entries the site sheet is waiting for: it tells the user itself. */
const awaited = new Set<string>();

/**
 * Called for each entry the server confirmed that no screen is waiting for (sent from the
 * queue: after a reconnection, by the timer, from the outbox page...).
 */
export function onEntrySent(listener: (entry: OutboxEntry<InterventionSubmission>) => void): () => void {
  const wrapped = (entry: OutboxEntry<InterventionSubmission>) => {
    if (!awaited.has(entry.clientId)) listener(entry);
  };
  sentListeners.add(wrapped);
  return () => {
    sentListeners.delete(wrapped);
  };
}

/**
 * Called after each drain with what it did; `unawaited` lists the entries sent that no screen
 * was waiting for (the site sheet tells about its own), for the 'N saisie(s) envoyée(s)' toast.
 */
export function onDrained(listener: (report: RunnerReport & { reason: DrainReason; unawaited: string[] }) => void): () => void {
  drainListeners.add(listener);
  return () => {
    drainListeners.delete(listener);
  };
}

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
  const dues = (await Promise.all([(await appOutbox()).nextDueAt(ownerId), (await appPhotoQueue()).nextDueAt(ownerId)])).filter((d): d is number => d !== null);
  if (dues.length === 0) return;
  const due = Math.min(...dues);
  timer = setTimeout(() => void drainNow('timer'), Math.max(1_000, due - Date.now()));
}

/** Sends what is due for the logged-in account; resolves with what happened (null: nobody to send for). */
export async function drainNow(reason: DrainReason): Promise<RunnerReport | null> {
  const ownerId = currentOwner();
  if (ownerId === null) return null;
  // No attempt is made while the browser knows it has no network; the 'online' event will
  // come. Only the buttons try anyway (the user asked).
  if (reason !== 'button' && reason !== 'resend' && typeof navigator !== 'undefined' && !navigator.onLine) {
    await schedule(ownerId);
    return null;
  }
  const options = {
    ownerId,
    // Every trigger but the timer may mean the network is back: the wait after an outage ends.
    force: reason !== 'timer',
    // An entry backing off after server errors waits for its time, unless the user asks for
    // everything now ('Renvoyer' makes its own entry due by itself).
    ignoreBackoff: reason === 'button',
    includeAuth: reason === 'start' || reason === 'button' || reason === 'resend' || reason === 'login',
  };
  const entries = await (await appOutbox()).drain(options);
  const unawaited = entries.sent.filter((id) => !awaited.has(id));
  if (entries.sent.length > 0) {
    reportReachable(true);
    await refreshAfterSend();
  }
  if (entries.authRequired) for (const listener of authListeners) listener();
  let photos: PhotoDrainReport | null = null;
  // The photos after every entry that could go; not when the network or the session is gone.
  if (!entries.retryLater && !entries.authRequired) {
    const sending = drainPhotos(options);
    // The site sheet waits for its entry, not for the photos: they go on in the background.
    if (reason === 'submit') void sending.then(() => schedule(ownerId)).catch(() => undefined);
    else photos = await sending;
  }
  await schedule(ownerId);
  const report = { ...entries, photos };
  for (const listener of drainListeners) listener({ ...report, reason, unawaited });
  return report;
}

async function drainPhotos(options: Parameters<PhotoQueue['drain']>[0]): Promise<PhotoDrainReport> {
  const report = await (await appPhotoQueue()).drain(options);
  if (report.sent.length > 0) {
    reportReachable(true);
    await refreshAfterSend();
  }
  if (report.authRequired) for (const listener of authListeners) listener();
  return report;
}

/** The queries a sent entry or photo changes: the requests (board, filter, history), the interventions (lists, site sheets) and the permanences (their tallies). */
const changedBySend = (key: QueryKey) => key[0] === 'requests' || key[0] === 'interventions' || key[0] === 'permanences';

/**
 * Marks those queries out of date (the screens showing them reload; the others will when they
 * open) and saves the phone's copy at once, so that a reload right after does not show a
 * processed request as still pending.
 */
async function refreshAfterSend(): Promise<void> {
  void queryClient.invalidateQueries({ predicate: (q) => changedBySend(q.queryKey) });
  try {
    await (await import('./query-persist')).saveNow(queryClient);
  } catch {
    /* the copy is saved again at the next change; the server has the entry */
  }
}

/** Takes off what startOutboxRunner put on the page; null while it is not started. */
let detach: (() => void) | null = null;

/** Starts the triggers once per page. */
export function startOutboxRunner() {
  if (detach || typeof window === 'undefined') return;
  watchConnectivity();
  // Ask the browser not to evict the queue under storage pressure.
  void navigator.storage?.persisted?.().then((already) => (already ? true : navigator.storage.persist?.())).catch(() => undefined);

  const refresh = (force = false) => {
    const ownerId = currentOwner();
    if (ownerId !== null && navigator.onLine) void refreshReferenceCache(ownerId, { force });
  };
  void appOutbox()
    .then((box) => box.recover())
    .then(async () => (await appPhotoQueue()).recover())
    .then(() => drainNow('start'))
    .catch(() => undefined);
  refresh();

  const online = () => {
    void drainNow('online');
    refresh(true);
  };
  const visible = () => {
    if (document.visibilityState === 'visible') void drainNow('visible');
  };
  window.addEventListener('online', online);
  document.addEventListener('visibilitychange', visible);
  // A (new) login: send what waited for it, entries parked by a 401 included.
  let lastOwner = currentOwner();
  const unsubscribe = useSessionStore.subscribe(() => {
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
  detach = () => {
    window.removeEventListener('online', online);
    document.removeEventListener('visibilitychange', visible);
    unsubscribe();
    if (timer) clearTimeout(timer);
    timer = null;
  };
}

/**
 * Stops the triggers: nothing is sent again until the next start. A page never stops them; the
 * screen tests, which run one file after another in one page, do between files.
 */
export function stopOutboxRunner() {
  detach?.();
  detach = null;
}

export type SubmitOutcome = (
  | { kind: 'sent' }
  | { kind: 'queued' }
  /** Not kept (keepUnsent false): the server could not be reached, nothing stays on the phone. */
  | { kind: 'notSent' }
  | { kind: 'invalid'; errors: FieldError[]; message: string }
  | { kind: 'rejected'; message: string }
  | { kind: 'auth' }
) & {
  /** The entry was kept without its photos: the phone had no room for them. */
  photosDropped?: boolean;
};

/** Whether the phone has room for `bytes` more, with a reserve; true when the browser cannot tell. */
export async function hasRoomFor(bytes: number): Promise<boolean> {
  if (bytes === 0) return true;
  try {
    const estimate = await navigator.storage?.estimate?.();
    if (!estimate || typeof estimate.quota !== 'number' || typeof estimate.usage !== 'number') return true;
    return estimate.quota - estimate.usage >= bytes + STORAGE_RESERVE_BYTES;
  } catch {
    return true;
  }
}

const isQuotaError = (e: unknown) => {
  const names = [(e as { name?: unknown } | null)?.name, (e as { inner?: { name?: unknown } } | null)?.inner?.name];
  return names.includes('QuotaExceededError');
};

/**
 * Writes the entry and its photos to the phone in one transaction, or only the entry when the
 * phone is short of space (checked first, and again if the write is refused for lack of it):
 * the entry is never lost for its photos. Returns whether the photos were dropped.
 */
async function store(payload: InterventionSubmission, meta: AddMeta, photos: readonly NewPhoto[], correcting: boolean): Promise<boolean> {
  const [db, box, queue] = await Promise.all([openOfflineDb(), appOutbox(), appPhotoQueue()]);
  const bytes = photos.reduce((n, p) => n + p.data.byteLength, 0);
  let keepPhotos = photos.length > 0 && (await hasRoomFor(bytes));
  if (correcting) {
    // The entry was refused: none of its photos were sent. They are replaced before the entry
    // becomes due again, so the entry cannot leave with the old ones.
    try {
      await queue.replaceForEntry(payload.clientId, meta.ownerId, keepPhotos ? photos : []);
    } catch (e) {
      if (!isQuotaError(e)) throw e;
      keepPhotos = false;
      await queue.replaceForEntry(payload.clientId, meta.ownerId, []);
    }
    await box.correct(payload.clientId, payload);
    return photos.length > 0 && !keepPhotos;
  }
  if (keepPhotos) {
    try {
      await db.transaction('rw', db.outbox, db.photos, db.photoData, async () => {
        await box.add(payload, meta);
        await queue.put(payload.clientId, meta.ownerId, photos);
      });
      return false;
    } catch (e) {
      if (!isQuotaError(e)) throw e;
    }
  }
  await box.add(payload, meta);
  return photos.length > 0;
}

/**
 * Writes the submission to the outbox (a new entry, or the correction of a refused one) with
 * its photos, then, when the network seems there, waits a little for it to be sent so the user
 * learns at once whether it reached the server. The photos follow on their own.
 */
export async function submitIntervention(
  payload: InterventionSubmission,
  meta: AddMeta,
  options: { correcting?: boolean; photos?: readonly NewPhoto[]; keepUnsent?: boolean } = {},
): Promise<SubmitOutcome> {
  // Where the phone cannot promise to keep an entry (offline/capability.ts), one that cannot
  // reach the server is not kept: the user still has it in the form.
  const keepUnsent = options.keepUnsent ?? true;
  if (!keepUnsent && typeof navigator !== 'undefined' && !navigator.onLine) return { kind: 'notSent' };
  const photosDropped = await store(payload, meta, options.photos ?? [], options.correcting ?? false);
  return { ...(await awaitOutcome(payload.clientId, meta.ownerId, keepUnsent)), ...(photosDropped ? { photosDropped } : {}) };
}

/**
 * What became of an entry just written: when the network seems there, waits a little for it
 * to be sent so the user learns at once whether it reached the server.
 */
async function awaitOutcome(clientId: string, ownerId: number, keepUnsent: boolean): Promise<SubmitOutcome> {
  const box = await appOutbox();
  if (typeof navigator !== 'undefined' && !navigator.onLine) {
    await schedule(ownerId);
    return { kind: 'queued' };
  }
  awaited.add(clientId);
  try {
    await Promise.race([drainNow('submit'), new Promise((resolve) => setTimeout(resolve, SUBMIT_WAIT_MS))]);
  } catch {
    // The entry is safely in the outbox; the runner will try again.
    return { kind: 'queued' };
  } finally {
    awaited.delete(clientId);
  }
  const entry = await box.get(clientId);
  if (!entry) return { kind: 'sent' };
  if (entry.state === 'failed') {
    return entry.fieldErrors.length > 0
      ? { kind: 'invalid', errors: entry.fieldErrors, message: entry.lastError ?? '' }
      : { kind: 'rejected', message: entry.lastError ?? '' };
  }
  if (entry.state === 'auth') return { kind: 'auth' };
  if (!keepUnsent) {
    if (await withdraw(clientId)) return { kind: 'notSent' };
    // The send was still on its way when the wait ended: it may have landed meanwhile.
    if (!(await box.get(clientId))) return { kind: 'sent' };
  }
  return { kind: 'queued' };
}

/**
 * Writes the tally of a permanence to the outbox (a new entry, or the correction of a refused
 * one, which keeps its clientId) and waits a little for it as an intervention does. It goes by
 * PUT to the permanence's bilan; the server stores one tally per clientId, so a replay is
 * harmless.
 */
export async function submitBilan(
  payload: BilanInput,
  meta: AddMeta & { bilan: BilanMeta },
  options: { correcting?: boolean; keepUnsent?: boolean } = {},
): Promise<SubmitOutcome> {
  const keepUnsent = options.keepUnsent ?? true;
  if (!keepUnsent && typeof navigator !== 'undefined' && !navigator.onLine) return { kind: 'notSent' };
  const box = await appOutbox();
  if (options.correcting) await box.correct(payload.clientId, payload);
  else await box.add(payload, meta, { target: { method: 'PUT', path: bilanPath(meta.bilan.permanence) }, bilan: meta.bilan });
  return awaitOutcome(payload.clientId, meta.ownerId, keepUnsent);
}

/** Takes back an entry that is only waiting (not on its way), with its photos; false when it could not. */
async function withdraw(clientId: string): Promise<boolean> {
  if (!(await (await appOutbox()).withdraw(clientId))) return false;
  await (await appPhotoQueue()).discardForEntry(clientId);
  return true;
}

/** Deletes an entry and its photos; only ever called after the user confirmed. */
export async function discardEntry(clientId: string): Promise<void> {
  await (await appOutbox()).discard(clientId);
  await (await appPhotoQueue()).discardForEntry(clientId);
}
