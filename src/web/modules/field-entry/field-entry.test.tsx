import { configure, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { onlineManager } from '@tanstack/react-query';
import { beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { browser } from '../../lib/browser';
import { loggedAs, mockApi, reply, type MockHandler } from '../../../../tests/helpers/web-app';
import { chooseOption, fieldSite, openFieldScreen, outboxRows, startEachTestOnACleanPhone } from '../../../../tests/helpers/web-field-screens';
import { behaveLikeABrowserForTables } from '../../../../tests/helpers/web-screens';
import type { InterventionSubmission } from '../../../shared/schemas/interventions';
import { openOfflineDb } from '../../offline/store';
import { QUEUED_MESSAGE, SAVED_MESSAGE } from './site-sheet-page';
import { OFFLINE_BANNER_TEXT } from './offline-banner';
import { useConnectivityStore } from '../../offline/connectivity';
import { SESSION_EXPIRED_MESSAGE } from '../../offline/outbox';

// The first render of a lazy screen can take seconds on a busy machine.
configure({ asyncUtilTimeout: 10_000 });

const TYPE_ACTIONS = [
  { id: 1, libelle: 'Retournement', valeur: false, valueKind: 'none', typeBac: [1, 3], aConstantes: false },
  { id: 3, libelle: 'Transfert', valeur: true, valueKind: 'transfer', typeBac: [1], aConstantes: false },
  { id: 6, libelle: 'Température', valeur: true, valueKind: 'temperature', typeBac: [1, 3], aConstantes: false },
  { id: 7, libelle: 'Niveau de broyat', valeur: true, valueKind: 'constant', typeBac: [2], aConstantes: true },
  { id: 13, libelle: 'Autre intervention', valeur: false, valueKind: 'none', typeBac: [1, 2, 3], aConstantes: false },
];
const CONSTANTES = [
  { idConstante: 1, constante: 'Vide', idAction: 7 },
  { idConstante: 5, constante: 'Plein', idAction: 7 },
];
const SITE = fieldSite({ withBroyat: true });
const ADDED = reply(200, { status: 'success', message: 'Intervention(s) ajouté(s)', interventions: [900], demandes: [] });

function api(extra: Record<string, MockHandler | 'network'> = {}) {
  return mockApi({
    'GET /api/logged': loggedAs(['ROLE_USER']),
    'GET /api/typeAction/get/all': reply(200, TYPE_ACTIONS),
    'GET /api/typeActionConstante/get/all': reply(200, CONSTANTES),
    'GET /api/admin/site/get/infos/pour/intervention/5': reply(200, SITE),
    'GET /api/admin/site/get/all/actif': reply(200, [
      { id: 5, code: 'QUA005', nom: 'Jardin des Capucins', adresse: 'Rue de Siam', numero: '12', ville: 'Brest', cp: '29200' },
      { id: 8, code: 'PIM008', nom: null, adresse: 'Rue de Lyon', numero: null, ville: 'Brest', cp: '29200' },
      { id: 9, code: 'SCO009', nom: 'École Jaurès', adresse: 'Rue Jaurès', numero: null, ville: 'Guipavas', cp: '29490' },
    ]),
    ...extra,
  });
}

/** The label of the option a native select shows. */
const shown = (select: HTMLElement) => (select as HTMLSelectElement).selectedOptions[0]?.textContent;

beforeAll(async () => {
  // The site sheet is a lazy route; compile it once up front so the first test does not time out.
  await import('./site-sheet-page');
}, 60_000);

startEachTestOnACleanPhone();
beforeEach(() => {
  vi.spyOn(browser, 'assign').mockImplementation(() => {});
});

describe('site sheet', () => {
  it('sends a submission through the outbox and says it reached the server', async () => {
    const calls = api({ 'POST /api/admin/intervention/add': ADDED });
    const { router } = openFieldScreen('/admin/fiche/site/5');
    expect(await screen.findByRole('heading', { name: 'Gérer' })).toBeInTheDocument();
    expect(screen.getByText('Jardin des Capucins (QUA005)')).toBeInTheDocument();
    await chooseOption(/Choix de la cellule/, 'Cellule n°1 - Apport');
    await chooseOption(/Quelle action/, 'Retournement');
    await userEvent.click(screen.getByRole('button', { name: 'Ajouter action' }));
    const [, second] = screen.getAllByRole('group');
    await chooseOption(/Choix de la cellule/, 'Cellule n°3 - Maturation', within(second));
    await chooseOption(/Quelle action/, 'Température', within(second));
    await userEvent.type(within(second).getByRole('textbox', { name: /Température/ }), '54,5');
    await userEvent.click(screen.getByRole('button', { name: 'Enregistrer' }));

    expect(await screen.findByText(SAVED_MESSAGE)).toBeInTheDocument();
    await waitFor(() => expect(router.state.location.pathname).toBe('/admin/choix/site'));
    const [post] = calls.callsTo('POST', '/api/admin/intervention/add');
    const body = post.body as InterventionSubmission;
    expect(body.site).toBe(5);
    expect(body.clientId).toMatch(/^[0-9a-f-]{36}$/);
    expect(body.values).toEqual([
      { composteur: 51, action: 1, valeur: null, bacDestination: null, observations: null, demandeIntervention: null },
      { composteur: 53, action: 6, valeur: 54.5, bacDestination: null, observations: null, demandeIntervention: null },
    ]);
    expect(await outboxRows()).toEqual([]);
  });

  it('disables the actions the chosen cell does not allow', async () => {
    api();
    openFieldScreen('/admin/fiche/site/5');
    expect(await screen.findByRole('combobox', { name: /Quelle action/ })).toBeDisabled();
    await chooseOption(/Choix de la cellule/, 'Cellule n°2 - Broyat');
    const actions = screen.getByRole('combobox', { name: /Quelle action/ });
    expect(within(actions).getByRole('option', { name: 'Retournement' })).toBeDisabled();
    expect(within(actions).getByRole('option', { name: 'Niveau de broyat' })).toBeEnabled();
  });

  it('resets the action and its value when the cell changes, and offers only maturation cells as destination', async () => {
    api();
    openFieldScreen('/admin/fiche/site/5');
    await chooseOption(/Choix de la cellule/, 'Cellule n°1 - Apport');
    await chooseOption(/Quelle action/, 'Transfert');
    await userEvent.type(screen.getByRole('textbox', { name: /Quantité transférée/ }), '200');
    const destinations = screen.getByRole('combobox', { name: /Cellule de destination/ });
    // The placeholder, then the only other maturation cell: the cell itself is not offered.
    expect(within(destinations).getAllByRole('option').map((o) => [o.textContent, (o as HTMLOptionElement).disabled])).toEqual([
      ['Choisir une cellule de maturation', true],
      ['Cellule n°3 - Maturation', false],
    ]);
    await chooseOption(/Cellule de destination/, 'Cellule n°3 - Maturation');

    await chooseOption(/Choix de la cellule/, 'Cellule n°3 - Maturation');
    expect(screen.getByRole('combobox', { name: /Quelle action/ })).toHaveValue('');
    expect(shown(screen.getByRole('combobox', { name: /Quelle action/ }))).toBe('Choisir une action');
    expect(screen.queryByRole('textbox', { name: /Quantité transférée/ })).not.toBeInTheDocument();
    expect(screen.queryByRole('combobox', { name: /Cellule de destination/ })).not.toBeInTheDocument();
  });

  it('checks the entry with the shared rules before queuing it', async () => {
    const calls = api({ 'POST /api/admin/intervention/add': ADDED });
    openFieldScreen('/admin/fiche/site/5');
    await screen.findByRole('heading', { name: 'Gérer' });
    await userEvent.click(screen.getByRole('button', { name: 'Enregistrer' }));
    expect(await screen.findByText('Veuillez choisir une cellule')).toBeInTheDocument();
    expect(screen.getByText('Veuillez renseigner les champs obligatoires')).toBeInTheDocument();

    await chooseOption(/Choix de la cellule/, 'Cellule n°1 - Apport');
    await chooseOption(/Quelle action/, 'Autre intervention');
    await userEvent.click(screen.getByRole('button', { name: 'Enregistrer' }));
    expect(await screen.findByText('Les observations sont obligatoires pour cette action')).toBeInTheDocument();

    await chooseOption(/Quelle action/, 'Température');
    await userEvent.type(screen.getByRole('textbox', { name: /Température/ }), '120');
    await userEvent.click(screen.getByRole('button', { name: 'Enregistrer' }));
    expect(await screen.findByText('La température doit être comprise entre -20 et 90 °C')).toBeInTheDocument();
    expect(calls.callsTo('POST', '/api/admin/intervention/add')).toHaveLength(0);
    expect(await outboxRows()).toEqual([]);
  });

  it('keeps the entry on the phone when the server cannot be reached', async () => {
    api({ 'POST /api/admin/intervention/add': 'network' });
    const { router } = openFieldScreen('/admin/fiche/site/5');
    await chooseOption(/Choix de la cellule/, 'Cellule n°2 - Broyat');
    await chooseOption(/Quelle action/, 'Niveau de broyat');
    await chooseOption(/Niveau de broyat/, 'Plein');
    await userEvent.click(screen.getByRole('button', { name: 'Enregistrer' }));
    expect(await screen.findByText(QUEUED_MESSAGE)).toBeInTheDocument();
    await waitFor(() => expect(router.state.location.pathname).toBe('/admin/choix/site'));
    const [entry] = await outboxRows();
    expect(entry).toMatchObject({ state: 'pending', ownerId: 7, payload: { site: 5, values: [{ composteur: 52, action: 7, valeur: 5 }] } });
    expect(await screen.findByText('1 envoi en attente')).toBeInTheDocument();
  });

  it('says it is offline and that the entry stays on the phone, without trying the server', async () => {
    const calls = api({ 'POST /api/admin/intervention/add': ADDED });
    const { router } = openFieldScreen('/admin/fiche/site/5');
    await screen.findByRole('heading', { name: 'Gérer' });
    expect(screen.queryByText(OFFLINE_BANNER_TEXT)).not.toBeInTheDocument();
    vi.spyOn(navigator, 'onLine', 'get').mockReturnValue(false);
    window.dispatchEvent(new Event('offline'));
    try {
      expect(await screen.findByText(OFFLINE_BANNER_TEXT)).toBeInTheDocument();
      expect(screen.getAllByText('Hors ligne').length).toBeGreaterThanOrEqual(1);
      await chooseOption(/Choix de la cellule/, 'Cellule n°1 - Apport');
      await chooseOption(/Quelle action/, 'Retournement');
      await userEvent.click(screen.getByRole('button', { name: 'Enregistrer' }));
      // The exact wording of the contract, and no pretence of having reached the server.
      expect(await screen.findByText('Intervention enregistrée sur le téléphone, elle sera envoyée dès le retour du réseau')).toBeInTheDocument();
      expect(screen.queryByText(SAVED_MESSAGE)).not.toBeInTheDocument();
      await waitFor(() => expect(router.state.location.pathname).toBe('/admin/choix/site'));
      expect(calls.callsTo('POST', '/api/admin/intervention/add')).toHaveLength(0);
      expect(await outboxRows()).toMatchObject([{ state: 'pending', attempts: 0, payload: { site: 5, values: [{ composteur: 51, action: 1 }] } }]);
      expect(await screen.findByText('1 envoi en attente')).toBeInTheDocument();
    } finally {
      // React Query heard the 'offline' event too: without this, later tests' queries would pause.
      onlineManager.setOnline(true);
      useConnectivityStore.setState({ browserOnline: true, serverUnreachable: false });
    }
  });

  it('keeps the entry and asks to log in again when the session has expired, without logging out', async () => {
    const calls = api({ 'POST /api/admin/intervention/add': reply(401, { status: 'error', message: 'Vous devez être connecté.' }) });
    openFieldScreen('/admin/fiche/site/5');
    await chooseOption(/Choix de la cellule/, 'Cellule n°1 - Apport');
    await chooseOption(/Quelle action/, 'Retournement');
    await userEvent.click(screen.getByRole('button', { name: 'Enregistrer' }));
    expect(await screen.findByText(QUEUED_MESSAGE)).toBeInTheDocument();
    expect(await screen.findByText(SESSION_EXPIRED_MESSAGE)).toBeInTheDocument();
    expect(screen.getByRole('button', { name: 'Se reconnecter' })).toBeInTheDocument();
    expect(calls.callsTo('POST', '/api/admin/intervention/add')).toHaveLength(1);
    expect(await outboxRows()).toMatchObject([{ state: 'auth', lastError: SESSION_EXPIRED_MESSAGE }]);
    // A quiet call: the 401 of the outbox does not throw the user out of the app.
    expect(browser.assign).not.toHaveBeenCalled();
    expect(await screen.findByText('1 envoi en attente')).toBeInTheDocument();
  });

  it("shows the server's errors under the fields and corrects the same entry", async () => {
    let answer = reply(400, { status: 'error', message: 'Veuillez renseigner les champs obligatoires', errors: [{ key: 'values0.composteur', error: 'Cette cellule est désactivée' }] });
    const calls = api({ 'POST /api/admin/intervention/add': () => answer });
    const { router } = openFieldScreen('/admin/fiche/site/5');
    await chooseOption(/Choix de la cellule/, 'Cellule n°1 - Apport');
    await chooseOption(/Quelle action/, 'Retournement');
    await userEvent.click(screen.getByRole('button', { name: 'Enregistrer' }));
    expect(await screen.findByText('Cette cellule est désactivée')).toBeInTheDocument();
    const [failed] = await outboxRows();
    expect(failed).toMatchObject({ state: 'failed', fieldErrors: [{ key: 'values0.composteur', error: 'Cette cellule est désactivée' }] });

    answer = ADDED;
    await chooseOption(/Choix de la cellule/, 'Cellule n°3 - Maturation');
    await chooseOption(/Quelle action/, 'Retournement');
    await userEvent.click(screen.getByRole('button', { name: 'Enregistrer' }));
    await waitFor(() => expect(router.state.location.pathname).toBe('/admin/choix/site'));
    const posts = calls.callsTo('POST', '/api/admin/intervention/add').map((c) => c.body as InterventionSubmission);
    expect(posts).toHaveLength(2);
    expect(posts[1].clientId).toBe(posts[0].clientId);
    expect(posts[1].values[0].composteur).toBe(53);
    expect(await outboxRows()).toEqual([]);
  });

  it('opens on the cell of a QR label', async () => {
    api();
    openFieldScreen('/admin/fiche/site/5?cellule=53');
    expect(shown(await screen.findByRole('combobox', { name: /Choix de la cellule/ }))).toBe('Cellule n°3 - Maturation');
  });

  it('opens with no network from the copy kept on the phone', async () => {
    api();
    const first = openFieldScreen('/admin/fiche/site/5');
    await screen.findByRole('heading', { name: 'Gérer' });
    first.unmount();
    api({
      'GET /api/typeActionConstante/get/all': 'network',
      'GET /api/admin/site/get/infos/pour/intervention/5': 'network',
    });
    openFieldScreen('/admin/fiche/site/5');
    expect(await screen.findByText(/Données du site enregistrées sur le téléphone le/)).toBeInTheDocument();
    await chooseOption(/Choix de la cellule/, 'Cellule n°2 - Broyat');
    await chooseOption(/Quelle action/, 'Niveau de broyat');
    await chooseOption(/^Niveau de broyat/, 'Vide');
  });
});

describe('site choice', () => {
  it('lists the sites grouped by city with their labels and opens the chosen one', async () => {
    api();
    const { router } = openFieldScreen('/admin/choix/site');
    expect(await screen.findByText('Choisir le site de votre intervention')).toBeInTheDocument();
    await userEvent.click(screen.getByRole('combobox', { name: 'Site' }));
    expect(await screen.findByText('Guipavas')).toBeInTheDocument();
    expect(screen.getByRole('option', { name: 'PIM008 - Rue de Lyon' })).toBeInTheDocument();
    await userEvent.click(screen.getByRole('option', { name: 'QUA005 - Rue de Siam (Jardin des Capucins)' }));
    await waitFor(() => expect(router.state.location.pathname).toBe('/admin/fiche/site/5'));
  });

  it('goes straight to the only site', async () => {
    api({ 'GET /api/admin/site/get/all/actif': reply(200, [{ id: 5, code: 'QUA005', nom: null, adresse: 'Rue de Siam', numero: null, ville: 'Brest', cp: '29200' }]) });
    const { router } = openFieldScreen('/admin/choix/site');
    await waitFor(() => expect(router.state.location.pathname).toBe('/admin/fiche/site/5'));
  });

  it('says when no site is linked to the profile', async () => {
    api({ 'GET /api/admin/site/get/all/actif': reply(200, []) });
    openFieldScreen('/admin/choix/site');
    expect(await screen.findByText("Vous n'avez aucun site de compostage collectif lié à votre profil.")).toBeInTheDocument();
  });
});

describe('outbox page', () => {
  async function queueOne(state: 'failed' | 'pending') {
    const db = await openOfflineDb();
    await db.outbox.add({
      clientId: '0b7c2a3e-1111-4222-8333-444455556666',
      payload: {
        clientId: '0b7c2a3e-1111-4222-8333-444455556666',
        site: 5,
        date: '2026-03-02T09:30:00.000Z',
        values: [{ composteur: 53, action: 6, valeur: 120, bacDestination: null, observations: null, demandeIntervention: null }],
      },
      createdAt: Date.now(),
      ownerId: 7,
      ownerName: 'jean@exemple.fr',
      siteLabel: 'QUA005 - Rue de Siam (Jardin des Capucins)',
      state,
      attempts: 1,
      nextAttemptAt: Date.now(),
      lastError: state === 'failed' ? 'Veuillez renseigner les champs obligatoires' : null,
      fieldErrors: state === 'failed' ? [{ key: 'values0.valeur', error: 'La température doit être comprise entre -20 et 90 °C' }] : [],
    });
  }

  it('lists the waiting entries and reopens a refused one with its errors under the fields', async () => {
    api({ 'POST /api/admin/intervention/add': reply(400, { status: 'error', errors: [] }) });
    await queueOne('failed');
    const { router } = openFieldScreen('/admin/envois');
    const card = await screen.findByRole('listitem', { name: /QUA005 - Rue de Siam/ });
    expect(within(card).getByText('Refusée')).toBeInTheDocument();
    expect(within(card).getByText('La température doit être comprise entre -20 et 90 °C')).toBeInTheDocument();
    expect(screen.getByText('1 envoi en échec')).toBeInTheDocument();
    await userEvent.click(within(card).getByRole('button', { name: 'Corriger' }));
    await waitFor(() => expect(router.state.location.search).toBe('?corriger=0b7c2a3e-1111-4222-8333-444455556666'));
    const temperature = await screen.findByRole('textbox', { name: /Température/ });
    expect(temperature).toHaveValue('120');
    expect(screen.getByText('La température doit être comprise entre -20 et 90 °C')).toBeInTheDocument();
  });

  it('discards an entry only after confirmation', async () => {
    api();
    await queueOne('failed');
    openFieldScreen('/admin/envois');
    const card = await screen.findByRole('listitem', { name: /QUA005/ });
    await userEvent.click(within(card).getByRole('button', { name: 'Supprimer' }));
    await userEvent.click(await screen.findByRole('button', { name: 'Non' }));
    expect(await outboxRows()).toHaveLength(1);
    await userEvent.click(within(card).getByRole('button', { name: 'Supprimer' }));
    await userEvent.click(await screen.findByRole('button', { name: 'Oui' }));
    await waitFor(async () => expect(await outboxRows()).toHaveLength(0));
    expect(await screen.findByText('Aucun résultat')).toBeInTheDocument();
  });

  it('shows the last error of a refused entry and resends that entry alone', async () => {
    const calls = api({ 'POST /api/admin/intervention/add': ADDED });
    const db = await openOfflineDb();
    await queueOne('failed');
    await db.outbox.update('0b7c2a3e-1111-4222-8333-444455556666', { lastError: 'Une erreur est survenue', fieldErrors: [] });
    openFieldScreen('/admin/envois');
    const card = await screen.findByRole('listitem', { name: /QUA005/ });
    expect(within(card).getByText('Refusée')).toBeInTheDocument();
    expect(within(card).getByText('Motif du refus : Une erreur est survenue')).toBeInTheDocument();
    // Nothing to correct field by field: no 'Corriger', but 'Renvoyer' and 'Supprimer'.
    expect(within(card).queryByRole('button', { name: 'Corriger' })).not.toBeInTheDocument();
    expect(calls.callsTo('POST', '/api/admin/intervention/add')).toHaveLength(0);
    await userEvent.click(within(card).getByRole('button', { name: 'Renvoyer' }));
    await waitFor(async () => expect(await outboxRows()).toHaveLength(0));
    expect(calls.callsTo('POST', '/api/admin/intervention/add').map((c) => (c.body as InterventionSubmission).clientId)).toEqual(['0b7c2a3e-1111-4222-8333-444455556666']);
    expect(await screen.findByText('Aucun résultat')).toBeInTheDocument();
  });

  it('sends the waiting entries from the button', async () => {
    const calls = api({ 'POST /api/admin/intervention/add': ADDED });
    const db = await openOfflineDb();
    await queueOne('pending');
    await db.outbox.update('0b7c2a3e-1111-4222-8333-444455556666', { payload: { clientId: '0b7c2a3e-1111-4222-8333-444455556666', site: 5, date: '2026-03-02T09:30:00.000Z', values: [] }, nextAttemptAt: Date.now() + 3_600_000 });
    openFieldScreen('/admin/envois');
    await userEvent.click(await screen.findByRole('button', { name: 'Envoyer maintenant' }));
    await waitFor(async () => expect(await outboxRows()).toHaveLength(0));
    expect(calls.callsTo('POST', '/api/admin/intervention/add').length).toBeGreaterThanOrEqual(1);
  });
});

describe('logout with unsent entries', () => {
  it('warns first and never deletes the entries', async () => {
    api();
    const db = await openOfflineDb();
    openFieldScreen('/admin/envois');
    await screen.findByRole('heading', { name: 'Envois en attente' });
    await db.outbox.add({
      clientId: '5f0c2a3e-1111-4222-8333-444455556666',
      payload: { clientId: '5f0c2a3e-1111-4222-8333-444455556666', site: 5, date: '2026-03-02T09:30:00.000Z', values: [] },
      createdAt: Date.now(),
      ownerId: 7,
      ownerName: 'jean@exemple.fr',
      siteLabel: 'QUA005 - Rue de Siam',
      state: 'pending',
      attempts: 0,
      nextAttemptAt: Date.now(),
      lastError: null,
      fieldErrors: [],
    });
    const { requestLogout } = await import('../../session/logout');

    const stay = requestLogout();
    expect(await screen.findByText(/1 saisie n’a pas encore été envoyée/)).toBeInTheDocument();
    await userEvent.click(screen.getByRole('button', { name: 'Rester connecté' }));
    expect(await stay).toBe(false);
    expect(browser.assign).not.toHaveBeenCalled();

    const leave = requestLogout();
    await userEvent.click(await screen.findByRole('button', { name: 'Se déconnecter' }));
    expect(await leave).toBe(true);
    expect(browser.assign).toHaveBeenCalledWith('/logout');
    expect(await outboxRows()).toHaveLength(1);
  });
});

describe('public site interventions', () => {
  behaveLikeABrowserForTables();

  it('shows the contact banner and the rows with their displayed values', async () => {
    const calls = api({
      'GET /api/logged': reply(200, { logged: false, user: null }),
      'GET /api/typeBac/get/all': reply(200, [
        { id: 1, libelle: 'Apport' },
        { id: 3, libelle: 'Maturation' },
      ]),
      'GET /api/intervention/get/list/by/site/5': reply(200, {
        count: 1,
        interventions: [
          {
            id: 1,
            date: '2026-03-02T09:30:00.000Z',
            idAction: 3,
            typeAction: 'Transfert',
            actionValeur: true,
            typeBac: 'Apport',
            idTypeBac: 1,
            numeroBac: 1,
            idSiteComposteur: 51,
            idBacDestination: 53,
            idSite: 5,
            site: 'Jardin des Capucins',
            siteNom: 'Jardin des Capucins',
            valeur: '200 L vers le composteur n°3',
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
    openFieldScreen('/interventions/site/5');
    expect(
      await screen.findByText(/Vous avez une question \? Vous souhaiter vous investir dans le compostage collectif \? Vous pouvez joindre le Maitre composteur au : 02 98 00 00 00/, undefined, {
        timeout: 10_000,
      }),
    ).toBeInTheDocument();
    expect(await screen.findByText('200 L vers le composteur n°3', undefined, { timeout: 5_000 })).toBeInTheDocument();
    expect(screen.getByText('02/03/2026 10:30')).toBeInTheDocument();
    const headers = [...document.querySelectorAll('thead th')].map((th) => th.textContent?.trim());
    expect(headers).toEqual(['Date', 'Action', 'Type Cellule', 'Cellule N°', 'Valeur', 'Observations']);
    const [list] = calls.callsTo('GET', '/api/intervention/get/list/by/site/5');
    expect(decodeURIComponent(list.path)).toContain('sort[name]=date&sort[direction]=desc');
    // The search box asks the server once the typing pauses.
    await userEvent.setup({ delay: null }).type(screen.getByRole('textbox', { name: 'Rechercher' }), 'transfert');
    await waitFor(
      () => expect(calls.callsTo('GET', '/api/intervention/get/list/by/site/5').map((c) => new URL(c.path, 'http://x').searchParams.get('search'))).toContain('transfert'),
      { timeout: 3000 },
    );
  });

  it('says when the site does not exist', async () => {
    api({ 'GET /api/logged': reply(200, { logged: false, user: null }), 'GET /api/intervention/get/list/by/site/404': reply(404, { status: 'error', message: 'Site introuvable' }) });
    openFieldScreen('/interventions/site/404');
    expect(await screen.findByText('Site introuvable', undefined, { timeout: 5_000 })).toBeInTheDocument();
  });
});
