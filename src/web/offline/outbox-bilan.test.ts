// A permanence's tally through the app's outbox: it goes by PUT to its permanence's bilan (the
// entry's target), carries its clientId, leaves only once the server confirmed it, a replay is
// harmless, a 400 keeps its field errors on the phone, and it never reaches the listeners of
// interventions. Entries without a target still go to the intervention add.
import { beforeEach, describe, expect, it } from 'vitest';
import { loggedAs, mockApi, reply, type MockHandler } from '../../../tests/helpers/web-app';
import { storeOutboxEntry } from '../../../tests/helpers/web-outbox';
import { useSessionStore } from '../session/session-store';
import type { InterventionSubmission } from '../../shared/schemas/interventions';
import type { BilanInput } from '../../shared/schemas/permanences';
import type { OutboxEntry } from './db';
import { appOutbox, drainNow, onEntrySent, submitBilan } from './outbox-runner';
import { openOfflineDb } from './store';

const OWNER = 7;
const PERMANENCE = 12;
const SAVED = reply(200, { status: 'success', message: 'Bilan enregistré' });
const ADDED = reply(200, { status: 'success', message: 'Intervention(s) ajouté(s)', interventions: [1], demandes: [] });
const BILAN = { site: 5, permanence: PERMANENCE, debut: '2026-11-28T16:00:00.000Z', fin: '2026-11-28T18:00:00.000Z' };
const META = { ownerId: OWNER, ownerName: 'jean@exemple.fr', siteLabel: 'QUA005 - Rue de Siam', bilan: BILAN };

function api(put: MockHandler | 'network', post: MockHandler = ADDED) {
  return mockApi({ 'GET /api/logged': loggedAs(['ROLE_USER'], { id: OWNER }), [`PUT /api/permanence/${PERMANENCE}/bilan`]: put, 'POST /api/admin/intervention/add': post });
}

let sequence = 0;
function tally(overrides: Partial<BilanInput> = {}): BilanInput {
  sequence += 1;
  return { clientId: `0b7c2a3e-3333-4222-8333-${String(sequence).padStart(12, '0')}`, foyers: 14, seaux: 9, kg: null, temperature: null, ...overrides };
}

const rows = async () => (await openOfflineDb()).outbox.orderBy('createdAt').toArray();

beforeEach(async () => {
  useSessionStore.setState({ id: OWNER, username: 'jean@exemple.fr', roles: ['ROLE_USER'], logged: true, fetched: true });
  const db = await openOfflineDb();
  await Promise.all([db.outbox.clear(), db.sent.clear()]);
});

describe('a tally in the outbox', () => {
  it('is sent once by PUT to its permanence with its clientId, then leaves, with a receipt that says it is a tally', async () => {
    const calls = api(SAVED);
    const payload = tally({ kg: 12.5, temperature: 21 });
    const outcome = await submitBilan(payload, META);
    expect(outcome).toEqual({ kind: 'sent' });
    const puts = calls.callsTo('PUT', `/api/permanence/${PERMANENCE}/bilan`);
    expect(puts.map((c) => c.body)).toEqual([payload]);
    expect(calls.callsTo('POST', '/api/admin/intervention/add')).toEqual([]);
    expect(await rows()).toEqual([]);
    const sent = await (await openOfflineDb()).sent.toArray();
    expect(sent).toMatchObject([{ clientId: payload.clientId, bilan: BILAN, payload }]);
  });

  it('waits on the phone without network and leaves once when it returns; a replay of the same clientId is harmless', async () => {
    const down = api('network');
    const payload = tally();
    expect(await submitBilan(payload, META)).toEqual({ kind: 'queued' });
    expect(down.callsTo('PUT', `/api/permanence/${PERMANENCE}/bilan`)).toHaveLength(1);
    expect(await rows()).toMatchObject([{ clientId: payload.clientId, state: 'pending', target: { method: 'PUT', path: `permanence/${PERMANENCE}/bilan` }, bilan: BILAN }]);

    // The server stores one tally per clientId: it answers a resend as it answered the first.
    const stored = new Set<string>();
    const up = api((call) => {
      stored.add((call.body as BilanInput).clientId);
      return SAVED;
    });
    expect((await drainNow('online'))?.sent).toEqual([payload.clientId]);
    expect(await rows()).toEqual([]);
    // A second drain has nothing left to send.
    expect((await drainNow('online'))?.sent).toEqual([]);
    expect(up.callsTo('PUT', `/api/permanence/${PERMANENCE}/bilan`)).toHaveLength(1);
    expect([...stored]).toEqual([payload.clientId]);
  });

  it('keeps the field errors of a 400 on the entry, and a correction keeps its clientId and its target', async () => {
    const errors = [{ key: 'seaux', error: 'Un nombre entier entre 0 et 1000' }];
    api(reply(400, { status: 'error', message: 'Veuillez renseigner les champs obligatoires', errors }));
    const payload = tally({ seaux: 9 });
    expect(await submitBilan(payload, META)).toEqual({ kind: 'invalid', errors, message: 'Veuillez renseigner les champs obligatoires' });
    expect(await rows()).toMatchObject([{ clientId: payload.clientId, state: 'failed', fieldErrors: errors }]);

    const calls = api(SAVED);
    const corrected = { ...payload, seaux: 8 };
    expect(await submitBilan(corrected, META, { correcting: true })).toEqual({ kind: 'sent' });
    expect(calls.callsTo('PUT', `/api/permanence/${PERMANENCE}/bilan`).map((c) => c.body)).toEqual([corrected]);
    expect(await rows()).toEqual([]);
  });

  it('goes beside interventions: an entry without target still goes to the intervention add, and only it reaches the intervention listeners', async () => {
    const calls = api(SAVED);
    const heard: string[] = [];
    const stop = onEntrySent((entry) => heard.push(entry.clientId));
    try {
      const intervention = { clientId: '0b7c2a3e-3333-4222-8333-999999999999', site: 5, date: '2026-03-02T09:30:00.000Z', values: [] } as unknown as InterventionSubmission;
      await storeOutboxEntry({ payload: intervention, createdAt: Date.now() - 1000 });
      const payload = tally();
      await (await appOutbox()).add(payload, META, { target: { method: 'PUT', path: `permanence/${PERMANENCE}/bilan` }, bilan: BILAN });
      expect((await drainNow('online'))?.sent).toEqual([intervention.clientId, payload.clientId]);
      expect(calls.callsTo('POST', '/api/admin/intervention/add').map((c) => (c.body as { clientId: string }).clientId)).toEqual([intervention.clientId]);
      expect(calls.callsTo('PUT', `/api/permanence/${PERMANENCE}/bilan`).map((c) => (c.body as BilanInput).clientId)).toEqual([payload.clientId]);
      expect(heard).toEqual([intervention.clientId]);
    } finally {
      stop();
    }
  });

  it('never sends an entry whose stored target is not one of the API paths: it is refused, for the user to discard', async () => {
    const calls = api(SAVED);
    const payload = tally();
    const db = await openOfflineDb();
    const entry = { ...(await (await appOutbox()).add(payload, META, { target: { method: 'PUT', path: `permanence/${PERMANENCE}/bilan` }, bilan: BILAN })) };
    await db.outbox.put({ ...entry, target: { method: 'PUT', path: '../../logout' } } as OutboxEntry);
    expect((await drainNow('online'))?.failed).toEqual([payload.clientId]);
    expect(calls.calls.filter((c) => c.method === 'PUT')).toEqual([]);
    expect(await rows()).toMatchObject([{ clientId: payload.clientId, state: 'failed', lastError: 'Destination d’envoi invalide' }]);
  });
});
