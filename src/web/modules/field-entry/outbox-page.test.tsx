// The outbox page for entries the server fails on: 'Erreur serveur' with its reason
// and 'Renvoyer', an entry backing off that can be resent at once, and an entry waiting for an
// earlier one that processes the same request. And the photos still to send, with their size.
import { Blob as NodeBlob } from 'node:buffer';
import { configure, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { loggedAs, mockApi, reply, type MockHandler } from '../../../../tests/helpers/web-app';
import { openFieldScreen, startEachTestOnACleanPhone, storeOutboxEntry } from '../../../../tests/helpers/web-field-screens';
import type { InterventionSubmission } from '../../../shared/schemas/interventions';
import type { OutboxEntry, OutboxPhoto } from '../../offline/db';
import { openOfflineDb } from '../../offline/store';

// The first render of a lazy screen can take seconds on a busy machine.
configure({ asyncUtilTimeout: 10_000 });

const ADDED = reply(200, { status: 'success', message: 'Intervention(s) ajouté(s)', interventions: [900], demandes: [] });
const FAILED = reply(500, { status: 'error', message: 'Une erreur est survenue.' });
const REASON = 'Erreur serveur (500) : Une erreur est survenue.';

function api(post?: MockHandler) {
  return mockApi({
    'GET /api/logged': loggedAs(['ROLE_USER']),
    'GET /api/typeAction/get/all': reply(200, [{ id: 14, libelle: 'Réparation effectuée', valeur: false, valueKind: 'none', typeBac: [1, 2, 3], aConstantes: false }]),
    'GET /api/typeActionConstante/get/all': reply(200, []),
    ...(post ? { 'POST /api/admin/intervention/add': post } : {}),
  });
}

const open = () => openFieldScreen('/admin/envois');

let sequence = 0;
async function queue(overrides: Partial<OutboxEntry<InterventionSubmission>> & { date?: string; request?: number } = {}): Promise<string> {
  const { date = '2026-03-02T09:30:00.000Z', request = null, ...entry } = overrides;
  sequence += 1;
  const clientId = `0b7c2a3e-2222-4222-8333-${String(sequence).padStart(12, '0')}`;
  const payload: InterventionSubmission = {
    clientId,
    site: 5,
    date,
    values: [{ composteur: 51, action: 14, valeur: null, bacDestination: null, observations: null, demandeIntervention: request }],
  };
  return storeOutboxEntry({ payload, createdAt: Date.now() - 60_000 + sequence, ...entry });
}

const rows = async () => (await openOfflineDb()).outbox.orderBy('createdAt').toArray();
const posted = (calls: ReturnType<typeof api>) => calls.callsTo('POST', '/api/admin/intervention/add').map((c) => (c.body as InterventionSubmission).clientId);

beforeAll(async () => {
  // A lazy route: compile it once up front so that the first test does not time out.
  await import('./outbox-page');
}, 60_000);

/** The first render of the lazy page can take seconds on a busy machine. */
const SLOW = { timeout: 10_000 };

startEachTestOnACleanPhone();

describe('outbox page, numbers', () => {
  it('writes a temperature waiting to be sent with a decimal comma, and counts entries apart from photos in the top bar', async () => {
    api();
    const clientId = await queue({ state: 'failed', lastError: 'Refusée' });
    const db = await openOfflineDb();
    const entry = (await db.outbox.get(clientId)) as OutboxEntry<InterventionSubmission>;
    await db.outbox.put({ ...entry, payload: { ...entry.payload, values: [{ ...entry.payload.values[0], action: 6, valeur: 48.5 }] } });
    open();
    expect(await screen.findByText(/\(48,5 °C\)/, {}, SLOW)).toBeInTheDocument();
    expect(screen.queryByText(/48\.5/)).not.toBeInTheDocument();
    expect(await screen.findByRole('link', { name: '1 envoi en échec' })).toBeInTheDocument();
  });
});

describe('outbox page, server errors', () => {
  it("shows an entry the server kept failing on as 'Erreur serveur' with its reason, and 'Renvoyer' sends it", async () => {
    const calls = api(ADDED);
    const id = await queue({ state: 'error', attempts: 5, failures: 5, lastError: REASON });
    open();
    const card = await screen.findByRole('listitem', { name: /QUA005 - Rue de Siam/ }, SLOW);
    expect(within(card).getByText('Erreur serveur')).toBeInTheDocument();
    expect(within(card).getByText(`Dernière erreur : ${REASON}`)).toBeInTheDocument();
    expect(within(card).getByText(/n’est plus renvoyée automatiquement/)).toBeInTheDocument();
    // Nothing to correct field by field; nothing was sent by itself.
    expect(within(card).queryByRole('button', { name: 'Corriger' })).not.toBeInTheDocument();
    expect(await screen.findByText('1 envoi en échec')).toBeInTheDocument();
    expect(posted(calls)).toEqual([]);

    await userEvent.click(within(card).getByRole('button', { name: 'Renvoyer' }));
    await waitFor(async () => expect(await rows()).toEqual([]));
    expect(posted(calls)).toEqual([id]);
    expect(await screen.findByText('Aucun résultat')).toBeInTheDocument();
  });

  it("keeps the entry when the server fails again on 'Renvoyer', and says so", async () => {
    const calls = api(FAILED);
    const id = await queue({ state: 'error', attempts: 5, failures: 5, lastError: REASON });
    open();
    const card = await screen.findByRole('listitem', { name: /QUA005/ });
    // Logged in and the runner's login drain done (it leaves an 'Erreur serveur' entry alone).
    expect(await screen.findByText('1 envoi en échec')).toBeInTheDocument();
    await userEvent.click(within(card).getByRole('button', { name: 'Renvoyer' }));
    expect(await screen.findByText('1 saisie(s) en erreur sur le serveur : elles restent sur le téléphone.')).toBeInTheDocument();
    expect(posted(calls)).toEqual([id]);
    // Back in line with a fresh count: it waits for its own retry.
    expect(await rows()).toMatchObject([{ clientId: id, state: 'pending', failures: 1, lastError: REASON }]);
    expect(await within(card).findByText('En attente')).toBeInTheDocument();
  });

  it('lets the user resend at once an entry waiting for its retry after a server error', async () => {
    const calls = api(ADDED);
    const id = await queue({ attempts: 2, failures: 2, nextAttemptAt: Date.now() + 3_600_000, lastError: REASON });
    open();
    const card = await screen.findByRole('listitem', { name: /QUA005/ });
    expect(within(card).getByText('En attente')).toBeInTheDocument();
    expect(within(card).getByText(`Dernière erreur : ${REASON}`)).toBeInTheDocument();
    await userEvent.click(within(card).getByRole('button', { name: 'Renvoyer' }));
    await waitFor(async () => expect(await rows()).toEqual([]));
    expect(posted(calls)).toEqual([id]);
  });

  it('says that an entry processing the same request as an earlier one waits for it', async () => {
    const calls = api(ADDED);
    await queue({ state: 'error', attempts: 5, failures: 5, lastError: REASON, request: 40, date: '2026-03-02T09:30:00.000Z' });
    const second = await queue({ request: 40, date: '2026-03-03T10:00:00.000Z' });
    open();
    const cards = await screen.findAllByRole('listitem', { name: /QUA005/ });
    expect(cards).toHaveLength(2);
    expect(within(cards[1]).getByText(/^Traite la même demande d’intervention qu’une saisie précédente \(02\/03\/2026 10:30\)/)).toBeInTheDocument();
    expect(within(cards[0]).queryByText(/Traite la même demande/)).not.toBeInTheDocument();
    await userEvent.click(screen.getByRole('button', { name: 'Envoyer maintenant' }));
    await waitFor(() => expect(screen.getByRole('button', { name: 'Envoyer maintenant' })).toBeEnabled());
    expect(posted(calls)).toEqual([]);
    expect((await rows()).map((r) => r.clientId)).toContain(second);
  });
});

describe('outbox page, photos', () => {
  let urls = 0;

  beforeEach(() => {
    URL.createObjectURL = vi.fn(() => `blob:test/${++urls}`);
    URL.revokeObjectURL = vi.fn();
  });

  async function queuePhoto(entryId: string, overrides: Partial<OutboxPhoto> & { bytes: number }) {
    const { bytes, ...photo } = overrides;
    sequence += 1;
    const clientId = `9d1f0000-2222-4222-8333-${String(sequence).padStart(12, '0')}`;
    const db = await openOfflineDb();
    await db.photos.add({
      clientId,
      entryId,
      block: 0,
      ownerId: 7,
      type: 'image/webp',
      size: bytes,
      createdAt: Date.now() - 30_000 + sequence,
      interventionId: null,
      state: 'pending',
      attempts: 0,
      failures: 0,
      nextAttemptAt: 0,
      lastError: null,
      ...photo,
    });
    await db.photoData.add({ clientId, data: new Uint8Array(bytes).fill(0x61).buffer });
    return clientId;
  }

  it('shows the photos still to send and their size, and discards an entry with its photos after confirmation', async () => {
    api();
    const entry = await queue({ state: 'failed', lastError: 'Site introuvable' });
    await queuePhoto(entry, { bytes: 300 * 1024 });
    await queuePhoto(entry, { bytes: 1_300_000 });
    open();
    const card = await screen.findByRole('listitem', { name: /QUA005/ }, SLOW);
    expect(within(card).getByText('2 photos (1,5 Mo), envoyées après la saisie')).toBeInTheDocument();
    expect(await within(card).findAllByRole('button', { name: /Agrandir la photo/ })).toHaveLength(2);
    expect(screen.getByText('Photos à envoyer : 2 photos (1,5 Mo). Elles partent après leur saisie, une à une.')).toBeInTheDocument();
    // The top bar counts the photos too: waiting for their refused entry.
    expect(await screen.findByText('1 envoi en échec')).toBeInTheDocument();
    expect(screen.getByText('2 photos en attente')).toBeInTheDocument();

    await userEvent.click(within(card).getByRole('button', { name: 'Supprimer' }));
    const dialog = await screen.findByRole('dialog', { name: 'Supprimer cette saisie ?' });
    expect(dialog).toHaveTextContent('elle sera définitivement perdue, avec ses 2 photos. Cette action est irréversible.');
    await userEvent.click(within(dialog).getByRole('button', { name: 'Oui' }));
    await waitFor(async () => expect(await rows()).toEqual([]));
    const db = await openOfflineDb();
    expect(await db.photos.count()).toBe(0);
    expect(await db.photoData.count()).toBe(0);
    expect(await screen.findByText('Aucun résultat')).toBeInTheDocument();
  });

  it('lists a photo whose entry reached the server with its state and size, resends it, and discards another after confirmation', async () => {
    vi.stubGlobal('Blob', NodeBlob);
    vi.stubGlobal('FormData', (await new Response(new URLSearchParams('a=b')).formData()).constructor);
    const calls = mockApi({
      'GET /api/logged': loggedAs(['ROLE_USER']),
      'GET /api/typeAction/get/all': reply(200, []),
      'GET /api/typeActionConstante/get/all': reply(200, []),
      'POST /api/admin/intervention/900/photo': reply(200, { status: 'success', message: 'Photo enregistrée', photo: { id: 3, idIntervention: 900 } }),
    });
    const failing = await queuePhoto('0b7c2a3e-0000-4000-8000-000000000000', { bytes: 300_000, interventionId: 900, state: 'error', failures: 5, attempts: 5, lastError: REASON });
    await queuePhoto('0b7c2a3e-0000-4000-8000-000000000001', {
      bytes: 2048,
      interventionId: 901,
      state: 'failed',
      lastError: 'Format non pris en charge : envoyez une photo JPEG, PNG ou WebP.',
    });
    open();
    const list = await screen.findByRole('list', { name: 'Photos non envoyées' }, SLOW);
    const [first, second] = within(list).getAllByRole('listitem', { name: /^Photo de l’intervention/ });
    expect(first).toHaveAccessibleName('Photo de l’intervention n°900');
    expect(within(first).getByText('293 Ko')).toBeInTheDocument();
    expect(within(first).getByText('Erreur serveur')).toBeInTheDocument();
    expect(within(first).getByText(`Dernière erreur : ${REASON}`)).toBeInTheDocument();
    expect(within(second).getByText('Refusée')).toBeInTheDocument();
    expect(within(second).getByText('Dernière erreur : Format non pris en charge : envoyez une photo JPEG, PNG ou WebP.')).toBeInTheDocument();
    expect(await screen.findByText('2 photos en échec')).toBeInTheDocument();

    await userEvent.click(within(first).getByRole('button', { name: 'Renvoyer' }));
    await waitFor(async () => expect((await (await openOfflineDb()).photos.toArray()).map((p) => p.clientId)).not.toContain(failing));
    expect(calls.callsTo('POST', '/api/admin/intervention/900/photo')).toHaveLength(1);
    expect(String(calls.callsTo('POST', '/api/admin/intervention/900/photo')[0].body)).toContain(failing);

    await userEvent.click(within(second).getByRole('button', { name: 'Supprimer' }));
    const dialog = await screen.findByRole('dialog', { name: 'Supprimer cette photo ?' });
    expect(dialog).toHaveTextContent('L’intervention reste enregistrée.');
    await userEvent.click(within(dialog).getByRole('button', { name: 'Oui' }));
    await waitFor(async () => expect(await (await openOfflineDb()).photos.count()).toBe(0));
    expect(await screen.findByText('Aucun résultat')).toBeInTheDocument();
  });
});
