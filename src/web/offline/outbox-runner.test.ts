// The triggers of the app's outbox: app start, the `online` event, the app
// becoming visible, the backoff timer, the 'Envoyer maintenant' and 'Renvoyer' buttons and a new
// login; a 401 keeps the queue and tells the page to ask for a login; an entry the server fails
// on waits on its own. One runner per page, as in the app: it is
// started once for the whole file, each test queues its own entries.
import { Blob as NodeBlob } from 'node:buffer';
import { afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { waitFor } from '@testing-library/react';
import { loggedAs, mockApi, reply, type MockHandler } from '../../../tests/helpers/web-app';
import { storeOutboxEntry } from '../../../tests/helpers/web-outbox';
import { useSessionStore } from '../session/session-store';
import type { OutboxEntry } from './db';
import { SESSION_EXPIRED_MESSAGE } from './outbox';
import { useConnectivityStore } from './connectivity';
import { appOutbox, drainNow, onAuthRequired, onEntrySent, startOutboxRunner, submitIntervention } from './outbox-runner';
import type { InterventionSubmission } from '../../shared/schemas/interventions';
import { openOfflineDb } from './store';
import { persistQueryClientRestore } from '@tanstack/react-query-persist-client';
import { createQueryClient, queryClient } from '../lib/query-client';
import { QUERY_CACHE_KEY, persistOptions, queryCacheStorage, startPersisting } from './query-persist';

const OWNER = 7;
const ADDED = reply(200, { status: 'success', message: 'Intervention(s) ajouté(s)', interventions: [1], demandes: [] });
const FAILED = reply(500, { status: 'error', message: 'Une erreur est survenue.' });
const FAILED_REASON = 'Erreur serveur (500) : Une erreur est survenue.';
const persist = vi.fn(async () => true);

function api(post: MockHandler | 'network') {
  return mockApi({ 'GET /api/logged': loggedAs(['ROLE_USER'], { id: OWNER }), 'POST /api/admin/intervention/add': post });
}

let sequence = 0;
async function queue(overrides: Partial<OutboxEntry<InterventionSubmission>> = {}): Promise<string> {
  sequence += 1;
  const clientId = `0b7c2a3e-1111-4222-8333-${String(sequence).padStart(12, '0')}`;
  // A minimal payload: the server is mocked, only the outbox reads it.
  const payload = { clientId, site: 5, date: '2026-03-02T09:30:00.000Z', values: [{ composteur: 51, action: 1 }] } as unknown as InterventionSubmission;
  return storeOutboxEntry({ payload, createdAt: Date.now() - 60_000 + sequence, ownerId: OWNER, siteLabel: 'QUA005 - Rue de Siam', ...overrides });
}

const rows = async () => (await openOfflineDb()).outbox.orderBy('createdAt').toArray();
const postedIds = (calls: ReturnType<typeof api>) => calls.callsTo('POST', '/api/admin/intervention/add').map((c) => (c.body as { clientId: string }).clientId);

function logIn() {
  useSessionStore.setState({ id: OWNER, username: 'jean@exemple.fr', roles: ['ROLE_USER'], logged: true, fetched: true });
}

beforeAll(async () => {
  Object.defineProperty(navigator, 'storage', { configurable: true, value: { persisted: async () => false, persist } });
  await (await openOfflineDb()).outbox.clear();
});

beforeEach(async () => {
  logIn();
  const db = await openOfflineDb();
  await Promise.all([db.outbox.clear(), db.photos.clear(), db.photoData.clear()]);
});

afterEach(() => {
  vi.restoreAllMocks();
});

describe('outbox runner', () => {
  it('sends what waits when the app starts, and asks the browser to keep the data', async () => {
    const calls = api(ADDED);
    const id = await queue();
    startOutboxRunner();
    await waitFor(async () => expect(await rows()).toEqual([]), { timeout: 5_000 });
    expect(postedIds(calls)).toEqual([id]);
    expect(persist).toHaveBeenCalled();
  });

  it('sends as soon as the network comes back, without waiting for the delay after the outage', async () => {
    const down = api('network');
    const id = await queue();
    const report = await drainNow('visible');
    expect(report?.retryLater).toBe(true);
    expect(postedIds(down)).toEqual([id]);
    // The timer now waits; no try was counted against the entry.
    expect(await drainNow('timer')).toMatchObject({ sent: [], retryLater: true });
    expect(postedIds(down)).toEqual([id]);
    expect(await rows()).toMatchObject([{ clientId: id, state: 'pending', failures: 0 }]);

    const calls = api(ADDED);
    window.dispatchEvent(new Event('online'));
    await waitFor(async () => expect(await rows()).toEqual([]), { timeout: 5_000 });
    expect(postedIds(calls)).toEqual([id]);
  });

  it("does not hold the next entries behind one the server answers 500, nor says 'Hors ligne' for it", async () => {
    let failing = true;
    const calls = api((request) => (failing && (request.body as { clientId: string }).clientId === poisoned ? FAILED : ADDED));
    const poisoned = await queue();
    const second = await queue();
    const third = await queue();
    const report = await drainNow('online');
    expect(report).toMatchObject({ sent: [second, third], serverErrors: [poisoned], retryLater: false });
    expect(postedIds(calls)).toEqual([poisoned, second, third]);
    expect(await rows()).toMatchObject([{ clientId: poisoned, state: 'pending', failures: 1, lastError: FAILED_REASON }]);
    expect(useConnectivityStore.getState().serverUnreachable).toBe(false);

    // The network events keep its own backoff; 'Renvoyer' sends it at once.
    expect((await drainNow('online'))?.sent).toEqual([]);
    expect(postedIds(calls)).toEqual([poisoned, second, third]);
    failing = false;
    await (await appOutbox()).resend(poisoned);
    expect((await drainNow('resend'))?.sent).toEqual([poisoned]);
    expect(postedIds(calls)).toEqual([poisoned, second, third, poisoned]);
    expect(await rows()).toEqual([]);
  });

  it('sends when the app comes back to the front', async () => {
    const calls = api(ADDED);
    const id = await queue();
    vi.spyOn(document, 'visibilityState', 'get').mockReturnValue('visible');
    document.dispatchEvent(new Event('visibilitychange'));
    await waitFor(async () => expect(await rows()).toEqual([]), { timeout: 5_000 });
    expect(postedIds(calls)).toEqual([id]);
  });

  it('retries a server error on a timer that waits for the backoff', async () => {
    let answers = 0;
    const calls = api(() => (++answers === 1 ? FAILED : ADDED));
    const id = await queue();
    const timeouts = vi.spyOn(globalThis, 'setTimeout');
    await drainNow('online');
    const [entry] = await rows();
    expect(entry).toMatchObject({ clientId: id, state: 'pending', attempts: 1, failures: 1, lastError: FAILED_REASON });
    // The first retry is due 2.5 to 5 s later (5 s with jitter); the runner set its timer for then.
    const delay = entry.nextAttemptAt - Date.now();
    expect(delay).toBeGreaterThan(2_000);
    expect(delay).toBeLessThanOrEqual(5_000);
    // Its timer was set within the jittered range (the machine may be slow: no tighter window).
    const timer = timeouts.mock.calls.find(([, ms]) => typeof ms === 'number' && ms > 2_000 && ms <= 5_000);
    expect(timer).toBeDefined();
    const fire = timer![0] as () => void;

    // Fired early, the timer respects the backoff and sends nothing.
    fire();
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(postedIds(calls)).toEqual([id]);

    // Once due, it sends.
    await (await openOfflineDb()).outbox.update(id, { nextAttemptAt: Date.now() - 1 });
    fire();
    await waitFor(async () => expect(await rows()).toEqual([]), { timeout: 5_000 });
    expect(postedIds(calls)).toEqual([id, id]);
  });

  it("lets the button try while the browser says it is offline; the other triggers wait for 'online'", async () => {
    const calls = api(ADDED);
    const id = await queue();
    vi.spyOn(window.navigator, 'onLine', 'get').mockReturnValue(false);
    expect(await drainNow('visible')).toBeNull();
    expect(await drainNow('timer')).toBeNull();
    expect(postedIds(calls)).toEqual([]);
    const report = await drainNow('button');
    expect(report?.sent).toEqual([id]);
    expect(await rows()).toEqual([]);
  });

  it('stops on a 401, keeps the whole queue in order, asks for a login, and sends it all after the login', async () => {
    const calls = api(reply(401, { status: 'error', message: 'Vous devez être connecté.' }));
    const first = await queue();
    const second = await queue();
    const asked = vi.fn();
    const stop = onAuthRequired(asked);
    try {
      const report = await drainNow('button');
      expect(report?.authRequired).toBe(true);
      expect(asked).toHaveBeenCalledTimes(1);
      expect(postedIds(calls)).toEqual([first]);
      expect((await rows()).map((r) => [r.clientId, r.state, r.lastError])).toEqual([
        [first, 'auth', SESSION_EXPIRED_MESSAGE],
        [second, 'pending', null],
      ]);

      // A parked entry is not retried by the timer or the network events: only a login (or the button) sends it.
      api(ADDED);
      expect((await drainNow('online'))?.sent).toEqual([]);
      const afterLogin = api(ADDED);
      useSessionStore.setState({ id: null, logged: false });
      logIn();
      await waitFor(async () => expect(await rows()).toEqual([]), { timeout: 5_000 });
      expect(postedIds(afterLogin)).toEqual([first, second]);
    } finally {
      stop();
    }
  });
});

describe('photos through the runner', () => {
  const META = { ownerId: OWNER, ownerName: 'jean@exemple.fr', siteLabel: 'QUA005 - Rue de Siam' };
  const photoRows = async () => (await openOfflineDb()).photos.toArray();

  function submission(): InterventionSubmission {
    const clientId = `0b7c2a3e-3333-4222-8333-${String(++sequence).padStart(12, '0')}`;
    return {
      clientId,
      site: 5,
      date: '2026-03-02T09:30:00.000Z',
      values: [
        { composteur: 51, action: 18, valeur: 'Charnière cassée', bacDestination: null, observations: null, demandeIntervention: null },
        { composteur: 52, action: 1, valeur: null, bacDestination: null, observations: null, demandeIntervention: null },
      ],
    };
  }

  const processing = (payload: InterventionSubmission): InterventionSubmission => ({
    ...payload,
    values: payload.values.map((b, i) => (i === 0 ? { ...b, demandeIntervention: 12 } : b)),
  });

  /** An image of `bytes` letters (mark 1: a, 2: b...), so that an upload's body shows which it carries. */
  const image = (mark: number, bytes = 2048) => {
    const data = new Uint8Array(bytes);
    data.fill(0x60 + mark);
    return data.buffer;
  };

  function storage(quota: number, usage: number) {
    Object.defineProperty(navigator, 'storage', { configurable: true, value: { persisted: async () => true, persist, estimate: async () => ({ quota, usage }) } });
  }

  /** The multipart fields a photo upload carried, read back from its body. */
  const clientIdOf = (body: unknown) => /name="clientId"\r\n\r\n([0-9a-f-]{36})/.exec(String(body))?.[1];

  afterEach(() => {
    Object.defineProperty(navigator, 'storage', { configurable: true, value: { persisted: async () => false, persist } });
  });

  it('stores the photos with the entry, sends the entry, then each photo to its block’s intervention under its own id', async () => {
    storage(10_000_000_000, 0);
    // The test's fetch is Node's: its body must be built with Node's FormData and Blob (a
    // browser has one kind of each; happy-dom adds its own, which Node's fetch cannot read).
    vi.stubGlobal('Blob', NodeBlob);
    vi.stubGlobal('FormData', (await new Response(new URLSearchParams('a=b')).formData()).constructor);
    const calls = mockApi({
      'GET /api/logged': loggedAs(['ROLE_USER'], { id: OWNER }),
      'POST /api/admin/intervention/add': reply(200, { status: 'success', message: 'Intervention(s) ajouté(s)', interventions: [31, 32], demandes: [] }),
      'POST /api/admin/intervention/31/photo': reply(200, { status: 'success', message: 'Photo enregistrée', photo: { id: 1, idIntervention: 31 } }),
      'POST /api/admin/intervention/32/photo': reply(200, { status: 'success', message: 'Photo enregistrée', photo: { id: 2, idIntervention: 32 } }),
    });
    const payload = submission();
    const photos = [
      { clientId: '9d1f0000-0000-4000-8000-000000000001', block: 0, type: 'image/webp', data: image(1) },
      { clientId: '9d1f0000-0000-4000-8000-000000000002', block: 0, type: 'image/webp', data: image(2) },
      { clientId: '9d1f0000-0000-4000-8000-000000000003', block: 1, type: 'image/jpeg', data: image(3) },
    ];
    const outcome = await submitIntervention(payload, META, { photos });
    expect(outcome).toEqual({ kind: 'sent' });
    // The sheet does not wait for the photos: they follow in the background.
    await waitFor(async () => expect(await photoRows()).toEqual([]), { timeout: 5_000 });
    expect(calls.calls.filter((c) => c.method === 'POST').map((c) => c.path)).toEqual([
      '/api/admin/intervention/add',
      '/api/admin/intervention/31/photo',
      '/api/admin/intervention/31/photo',
      '/api/admin/intervention/32/photo',
    ]);
    const uploads = calls.calls.filter((c) => c.path.endsWith('/photo'));
    expect(uploads.map((c) => clientIdOf(c.body))).toEqual(photos.map((p) => p.clientId));
    expect(uploads.map((c) => /filename="(photo\.\w+)"\r\nContent-Type: (image\/\w+)\r\n\r\n([a-z])\3{2047}\r\n/.exec(String(c.body))?.slice(1))).toEqual([
      ['photo.webp', 'image/webp', 'a'],
      ['photo.webp', 'image/webp', 'b'],
      ['photo.jpg', 'image/jpeg', 'c'],
    ]);
    expect(await (await openOfflineDb()).photoData.count()).toBe(0);
  });

  it('keeps the entry without its photos, and says so, when the phone is short of space', async () => {
    // 4 MB free, for 3 MB of photos: less than the reserve kept for the entries.
    storage(100_000_000, 96_000_000);
    vi.spyOn(window.navigator, 'onLine', 'get').mockReturnValue(false);
    mockApi({ 'GET /api/logged': loggedAs(['ROLE_USER'], { id: OWNER }) });
    const payload = submission();
    const outcome = await submitIntervention(payload, META, { photos: [{ clientId: '9d1f0000-0000-4000-8000-000000000009', block: 0, type: 'image/jpeg', data: image(9, 3_000_000) }] });
    expect(outcome).toEqual({ kind: 'queued', photosDropped: true });
    expect((await rows()).map((r) => r.clientId)).toEqual([payload.clientId]);
    expect(await photoRows()).toEqual([]);
  });

  it('tells its listeners about the entries sent from the queue, not about the one the site sheet waits for', async () => {
    storage(10_000_000_000, 0);
    api(ADDED);
    const heard: string[] = [];
    const stop = onEntrySent((entry) => heard.push(entry.clientId));
    try {
      const queued = await queue();
      await drainNow('online');
      expect(heard).toEqual([queued]);
      const payload = submission();
      expect(await submitIntervention(payload, META)).toEqual({ kind: 'sent' });
      expect(heard).toEqual([queued]);
    } finally {
      stop();
    }
  });

  it('has the board, its history and the site’s queries reload once an entry is sent, on the phone’s copy too, before the site sheet hears it', async () => {
    storage(10_000_000_000, 0);
    api(ADDED);
    const board = ['requests', 'pending', 0, null];
    const history = ['requests', 'history', 'page=0'];
    const sheet = ['interventions', 'siteInfos', 5];
    const other = ['sites', 'active', OWNER];
    for (const key of [board, history, sheet, other]) queryClient.setQueryData(key, { id: 12, statut: 'En attente' });
    const stop = await startPersisting(queryClient);
    try {
      // A change just before: the subscription's next save waits for its throttle.
      queryClient.setQueryData(other, { id: 13 });
      expect(await submitIntervention(processing(submission()), META)).toEqual({ kind: 'sent' });
      for (const key of [board, history, sheet]) expect(queryClient.getQueryState(key)?.isInvalidated).toBe(true);
      expect(queryClient.getQueryState(other)?.isInvalidated).toBe(false);
      // A reload now reads the board as out of date: it loads it again instead of showing the request pending.
      const reloaded = createQueryClient();
      await persistQueryClientRestore({ queryClient: reloaded, ...persistOptions() });
      expect(reloaded.getQueryState(board)).toMatchObject({ isInvalidated: true, data: { id: 12 } });
      expect(reloaded.getQueryState(other)?.isInvalidated).toBe(false);
    } finally {
      stop();
      queryClient.clear();
      await queryCacheStorage.removeItem(QUERY_CACHE_KEY);
    }
  });
});
