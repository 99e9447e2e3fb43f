import { act, cleanup, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { loggedAs, mockApi, renderApp, reply } from '../../../../tests/helpers/web-app';
import { behaveLikeABrowserForTables } from '../../../../tests/helpers/web-screens';
import type { DemandeIntervention } from '../../../shared/schemas/requests';
import { requestsRoutes } from './requests.routes';
import { PHONE_QUERY } from './history-dialog';
import { isUrgent, overdueDays, photosSubject, signalsLabel, siteParam } from './requests-page';
import { requestPrefill } from './request-prefill';
import { useConnectivityStore } from '../../offline/connectivity';
import { prefillOf, requestSheetValues, toSubmission } from '../field-entry/public';

behaveLikeABrowserForTables();
afterEach(() => {
  cleanup();
  vi.unstubAllGlobals();
  vi.useRealTimers();
  useConnectivityStore.setState({ browserOnline: true, serverUnreachable: false });
});

const DAY_MS = 24 * 3600 * 1000;

function demande(over: Partial<DemandeIntervention> = {}): DemandeIntervention {
  return {
    id: 11,
    idStatut: 3,
    statut: 'En attente',
    dateEcheance: new Date(Date.now() + 10 * DAY_MS).toISOString(),
    dateProgrammee: null,
    programmationReferent: null,
    programmationAgent: null,
    idAction: 18,
    actionDeclenchante: 'Réparation à effectuer',
    referent: 'MARTIN Jeanne',
    agent: null,
    idActionProgrammee: 14,
    actionProgrammee: 'Réparation effectuée',
    idSite: 5,
    site: 'Jardin des Capucins',
    adresse: '2 rue de Siam, 29200 Brest',
    value: 'Couvercle cassé',
    idBac: 41,
    numero: 1,
    destinationIdBac: null,
    idInterventionDeclenchante: 900,
    dateDeclenchement: new Date().toISOString(),
    nbSignalements: 1,
    dernierSignalement: null,
    delaiJours: 14,
    photos: [],
    ...over,
  };
}

const PARIS = new Intl.DateTimeFormat('fr-FR', { timeZone: 'Europe/Paris', day: '2-digit', month: '2-digit', year: 'numeric' });
/** dd/MM/yyyy in Paris, as typed in the date picker. */
const frDay = (d: Date) => PARIS.format(d);
const isoDay = (fr: string) => fr.split('/').reverse().join('-');

const board = (cards: DemandeIntervention[]) => ({
  'GET /api/logged': loggedAs(['ROLE_PRESTATAIRE']),
  'GET /api/admin/demande/intervention/get/list': reply(200, { count: cards.length, demandesInterventions: cards }),
  'GET /api/admin/demande/intervention/get/sites': reply(200, [
    { id: 5, site: 'Jardin des Capucins', ville: 'Brest', count: 2 },
    { id: 6, site: 'Quartier Nord', ville: 'Brest', count: 1 },
  ]),
  'GET /api/admin/site/get/infos/pour/intervention/5': reply(200, { id: 5, code: 'QUA001', nom: 'Jardin des Capucins', numero: '2', adresse: 'rue de Siam', cp: '29200', ville: 'Brest', typeSite: 'Quartier', siteComposteurs: [] }),
  'GET /api/admin/site/get/infos/pour/intervention/6': reply(200, { id: 6, code: 'QUA002', nom: 'Quartier Nord', numero: '1', adresse: 'rue Jean Jaurès', cp: '29200', ville: 'Brest', typeSite: 'Quartier', siteComposteurs: [] }),
});

describe('prefill and due dates', () => {
  it('prefills the destination cell if any, else the cell; the value only after a trigger 18', () => {
    expect(requestPrefill(demande())).toEqual({ demandeIntervention: 11, composteur: 41, action: 14, valeur: 'Couvercle cassé' });
    expect(requestPrefill(demande({ idAction: 16, value: 'Plein', destinationIdBac: 43, idActionProgrammee: 3 }))).toEqual({
      demandeIntervention: 11,
      composteur: 43,
      action: 3,
      valeur: null,
    });
  });

  it('prefills the value of the latest repair to do when the request was signalled again', () => {
    const latest = { id: 950, date: new Date().toISOString(), intervenant: 'VERT Paul', idAction: 18, typeAction: 'Réparation à effectuer', valeur: 'Couvercle et charnière', observations: null, photos: [] };
    expect(requestPrefill(demande({ nbSignalements: 2, dernierSignalement: latest })).valeur).toBe('Couvercle et charnière');
    const damaged = { ...latest, idAction: 9, typeAction: 'État du composteur', valeur: 'Endommagé' };
    expect(requestPrefill(demande({ nbSignalements: 2, dernierSignalement: damaged })).valeur).toBe('Couvercle cassé');
  });

  it('counts the Paris days an overdue request is late, and says how often it was signalled', () => {
    const now = new Date('2026-03-10T10:00:00Z');
    expect(overdueDays({ dateEcheance: '2026-03-09T23:30:00Z', delaiJours: 7 }, now)).toBe(0); // 10/03 in Paris: due today
    expect(overdueDays({ dateEcheance: '2026-03-09T22:30:00Z', delaiJours: 7 }, now)).toBe(1);
    expect(overdueDays({ dateEcheance: '2026-02-28T12:00:00Z', delaiJours: 7 }, now)).toBe(10);
    expect(signalsLabel(demande())).toBeNull();
    const latest = { id: 950, date: '2026-03-08T09:00:00Z', intervenant: 'VERT Paul', idAction: 16, typeAction: "Niveau d'apport", valeur: 'Plein', observations: null, photos: [] };
    expect(signalsLabel(demande({ nbSignalements: 3, dernierSignalement: latest }))).toBe('Signalée 3 fois, dernière fois le 08/03/2026 : Plein');
  });

  it('is urgent when fewer than 3 days away, overdue included', () => {
    const now = Date.UTC(2026, 0, 10, 12);
    expect(isUrgent(new Date(now + 2 * DAY_MS).toISOString(), now)).toBe(true);
    expect(isUrgent(new Date(now - DAY_MS).toISOString(), now)).toBe(true);
    expect(isUrgent(new Date(now + 3 * DAY_MS + 60_000).toISOString(), now)).toBe(false);
  });
});

describe('the site sheet opened by Traiter', () => {
  it('reads the requests from the navigation state, one block each carrying its request', () => {
    const prefill = [requestPrefill(demande()), requestPrefill(demande({ id: 12, idAction: 7, value: 'Vide', idActionProgrammee: 12, idBac: 42 }))];
    expect(prefillOf({ demandes: prefill })).toEqual(prefill);
    expect(prefillOf(null)).toBeNull();
    expect(prefillOf({ demandes: [{ demandeIntervention: 'x' }] })).toBeNull();
    const values = requestSheetValues(prefill, new Date(2026, 0, 10, 9, 30));
    expect(values.date).toBe('2026-01-10 09:30:00');
    const draft = toSubmission(values, { clientId: 'c', siteId: 5, typeActions: [
      { id: 14, libelle: 'Réparation effectuée', valeur: true, valueKind: 'text', typeBac: [1, 2, 3], aConstantes: false },
      { id: 12, libelle: 'Apport de broyat', valeur: true, valueKind: 'litres', typeBac: [2], aConstantes: false },
    ] as never });
    expect(draft.values).toEqual([
      { composteur: 41, action: 14, valeur: 'Couvercle cassé', bacDestination: null, observations: null, demandeIntervention: 11 },
      { composteur: 42, action: 12, valeur: null, bacDestination: null, observations: null, demandeIntervention: 12 },
    ]);
  });
});

describe('requests board', () => {
  it('shows a card with every field, the due date in red when close', async () => {
    mockApi(board([demande({ dateEcheance: new Date(Date.now() + DAY_MS).toISOString() })]));
    renderApp('/admin/demande/intervention/list', { loggedRoutes: requestsRoutes });
    const card = await screen.findByRole('article', { name: 'Demande 11' }, { timeout: 15_000 });
    expect(card).toHaveTextContent('A faire : Réparation effectuée');
    expect(card).toHaveTextContent('Site : Jardin des Capucins');
    expect(card).toHaveTextContent('Réparation à effectuer : Couvercle cassé (cellule n°1)');
    expect(card).toHaveTextContent('Intervenant : MARTIN Jeanne');
    expect(card).toHaveTextContent('2 rue de Siam, 29200 Brest');
    expect(within(card).getByText(/^Echéance : /)).toHaveAttribute('data-urgent', 'true');
  });

  it('opens on one site when the address names it (?site=), as the map card links', async () => {
    const api = mockApi(board([demande()]));
    renderApp('/admin/demande/intervention/list?site=5', { loggedRoutes: requestsRoutes });
    await screen.findByRole('article', { name: 'Demande 11' }, { timeout: 15_000 });
    expect(api.callsTo('GET', '/api/admin/demande/intervention/get/list')[0].path).toContain('filter%5Bsite%5D=5');
    expect(await screen.findByDisplayValue('Jardin des Capucins (2)')).toBeInTheDocument();
    expect(siteParam('5')).toBe(5);
    expect(siteParam('0')).toBeNull();
    expect(siteParam('5abc')).toBeNull();
    expect(siteParam(null)).toBeNull();
  });

  it('says when nothing is pending, and when the list cannot be loaded', async () => {
    mockApi(board([]));
    renderApp('/admin/demande/intervention/list', { loggedRoutes: requestsRoutes });
    expect(await screen.findByText('Aucune demande en attente', {}, { timeout: 15_000 })).toBeInTheDocument();
    cleanup();
    mockApi({ ...board([]), 'GET /api/admin/demande/intervention/get/list': reply(500, { status: 'error', message: 'Une erreur est survenue.' }) });
    renderApp('/admin/demande/intervention/list', { loggedRoutes: requestsRoutes });
    expect(await screen.findByRole('button', { name: 'Réessayer' }, { timeout: 15_000 })).toBeInTheDocument();
  });

  it('refuses a selection over two sites and counts the selection on the buttons', async () => {
    mockApi(board([demande(), demande({ id: 12 }), demande({ id: 13, idSite: 6, site: 'Quartier Nord' })]));
    renderApp('/admin/demande/intervention/list', { loggedRoutes: requestsRoutes });
    const first = await screen.findByRole('article', { name: 'Demande 11' }, { timeout: 15_000 });
    const second = screen.getByRole('article', { name: 'Demande 12' });
    const other = screen.getByRole('article', { name: 'Demande 13' });
    await userEvent.click(within(first).getByRole('checkbox'));
    await userEvent.click(within(other).getByRole('checkbox'));
    expect(await screen.findByText('Vous ne pouvez sélectionner que des demandes d’un même site')).toBeInTheDocument();
    expect(within(other).getByRole('checkbox')).not.toBeChecked();
    await userEvent.click(within(second).getByRole('checkbox'));
    expect(within(first).getByRole('button', { name: 'Traiter (2)' })).toBeInTheDocument();
    expect(within(second).getByRole('button', { name: 'Annuler (2)' })).toBeInTheDocument();
  });

  it('asks for the reason, then cancels the selection with it and says how many', async () => {
    const api = mockApi({
      ...board([demande(), demande({ id: 12 })]),
      'PUT /api/admin/demande/intervention/delete': reply(200, { status: 'success', message: "Demande(s) d'intervention(s) annulée(s) avec succès", count: 2 }),
    });
    renderApp('/admin/demande/intervention/list', { loggedRoutes: requestsRoutes });
    const first = await screen.findByRole('article', { name: 'Demande 11' }, { timeout: 15_000 });
    await userEvent.click(within(first).getByRole('checkbox'));
    await userEvent.click(within(screen.getByRole('article', { name: 'Demande 12' })).getByRole('checkbox'));
    await userEvent.click(within(first).getByRole('button', { name: 'Annuler (2)' }));
    const dialog = await screen.findByRole('dialog', { name: "Annuler ces demandes d'interventions ?" });
    // The reason is always asked for: nothing leaves without it.
    await userEvent.click(within(dialog).getByRole('button', { name: 'Oui' }));
    expect(within(dialog).getByRole('alert')).toHaveTextContent('Veuillez renseignez les champs obligatoires');
    const motif = within(dialog).getByRole('textbox', { name: "Motif d'annulation" });
    expect(motif).toHaveAttribute('aria-invalid', 'true');
    expect(within(dialog).getByText("Le motif d'annulation est obligatoire")).toBeInTheDocument();
    expect(api.callsTo('PUT', '/api/admin/demande/intervention/delete')).toHaveLength(0);
    await userEvent.click(motif);
    await userEvent.paste('  Bacs retirés par la mairie  ');
    await userEvent.click(within(dialog).getByRole('button', { name: 'Oui' }));
    expect(await screen.findByText('2 demandes annulées')).toBeInTheDocument();
    expect(screen.getByText("Demande(s) d'intervention(s) annulée(s) avec succès")).toBeInTheDocument();
    expect(api.callsTo('PUT', '/api/admin/demande/intervention/delete')[0].body).toEqual({ demandesInterventions: [11, 12], motif: 'Bacs retirés par la mairie' });
  });

  it('asks for the planned day, then schedules', async () => {
    const shown = demande();
    const api = mockApi({
      ...board([shown]),
      'POST /api/admin/demande/intervention/programmer': reply(200, { status: 'success', message: "Demande(s) d'intervention(s) programmée(s) avec succès", count: 1 }),
    });
    renderApp('/admin/demande/intervention/list', { loggedRoutes: requestsRoutes });
    const card = await screen.findByRole('article', { name: 'Demande 11' }, { timeout: 15_000 });
    await userEvent.click(within(card).getByRole('button', { name: 'Programmer' }));
    const dialog = await screen.findByRole('dialog', { name: 'Programmer' });
    expect(dialog).toHaveTextContent('Site : Jardin des Capucins');
    await userEvent.click(within(dialog).getByRole('button', { name: 'Enregistrer' }));
    expect(within(dialog).getByRole('alert')).toHaveTextContent('Veuillez renseignez les champs obligatoires');
    expect(api.callsTo('POST', '/api/admin/demande/intervention/programmer')).toHaveLength(0);
    const parts = new Intl.DateTimeFormat('fr-FR', { timeZone: 'Europe/Paris', day: '2-digit', month: '2-digit', year: 'numeric' }).format(new Date(Date.now() + DAY_MS));
    await userEvent.type(within(dialog).getByLabelText(/Date prévue de réalisation/), parts);
    await userEvent.click(within(dialog).getByText(/^A faire/));
    await userEvent.click(within(dialog).getByRole('button', { name: 'Enregistrer' }));
    expect(await screen.findByText("Demande(s) d'intervention(s) programmée(s) avec succès")).toBeInTheDocument();
    expect(screen.getByText('1 demande programmée')).toBeInTheDocument();
    const [d, m, y] = parts.split('/');
    expect(api.callsTo('POST', '/api/admin/demande/intervention/programmer')[0].body).toEqual({
      values: [{ demandeIntervention: 11, date: `${y}-${m}-${d}`, dateEcheance: shown.dateEcheance, actionProgrammee: 14 }],
    });
  });

  it("says 'Signalement public' on a card raised from a visitor's report, never an empty 'Intervenant :'", async () => {
    const fromReport = demande({ id: 12, referent: null, agent: null, idAction: null, actionDeclenchante: null, value: '', idInterventionDeclenchante: null, dateDeclenchement: null, nbSignalements: 0 });
    mockApi(board([demande(), fromReport]));
    renderApp('/admin/demande/intervention/list', { loggedRoutes: requestsRoutes });
    const card = await screen.findByRole('article', { name: 'Demande 12' }, { timeout: 15_000 });
    expect(card).toHaveTextContent('Signalement public');
    expect(card).not.toHaveTextContent('Intervenant');
    expect(screen.getByRole('article', { name: 'Demande 11' })).toHaveTextContent('Intervenant : MARTIN Jeanne');
  });

  it('closes only the calendar on Escape, and opens it above its field, off the buttons', async () => {
    mockApi(board([demande()]));
    renderApp('/admin/demande/intervention/list', { loggedRoutes: requestsRoutes });
    const card = await screen.findByRole('article', { name: 'Demande 11' }, { timeout: 15_000 });
    await userEvent.click(within(card).getByRole('button', { name: 'Programmer' }));
    const dialog = await screen.findByRole('dialog', { name: 'Programmer' });
    await userEvent.click(within(dialog).getByLabelText(/Date prévue de réalisation/));
    const calendar = await waitFor(() => {
      const open = document.querySelector<HTMLElement>('[data-dates-dropdown]');
      expect(open).not.toBeNull();
      return open!;
    });
    expect(calendar.closest('[data-position]')?.getAttribute('data-position') ?? calendar.getAttribute('data-position')).toBe('top');
    await userEvent.keyboard('{Escape}');
    await waitFor(() => expect(document.querySelector('[data-dates-dropdown]')).toBeNull());
    expect(screen.getByRole('dialog', { name: 'Programmer' })).toBeInTheDocument();
  });

  it('shows how late an overdue request is, and offers today to today plus its delay', async () => {
    const due = new Date(Date.now() - 4 * DAY_MS);
    const overdue = demande({ dateEcheance: due.toISOString(), delaiJours: 5 });
    const api = mockApi({
      ...board([overdue]),
      'POST /api/admin/demande/intervention/programmer': reply(200, { status: 'success', message: "Demande(s) d'intervention(s) programmée(s) avec succès", count: 1 }),
    });
    renderApp('/admin/demande/intervention/list', { loggedRoutes: requestsRoutes });
    const card = await screen.findByRole('article', { name: 'Demande 11' }, { timeout: 15_000 });
    const late = Math.round((Date.parse(isoDay(frDay(new Date()))) - Date.parse(isoDay(frDay(due)))) / DAY_MS);
    expect(card).toHaveTextContent(`Échéance dépassée de ${late} jours`);
    await userEvent.click(within(card).getByRole('button', { name: 'Programmer' }));
    const dialog = await screen.findByRole('dialog', { name: 'Programmer' });
    expect(dialog).toHaveTextContent(`Échéance dépassée de ${late} jours`);
    const input = within(dialog).getByLabelText(/Date prévue de réalisation/);
    await userEvent.type(input, frDay(new Date(Date.now() + 6 * DAY_MS)));
    await userEvent.click(within(dialog).getByText(/^A faire/));
    await userEvent.click(within(dialog).getByRole('button', { name: 'Enregistrer' }));
    expect(within(dialog).getByRole('alert')).toHaveTextContent('Veuillez renseignez les champs obligatoires');
    expect(api.callsTo('POST', '/api/admin/demande/intervention/programmer')).toHaveLength(0);
    const last = frDay(new Date(Date.now() + 5 * DAY_MS));
    await userEvent.clear(input);
    await userEvent.type(input, last);
    await userEvent.click(within(dialog).getByText(/^A faire/));
    await userEvent.click(within(dialog).getByRole('button', { name: 'Enregistrer' }));
    expect(await screen.findByText("Demande(s) d'intervention(s) programmée(s) avec succès")).toBeInTheDocument();
    expect(api.callsTo('POST', '/api/admin/demande/intervention/programmer')[0].body).toEqual({
      values: [{ demandeIntervention: 11, date: isoDay(last), dateEcheance: overdue.dateEcheance, actionProgrammee: 14 }],
    });
  });

  it("shows the server's refusal when the request changed meanwhile", async () => {
    mockApi({
      ...board([demande()]),
      'POST /api/admin/demande/intervention/programmer': reply(409, { status: 'error', message: 'La demande a changé, rechargez la page.' }),
    });
    renderApp('/admin/demande/intervention/list', { loggedRoutes: requestsRoutes });
    const card = await screen.findByRole('article', { name: 'Demande 11' }, { timeout: 15_000 });
    await userEvent.click(within(card).getByRole('button', { name: 'Programmer' }));
    const dialog = await screen.findByRole('dialog', { name: 'Programmer' });
    await userEvent.type(within(dialog).getByLabelText(/Date prévue de réalisation/), frDay(new Date()));
    await userEvent.click(within(dialog).getByText(/^A faire/));
    await userEvent.click(within(dialog).getByRole('button', { name: 'Enregistrer' }));
    expect(await within(dialog).findByRole('alert')).toHaveTextContent('La demande a changé, rechargez la page.');
  });

  it('says on the card how many entries called for the request and the latest value', async () => {
    const latest = { id: 950, date: '2026-03-08T09:00:00Z', intervenant: 'VERT Paul', idAction: 16, typeAction: "Niveau d'apport", valeur: 'Plein', observations: null, photos: [] };
    mockApi(board([demande({ idAction: 16, actionDeclenchante: "Niveau d'apport", value: '3/4', idActionProgrammee: 3, actionProgrammee: 'Transfert', nbSignalements: 3, dernierSignalement: latest })]));
    renderApp('/admin/demande/intervention/list', { loggedRoutes: requestsRoutes });
    const card = await screen.findByRole('article', { name: 'Demande 11' }, { timeout: 15_000 });
    expect(card).toHaveTextContent("Niveau d'apport : 3/4 (cellule n°1)");
    expect(card).toHaveTextContent('Signalée 3 fois, dernière fois le 08/03/2026 : Plein');
  });

  it('shows the photos of the entries that called for a request as thumbnails that open full screen', async () => {
    mockApi(board([demande({ photos: [{ id: 31 }, { id: 32 }] }), demande({ id: 12, idBac: 42, numero: 2 })]));
    renderApp('/admin/demande/intervention/list', { loggedRoutes: requestsRoutes });
    const card = await screen.findByRole('article', { name: 'Demande 11' }, { timeout: 15_000 });
    const strip = within(card).getByRole('list', { name: 'Photos : Réparation à effectuer, cellule n°1, Jardin des Capucins' });
    expect(within(strip).getAllByRole('img').map((i) => [i.getAttribute('src'), i.getAttribute('alt')])).toEqual([
      ['/api/admin/photo/31?taille=miniature', 'Photo 1 sur 2 : Réparation à effectuer, cellule n°1, Jardin des Capucins'],
      ['/api/admin/photo/32?taille=miniature', 'Photo 2 sur 2 : Réparation à effectuer, cellule n°1, Jardin des Capucins'],
    ]);
    // A card without photos has no strip.
    expect(within(screen.getByRole('article', { name: 'Demande 12' })).queryByRole('list')).toBeNull();

    await userEvent.click(within(card).getByRole('button', { name: 'Agrandir la photo 2 sur 2' }));
    const viewer = await screen.findByRole('dialog', { name: 'Photo 2 sur 2' });
    expect(within(viewer).getByRole('img')).toHaveAttribute('src', '/api/admin/photo/32?taille=complete');
    await userEvent.click(within(viewer).getByRole('button', { name: 'Photo suivante' }));
    expect(await screen.findByRole('dialog', { name: 'Photo 1 sur 2' })).toBeInTheDocument();
  });

  it('names the photos after the work to do when the triggering entry was deleted', () => {
    expect(photosSubject(demande({ actionDeclenchante: null, idAction: null }))).toBe('Réparation effectuée, cellule n°1, Jardin des Capucins');
  });

  it('stamps the board with the time it was received when the server cannot be reached', async () => {
    mockApi(board([demande()]));
    renderApp('/admin/demande/intervention/list', { loggedRoutes: requestsRoutes });
    await screen.findByRole('article', { name: 'Demande 11' }, { timeout: 15_000 });
    expect(screen.queryByText(/^Données du /)).not.toBeInTheDocument();
    act(() => useConnectivityStore.setState({ serverUnreachable: true }));
    expect(await screen.findByText(/^Données du \d{2}\/\d{2} à \d{2}:\d{2}$/)).toBeInTheDocument();
  });

  it("gives ROLE_ADMIN a 'Signalements' tab with the public reports, and providers the board alone", async () => {
    const api = mockApi({
      ...board([]),
      'GET /api/logged': loggedAs(['ROLE_ADMIN']),
      'GET /api/admin/signalement/get/list': reply(200, { count: 0, signalements: [] }),
    });
    renderApp('/admin/demande/intervention/list', { loggedRoutes: requestsRoutes });
    await userEvent.click(await screen.findByRole('tab', { name: 'Signalements' }, { timeout: 15_000 }));
    // The panel is a lazy chunk of its own (with its bulk actions): its first load may take seconds.
    expect(await screen.findByText('Aucun nouveau signalement', {}, { timeout: 15_000 })).toBeInTheDocument();
    expect(api.callsTo('GET', '/api/admin/signalement/get/list')).toHaveLength(1);
    cleanup();

    mockApi(board([]));
    renderApp('/admin/demande/intervention/list', { loggedRoutes: requestsRoutes });
    expect(await screen.findByText('Aucune demande en attente', {}, { timeout: 15_000 })).toBeInTheDocument();
    expect(screen.queryByRole('tab', { name: 'Signalements' })).toBeNull();
  });

  it('is refused to roles other than providers and ROLE_ADMIN', async () => {
    mockApi({ ...board([]), 'GET /api/logged': loggedAs(['ROLE_USER']) });
    renderApp('/admin/demande/intervention/list', { loggedRoutes: requestsRoutes });
    expect(await screen.findByText('Accès non authorisé.')).toBeInTheDocument();
  });
});

describe('the board on a phone', () => {
  behaveLikeABrowserForTables({ alsoMatching: [PHONE_QUERY] });

  it("offers the history, as cards, to a provider on a phone", async () => {
    const row = { ...demande({ idStatut: 4, statut: 'Programmée' }), dateCreation: '2026-03-01T09:00:00Z', dateAnnulation: null, annuleePar: null, interventionDeclenchante: null, interventionRealisee: null };
    mockApi({
      ...board([demande()]),
      'GET /api/admin/demande/intervention/get/all/by/filters': reply(200, { count: 1, demandesInterventions: [row] }),
      'GET /api/admin/statut/get/all/demandes/interventions': reply(200, [{ id: 4, libelle: 'Programmée' }]),
    });
    renderApp('/admin/demande/intervention/list', { loggedRoutes: requestsRoutes });
    await screen.findByRole('article', { name: 'Demande 11' }, { timeout: 15_000 });
    await userEvent.click(screen.getByRole('button', { name: "Voir l'historique" }));
    const dialog = await screen.findByRole('dialog', { name: "Historique des demandes d'interventions" });
    const card = await within(dialog).findByRole('article', { name: 'Demande 11' });
    expect(within(card).getByText('Programmée')).toBeInTheDocument();
    expect(card).toHaveTextContent('Site : Jardin des Capucins');
    expect(within(dialog).queryByRole('table')).toBeNull();
  });

  it('keeps the whole labels of the selection buttons and of the status badge, wrapping the buttons instead of shrinking them', async () => {
    mockApi(board([demande(), demande({ id: 12 })]));
    renderApp('/admin/demande/intervention/list', { loggedRoutes: requestsRoutes });
    const first = await screen.findByRole('article', { name: 'Demande 11' }, { timeout: 15_000 });
    await userEvent.click(within(first).getByRole('checkbox'));
    await userEvent.click(within(screen.getByRole('article', { name: 'Demande 12' })).getByRole('checkbox'));
    for (const name of ['Programmer (2)', 'Annuler (2)', 'Traiter (2)']) {
      const button = within(first).getByRole('button', { name });
      expect(button).toHaveTextContent(name);
      // Grows to share the line, never shrinks below its label: a line too narrow wraps it
      // (measured at 390 px in tests/e2e/desk-interventions.spec.ts).
      expect(button.style.flex).toBe('1 0 auto');
      expect(button.parentElement!.style.getPropertyValue('--group-wrap')).toBe('wrap');
    }
    const badge = within(first).getByText('En attente').closest('.mantine-Badge-root') as HTMLElement;
    expect(badge.style.flex).toBe('0 0 auto');
  });
});
