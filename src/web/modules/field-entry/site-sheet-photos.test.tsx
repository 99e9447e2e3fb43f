// The photos of the site sheet (camera or gallery, at most three per block, removable before
// saving, stored with the entry and sent after it, or the entry kept without them when the
// phone is short of space), the way back to the requests board after 'Traiter', online and
// once replayed, and the age of the data shown offline.
import { Blob as NodeBlob } from 'node:buffer';
import { cleanup, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { onlineManager } from '@tanstack/react-query';
import { beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { loggedAs, mockApi, reply, type MockHandler } from '../../../../tests/helpers/web-app';
import { chooseOption, fieldSite, openFieldScreen, startEachTestOnACleanPhone } from '../../../../tests/helpers/web-field-screens';
import type { InterventionSubmission } from '../../../shared/schemas/interventions';
import { openOfflineDb } from '../../offline/store';
import { useConnectivityStore } from '../../offline/connectivity';
import { drainNow } from '../../offline/outbox-runner';
import { PHOTOS_DROPPED_MESSAGE, PROCESSED_MESSAGE, QUEUED_MESSAGE, REQUESTS_BOARD_PATH, SAVED_MESSAGE } from './site-sheet-page';
import { TOO_MANY_PHOTOS_MESSAGE, UNREADABLE_PHOTO_MESSAGE } from './photo-picker';

// The canvas work of the phone is the browser's: here a "shrunk" photo is the file's own bytes.
vi.mock('./photo-resize', () => ({
  shrinkPhoto: async (file: File) => {
    if (!file.type.startsWith('image/')) throw new Error('not an image');
    return { type: 'image/webp', data: await file.arrayBuffer(), width: 1600, height: 1200 };
  },
}));

const TYPE_ACTIONS = [
  { id: 1, libelle: 'Retournement', valeur: false, valueKind: 'none', typeBac: [1, 3], aConstantes: false },
  { id: 14, libelle: 'Réparation effectuée', valeur: true, valueKind: 'text', typeBac: [1, 2, 3], aConstantes: false },
  { id: 18, libelle: 'Réparation à effectuer', valeur: true, valueKind: 'text', typeBac: [1, 2, 3], aConstantes: false },
];
const SITE = fieldSite();
const ADDED = reply(200, { status: 'success', message: 'Intervention(s) ajouté(s)', interventions: [900, 901], demandes: [] });
const PHOTO_STORED = reply(200, { status: 'success', message: 'Photo enregistrée', photo: { id: 1, idIntervention: 900, largeur: 1600, hauteur: 1200, taille: 5, tailleMiniature: 3 } });

function api(extra: Record<string, MockHandler | 'network'> = {}) {
  return mockApi({
    'GET /api/logged': loggedAs(['ROLE_PRESTATAIRE']),
    'GET /api/typeAction/get/all': reply(200, TYPE_ACTIONS),
    'GET /api/typeActionConstante/get/all': reply(200, []),
    'GET /api/admin/site/get/infos/pour/intervention/5': reply(200, SITE),
    'GET /api/admin/site/get/all/actif': reply(200, [
      { id: 5, code: 'QUA005', nom: 'Jardin des Capucins', adresse: 'Rue de Siam', numero: '12', ville: 'Brest', cp: '29200' },
      { id: 8, code: 'PIM008', nom: null, adresse: 'Rue de Lyon', numero: null, ville: 'Brest', cp: '29200' },
    ]),
    ...extra,
  });
}

/** A camera file whose bytes say which it is (the mocked shrinking keeps them). */
const jpeg = (name: string) => new File([`contenu-${name}`], name, { type: 'image/jpeg' });

/** The gallery input of block `index` (the camera's comes first). */
function galleryInput(index = 0): HTMLInputElement {
  const group = screen.getAllByRole('group')[index];
  const inputs = group.querySelectorAll<HTMLInputElement>('input[type="file"]');
  expect(inputs[0]).toHaveAttribute('capture', 'environment');
  expect(inputs[1]).toHaveAttribute('multiple');
  return inputs[1];
}

function storage(quota: number, usage: number) {
  Object.defineProperty(navigator, 'storage', { configurable: true, value: { persisted: async () => true, persist: async () => true, estimate: async () => ({ quota, usage }) } });
}

const clientIdOf = (body: unknown) => /name="clientId"\r\n\r\n([0-9a-f-]{36})/.exec(String(body))?.[1];

let urls = 0;
const NodeFormData = (await new Response(new URLSearchParams('a=b')).formData()).constructor;
/** The machine that runs the suite may be busy: the first render of a lazy screen can take seconds. */
const SLOW = { timeout: 10_000 };

beforeAll(async () => {
  await import('./site-sheet-page');
  await import('./photo-picker');
}, 60_000);

startEachTestOnACleanPhone();
beforeEach(() => {
  // The test's fetch is Node's: its body must be built with Node's FormData and Blob (a
  // browser has one kind of each; happy-dom adds its own, which Node's fetch cannot read).
  vi.stubGlobal('Blob', NodeBlob);
  vi.stubGlobal('FormData', NodeFormData);
  // The test DOM makes no object URLs: the thumbnails only need distinct addresses.
  URL.createObjectURL = vi.fn(() => `blob:test/${++urls}`);
  URL.revokeObjectURL = vi.fn();
  storage(10_000_000_000, 1_000_000);
});

describe('photos on the site sheet', () => {
  it('takes up to three photos per block, lets one be removed, and sends them after the entry, each to its block’s intervention', async () => {
    const calls = api({ 'POST /api/admin/intervention/add': ADDED, 'POST /api/admin/intervention/900/photo': PHOTO_STORED, 'POST /api/admin/intervention/901/photo': PHOTO_STORED });
    const { router } = openFieldScreen('/admin/fiche/site/5');
    await chooseOption(/Choix de la cellule/, 'Cellule n°1 - Apport');
    await chooseOption(/Quelle action/, 'Réparation à effectuer');
    await userEvent.type(screen.getByRole('textbox', { name: /Précisions/ }), 'Charnière cassée');

    const first = screen.getAllByRole('group')[0];
    expect(within(first).getByRole('button', { name: 'Prendre une photo' })).toBeEnabled();
    await userEvent.upload(galleryInput(0), [jpeg('a.jpg'), jpeg('b.jpg')]);
    const strip = await within(first).findByRole('list', { name: 'Photos de l’action 1' });
    expect(within(strip).getAllByRole('img').map((i) => i.getAttribute('alt'))).toEqual(['Photo 1 sur 2 de l’action 1', 'Photo 2 sur 2 de l’action 1']);
    expect(within(first).getByText('Photos (2/3)')).toBeInTheDocument();

    // A fourth is one too many: the third is kept, the user is told.
    await userEvent.upload(galleryInput(0), [jpeg('c.jpg'), jpeg('d.jpg')]);
    expect(await within(first).findByText(TOO_MANY_PHOTOS_MESSAGE)).toBeInTheDocument();
    expect(within(first).getByText('Photos (3/3)')).toBeInTheDocument();
    expect(within(first).getByRole('button', { name: 'Prendre une photo' })).toBeDisabled();
    expect(within(first).getByRole('button', { name: 'Choisir une image' })).toBeDisabled();

    await userEvent.click(within(first).getByRole('button', { name: 'Retirer la photo 2' }));
    expect(within(first).getByText('Photos (2/3)')).toBeInTheDocument();

    // A second block with one photo; a file that is no image is refused with a message.
    await userEvent.click(screen.getByRole('button', { name: 'Ajouter action' }));
    const second = screen.getAllByRole('group')[1];
    await chooseOption(/Choix de la cellule/, 'Cellule n°3 - Maturation', within(second));
    await chooseOption(/Quelle action/, 'Retournement', within(second));
    await userEvent.upload(galleryInput(1), [new File(['notes'], 'notes.txt', { type: 'text/plain' })], { applyAccept: false });
    expect(await within(second).findByText(UNREADABLE_PHOTO_MESSAGE)).toBeInTheDocument();
    await userEvent.upload(galleryInput(1), [jpeg('e.jpg')]);
    expect(await within(second).findByText('Photos (1/3)')).toBeInTheDocument();

    await userEvent.click(screen.getByRole('button', { name: 'Enregistrer' }));
    expect(await screen.findByText(SAVED_MESSAGE, {}, SLOW)).toBeInTheDocument();
    await waitFor(() => expect(router.state.location.pathname).toBe('/admin/choix/site'));
    const db = await openOfflineDb();
    await waitFor(async () => expect(await db.photos.count()).toBe(0), { timeout: 5_000 });

    const posts = calls.calls.filter((c) => c.method === 'POST').map((c) => c.path);
    expect(posts).toEqual(['/api/admin/intervention/add', '/api/admin/intervention/900/photo', '/api/admin/intervention/900/photo', '/api/admin/intervention/901/photo']);
    // Photos a, c (b was removed) and e, each once, each under its own id.
    const uploads = calls.calls.filter((c) => c.path.endsWith('/photo'));
    const ids = uploads.map((c) => clientIdOf(c.body));
    expect(new Set(ids).size).toBe(3);
    expect(uploads.map((c) => /filename="photo\.webp"\r\nContent-Type: image\/webp\r\n\r\ncontenu-([a-e])\.jpg\r\n/.exec(String(c.body))?.[1])).toEqual(['a', 'c', 'e']);
    // The entry itself carries no image.
    expect(JSON.stringify(calls.callsTo('POST', '/api/admin/intervention/add')[0].body as InterventionSubmission)).not.toMatch(/photo/i);
  }, 60_000);

  it('keeps the entry without its photos, and says so, when the phone is short of space', async () => {
    storage(50_000_000, 49_000_000);
    const calls = api({ 'POST /api/admin/intervention/add': ADDED });
    openFieldScreen('/admin/fiche/site/5');
    await chooseOption(/Choix de la cellule/, 'Cellule n°1 - Apport');
    await chooseOption(/Quelle action/, 'Retournement');
    await userEvent.upload(galleryInput(0), [jpeg('a.jpg')]);
    await within(screen.getAllByRole('group')[0]).findByText('Photos (1/3)');
    await userEvent.click(screen.getByRole('button', { name: 'Enregistrer' }));
    expect(await screen.findByText(PHOTOS_DROPPED_MESSAGE, {}, SLOW)).toBeInTheDocument();
    expect(await screen.findByText(SAVED_MESSAGE, {}, SLOW)).toBeInTheDocument();
    expect(calls.callsTo('POST', '/api/admin/intervention/add')).toHaveLength(1);
    expect(calls.calls.filter((c) => c.path.endsWith('/photo'))).toEqual([]);
    expect(await (await openOfflineDb()).photos.count()).toBe(0);
  });
});

describe('correcting a refused entry with photos', () => {
  it('reopens it with its photos, and sends the photos kept and added once the entry is accepted', async () => {
    const db = await openOfflineDb();
    const clientId = '0b7c2a3e-4444-4222-8333-000000000001';
    const payload: InterventionSubmission = {
      clientId,
      site: 5,
      date: '2026-03-02T09:30:00.000Z',
      values: [{ composteur: 51, action: 18, valeur: 'Charnière cassée', bacDestination: null, observations: null, demandeIntervention: null }],
    };
    await db.outbox.add({
      clientId,
      payload,
      createdAt: Date.now() - 60_000,
      ownerId: 7,
      ownerName: 'jean@exemple.fr',
      siteLabel: 'QUA005 - Rue de Siam',
      state: 'failed',
      attempts: 1,
      failures: 0,
      nextAttemptAt: 0,
      lastError: 'Veuillez renseigner les champs obligatoires',
      fieldErrors: [{ key: 'values0.valeur', error: 'Précisez la réparation' }],
    });
    const stored = (name: string, id: string) => ({
      row: { clientId: id, entryId: clientId, block: 0, ownerId: 7, type: 'image/webp', size: 20, createdAt: Date.now(), interventionId: null, state: 'pending' as const, attempts: 0, failures: 0, nextAttemptAt: 0, lastError: null },
      data: { clientId: id, data: new TextEncoder().encode(`contenu-${name}`).buffer },
    });
    for (const p of [stored('a.jpg', '9d1f0000-4444-4000-8000-000000000001'), stored('b.jpg', '9d1f0000-4444-4000-8000-000000000002')]) {
      await db.photos.add(p.row);
      await db.photoData.add(p.data);
    }
    const calls = api({ 'POST /api/admin/intervention/add': ADDED, 'POST /api/admin/intervention/900/photo': PHOTO_STORED });
    openFieldScreen(`/admin/fiche/site/5?corriger=${clientId}`);
    expect(await screen.findByText('Précisez la réparation', {}, SLOW)).toBeInTheDocument();
    const block = screen.getAllByRole('group')[0];
    expect(within(block).getByText('Photos (2/3)')).toBeInTheDocument();
    await userEvent.click(within(block).getByRole('button', { name: 'Retirer la photo 1' }));
    await userEvent.upload(galleryInput(0), [jpeg('c.jpg')]);
    expect(await within(block).findByText('Photos (2/3)')).toBeInTheDocument();
    await userEvent.click(screen.getByRole('button', { name: 'Enregistrer' }));
    expect(await screen.findByText(SAVED_MESSAGE, {}, SLOW)).toBeInTheDocument();
    await waitFor(async () => expect(await db.photos.count()).toBe(0), SLOW);
    const uploads = calls.calls.filter((c) => c.path.endsWith('/photo'));
    expect(uploads.map((c) => /contenu-([a-e])\.jpg/.exec(String(c.body))?.[1])).toEqual(['b', 'c']);
    // The same entry, corrected: one clientId.
    expect(calls.callsTo('POST', '/api/admin/intervention/add').map((c) => (c.body as InterventionSubmission).clientId)).toEqual([clientId]);
  }, 60_000);
});

describe("'Traiter' from the requests board", () => {
  const REQUEST = { demandeIntervention: 40, composteur: 51, action: 14, valeur: 'Charnière cassée' };

  async function openFromBoard() {
    const view = openFieldScreen('/admin/fiche/site/5');
    await screen.findByRole('heading', { name: 'Gérer' }, SLOW);
    await view.router.navigate('/admin/fiche/site/5', { state: { demandes: [REQUEST] } });
    expect(await screen.findByRole('group', { name: /Action 1 \(demande d’intervention\)/ }, SLOW)).toBeInTheDocument();
    return view;
  }

  it('goes back to the board with its message once saved', async () => {
    const calls = api({ 'POST /api/admin/intervention/add': ADDED });
    const { router } = await openFromBoard();
    await userEvent.click(screen.getByRole('button', { name: 'Enregistrer' }));
    expect(await screen.findByText(PROCESSED_MESSAGE, {}, SLOW)).toBeInTheDocument();
    await waitFor(() => expect(router.state.location.pathname).toBe(REQUESTS_BOARD_PATH));
    expect((calls.callsTo('POST', '/api/admin/intervention/add')[0].body as InterventionSubmission).values[0]).toMatchObject({ demandeIntervention: 40, action: 14 });
  });

  it('goes back to the board offline, and says the requests are done once the entry is replayed', async () => {
    const calls = api({ 'POST /api/admin/intervention/add': ADDED });
    const { router } = await openFromBoard();
    vi.spyOn(navigator, 'onLine', 'get').mockReturnValue(false);
    window.dispatchEvent(new Event('offline'));
    try {
      await userEvent.click(screen.getByRole('button', { name: 'Enregistrer' }));
      expect(await screen.findByText(QUEUED_MESSAGE, {}, SLOW)).toBeInTheDocument();
      await waitFor(() => expect(router.state.location.pathname).toBe(REQUESTS_BOARD_PATH));
      expect(screen.queryByText(PROCESSED_MESSAGE)).not.toBeInTheDocument();
      expect(calls.callsTo('POST', '/api/admin/intervention/add')).toHaveLength(0);
    } finally {
      vi.restoreAllMocks();
      onlineManager.setOnline(true);
      useConnectivityStore.setState({ browserOnline: true, serverUnreachable: false });
    }
    await drainNow('online');
    expect(calls.callsTo('POST', '/api/admin/intervention/add')).toHaveLength(1);
    expect(await screen.findByText(PROCESSED_MESSAGE, {}, SLOW)).toBeInTheDocument();
  });
});

describe('age of the data without network', () => {
  it('stamps the site sheet and the site choice with the time of their data when offline', async () => {
    api();
    openFieldScreen('/admin/fiche/site/5');
    await screen.findByRole('heading', { name: 'Gérer' }, SLOW);
    expect(screen.queryByText(/^Données du /)).not.toBeInTheDocument();
    useConnectivityStore.setState({ serverUnreachable: true });
    expect(await screen.findByText(/^Données du \d\d\/\d\d à \d\d:\d\d$/)).toBeInTheDocument();
    cleanup();
    useConnectivityStore.setState({ serverUnreachable: false });
    openFieldScreen('/admin/choix/site');
    await screen.findByText('Choisir le site de votre intervention', {}, SLOW);
    expect(screen.queryByText(/^Données du /)).not.toBeInTheDocument();
    useConnectivityStore.setState({ serverUnreachable: true });
    expect(await screen.findByText(/^Données du \d\d\/\d\d à \d\d:\d\d$/)).toBeInTheDocument();
  });
});
