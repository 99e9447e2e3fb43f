// The field screens on a phone: a refused save leads to the first field to correct and says
// how many are left; a 403 keeps the session and the queue; the outbox page tells what each
// entry became and why a send could not happen; over plain http nothing is promised offline;
// the per-site interventions page names its site and leads back to the site choice.
import { act, cleanup, configure, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { onlineManager } from '@tanstack/react-query';
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { browser } from '../../lib/browser';
import { loggedAs, mockApi, reply, type MockHandler } from '../../../../tests/helpers/web-app';
import { chooseOption, fieldSite, openFieldScreen, outboxRows, startEachTestOnACleanPhone, storeOutboxEntry } from '../../../../tests/helpers/web-field-screens';
import { behaveLikeABrowserForTables } from '../../../../tests/helpers/web-screens';
import type { InterventionSubmission } from '../../../shared/schemas/interventions';
import type { OutboxEntry } from '../../offline/db';
import { openOfflineDb } from '../../offline/store';
import { useConnectivityStore } from '../../offline/connectivity';
import { drainNow } from '../../offline/outbox-runner';
import { QUEUED_MESSAGE } from './site-sheet-page';

// The first render of a lazy screen can take seconds on a busy machine.
configure({ asyncUtilTimeout: 10_000 });

const TYPE_ACTIONS = [
  { id: 1, libelle: 'Retournement', valeur: false, valueKind: 'none', typeBac: [1, 3], aConstantes: false },
  { id: 6, libelle: 'Température', valeur: true, valueKind: 'temperature', typeBac: [1, 3], aConstantes: false },
  { id: 13, libelle: 'Autre intervention', valeur: false, valueKind: 'none', typeBac: [1, 2, 3], aConstantes: false },
];
const SITE = fieldSite();
const ADDED = reply(200, { status: 'success', message: 'Intervention(s) ajouté(s)', interventions: [900], demandes: [] });
const OWNER = 7;

function api(extra: Record<string, MockHandler | 'network'> = {}) {
  return mockApi({
    'GET /api/logged': loggedAs(['ROLE_USER'], { id: OWNER }),
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

let sequence = 0;
async function queue(overrides: Partial<OutboxEntry<InterventionSubmission>> = {}): Promise<string> {
  sequence += 1;
  const clientId = `0b7c2a3e-3333-4222-8333-${String(sequence).padStart(12, '0')}`;
  return storeOutboxEntry({
    payload: {
      clientId,
      site: 5,
      date: '2026-03-02T09:30:00.000Z',
      values: [{ composteur: 51, action: 1, valeur: null, bacDestination: null, observations: null, demandeIntervention: null }],
    },
    createdAt: Date.now() - 60_000 + sequence,
    ownerId: OWNER,
    ...overrides,
  });
}

beforeAll(async () => {
  await Promise.all([import('./site-sheet-page'), import('./outbox-page'), import('./site-interventions-page')]);
}, 60_000);

startEachTestOnACleanPhone();
beforeEach(() => {
  vi.spyOn(browser, 'assign').mockImplementation(() => {});
});

/** Runs `fn` with the browser saying it has no network (and puts it back). */
async function withoutNetwork(fn: () => Promise<void>) {
  const onLine = vi.spyOn(navigator, 'onLine', 'get').mockReturnValue(false);
  window.dispatchEvent(new Event('offline'));
  try {
    await fn();
  } finally {
    onLine.mockRestore();
    // React Query heard the 'offline' event too: without this, later tests' queries would pause.
    onlineManager.setOnline(true);
    useConnectivityStore.setState({ browserOnline: true, serverUnreachable: false, cause: 'network' });
  }
}

describe('site sheet, a refused save', () => {
  it('focuses the first field to correct, outlines its block and counts the fields left beside the save button', async () => {
    const calls = api({ 'POST /api/admin/intervention/add': ADDED });
    openFieldScreen('/admin/fiche/site/5');
    await screen.findByRole('heading', { name: 'Gérer' });
    // Block 1 complete, blocks 2 and 3 empty: their cells and their actions are missing.
    await chooseOption(/Choix de la cellule/, 'Cellule n°1 - Apport');
    await chooseOption(/Quelle action/, 'Retournement');
    await userEvent.click(screen.getByRole('button', { name: 'Ajouter action' }));
    await userEvent.click(screen.getByRole('button', { name: 'Ajouter action' }));
    await userEvent.click(screen.getByRole('button', { name: 'Enregistrer' }));

    const [first, second, third] = screen.getAllByRole('group', { name: /^Action \d/ });
    const cell = within(second).getByRole('combobox', { name: /Choix de la cellule/ });
    await waitFor(() => expect(cell).toHaveFocus());
    expect(cell).toHaveAttribute('aria-invalid', 'true');
    expect(second).toHaveAttribute('data-invalid', 'true');
    expect(second).toHaveAccessibleDescription('2 champs à corriger dans cette action');
    expect(third).toHaveAccessibleDescription('2 champs à corriger dans cette action');
    expect(first).not.toHaveAttribute('data-invalid');
    expect(within(first).queryByText(/champs? à corriger/)).not.toBeInTheDocument();
    // Beside the save button, in a live region.
    const summary = screen.getByRole('button', { name: '4 champs à corriger' });
    expect(summary.closest('[aria-live="polite"]')).not.toBeNull();
    expect(calls.callsTo('POST', '/api/admin/intervention/add')).toHaveLength(0);

    // Each correction lowers the count (a new cell resets its action, whose error goes too);
    // the block loses its outline once done; the count leads to the next field to correct.
    await chooseOption(/Choix de la cellule/, 'Cellule n°3 - Maturation', within(second));
    expect(await screen.findByRole('button', { name: '2 champs à corriger' })).toBeInTheDocument();
    expect(second).not.toHaveAttribute('data-invalid');
    await userEvent.click(screen.getByRole('button', { name: '2 champs à corriger' }));
    await waitFor(() => expect(within(third).getByRole('combobox', { name: /Choix de la cellule/ })).toHaveFocus());
    await chooseOption(/Choix de la cellule/, 'Cellule n°1 - Apport', within(third));
    await waitFor(() => expect(screen.queryByText(/champs? à corriger/)).not.toBeInTheDocument());
    expect(third).not.toHaveAttribute('data-invalid');
  });

  it('does the same with the errors of a server refusal', async () => {
    api({
      'POST /api/admin/intervention/add': reply(400, {
        status: 'error',
        message: 'Veuillez renseigner les champs obligatoires',
        errors: [
          { key: 'values1.observations', error: 'Les observations sont obligatoires pour cette action' },
          { key: 'values0.composteur', error: 'Cette cellule est désactivée' },
          { key: 'date', error: 'La date ne peut pas être dans le futur' },
        ],
      }),
    });
    openFieldScreen('/admin/fiche/site/5');
    await chooseOption(/Choix de la cellule/, 'Cellule n°1 - Apport');
    await chooseOption(/Quelle action/, 'Retournement');
    await userEvent.click(screen.getByRole('button', { name: 'Ajouter action' }));
    const second = screen.getAllByRole('group', { name: /^Action \d/ })[1];
    await chooseOption(/Choix de la cellule/, 'Cellule n°3 - Maturation', within(second));
    await chooseOption(/Quelle action/, 'Autre intervention', within(second));
    await userEvent.type(within(second).getByRole('textbox', { name: /Observations/ }), 'x');
    await userEvent.click(screen.getByRole('button', { name: 'Enregistrer' }));

    // The first invalid field in the page's order, not in the server's.
    const first = screen.getAllByRole('group', { name: /^Action \d/ })[0];
    await waitFor(() => expect(within(first).getByRole('combobox', { name: /Choix de la cellule/ })).toHaveFocus());
    expect(screen.getByRole('button', { name: '3 champs à corriger' })).toBeInTheDocument();
    expect(first).toHaveAccessibleDescription('1 champ à corriger dans cette action');
    expect(second).toHaveAccessibleDescription('1 champ à corriger dans cette action');
    expect(screen.getByLabelText(/Date de l'intervention/)).toHaveAttribute('aria-invalid', 'true');
    expect(screen.getByText('La date ne peut pas être dans le futur')).toBeInTheDocument();
  });
});

describe('a 403', () => {
  it("on another site's sheet says so in place, with a way back, and keeps the session and the queue", async () => {
    api({ 'GET /api/admin/site/get/infos/pour/intervention/9': reply(403, { status: 'error', message: 'Accès non authorisé.' }) });
    const id = await queue({ nextAttemptAt: Date.now() + 3_600_000, failures: 1 });
    const { router } = openFieldScreen('/admin/fiche/site/9?cellule=91');
    expect(await screen.findByRole('heading', { name: 'Accès non authorisé.', level: 1 })).toBeInTheDocument();
    expect(screen.getByText(/Ce site n’est pas l’un des vôtres/)).toBeInTheDocument();
    expect(screen.getByRole('link', { name: 'Retour au choix du site' })).toHaveAttribute('href', '/admin/choix/site');
    expect(screen.getByRole('link', { name: 'Retour à l’accueil' })).toHaveAttribute('href', '/admin');
    // No toast on top of the page's own message for a refused read.
    expect(screen.queryByRole('alert')).not.toBeInTheDocument();
    expect(browser.assign).not.toHaveBeenCalled();
    expect(sessionStorage.getItem('compost.flash')).toBeNull();
    expect(await outboxRows()).toMatchObject([{ clientId: id }]);

    await userEvent.click(screen.getByRole('link', { name: 'Retour au choix du site' }));
    expect(await screen.findByText('Choisir le site de votre intervention')).toBeInTheDocument();
    expect(router.state.location.pathname).toBe('/admin/choix/site');
    expect(screen.getByText('1 envoi en attente')).toBeInTheDocument();
  });
});

describe('outbox page', () => {
  it('is in the drawer, right after the site choice', async () => {
    api();
    openFieldScreen('/admin/envois');
    const drawer = await screen.findByRole('navigation', { name: 'Menu principal' });
    // The screens mounted here are the field ones: the referent's other entries are not.
    expect(within(drawer).getAllByRole('link').map((a) => a.textContent)).toEqual(['Choix du site', 'Envois']);
    expect(within(drawer).getByRole('link', { name: 'Envois' })).toHaveAttribute('href', '/admin/envois');
  });

  it("says 'N saisie(s) envoyée(s)' when the queue drains, and lists what was sent as 'Envoyée'", async () => {
    api({ 'POST /api/admin/intervention/add': ADDED });
    // The phone's copy of the site names the cells.
    await (await openOfflineDb()).reference.put({ key: 'siteInfos:5', value: SITE, fetchedAt: Date.now() });
    openFieldScreen('/admin/envois');
    await screen.findByRole('heading', { name: 'Envois en attente' });
    await queue();
    await queue({ payload: { clientId: 'x', site: 5, date: '2026-03-03T10:00:00.000Z', values: [] } as InterventionSubmission });
    // Sent by the runner on its own (the network came back): not from the page.
    await drainNow('online');
    expect(await screen.findByText('2 saisie(s) envoyée(s)')).toBeInTheDocument();
    // Folded under what waits, one tap away.
    expect(screen.queryByRole('list', { name: 'Saisies envoyées' })).not.toBeInTheDocument();
    await userEvent.click(await screen.findByRole('button', { name: 'Afficher (2)' }));
    const sent = await screen.findByRole('list', { name: 'Saisies envoyées' });
    const cards = within(sent).getAllByRole('listitem', { name: /, envoyée$/ });
    expect(cards).toHaveLength(2);
    for (const card of cards) expect(within(card).getByText('Envoyée')).toBeInTheDocument();
    expect(within(sent).getByText('Intervention du 03/03/2026 11:00')).toBeInTheDocument();
    expect(within(sent).getByText('Intervention du 02/03/2026 10:30')).toBeInTheDocument();
    expect(await within(sent).findByText('Cellule n°1 - Apport : Retournement')).toBeInTheDocument();
    expect(screen.getByText('Aucun résultat')).toBeInTheDocument();
  });

  it('keeps only the 20 last entries sent', async () => {
    api({ 'POST /api/admin/intervention/add': ADDED });
    for (let i = 0; i < 22; i++) await queue();
    await drainNow('online');
    const receipts = await (await openOfflineDb()).sent.toArray();
    expect(receipts).toHaveLength(20);
    openFieldScreen('/admin/envois');
    await userEvent.click(await screen.findByRole('button', { name: 'Afficher (20)' }));
    expect(within(await screen.findByRole('list', { name: 'Saisies envoyées' })).getAllByRole('listitem', { name: /, envoyée$/ })).toHaveLength(20);
  });

  it("shows each entry's state: waiting, refused with the server's reasons", async () => {
    api();
    await queue({ nextAttemptAt: Date.now() + 3_600_000, failures: 1, lastError: 'Pas de réseau : nouvel essai automatique' });
    await queue({
      state: 'failed',
      lastError: 'Veuillez renseigner les champs obligatoires',
      fieldErrors: [{ key: 'values0.composteur', error: 'Cette cellule est désactivée' }],
    });
    openFieldScreen('/admin/envois');
    const list = await screen.findByRole('list', { name: 'Saisies non envoyées' });
    const [waiting, refused] = within(list).getAllByRole('listitem', { name: /^QUA005/ });
    expect(within(waiting).getByText('En attente')).toBeInTheDocument();
    expect(within(waiting).getByText('Dernière erreur : Pas de réseau : nouvel essai automatique')).toBeInTheDocument();
    expect(within(refused).getByText('Refusée')).toBeInTheDocument();
    expect(within(refused).getByText('Motif du refus : Veuillez renseigner les champs obligatoires')).toBeInTheDocument();
    expect(within(refused).getByText('Cette cellule est désactivée')).toBeInTheDocument();
  });

  it("says there is no network on 'Envoyer maintenant' without one, and tries nothing", async () => {
    const calls = api({ 'POST /api/admin/intervention/add': ADDED });
    // Not due yet: the runner does not send it by itself when the page opens.
    await queue({ nextAttemptAt: Date.now() + 3_600_000, failures: 1 });
    openFieldScreen('/admin/envois');
    const button = await screen.findByRole('button', { name: 'Envoyer maintenant' });
    await withoutNetwork(async () => {
      await userEvent.click(button);
      expect(await screen.findByText('Pas de réseau : les saisies seront envoyées automatiquement dès son retour.')).toBeInTheDocument();
      expect(calls.callsTo('POST', '/api/admin/intervention/add')).toHaveLength(0);
      expect(await outboxRows()).toHaveLength(1);
    });
  });

  it('tells a server that is down from a missing network', async () => {
    api({ 'POST /api/admin/intervention/add': reply(503, { status: 'error', message: 'Service indisponible' }) });
    await queue();
    openFieldScreen('/admin/envois');
    await userEvent.click(await screen.findByRole('button', { name: 'Envoyer maintenant' }));
    expect(await screen.findByText('Serveur indisponible : nouvel essai automatique dans quelques minutes.')).toBeInTheDocument();
    expect(screen.getAllByText('Serveur indisponible').length).toBeGreaterThanOrEqual(1);
    expect(screen.queryByText('Hors ligne')).not.toBeInTheDocument();
    const card = within(screen.getByRole('list', { name: 'Saisies non envoyées' })).getByRole('listitem', { name: /^QUA005/ });
    expect(within(card).getByText('Dernière erreur : Serveur indisponible : nouvel essai automatique')).toBeInTheDocument();

    api({ 'POST /api/admin/intervention/add': 'network' });
    await userEvent.click(screen.getByRole('button', { name: 'Envoyer maintenant' }));
    expect(await screen.findByText('Pas de réseau : nouvel essai automatique dès son retour.')).toBeInTheDocument();
    expect((await screen.findAllByText('Hors ligne')).length).toBeGreaterThanOrEqual(1);
  });

  it("warns at logout about this account's unsent entries only", async () => {
    api();
    await queue();
    await queue({ ownerId: 99, ownerName: 'autre@exemple.fr' });
    await queue({ ownerId: 99, ownerName: 'autre@exemple.fr' });
    openFieldScreen('/admin/envois');
    await screen.findByRole('heading', { name: 'Envois en attente' });
    const { requestLogout } = await import('../../session/logout');
    const leaving = requestLogout();
    expect(await screen.findByText(/^1 saisie n’a pas encore été envoyée au serveur/)).toBeInTheDocument();
    await userEvent.click(screen.getByRole('button', { name: 'Rester connecté' }));
    expect(await leaving).toBe(false);

    // Nothing of this account left: no warning, even with another account's entries on the phone.
    await (await openOfflineDb()).outbox.where('ownerId').equals(OWNER).delete();
    expect(await requestLogout()).toBe(true);
    expect(browser.assign).toHaveBeenCalledWith('/logout');
    expect(await outboxRows()).toHaveLength(2);
  });
});

describe('top bar on a phone', () => {
  it('shows icons and numbers, with the words as accessible names', async () => {
    // The send the runner starts on mount gets no answer while the test looks at the bar: an
    // answer would tell the connectivity store that the server is reachable again, racing the
    // state set below. It fails at the end, so that no send is left holding the outbox for the
    // next tests (their own sends would wait behind it).
    let failSend!: (e: Error) => void;
    const unanswered = new Promise<never>((_resolve, reject) => (failSend = reject));
    unanswered.catch(() => undefined);
    api({ 'POST /api/admin/intervention/add': () => unanswered });
    await queue();
    await queue({ state: 'failed', lastError: 'Refusée' });
    openFieldScreen('/admin/envois');
    const pending = await screen.findByRole('link', { name: '1 envoi en attente' });
    expect(pending).toHaveAttribute('href', '/admin/envois');
    expect(screen.getByRole('link', { name: '1 envoi en échec' })).toBeInTheDocument();
    // Only the number is drawn; the words are for screen readers (and never cut off).
    expect(within(pending).getByText('1 envoi en attente').className).toMatch(/VisuallyHidden/);
    act(() => useConnectivityStore.setState({ serverUnreachable: true, cause: 'server' }));
    const status = within(screen.getByRole('banner')).getAllByRole('status')[0];
    expect(await within(status).findByText('Serveur indisponible')).toBeInTheDocument();
    failSend(new TypeError('Failed to fetch'));
    // Resolves once the send started on mount, if any, has let go of the outbox.
    await act(() => drainNow('timer'));
  });
});

describe('without offline mode (plain http)', () => {
  const secure = Object.getOwnPropertyDescriptor(window, 'isSecureContext');
  beforeAll(() => {
    Object.defineProperty(window, 'isSecureContext', { configurable: true, value: false });
  });
  afterAll(() => {
    if (secure) Object.defineProperty(window, 'isSecureContext', secure);
    else delete (window as { isSecureContext?: boolean }).isSecureContext;
  });

  it('says why on the site sheet and the site choice', async () => {
    api();
    openFieldScreen('/admin/fiche/site/5');
    expect(
      await screen.findByText('Mode hors ligne indisponible : cette adresse n’est pas sécurisée (https). Les saisies ne seront pas gardées sans réseau.'),
    ).toBeInTheDocument();
    cleanup();
    openFieldScreen('/admin/choix/site');
    expect(await screen.findByText(/Mode hors ligne indisponible : cette adresse n’est pas sécurisée/)).toBeInTheDocument();
    expect(screen.queryByText(/Vos sites sont disponibles hors ligne/)).not.toBeInTheDocument();
  });

  it('keeps nothing on the phone and promises nothing when the entry cannot be sent', async () => {
    const calls = api({ 'POST /api/admin/intervention/add': 'network' });
    const { router } = openFieldScreen('/admin/fiche/site/5');
    await chooseOption(/Choix de la cellule/, 'Cellule n°1 - Apport');
    await chooseOption(/Quelle action/, 'Retournement');
    await userEvent.click(screen.getByRole('button', { name: 'Enregistrer' }));
    const banner = (await screen.findByText('Intervention non enregistrée : pas de réseau')).closest<HTMLElement>('[role="alert"]')!;
    expect(banner).toHaveTextContent('les saisies ne sont pas gardées sur le téléphone');
    expect(calls.callsTo('POST', '/api/admin/intervention/add')).toHaveLength(1);
    expect(await outboxRows()).toEqual([]);
    expect(screen.queryByText(QUEUED_MESSAGE)).not.toBeInTheDocument();
    expect(screen.queryByText(/enregistrée sur le téléphone/)).not.toBeInTheDocument();
    // The entry is still in the form, to save again.
    expect(router.state.location.pathname).toBe('/admin/fiche/site/5');
    expect(screen.getByRole('combobox', { name: /Quelle action/ })).toHaveValue('1');

    await withoutNetwork(async () => {
      expect(await screen.findByText(/Sur cette adresse, les saisies ne peuvent pas être gardées sur le téléphone/)).toBeInTheDocument();
      await userEvent.click(screen.getByRole('button', { name: 'Enregistrer' }));
      expect(await screen.findByText('Intervention non enregistrée : pas de réseau')).toBeInTheDocument();
      expect(calls.callsTo('POST', '/api/admin/intervention/add')).toHaveLength(1);
      expect(await outboxRows()).toEqual([]);
    });
  });
});

describe('site interventions page', () => {
  behaveLikeABrowserForTables();

  it('is titled with the site’s name and leads back to the site choice', async () => {
    api({
      'GET /api/typeBac/get/all': reply(200, []),
      'GET /api/intervention/get/list/by/site/5': reply(200, { count: 0, interventions: [] }),
    });
    const { router } = openFieldScreen('/interventions/site/5');
    expect(await screen.findByRole('heading', { level: 1, name: 'Jardin des Capucins' })).toBeInTheDocument();
    await userEvent.click(screen.getByRole('link', { name: 'Retour au choix du site' }));
    await waitFor(() => expect(router.state.location.pathname).toBe('/admin/choix/site'));
  });

  it("takes a visitor's title from the rows", async () => {
    api({
      'GET /api/logged': reply(200, { logged: false, user: null }),
      'GET /api/typeBac/get/all': reply(200, []),
      'GET /api/intervention/get/list/by/site/8': reply(200, {
        count: 1,
        interventions: [
          {
            id: 1,
            date: '2026-03-02T09:30:00.000Z',
            idAction: 1,
            typeAction: 'Retournement',
            actionValeur: false,
            typeBac: 'Apport',
            idTypeBac: 1,
            numeroBac: 1,
            idSiteComposteur: 81,
            idBacDestination: null,
            idSite: 8,
            site: 'PIM008',
            siteNom: null,
            valeur: '',
            observations: null,
            referent: null,
            modificationAgent: null,
            idStatut: null,
            demandeIntervention: null,
            interventionRealisee: null,
          },
        ],
      }),
    });
    openFieldScreen('/interventions/site/8');
    expect(await screen.findByRole('heading', { level: 1, name: 'PIM008' })).toBeInTheDocument();
    expect(screen.queryByRole('link', { name: 'Retour au choix du site' })).not.toBeInTheDocument();
  });
});
