import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { CompostOfflineDb } from './db';
import { backoffDelay, Outbox, SESSION_EXPIRED_MESSAGE, type SendResult } from './outbox';
import { httpSender, interpretResponse } from './sender';

interface Payload {
  clientId: string;
  n: number;
}

const OWNER = { ownerId: 7, ownerName: 'referent@demo.fr', siteLabel: 'QUA001 - rue de Siam' };

let db: CompostOfflineDb;
let clock: number;
let dbCount = 0;

function json(status: number, body: unknown): Response {
  return new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json' } });
}

/** An outbox whose sender answers from a script and records what it was asked. */
function makeOutbox(answer: (p: Payload, call: number) => SendResult | Promise<SendResult>) {
  const calls: number[] = [];
  const outbox = new Outbox<Payload>({
    table: db.outbox,
    now: () => clock,
    send: async (p) => {
      calls.push(p.n);
      return answer(p, calls.length);
    },
  });
  return { outbox, calls };
}

let idSeq = 0;

async function addMany(outbox: Outbox<Payload>, count: number, meta = OWNER) {
  for (let n = 1; n <= count; n++) {
    await outbox.add({ clientId: `00000000-0000-4000-8000-${String(++idSeq).padStart(12, '0')}`, n }, meta);
    clock += 1000;
  }
}

beforeEach(async () => {
  db = new CompostOfflineDb(`outbox-test-${++dbCount}`);
  await db.open();
  clock = Date.UTC(2026, 5, 1, 8, 0, 0);
});

afterEach(async () => {
  db.close();
  await db.delete();
});

describe('outbox', () => {
  it('sends entries oldest first, one at a time, and removes each once the server confirmed it', async () => {
    let inFlight = 0;
    let maxInFlight = 0;
    const { outbox, calls } = makeOutbox(async () => {
      inFlight++;
      maxInFlight = Math.max(maxInFlight, inFlight);
      await new Promise((r) => setTimeout(r, 5));
      inFlight--;
      return { kind: 'sent' };
    });
    await addMany(outbox, 4);
    const report = await outbox.drain({ ownerId: OWNER.ownerId });
    expect(calls).toEqual([1, 2, 3, 4]);
    expect(maxInFlight).toBe(1);
    expect(report.sent).toHaveLength(4);
    expect(await outbox.entries()).toEqual([]);
  });

  it('never sends an entry twice when two drains start together', async () => {
    const { outbox, calls } = makeOutbox(async () => {
      await new Promise((r) => setTimeout(r, 5));
      return { kind: 'sent' };
    });
    await addMany(outbox, 3);
    await Promise.all([outbox.drain({ ownerId: OWNER.ownerId }), outbox.drain({ ownerId: OWNER.ownerId, force: true })]);
    expect(calls).toEqual([1, 2, 3]);
  });

  it('keeps an entry when the network fails, stops the queue and retries after an exponential backoff', async () => {
    let online = false;
    const { outbox, calls } = makeOutbox(() => {
      if (!online) throw new TypeError('Failed to fetch');
      return { kind: 'sent' };
    });
    await addMany(outbox, 2);
    const start = clock;

    const first = await outbox.drain({ ownerId: OWNER.ownerId });
    expect(first.retryLater).toBe(true);
    expect(calls).toEqual([1]);
    const [failedOnce, second] = await outbox.entries();
    expect(failedOnce).toMatchObject({ state: 'pending', attempts: 1, nextAttemptAt: start + 5_000 });
    expect(failedOnce.lastError).toContain('Pas de réseau');
    expect(second).toMatchObject({ state: 'pending', attempts: 0 });

    // Before the delay the timer does nothing, and the newer entry does not overtake.
    clock = start + 4_999;
    await outbox.drain({ ownerId: OWNER.ownerId });
    expect(calls).toEqual([1]);

    clock = start + 5_000;
    await outbox.drain({ ownerId: OWNER.ownerId });
    const [failedTwice] = await outbox.entries();
    expect(failedTwice).toMatchObject({ attempts: 2, nextAttemptAt: start + 5_000 + 10_000 });

    online = true;
    clock = start + 15_000;
    const last = await outbox.drain({ ownerId: OWNER.ownerId });
    expect(last.sent).toHaveLength(2);
    expect(calls).toEqual([1, 1, 1, 2]);
    expect(await outbox.entries()).toEqual([]);
  });

  it('ignores the backoff when forced (network back, button pressed)', async () => {
    let online = false;
    const { outbox, calls } = makeOutbox(() => (online ? { kind: 'sent' } : { kind: 'retry', message: 'Erreur serveur' }));
    await addMany(outbox, 1);
    await outbox.drain({ ownerId: OWNER.ownerId });
    online = true;
    await outbox.drain({ ownerId: OWNER.ownerId });
    expect(calls).toEqual([1]);
    await outbox.drain({ ownerId: OWNER.ownerId, force: true });
    expect(calls).toEqual([1, 1]);
    expect(await outbox.counts()).toEqual({ pending: 0, failed: 0 });
  });

  it('doubles the delay from 5 s and caps it at 5 minutes', () => {
    expect([1, 2, 3, 4, 5, 6, 7, 8, 50].map((a) => backoffDelay(a))).toEqual([
      5_000, 10_000, 20_000, 40_000, 80_000, 160_000, 300_000, 300_000, 300_000,
    ]);
  });

  it('marks a 400 entry failed with its field errors and goes on with the next one', async () => {
    const { outbox, calls } = makeOutbox((p) =>
      p.n === 1
        ? { kind: 'invalid', message: 'Veuillez renseigner les champs obligatoires', errors: [{ key: 'values0.observations', error: 'Les observations sont obligatoires pour cette action' }] }
        : { kind: 'sent' },
    );
    await addMany(outbox, 2);
    const report = await outbox.drain({ ownerId: OWNER.ownerId });
    expect(calls).toEqual([1, 2]);
    expect(report.failed).toHaveLength(1);
    const [left] = await outbox.entries();
    expect(left).toMatchObject({
      state: 'failed',
      payload: { n: 1 },
      lastError: 'Veuillez renseigner les champs obligatoires',
      fieldErrors: [{ key: 'values0.observations', error: 'Les observations sont obligatoires pour cette action' }],
    });
    expect(await outbox.counts()).toEqual({ pending: 0, failed: 1 });

    // A failed entry is not retried by itself.
    clock += 3_600_000;
    await outbox.drain({ ownerId: OWNER.ownerId, force: true });
    expect(calls).toEqual([1, 2]);
  });

  it('sends a corrected entry with the same clientId, in its original place', async () => {
    const { outbox, calls } = makeOutbox((p) => (p.n === 1 ? { kind: 'invalid', message: 'x', errors: [{ key: 'date', error: 'y' }] } : { kind: 'sent' }));
    await addMany(outbox, 1);
    await outbox.drain({ ownerId: OWNER.ownerId });
    const [failed] = await outbox.entries();
    await outbox.correct(failed.clientId, { clientId: failed.clientId, n: 10 });
    const [corrected] = await outbox.entries();
    expect(corrected).toMatchObject({ clientId: failed.clientId, createdAt: failed.createdAt, state: 'pending', fieldErrors: [], lastError: null });
    await outbox.drain({ ownerId: OWNER.ownerId });
    expect(calls).toEqual([1, 10]);
    expect(await outbox.entries()).toEqual([]);
    await expect(outbox.correct('other', { clientId: 'another', n: 1 })).rejects.toThrow();
    await expect(outbox.add({ clientId: failed.clientId, n: 2 }, OWNER)).resolves.toBeTruthy();
    await expect(outbox.add({ clientId: failed.clientId, n: 3 }, OWNER)).rejects.toThrow();
  });

  it('keeps the message of a 409 and lets the user resend or discard the entry', async () => {
    let answer: SendResult = { kind: 'rejected', message: 'Cette saisie a déjà été envoyée avec un contenu différent.' };
    const { outbox, calls } = makeOutbox(() => answer);
    await addMany(outbox, 2);
    await outbox.drain({ ownerId: OWNER.ownerId });
    const [first, second] = await outbox.entries();
    expect(first).toMatchObject({ state: 'failed', lastError: 'Cette saisie a déjà été envoyée avec un contenu différent.', fieldErrors: [] });
    expect(second.state).toBe('failed');

    answer = { kind: 'sent' };
    await outbox.resend(first.clientId);
    await outbox.drain({ ownerId: OWNER.ownerId });
    expect(calls).toEqual([1, 2, 1]);
    expect((await outbox.entries()).map((e) => e.clientId)).toEqual([second.clientId]);

    await outbox.discard(second.clientId);
    expect(await outbox.entries()).toEqual([]);
  });

  it('parks the entry on a 401, keeps the whole queue and sends it again once logged in', async () => {
    let logged = false;
    const { outbox, calls } = makeOutbox(() => (logged ? { kind: 'sent' } : { kind: 'auth' }));
    await addMany(outbox, 3);
    const report = await outbox.drain({ ownerId: OWNER.ownerId, force: true });
    expect(report.authRequired).toBe(true);
    expect(calls).toEqual([1]);
    const entries = await outbox.entries();
    expect(entries.map((e) => e.state)).toEqual(['auth', 'pending', 'pending']);
    expect(entries[0].lastError).toBe(SESSION_EXPIRED_MESSAGE);
    expect(await outbox.counts()).toEqual({ pending: 3, failed: 0 });

    // The timer and the network events do not hammer the server with a dead session, nor let
    // newer entries overtake the parked one...
    await outbox.drain({ ownerId: OWNER.ownerId, force: true });
    await outbox.drain({ ownerId: OWNER.ownerId });
    expect(calls).toEqual([1]);
    // ...and after the login everything goes, the parked entry first.
    logged = true;
    await outbox.drain({ ownerId: OWNER.ownerId, includeAuth: true, force: true });
    expect(calls).toEqual([1, 1, 2, 3]);
    expect(await outbox.entries()).toEqual([]);
  });

  it("leaves another account's entries alone", async () => {
    const { outbox, calls } = makeOutbox(() => ({ kind: 'sent' }));
    await addMany(outbox, 1, { ...OWNER, ownerId: 99 });
    await addMany(outbox, 1);
    await outbox.drain({ ownerId: OWNER.ownerId });
    expect(calls).toHaveLength(1);
    expect((await outbox.entries()).map((e) => e.ownerId)).toEqual([99]);
  });

  it('puts entries interrupted mid-send back in line', async () => {
    const { outbox } = makeOutbox(() => ({ kind: 'sent' }));
    await addMany(outbox, 1);
    const [entry] = await outbox.entries();
    await db.outbox.update(entry.clientId, { state: 'sending' });
    await outbox.recover();
    expect((await outbox.get(entry.clientId))?.state).toBe('pending');
  });

  it('survives a new Outbox on the same database (a reload)', async () => {
    const { outbox } = makeOutbox(() => ({ kind: 'retry', message: 'down' }));
    await addMany(outbox, 2);
    await outbox.drain({ ownerId: OWNER.ownerId });
    const reopened = new CompostOfflineDb(db.name);
    const { outbox: after, calls } = makeOutbox(() => ({ kind: 'sent' }));
    expect((await reopened.outbox.count())).toBe(2);
    reopened.close();
    await after.drain({ ownerId: OWNER.ownerId, force: true });
    expect(calls).toEqual([1, 2]);
  });
});

describe('server answers', () => {
  it('treats only a success body as delivered', async () => {
    expect(await interpretResponse(json(200, { status: 'success', message: 'Intervention(s) ajouté(s)', interventions: [1], demandes: [] }))).toEqual({ kind: 'sent' });
    expect((await interpretResponse(new Response('<html>portail wifi</html>', { status: 200 }))).kind).toBe('retry');
  });

  it('maps 400 with field errors to a correction, other 4xx to a refusal with the message', async () => {
    expect(
      await interpretResponse(json(400, { status: 'error', message: 'Veuillez renseigner les champs obligatoires', errors: [{ key: 'values0.valeur', error: 'Valeur invalide' }] })),
    ).toEqual({ kind: 'invalid', message: 'Veuillez renseigner les champs obligatoires', errors: [{ key: 'values0.valeur', error: 'Valeur invalide' }] });
    expect(await interpretResponse(json(409, { status: 'error', message: 'Cette saisie a déjà été envoyée avec un contenu différent.' }))).toEqual({
      kind: 'rejected',
      message: 'Cette saisie a déjà été envoyée avec un contenu différent.',
    });
    expect(await interpretResponse(json(404, { status: 'error', message: 'Site introuvable' }))).toEqual({ kind: 'rejected', message: 'Site introuvable' });
    expect(await interpretResponse(new Response('', { status: 403 }))).toEqual({ kind: 'rejected', message: 'Une erreur est survenue' });
  });

  it('maps 401 to a login request and 5xx, 408 and 429 to a retry', async () => {
    expect(await interpretResponse(json(401, { status: 'error', message: 'Vous devez être connecté.' }))).toEqual({ kind: 'auth' });
    for (const status of [500, 502, 503, 408, 429]) expect((await interpretResponse(new Response('', { status }))).kind).toBe('retry');
  });

  it('retries when the request never got an answer', async () => {
    const outbox = new Outbox<Payload>({
      table: db.outbox,
      now: () => clock,
      send: httpSender(() => Promise.reject(new TypeError('Failed to fetch'))),
    });
    await addMany(outbox, 1);
    const report = await outbox.drain({ ownerId: OWNER.ownerId });
    expect(report.retryLater).toBe(true);
    expect((await outbox.entries())[0]).toMatchObject({ state: 'pending', attempts: 1 });
  });
});
