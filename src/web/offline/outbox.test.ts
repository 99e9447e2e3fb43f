// The outbox's rules on fake-indexeddb, with a scripted sender and clock.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Dexie } from 'dexie';
import { CompostOfflineDb, type OutboxEntry } from './db';
import { backoffDelay, blockerOf, jitteredDelay, Outbox, SESSION_EXPIRED_MESSAGE, type SendResult } from './outbox';
import { httpSender, interpretResponse } from './sender';

interface Payload {
  clientId: string;
  n: number;
  values?: { demandeIntervention: number | null }[];
}

const OWNER = { ownerId: 7, ownerName: 'referent@demo.fr', siteLabel: 'QUA001 - rue de Siam' };
const SERVER_ERROR: SendResult = { kind: 'error', message: 'Erreur serveur (500) : Une erreur est survenue.' };
const NO_NETWORK = () => {
  throw new TypeError('Failed to fetch');
};

let db: CompostOfflineDb;
let clock: number;
let dbCount = 0;

function json(status: number, body: unknown): Response {
  return new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json' } });
}

/**
 * An outbox whose sender answers from a script and records what it was asked. The jitter's
 * random source is 1 unless told, so that delays are the full backoff and can be written down.
 */
function makeOutbox(answer: (p: Payload, call: number) => SendResult | Promise<SendResult>, random: () => number = () => 1) {
  const calls: number[] = [];
  const outbox = new Outbox<Payload>({
    table: db.outbox,
    now: () => clock,
    random,
    send: async (p) => {
      calls.push(p.n);
      return answer(p, calls.length);
    },
  });
  return { outbox, calls };
}

let idSeq = 0;

/** Queues entries numbered `from`, `from + 1`... (the numbers the sender sees). */
async function addMany(outbox: Outbox<Payload>, count: number, meta = OWNER, requests: (number | null)[] = [], from = 1) {
  const ids: string[] = [];
  for (let n = from; n < from + count; n++) {
    const clientId = `00000000-0000-4000-8000-${String(++idSeq).padStart(12, '0')}`;
    const request = requests[n - from];
    await outbox.add({ clientId, n, ...(request !== undefined ? { values: [{ demandeIntervention: request }] } : {}) }, meta);
    ids.push(clientId);
    clock += 1000;
  }
  return ids;
}

const byN = async (outbox: Outbox<Payload>) => new Map((await outbox.entries()).map((e) => [e.payload.n, e]));

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

  it('does not hold the next entries behind one the server answers 500', async () => {
    const { outbox, calls } = makeOutbox((p) => (p.n === 1 ? SERVER_ERROR : { kind: 'sent' }));
    const [poisoned, second, third] = await addMany(outbox, 3);
    const report = await outbox.drain({ ownerId: OWNER.ownerId });
    expect(calls).toEqual([1, 2, 3]);
    expect(report).toMatchObject({ sent: [second, third], serverErrors: [poisoned], retryLater: false });
    expect(await outbox.entries()).toMatchObject([
      { clientId: poisoned, state: 'pending', attempts: 1, failures: 1, lastError: 'Erreur serveur (500) : Une erreur est survenue.', nextAttemptAt: clock + 5_000 },
    ]);
  });

  it('backs each failing entry off on its own, doubling from 5 s', async () => {
    // Entry 1 always fails; entry 2 fails once; entry 3, queued later, fails on its own clock.
    const { outbox, calls } = makeOutbox((p, call) => (p.n === 1 || (p.n === 2 && call <= 2) || p.n === 3 ? SERVER_ERROR : { kind: 'sent' }));
    const [a, b] = await addMany(outbox, 2);
    const t0 = clock;
    await outbox.drain({ ownerId: OWNER.ownerId });
    expect(calls).toEqual([1, 2]);
    let rows = await byN(outbox);
    expect(rows.get(1)).toMatchObject({ clientId: a, failures: 1, nextAttemptAt: t0 + 5_000 });
    expect(rows.get(2)).toMatchObject({ clientId: b, failures: 1, nextAttemptAt: t0 + 5_000 });

    // Not due yet: nothing is sent, and the timer is told when.
    clock = t0 + 4_999;
    await outbox.drain({ ownerId: OWNER.ownerId });
    expect(calls).toEqual([1, 2]);
    expect(await outbox.nextDueAt(OWNER.ownerId)).toBe(t0 + 5_000);

    clock = t0 + 5_000;
    await outbox.drain({ ownerId: OWNER.ownerId });
    expect(calls).toEqual([1, 2, 1, 2]);
    rows = await byN(outbox);
    expect(rows.get(1)).toMatchObject({ failures: 2, nextAttemptAt: t0 + 5_000 + 10_000 });
    expect(rows.has(2)).toBe(false);

    // A newer entry failing now starts at 5 s, whatever entry 1 is at.
    const t1 = clock;
    await addMany(outbox, 1, OWNER, [], 3);
    await outbox.drain({ ownerId: OWNER.ownerId });
    expect(calls).toEqual([1, 2, 1, 2, 3]);
    rows = await byN(outbox);
    expect(rows.get(1)).toMatchObject({ failures: 2, nextAttemptAt: t0 + 15_000 });
    expect(rows.get(3)).toMatchObject({ failures: 1, nextAttemptAt: t1 + 1_000 + 5_000 });

    clock = t0 + 15_000;
    await outbox.drain({ ownerId: OWNER.ownerId });
    expect((await byN(outbox)).get(1)).toMatchObject({ failures: 3, nextAttemptAt: t0 + 15_000 + 20_000 });
  });

  it('spreads the delays with jitter, between half and all of the backoff', async () => {
    expect(jitteredDelay(1, () => 0)).toBe(2_500);
    expect(jitteredDelay(1, () => 0.5)).toBe(3_750);
    expect(jitteredDelay(3, () => 0)).toBe(10_000);
    expect(jitteredDelay(3, () => 0.999_999)).toBe(20_000);
    expect(jitteredDelay(50, () => 0)).toBe(150_000);

    const { outbox } = makeOutbox(() => SERVER_ERROR, () => 0.25);
    await addMany(outbox, 1);
    await outbox.drain({ ownerId: OWNER.ownerId });
    const [entry] = await outbox.entries();
    expect(entry.nextAttemptAt - clock).toBe(3_125);
  });

  it("keeps an entry the server failed on 5 times as 'Erreur serveur' with its reason, and no longer retries it", async () => {
    const { outbox, calls } = makeOutbox((p) => (p.n === 1 ? SERVER_ERROR : { kind: 'sent' }));
    const [poisoned] = await addMany(outbox, 1);
    for (let i = 0; i < 5; i++) {
      clock = (await outbox.get(poisoned))!.nextAttemptAt;
      await outbox.drain({ ownerId: OWNER.ownerId });
    }
    expect(calls).toEqual([1, 1, 1, 1, 1]);
    expect(await outbox.get(poisoned)).toMatchObject({ state: 'error', failures: 5, attempts: 5, lastError: 'Erreur serveur (500) : Une erreur est survenue.' });
    expect(await outbox.counts()).toEqual({ pending: 0, failed: 1 });
    expect(await outbox.nextDueAt(OWNER.ownerId)).toBeNull();

    // Not even 'Envoyer maintenant' sends it; entries queued after it go on.
    clock += 3_600_000;
    await addMany(outbox, 2, OWNER, [], 2);
    const report = await outbox.drain({ ownerId: OWNER.ownerId, force: true, ignoreBackoff: true, includeAuth: true });
    expect(calls).toEqual([1, 1, 1, 1, 1, 2, 3]);
    expect(report.sent).toHaveLength(2);
    expect((await outbox.entries()).map((e) => e.clientId)).toEqual([poisoned]);
  });

  it("sends an 'Erreur serveur' entry again on 'Renvoyer', with a fresh count", async () => {
    let broken = true;
    const { outbox, calls } = makeOutbox(() => (broken ? SERVER_ERROR : { kind: 'sent' }));
    const [poisoned] = await addMany(outbox, 1);
    for (let i = 0; i < 5; i++) {
      clock = (await outbox.get(poisoned))!.nextAttemptAt;
      await outbox.drain({ ownerId: OWNER.ownerId });
    }
    expect((await outbox.get(poisoned))?.state).toBe('error');

    // Resent while the server still fails: it counts from 1 again, with the 5 s delay.
    await outbox.resend(poisoned);
    expect(await outbox.get(poisoned)).toMatchObject({ state: 'pending', failures: 0, nextAttemptAt: clock });
    await outbox.drain({ ownerId: OWNER.ownerId, force: true });
    expect(await outbox.get(poisoned)).toMatchObject({ state: 'pending', failures: 1, nextAttemptAt: clock + 5_000 });

    // 'Renvoyer' on an entry backing off tries it at once.
    broken = false;
    await outbox.resend(poisoned);
    const report = await outbox.drain({ ownerId: OWNER.ownerId, force: true });
    expect(report.sent).toEqual([poisoned]);
    expect(calls).toHaveLength(7);
    expect(await outbox.entries()).toEqual([]);
  });

  it('counts no try while the network is down, waits with a growing delay, then sends everything', async () => {
    let online = false;
    const { outbox, calls } = makeOutbox(() => (online ? { kind: 'sent' } : NO_NETWORK()));
    await addMany(outbox, 2);
    const start = clock;

    const first = await outbox.drain({ ownerId: OWNER.ownerId });
    expect(first.retryLater).toBe(true);
    // The second entry is tried too: only its failure tells an outage from the first one's fault.
    expect(calls).toEqual([1, 2]);
    const rows = await outbox.entries();
    expect(rows).toMatchObject([
      { state: 'pending', attempts: 1, failures: 0 },
      { state: 'pending', attempts: 1, failures: 0 },
    ]);
    expect(rows[0].lastError).toContain('Pas de réseau');
    expect(await outbox.nextDueAt(OWNER.ownerId)).toBe(start + 5_000);

    // Before the delay the timer does nothing.
    clock = start + 4_999;
    await outbox.drain({ ownerId: OWNER.ownerId });
    expect(calls).toEqual([1, 2]);

    // Many outages later, no entry has used up its tries.
    clock = start + 5_000;
    await outbox.drain({ ownerId: OWNER.ownerId });
    expect(await outbox.nextDueAt(OWNER.ownerId)).toBe(start + 5_000 + 10_000);
    for (let i = 0; i < 8; i++) {
      clock = (await outbox.nextDueAt(OWNER.ownerId))!;
      await outbox.drain({ ownerId: OWNER.ownerId });
    }
    expect(calls).toHaveLength(20);
    expect(await outbox.entries()).toMatchObject([
      { state: 'pending', attempts: 10, failures: 0 },
      { state: 'pending', attempts: 10, failures: 0 },
    ]);

    online = true;
    clock = (await outbox.nextDueAt(OWNER.ownerId))!;
    const last = await outbox.drain({ ownerId: OWNER.ownerId });
    expect(last.sent).toHaveLength(2);
    expect(await outbox.entries()).toEqual([]);
  });

  it('stops after three entries without an answer, and counts nothing when the network drops mid-drain', async () => {
    let online = true;
    const { outbox, calls } = makeOutbox((p) => {
      if (!online) NO_NETWORK();
      if (p.n === 1) online = false;
      return { kind: 'sent' };
    });
    await addMany(outbox, 6);
    const report = await outbox.drain({ ownerId: OWNER.ownerId, force: true });
    expect(calls).toEqual([1, 2, 3, 4]);
    expect(report).toMatchObject({ retryLater: true, serverErrors: [] });
    expect((await outbox.entries()).map((e) => [e.payload.n, e.failures])).toEqual([
      [2, 0],
      [3, 0],
      [4, 0],
      [5, 0],
      [6, 0],
    ]);
  });

  it('counts a timeout against its entry when the server answers the next ones', async () => {
    const { outbox, calls } = makeOutbox((p) => {
      if (p.n === 1) throw new DOMException('Request timed out', 'TimeoutError');
      return { kind: 'sent' };
    });
    const [slow] = await addMany(outbox, 3);
    const report = await outbox.drain({ ownerId: OWNER.ownerId });
    expect(calls).toEqual([1, 2, 3]);
    expect(report).toMatchObject({ retryLater: false, serverErrors: [slow] });
    expect(await outbox.entries()).toMatchObject([{ clientId: slow, state: 'pending', failures: 1, nextAttemptAt: clock + 5_000, lastError: 'Pas de réseau : nouvel essai automatique (Request timed out)' }]);
  });

  it('waits for the server as a whole on 503 for every entry, without counting tries', async () => {
    const { outbox } = makeOutbox(() => ({ kind: 'retry', message: 'Le serveur ne répond pas correctement : nouvel essai automatique' }));
    await addMany(outbox, 2);
    for (let i = 0; i < 7; i++) await outbox.drain({ ownerId: OWNER.ownerId, force: true });
    expect((await outbox.entries()).map((e) => [e.state, e.failures])).toEqual([
      ['pending', 0],
      ['pending', 0],
    ]);
  });

  it('ignores the wait after an outage when forced (network back, app visible, login)', async () => {
    let online = false;
    const { outbox, calls } = makeOutbox(() => (online ? { kind: 'sent' } : NO_NETWORK()));
    await addMany(outbox, 1);
    await outbox.drain({ ownerId: OWNER.ownerId });
    online = true;
    await outbox.drain({ ownerId: OWNER.ownerId });
    expect(calls).toEqual([1]);
    await outbox.drain({ ownerId: OWNER.ownerId, force: true });
    expect(calls).toEqual([1, 1]);
    expect(await outbox.counts()).toEqual({ pending: 0, failed: 0 });
  });

  it("keeps an entry's own backoff on forced drains; only 'Envoyer maintenant' overrides it", async () => {
    let broken = true;
    const { outbox, calls } = makeOutbox(() => (broken ? SERVER_ERROR : { kind: 'sent' }));
    await addMany(outbox, 1);
    await outbox.drain({ ownerId: OWNER.ownerId, force: true });
    broken = false;
    await outbox.drain({ ownerId: OWNER.ownerId, force: true, includeAuth: true });
    expect(calls).toEqual([1]);
    await outbox.drain({ ownerId: OWNER.ownerId, force: true, ignoreBackoff: true });
    expect(calls).toEqual([1, 1]);
    expect(await outbox.entries()).toEqual([]);
  });

  it('keeps the backoff across a reload', async () => {
    const { outbox } = makeOutbox(() => SERVER_ERROR);
    const [id] = await addMany(outbox, 1);
    await outbox.drain({ ownerId: OWNER.ownerId });
    const due = (await outbox.get(id))!.nextAttemptAt;
    db.close();

    db = new CompostOfflineDb(db.name);
    const { outbox: after, calls } = makeOutbox(() => ({ kind: 'sent' }));
    expect(await after.get(id)).toMatchObject({ failures: 1, nextAttemptAt: due });
    expect(await after.nextDueAt(OWNER.ownerId)).toBe(due);
    await after.drain({ ownerId: OWNER.ownerId, force: true });
    expect(calls).toEqual([]);
    clock = due;
    await after.drain({ ownerId: OWNER.ownerId });
    expect(calls).toEqual([1]);
  });

  it('doubles the delay from 5 s and caps it at 5 minutes', () => {
    expect([1, 2, 3, 4, 5, 6, 7, 8, 50].map((a) => backoffDelay(a))).toEqual([
      5_000, 10_000, 20_000, 40_000, 80_000, 160_000, 300_000, 300_000, 300_000,
    ]);
  });

  it('sends an entry that processes a request only after an earlier entry processing the same request', async () => {
    // 1 and 3 process request 10; 2 processes nothing; 4 processes request 11.
    let broken = true;
    const { outbox, calls } = makeOutbox((p) => (p.n === 1 && broken ? SERVER_ERROR : { kind: 'sent' }));
    const [first, , third] = await addMany(outbox, 4, OWNER, [10, null, 10, 11]);
    const report = await outbox.drain({ ownerId: OWNER.ownerId });
    expect(calls).toEqual([1, 2, 4]);
    expect(report.sent).toHaveLength(2);
    const rows = await outbox.entries();
    expect(rows.map((e) => [e.clientId, e.state])).toEqual([
      [first, 'pending'],
      [third, 'pending'],
    ]);
    expect(blockerOf(rows[1], rows)?.clientId).toBe(first);
    expect(blockerOf(rows[0], rows)).toBeUndefined();
    // The timer waits for the first entry, the only one due by itself.
    expect(await outbox.nextDueAt(OWNER.ownerId)).toBe(rows[0].nextAttemptAt);

    // Once the first is acknowledged, the dependent one follows in the same drain.
    broken = false;
    clock = rows[0].nextAttemptAt;
    await outbox.drain({ ownerId: OWNER.ownerId });
    expect(calls).toEqual([1, 2, 4, 1, 3]);
    expect(await outbox.entries()).toEqual([]);
  });

  it('keeps a dependent entry waiting behind a refused one until it is corrected or discarded', async () => {
    const { outbox, calls } = makeOutbox((p) => (p.n === 1 ? { kind: 'rejected', message: 'Site introuvable' } : { kind: 'sent' }));
    const [refused] = await addMany(outbox, 2, OWNER, [10, 10]);
    await outbox.drain({ ownerId: OWNER.ownerId, force: true, ignoreBackoff: true });
    expect(calls).toEqual([1]);
    expect(await outbox.nextDueAt(OWNER.ownerId)).toBeNull();
    await outbox.discard(refused);
    await outbox.drain({ ownerId: OWNER.ownerId });
    expect(calls).toEqual([1, 2]);
    expect(await outbox.entries()).toEqual([]);
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
    expect(await outbox.nextDueAt(OWNER.ownerId)).toBeNull();

    // The timer and the network events do not hammer the server with a dead session, nor let
    // newer entries overtake the parked one...
    await outbox.drain({ ownerId: OWNER.ownerId, force: true });
    await outbox.drain({ ownerId: OWNER.ownerId, force: true, ignoreBackoff: true });
    await outbox.drain({ ownerId: OWNER.ownerId });
    expect(calls).toEqual([1]);
    // ...and after the login everything goes, the parked entry first.
    logged = true;
    await outbox.drain({ ownerId: OWNER.ownerId, includeAuth: true, force: true });
    expect(calls).toEqual([1, 1, 2, 3]);
    expect(await outbox.entries()).toEqual([]);
  });

  it('holds everything on a 401 met after a server error, the entry backing off included', async () => {
    const { outbox, calls } = makeOutbox((p) => (p.n === 1 ? SERVER_ERROR : { kind: 'auth' }));
    await addMany(outbox, 3);
    const report = await outbox.drain({ ownerId: OWNER.ownerId, force: true });
    expect(report).toMatchObject({ authRequired: true, serverErrors: [expect.any(String)] });
    expect(calls).toEqual([1, 2]);
    clock += 3_600_000;
    await outbox.drain({ ownerId: OWNER.ownerId });
    await outbox.drain({ ownerId: OWNER.ownerId, force: true, ignoreBackoff: true });
    expect(calls).toEqual([1, 2]);
    expect((await outbox.entries()).map((e) => e.state)).toEqual(['pending', 'auth', 'pending']);
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
    expect(await reopened.outbox.count()).toBe(2);
    reopened.close();
    await after.drain({ ownerId: OWNER.ownerId, force: true });
    expect(calls).toEqual([1, 2]);
  });
});

describe('after the server confirmed an entry', () => {
  it("hands the server's answer to onSent before the entry leaves, and keeps the entry when that fails", async () => {
    const seen: [string, unknown, boolean][] = [];
    let broken = true;
    const outbox = new Outbox<Payload>({
      table: db.outbox,
      now: () => clock,
      send: async (p) => ({ kind: 'sent', body: { status: 'success', interventions: [100 + p.n] } }),
      onSent: async (entry, body) => {
        // Still on the phone while its answer is recorded.
        seen.push([entry.clientId, body, (await db.outbox.get(entry.clientId)) !== undefined]);
        if (broken && entry.payload.n === 1) throw new Error('IndexedDB refused the write');
      },
    });
    const [first, second] = await addMany(outbox, 2);
    const report = await outbox.drain({ ownerId: OWNER.ownerId });
    expect(seen).toEqual([
      [first, { status: 'success', interventions: [101] }, true],
      [second, { status: 'success', interventions: [102] }, true],
    ]);
    // The first one's answer could not be recorded: it stays, due, and goes again (the server answers a resend with the same ids).
    expect(report.sent).toEqual([second]);
    expect(await outbox.entries()).toMatchObject([{ clientId: first, state: 'pending', failures: 0 }]);
    broken = false;
    expect((await outbox.drain({ ownerId: OWNER.ownerId })).sent).toEqual([first]);
    expect(await outbox.entries()).toEqual([]);
  });
});

describe('database upgrade', () => {
  it('brings the outbox of version 1 to the current version: nothing lost, every waiting entry due, no server error counted, empty photo and receipt tables', async () => {
    const name = `outbox-upgrade-${++dbCount}`;
    const v1 = new Dexie(name);
    v1.version(1).stores({ outbox: 'clientId, createdAt, ownerId, state', reference: 'key' });
    const base = { ownerId: 7, ownerName: 'jean@exemple.fr', siteLabel: 'QUA005 - Rue de Siam', fieldErrors: [] };
    const t = Date.UTC(2026, 2, 2, 9, 30);
    await v1.table('outbox').bulkAdd([
      { ...base, clientId: 'a', payload: { clientId: 'a' }, createdAt: t, state: 'pending', attempts: 4, nextAttemptAt: t + 3_600_000, lastError: 'Pas de réseau : nouvel essai automatique' },
      { ...base, clientId: 'b', payload: { clientId: 'b' }, createdAt: t + 1, state: 'failed', attempts: 1, nextAttemptAt: t + 1, lastError: 'Site introuvable' },
      { ...base, clientId: 'c', payload: { clientId: 'c' }, createdAt: t + 2, state: 'auth', attempts: 1, nextAttemptAt: t + 2, lastError: SESSION_EXPIRED_MESSAGE },
    ]);
    await v1.table('reference').put({ key: 'appInfo', value: { appName: 'Compost' }, fetchedAt: t });
    v1.close();

    const upgraded = new CompostOfflineDb(name);
    try {
      await upgraded.open();
      expect(upgraded.verno).toBe(4);
      const rows: OutboxEntry[] = await upgraded.outbox.orderBy('createdAt').toArray();
      expect(rows.map((r) => [r.clientId, r.state, r.attempts, r.failures, r.nextAttemptAt, r.lastError])).toEqual([
        ['a', 'pending', 4, 0, t, 'Pas de réseau : nouvel essai automatique'],
        ['b', 'failed', 1, 0, t + 1, 'Site introuvable'],
        ['c', 'auth', 1, 0, t + 2, SESSION_EXPIRED_MESSAGE],
      ]);
      expect(await upgraded.reference.get('appInfo')).toMatchObject({ value: { appName: 'Compost' } });
      expect(await upgraded.photos.count()).toBe(0);
      expect(await upgraded.photoData.count()).toBe(0);
      expect(await upgraded.sent.count()).toBe(0);
    } finally {
      upgraded.close();
      await upgraded.delete();
    }
  });
});

describe('server answers', () => {
  it('treats only a success body as delivered, and keeps that body (the ids the server gave)', async () => {
    const added = { status: 'success', message: 'Intervention(s) ajouté(s)', interventions: [1], demandes: [] };
    expect(await interpretResponse(json(200, added))).toEqual({ kind: 'sent', body: added });
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

  it('maps 401 to a login request, 502/503/504, 408 and 429 to a wait for the server, other 5xx to a server error with its reason', async () => {
    expect(await interpretResponse(json(401, { status: 'error', message: 'Vous devez être connecté.' }))).toEqual({ kind: 'auth' });
    for (const status of [502, 503, 504, 408, 429]) {
      // The network answered: the wording says the server, not the network, is down.
      expect(await interpretResponse(new Response('', { status }))).toEqual({ kind: 'retry', message: 'Serveur indisponible : nouvel essai automatique' });
    }
    expect(await interpretResponse(json(500, { status: 'error', message: 'Une erreur est survenue.' }))).toEqual({
      kind: 'error',
      message: 'Erreur serveur (500) : Une erreur est survenue.',
    });
    expect(await interpretResponse(new Response('<html>boom</html>', { status: 500 }))).toEqual({ kind: 'error', message: 'Erreur serveur (500) : Une erreur est survenue' });
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
