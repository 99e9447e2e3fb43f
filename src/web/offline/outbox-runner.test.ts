// The triggers of the app's outbox (issues 5 and 9): app start, the `online` event, the app
// becoming visible, the backoff timer, the 'Envoyer maintenant' and 'Renvoyer' buttons and a new
// login; a 401 keeps the queue and tells the page to ask for a login; an entry the server fails
// on waits on its own. One runner per page, as in the app: it is
// started once for the whole file, each test queues its own entries.
import { afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { waitFor } from '@testing-library/react';
import { loggedAs, mockApi, reply, type MockHandler } from '../app/test-utils';
import { useSessionStore } from '../app/session-store';
import type { OutboxEntry } from './db';
import { SESSION_EXPIRED_MESSAGE } from './outbox';
import { useConnectivityStore } from './connectivity';
import { appOutbox, drainNow, onAuthRequired, startOutboxRunner } from './outbox-runner';
import { openOfflineDb } from './store';

const OWNER = 7;
const ADDED = reply(200, { status: 'success', message: 'Intervention(s) ajouté(s)', interventions: [1], demandes: [] });
const FAILED = reply(500, { status: 'error', message: 'Une erreur est survenue.' });
const FAILED_REASON = 'Erreur serveur (500) : Une erreur est survenue.';
const persist = vi.fn(async () => true);

function api(post: MockHandler | 'network') {
  return mockApi({ 'GET /api/logged': loggedAs(['ROLE_USER'], { id: OWNER }), 'POST /api/admin/intervention/add': post });
}

let sequence = 0;
async function queue(overrides: Partial<OutboxEntry> = {}): Promise<string> {
  sequence += 1;
  const clientId = `0b7c2a3e-1111-4222-8333-${String(sequence).padStart(12, '0')}`;
  const createdAt = Date.now() - 60_000 + sequence;
  await (
    await openOfflineDb()
  ).outbox.add({
    clientId,
    payload: { clientId, site: 5, date: '2026-03-02T09:30:00.000Z', values: [{ composteur: 51, action: 1 }] },
    createdAt,
    ownerId: OWNER,
    ownerName: 'jean@exemple.fr',
    siteLabel: 'QUA005 - Rue de Siam',
    state: 'pending',
    attempts: 0,
    failures: 0,
    nextAttemptAt: createdAt,
    lastError: null,
    fieldErrors: [],
    ...overrides,
  });
  return clientId;
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
  await (await openOfflineDb()).outbox.clear();
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
