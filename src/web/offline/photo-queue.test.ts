// The photos of queued entries on fake-indexeddb, with scripted senders and clock: they wait
// for their entry, go one request each under their own id once the server named their
// interventions, never hold an entry, back off on their own, stop on a 401 and leave with an
// entry the user discards.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { CompostOfflineDb, type OutboxPhoto } from './db';
import { Outbox, SESSION_EXPIRED_MESSAGE, type SendResult } from './outbox';
import { PHOTO_WITHOUT_INTERVENTION, PhotoQueue, countPhotos, type NewPhoto } from './photo-queue';

interface Payload {
  clientId: string;
  n: number;
}

const OWNER = { ownerId: 7, ownerName: 'referent@demo.fr', siteLabel: 'QUA001 - rue de Siam' };
const SERVER_ERROR_MESSAGE = 'Erreur serveur (500) : Une erreur est survenue.';
const SERVER_ERROR: SendResult = { kind: 'error', message: SERVER_ERROR_MESSAGE };

let db: CompostOfflineDb;
let clock: number;
let dbCount = 0;
let idSeq = 0;
const uuid = (prefix: string) => `${prefix}0000000-0000-4000-8000-${String(++idSeq).padStart(12, '0')}`;

/** A photo of `bytes` bytes whose first byte says which it is. */
function photo(block: number, bytes = 1000, mark = block): NewPhoto {
  const data = new Uint8Array(bytes);
  data[0] = mark;
  return { clientId: uuid('p'), block, type: 'image/webp', data: data.buffer };
}

interface Posted {
  kind: 'entry' | 'photo';
  id: string;
  interventionId?: number | null;
  firstByte?: number;
}

/**
 * The app's pairing: the outbox links the photos of each confirmed entry; the entries answer
 * interventions 100 + n*10 + block; the photos answer from `photoAnswer`.
 */
function makeQueues(photoAnswer: (p: OutboxPhoto, call: number) => SendResult | Promise<SendResult> = () => ({ kind: 'sent', body: { status: 'success' } }), entryAnswer?: (p: Payload) => SendResult) {
  const posted: Posted[] = [];
  let photoCalls = 0;
  const photos = new PhotoQueue({
    photos: db.photos,
    data: db.photoData,
    entries: db.outbox,
    now: () => clock,
    random: () => 1,
    send: async (p, data) => {
      posted.push({ kind: 'photo', id: p.clientId, interventionId: p.interventionId, firstByte: new Uint8Array(data)[0] });
      return photoAnswer(p, ++photoCalls);
    },
  });
  const outbox = new Outbox<Payload>({
    table: db.outbox,
    now: () => clock,
    random: () => 1,
    send: async (p) => {
      posted.push({ kind: 'entry', id: p.clientId });
      return entryAnswer?.(p) ?? { kind: 'sent', body: { status: 'success', interventions: [100 + p.n * 10, 101 + p.n * 10, 102 + p.n * 10] } };
    },
    onSent: (entry, body) => photos.link(entry.clientId, body),
  });
  /** What the runner does: every due entry, then the photos. */
  const drain = async (options: Partial<Parameters<Outbox<Payload>['drain']>[0]> = {}) => {
    const entries = await outbox.drain({ ownerId: OWNER.ownerId, ...options });
    const sent = entries.retryLater || entries.authRequired ? null : await photos.drain({ ownerId: OWNER.ownerId, ...options });
    return { entries, photos: sent };
  };
  return { outbox, photos, posted, drain };
}

/** Queues entry n with its photos, in one transaction as the app does. */
async function queue(q: ReturnType<typeof makeQueues>, n: number, photos: NewPhoto[] = []) {
  const clientId = uuid('e');
  await db.transaction('rw', db.outbox, db.photos, db.photoData, async () => {
    await q.outbox.add({ clientId, n }, OWNER);
    await q.photos.put(clientId, OWNER.ownerId, photos);
  });
  clock += 1000;
  return clientId;
}

beforeEach(async () => {
  db = new CompostOfflineDb(`photo-queue-test-${++dbCount}`);
  await db.open();
  clock = Date.UTC(2026, 5, 1, 8, 0, 0);
});

afterEach(async () => {
  db.close();
  await db.delete();
});

describe('photos of queued entries', () => {
  it('waits for the entry, then sends each photo alone to its block’s intervention, and removes it once stored', async () => {
    const q = makeQueues();
    const a = photo(0, 300_000, 11);
    const b = photo(1, 200_000, 22);
    const c = photo(1, 100_000, 33);
    const entry = await queue(q, 1, [a, b, c]);
    expect(await db.photos.count()).toBe(3);
    expect(countPhotos(await db.photos.toArray())).toEqual({ pending: 3, failed: 0 });

    // Photos alone never go: their intervention does not exist yet.
    expect((await q.photos.drain({ ownerId: OWNER.ownerId })).sent).toEqual([]);
    expect(q.posted).toEqual([]);

    const report = await q.drain();
    expect(report.entries.sent).toEqual([entry]);
    expect(report.photos?.sent).toEqual([a.clientId, b.clientId, c.clientId]);
    expect(q.posted).toEqual([
      { kind: 'entry', id: entry },
      { kind: 'photo', id: a.clientId, interventionId: 110, firstByte: 11 },
      { kind: 'photo', id: b.clientId, interventionId: 111, firstByte: 22 },
      { kind: 'photo', id: c.clientId, interventionId: 111, firstByte: 33 },
    ]);
    expect(await db.photos.count()).toBe(0);
    expect(await db.photoData.count()).toBe(0);
  });

  it('writes an entry and its photos together or not at all', async () => {
    const q = makeQueues();
    const first = photo(0);
    await queue(q, 1, [first]);
    // A photo id used twice makes the write fail: the entry must not be kept without its photos.
    const clientId = uuid('e');
    await expect(
      db.transaction('rw', db.outbox, db.photos, db.photoData, async () => {
        await q.outbox.add({ clientId, n: 2 }, OWNER);
        await q.photos.put(clientId, OWNER.ownerId, [photo(0), { ...photo(0), clientId: first.clientId }]);
      }),
    ).rejects.toThrow();
    expect((await q.outbox.entries()).map((e) => e.payload.n)).toEqual([1]);
    expect(await db.photos.count()).toBe(1);
    expect(await db.photoData.count()).toBe(1);
  });

  it('sends every entry before any photo, and a photo the server fails on holds neither the entries nor the other photos', async () => {
    const q = makeQueues((p) => (p.interventionId === 110 ? SERVER_ERROR : { kind: 'sent', body: { status: 'success' } }));
    const failing = photo(0);
    const fine = photo(0);
    const e1 = await queue(q, 1, [failing]);
    const e2 = await queue(q, 2, [fine]);
    const e3 = await queue(q, 3);
    const first = await q.drain();
    expect(q.posted.map((p) => (p.kind === 'entry' ? p.id : p.interventionId))).toEqual([e1, e2, e3, 110, 120]);
    expect(first.photos).toMatchObject({ sent: [fine.clientId], serverErrors: [failing.clientId], retryLater: false });
    // Its own backoff: 5 s, then 10 s...
    expect(await db.photos.toArray()).toMatchObject([{ clientId: failing.clientId, state: 'pending', failures: 1, attempts: 1, nextAttemptAt: clock + 5_000 }]);

    // An entry recorded meanwhile goes at once; the failing photo waits for its time.
    const e4 = await queue(q, 4);
    await q.drain();
    expect(q.posted.at(-1)).toEqual({ kind: 'entry', id: e4 });
    clock += 5_000;
    await q.drain();
    expect(q.posted.at(-1)).toMatchObject({ kind: 'photo', id: failing.clientId });
    expect(await db.photos.get(failing.clientId)).toMatchObject({ failures: 2, nextAttemptAt: clock + 10_000 });
  });

  it("keeps a photo the server failed on 5 times as 'Erreur serveur' until 'Renvoyer'", async () => {
    let failing = true;
    const q = makeQueues(() => (failing ? SERVER_ERROR : { kind: 'sent', body: { status: 'success' } }));
    const p = photo(0);
    await queue(q, 1, [p]);
    for (let i = 0; i < 5; i++) {
      await q.drain({ ignoreBackoff: true });
    }
    expect(await db.photos.get(p.clientId)).toMatchObject({ state: 'error', failures: 5, lastError: SERVER_ERROR_MESSAGE });
    await q.drain({ ignoreBackoff: true });
    expect(q.posted.filter((x) => x.kind === 'photo')).toHaveLength(5);
    failing = false;
    await q.photos.resend(p.clientId);
    expect((await q.drain()).photos?.sent).toEqual([p.clientId]);
  });

  it('keeps a refused photo with the server’s reason for the user to discard, and goes on with the next', async () => {
    const q = makeQueues((p) =>
      p.interventionId === 110 ? { kind: 'rejected', message: 'Format non pris en charge : envoyez une photo JPEG, PNG ou WebP.' } : { kind: 'sent', body: { status: 'success' } },
    );
    const bad = photo(0);
    const good = photo(1);
    await queue(q, 1, [bad, good]);
    const report = await q.drain();
    expect(report.photos).toMatchObject({ sent: [good.clientId], failed: [bad.clientId] });
    expect(await db.photos.get(bad.clientId)).toMatchObject({ state: 'failed', lastError: 'Format non pris en charge : envoyez une photo JPEG, PNG ou WebP.' });
    // Refused photos are not tried again by themselves.
    await q.drain({ ignoreBackoff: true });
    expect(q.posted.filter((x) => x.id === bad.clientId)).toHaveLength(1);
    await q.photos.discard(bad.clientId);
    expect(await db.photos.count()).toBe(0);
    expect(await db.photoData.count()).toBe(0);
  });

  it('sends a photo whose answer was lost again under the same id', async () => {
    const q = makeQueues((_p, call) => (call === 1 ? { kind: 'retry', message: 'Pas de réseau : nouvel essai automatique' } : { kind: 'sent', body: { status: 'success' } }));
    const p = photo(0);
    await queue(q, 1, [p]);
    await q.drain();
    await q.drain({ force: true });
    expect(q.posted.filter((x) => x.kind === 'photo').map((x) => x.id)).toEqual([p.clientId, p.clientId]);
    expect(await db.photos.count()).toBe(0);
  });

  it('holds every photo on a 401 until a login, in order', async () => {
    let session = false;
    const q = makeQueues(() => (session ? { kind: 'sent', body: { status: 'success' } } : { kind: 'auth' }));
    const a = photo(0);
    const b = photo(1);
    await queue(q, 1, [a, b]);
    const report = await q.drain();
    expect(report.photos?.authRequired).toBe(true);
    expect((await db.photos.toArray()).map((p) => [p.clientId, p.state, p.lastError])).toEqual([
      [a.clientId, 'auth', SESSION_EXPIRED_MESSAGE],
      [b.clientId, 'pending', null],
    ]);
    expect(await q.photos.nextDueAt(OWNER.ownerId)).toBeNull();
    await q.drain({ force: true });
    expect(q.posted.filter((x) => x.kind === 'photo')).toHaveLength(1);
    session = true;
    expect((await q.drain({ includeAuth: true })).photos?.sent).toEqual([a.clientId, b.clientId]);
  });

  it('waits without counting anything while nothing answers', async () => {
    const q = makeQueues(() => ({ kind: 'retry', message: 'Pas de réseau : nouvel essai automatique' }));
    const photos = [photo(0), photo(1), photo(2), photo(0)];
    await queue(q, 1, photos);
    const report = await q.drain();
    expect(report.photos?.retryLater).toBe(true);
    // Three without an answer: the network is down, the fourth is not tried.
    expect(q.posted.filter((x) => x.kind === 'photo')).toHaveLength(3);
    expect((await db.photos.toArray()).every((p) => p.failures === 0 && p.state === 'pending')).toBe(true);
  });

  it('marks a photo failed when the server named no intervention for its block', async () => {
    const q = makeQueues(undefined, () => ({ kind: 'sent', body: { status: 'success', interventions: [500] } }));
    const kept = photo(0);
    const lost = photo(3);
    await queue(q, 1, [kept, lost]);
    await q.drain();
    expect(q.posted.filter((x) => x.kind === 'photo')).toEqual([{ kind: 'photo', id: kept.clientId, interventionId: 500, firstByte: 0 }]);
    expect(await db.photos.get(lost.clientId)).toMatchObject({ state: 'failed', lastError: PHOTO_WITHOUT_INTERVENTION });
  });

  it('leaves with an entry the user discards, also when the phone stopped between the two deletions', async () => {
    const q = makeQueues();
    const entry = await queue(q, 1, [photo(0), photo(0)]);
    const other = await queue(q, 2, [photo(1)]);
    await q.photos.discardForEntry(entry);
    await q.outbox.discard(entry);
    expect((await db.photos.toArray()).map((p) => p.entryId)).toEqual([other]);
    // The entry deleted, its photos not yet (a crash): the next start removes them.
    await q.outbox.discard(other);
    await q.photos.recover();
    expect(await db.photos.count()).toBe(0);
    expect(await db.photoData.count()).toBe(0);
  });

  it('keeps, drops and adds the photos of an entry being corrected, none of which was sent', async () => {
    const q = makeQueues(undefined, () => ({ kind: 'invalid', errors: [{ key: 'values0.valeur', error: 'Valeur invalide' }], message: 'Veuillez renseigner les champs obligatoires' }));
    const kept = photo(1, 1000, 1);
    const dropped = photo(0, 1000, 2);
    const entry = await queue(q, 1, [dropped, kept]);
    await q.drain();
    expect(q.posted.map((p) => p.kind)).toEqual(['entry']);
    const added = photo(0, 1000, 3);
    // The first block was removed: the kept photo now belongs to block 0.
    await q.photos.replaceForEntry(entry, OWNER.ownerId, [{ ...kept, block: 0 }, added]);
    expect((await q.photos.forEntry(entry)).map((p) => [p.clientId, p.block])).toEqual([
      [kept.clientId, 0],
      [added.clientId, 0],
    ]);
    expect(await db.photoData.get(dropped.clientId)).toBeUndefined();
  });

  it('puts photos interrupted mid-send back in line after a reload', async () => {
    const q = makeQueues();
    const p = photo(0);
    const entry = await queue(q, 1, [p]);
    await q.photos.link(entry, { interventions: [42] });
    await db.photos.update(p.clientId, { state: 'sending' });
    await q.outbox.discard(entry);
    const reloaded = makeQueues();
    await reloaded.photos.recover();
    expect(await db.photos.get(p.clientId)).toMatchObject({ state: 'pending', interventionId: 42 });
    expect((await reloaded.photos.drain({ ownerId: OWNER.ownerId })).sent).toEqual([p.clientId]);
  });
});
