import { act, cleanup, fireEvent, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { useLocation } from 'react-router';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { loggedAs, mockApi, renderApp, reply, type MockHandler } from '../../../../tests/helpers/web-app';
import { expectScreenRefused } from '../../../../tests/helpers/web-screens';
import type { Etape, Tournee } from '../../../shared/schemas/map';
import { useConnectivityStore } from '../../offline/connectivity';
import { mapRoutes } from './map.routes';
import { mapKeys } from './map.api';
import { isPersistedQuery, isPersonalFieldQuery } from '../../offline/query-persist-keys';

afterEach(() => {
  cleanup();
  vi.unstubAllGlobals();
  useConnectivityStore.setState({ browserOnline: true, serverUnreachable: false });
});

/** Today in Paris, as YYYY-MM-DD (the page's default day). */
const TODAY = new Intl.DateTimeFormat('fr-FR', { timeZone: 'Europe/Paris', day: '2-digit', month: '2-digit', year: 'numeric' }).format(new Date()).split('/').reverse().join('-');

// Three stops due north of the start point (one meridian: 0.01° of latitude is 1.112 km), so the
// distances are computed by hand: start 48.40 → 48.41 (1.1 km) → 48.43 (2.2 km) → 48.44 (1.1 km),
// 4.4 km in all. Moved by hand to 48.41 → 48.44 → 48.43: 1.1, 3.3 and 1.1 km, 5.6 km in all
// (0.05° = 5.560 km).
const stop = (over: Partial<Etape>): Etape => ({
  ordre: 1,
  idDemande: 1,
  idSite: 5,
  site: 'Site',
  adresse: '1 rue de Siam, Brest',
  action: 'Retournement',
  cellule: 'Bac de compostage 1',
  dateEcheance: '2026-05-12T10:00:00.000Z',
  latitude: 48.41,
  longitude: -4.49,
  distanceKm: 0,
  ...over,
});
const A = stop({ idDemande: 11, idSite: 5, site: 'Jardin des Capucins', adresse: '2 rue de Siam, Brest', action: 'Retournement', cellule: 'Bac de compostage 2', latitude: 48.41, distanceKm: 1.1 });
const B = stop({ idDemande: 12, idSite: 6, site: 'Quartier Nord', adresse: '1 rue Jean Jaurès, Brest', action: 'Vidage', cellule: 'Bac de maturation 4', dateEcheance: '2026-05-14T10:00:00.000Z', latitude: 48.43, distanceKm: 2.2 });
const C = stop({ idDemande: 13, idSite: 7, site: 'Square Wilson', adresse: '3 place Wilson, Brest', action: 'Apport de broyat', cellule: 'Bac de broyat 3', latitude: 48.44, distanceKm: 1.1 });

const TOURNEE: Tournee = {
  date: TODAY,
  depart: { latitude: 48.4, longitude: -4.49, source: 'enregistre' },
  etapes: [
    { ...A, ordre: 1 },
    { ...B, ordre: 2 },
    { ...C, ordre: 3 },
  ],
  sansPosition: [{ idDemande: 14, idSite: 8, site: 'Résidence Kerbernard', adresse: '4 rue de Kerbernard, Brest', action: 'Vidage', cellule: 'Bac de compostage 1', dateEcheance: '2026-05-13T10:00:00.000Z' }],
  distanceTotaleKm: 4.4,
  ordreManuel: false,
};
/** What the server answers once the order A, C, B is saved. */
const MOVED: Tournee = {
  ...TOURNEE,
  etapes: [
    { ...A, ordre: 1, distanceKm: 1.1 },
    { ...C, ordre: 2, distanceKm: 3.3 },
    { ...B, ordre: 3, distanceKm: 1.1 },
  ],
  distanceTotaleKm: 5.6,
  ordreManuel: true,
};

const PENDING_A = {
  id: 11,
  idStatut: 2,
  statut: 'Programmée',
  dateEcheance: '2026-05-12T10:00:00.000Z',
  idAction: 16,
  actionDeclenchante: "Niveau d'apport",
  value: 'Plein',
  idActionProgrammee: 14,
  actionProgrammee: 'Retournement',
  idSite: 5,
  site: 'Jardin des Capucins',
  idBac: 41,
  numero: 2,
  destinationIdBac: null,
  nbSignalements: 1,
  dernierSignalement: null,
  photos: [],
};

function api(extra: Record<string, MockHandler> = {}, tournee: Tournee = TOURNEE) {
  return mockApi({
    'GET /api/logged': loggedAs(['ROLE_PRESTATAIRE']),
    'GET /api/admin/tournee': reply(200, tournee),
    'GET /api/admin/demande/intervention/get/list': (call) =>
      reply(200, call.path.includes('filter%5Bsite%5D=5') ? { count: 1, demandesInterventions: [PENDING_A] } : { count: 0, demandesInterventions: [] }),
    ...extra,
  });
}

/** The site sheet, standing in: shows the navigation state it was opened with. */
function SheetStandIn() {
  const location = useLocation();
  return <pre data-testid="sheet-state">{`${location.pathname} ${JSON.stringify(location.state)}`}</pre>;
}
const routes = [...mapRoutes, { path: '/admin/fiche/site/:id', Component: SheetStandIn }];

const stops = () => screen.getAllByTestId('tournee-etape');
/** Text as read (the unit stays on its number's line with a no-break space). */
const read = (el: HTMLElement) => (el.textContent ?? '').replace(/\u00a0/g, ' ');
const distances = () => stops().map((s) => read(within(s).getByTestId('distance')));
const total = () => read(screen.getByTestId('distance-totale'));

describe('the day’s route', () => {
  it('shows today’s stops in order with the request, each distance and the total, and the requests of unplaced sites apart', async () => {
    const calls = api();
    renderApp('/admin/tournee', { loggedRoutes: routes });
    expect(await screen.findByRole('heading', { level: 1, name: 'Tournée du jour' }, { timeout: 15_000 })).toBeInTheDocument();
    await screen.findAllByTestId('tournee-etape');
    expect(calls.callsTo('GET', '/api/admin/tournee')[0].path).toBe(`/api/admin/tournee?date=${TODAY}`);
    expect(screen.getByLabelText('Jour')).toHaveValue(TODAY);

    expect(stops().map((s) => s.getAttribute('aria-label'))).toEqual(['Étape 1 : Jardin des Capucins', 'Étape 2 : Quartier Nord', 'Étape 3 : Square Wilson']);
    expect(stops()[1]).toHaveTextContent('1 rue Jean Jaurès, Brest');
    expect(stops()[1]).toHaveTextContent('Vidage : Bac de maturation 4');
    expect(stops()[1]).toHaveTextContent('Échéance : 14/05/2026');
    expect(distances()).toEqual(['1,1 km depuis le départ', '2,2 km depuis l’étape précédente', '1,1 km depuis l’étape précédente']);
    expect(total()).toBe('Distance totale : 4,4 km');

    const apart = screen.getByRole('region', { name: 'Sans position' });
    const kerbernard = within(apart).getByRole('article', { name: 'Résidence Kerbernard (sans position)' });
    expect(kerbernard).toHaveTextContent('Vidage : Bac de compostage 1');
    expect(within(kerbernard).getByRole('button', { name: 'Traiter' })).toBeInTheDocument();
    expect(within(kerbernard).queryByRole('link', { name: 'Itinéraire' })).not.toBeInTheDocument();
  });

  it('links each stop to OpenStreetMap’s directions from the stop before and to the phone’s navigation app', async () => {
    api();
    renderApp('/admin/tournee', { loggedRoutes: routes });
    await screen.findAllByTestId('tournee-etape', {}, { timeout: 15_000 });
    const [first, second] = stops();
    expect(within(first).getByRole('link', { name: 'Itinéraire' })).toHaveAttribute('href', 'https://www.openstreetmap.org/directions?route=48.4%2C-4.49%3B48.41%2C-4.49');
    expect(within(second).getByRole('link', { name: 'Itinéraire' })).toHaveAttribute('href', 'https://www.openstreetmap.org/directions?route=48.41%2C-4.49%3B48.43%2C-4.49');
    expect(within(second).getByRole('link', { name: 'Ouvrir dans le GPS' })).toHaveAttribute('href', 'geo:48.43,-4.49');
  });

  it('moves a stop by hand: the new order and distances show at once and the order is saved for the day', async () => {
    let release: () => void = () => {};
    const saved = new Promise<void>((resolve) => (release = resolve));
    let moved = false;
    const calls = api({
      'GET /api/admin/tournee': () => reply(200, moved ? MOVED : TOURNEE),
      'PUT /api/admin/tournee/ordre': async () => {
        await saved;
        moved = true;
        return reply(200, { status: 'success', message: 'Ordre de la tournée enregistré' });
      },
    });
    renderApp('/admin/tournee', { loggedRoutes: routes });
    await screen.findAllByTestId('tournee-etape', {}, { timeout: 15_000 });
    expect(screen.getByRole('button', { name: 'Monter l’étape 1 (Jardin des Capucins)' })).toBeDisabled();
    expect(screen.getByRole('button', { name: 'Descendre l’étape 3 (Square Wilson)' })).toBeDisabled();

    const up = screen.getByRole('button', { name: 'Monter l’étape 3 (Square Wilson)' });
    up.focus();
    await userEvent.keyboard('{Enter}');

    // Before the server has answered.
    await waitFor(() => expect(stops().map((s) => s.getAttribute('aria-label'))).toEqual(['Étape 1 : Jardin des Capucins', 'Étape 2 : Square Wilson', 'Étape 3 : Quartier Nord']));
    expect(distances()).toEqual(['1,1 km depuis le départ', '3,3 km depuis l’étape précédente', '1,1 km depuis l’étape précédente']);
    expect(total()).toBe('Distance totale : 5,6 km');
    expect(calls.callsTo('PUT', '/api/admin/tournee/ordre').map((c) => c.body)).toEqual([{ date: TODAY, demandes: [11, 13, 12] }]);
    // The keyboard stays on the stop that moved.
    expect(screen.getByRole('button', { name: 'Monter l’étape 2 (Square Wilson)' })).toHaveFocus();

    await act(async () => release());
    expect(await screen.findByText('Ordre de la tournée enregistré')).toBeInTheDocument();
    await waitFor(() => expect(calls.callsTo('GET', '/api/admin/tournee').length).toBeGreaterThan(1));
    expect(total()).toBe('Distance totale : 5,6 km');
  });

  it('goes back to the computed order of a route ordered by hand', async () => {
    const calls = api({
      'GET /api/admin/tournee': () => reply(200, calls.callsTo('PUT', '/api/admin/tournee/ordre').length > 0 ? TOURNEE : MOVED),
      'PUT /api/admin/tournee/ordre': reply(200, { status: 'success', message: 'Ordre calculé rétabli' }),
    });
    renderApp('/admin/tournee', { loggedRoutes: routes });
    await userEvent.click(await screen.findByRole('button', { name: 'Revenir à l’ordre calculé' }, { timeout: 15_000 }));
    await waitFor(() => expect(total()).toBe('Distance totale : 4,4 km'));
    expect(calls.callsTo('PUT', '/api/admin/tournee/ordre').map((c) => c.body)).toEqual([{ date: TODAY, demandes: [] }]);
    expect(stops()[1]).toHaveAttribute('aria-label', 'Étape 2 : Quartier Nord');
    expect(screen.queryByRole('button', { name: 'Revenir à l’ordre calculé' })).not.toBeInTheDocument();
  });

  it('puts the stops back and says so when the order cannot be saved', async () => {
    const calls = api({ 'PUT /api/admin/tournee/ordre': reply(409, { status: 'error', message: 'L’ordre doit reprendre exactement les demandes programmées ce jour-là, chacune une fois. Rechargez la tournée.' }) });
    renderApp('/admin/tournee', { loggedRoutes: routes });
    await screen.findAllByTestId('tournee-etape', {}, { timeout: 15_000 });
    await userEvent.click(screen.getByRole('button', { name: 'Descendre l’étape 1 (Jardin des Capucins)' }));
    expect(await screen.findByText(/Rechargez la tournée/)).toBeInTheDocument();
    expect(calls.callsTo('PUT', '/api/admin/tournee/ordre')[0].body).toEqual({ date: TODAY, demandes: [12, 11, 13] });
    await waitFor(() => expect(stops()[0]).toHaveAttribute('aria-label', 'Étape 1 : Jardin des Capucins'));
    expect(total()).toBe('Distance totale : 4,4 km');
  });

  it('processes a stop as the board does: the site sheet opens with the request prefilled', async () => {
    api();
    renderApp('/admin/tournee', { loggedRoutes: routes });
    await screen.findAllByTestId('tournee-etape', {}, { timeout: 15_000 });
    await userEvent.click(within(stops()[0]).getByRole('button', { name: 'Traiter' }));
    // Destination cell if any, else the cell (41); the scheduled action (14); no value after a trigger other than 18.
    expect(await screen.findByTestId('sheet-state')).toHaveTextContent('/admin/fiche/site/5 {"demandes":[{"demandeIntervention":11,"composteur":41,"action":14,"valeur":null}]}');
  });

  it('says so when a stop’s request is no longer to do', async () => {
    api();
    renderApp('/admin/tournee', { loggedRoutes: routes });
    await screen.findAllByTestId('tournee-etape', {}, { timeout: 15_000 });
    await userEvent.click(within(stops()[1]).getByRole('button', { name: 'Traiter' }));
    expect(await screen.findByText('Cette demande n’est plus à faire : rechargez la tournée.')).toBeInTheDocument();
    expect(screen.queryByTestId('sheet-state')).not.toBeInTheDocument();
  });

  it('sets the start point from a typed "lat,lon" or the phone’s position, refuses anything else, and clears it', async () => {
    const calls = api({ 'PUT /api/admin/tournee/depart': reply(200, { status: 'success', message: 'Point de départ enregistré' }) });
    // The environment's navigator, with a position given at once (its own geolocation is a getter).
    vi.stubGlobal('navigator', Object.create(navigator, {
      geolocation: { value: { getCurrentPosition: (ok: PositionCallback) => ok({ coords: { latitude: 48.3912345, longitude: -4.4854321 } } as GeolocationPosition) } },
    }) as Navigator);
    renderApp('/admin/tournee', { loggedRoutes: routes });
    const field = await screen.findByRole('textbox', { name: /Point de départ/ }, { timeout: 15_000 });
    expect(field).toHaveValue('48.4,-4.49');

    await userEvent.clear(field);
    await userEvent.type(field, '48.39 -4.49');
    await userEvent.click(screen.getByRole('button', { name: 'Enregistrer le départ' }));
    expect(await screen.findByText('Point de départ invalide : latitude,longitude en degrés décimaux (ex. 48.39,-4.49)')).toBeInTheDocument();
    expect(calls.callsTo('PUT', '/api/admin/tournee/depart')).toHaveLength(0);

    await userEvent.click(screen.getByRole('button', { name: 'Ma position' }));
    expect(field).toHaveValue('48.39123,-4.48543');
    await userEvent.click(screen.getByRole('button', { name: 'Enregistrer le départ' }));
    await waitFor(() => expect(calls.callsTo('PUT', '/api/admin/tournee/depart').map((c) => c.body)).toEqual([{ depart: { latitude: 48.39123, longitude: -4.48543 } }]));
    await waitFor(() => expect(calls.callsTo('GET', '/api/admin/tournee').length).toBeGreaterThan(1));

    await userEvent.click(screen.getByRole('button', { name: 'Effacer le départ' }));
    await waitFor(() => expect(calls.callsTo('PUT', '/api/admin/tournee/depart').map((c) => c.body)).toContainEqual({ depart: null }));
  });

  it('prints the route alone: an "Imprimer" button and a print stylesheet without the shell and the buttons', async () => {
    api();
    const print = vi.fn();
    vi.stubGlobal('print', print);
    renderApp('/admin/tournee', { loggedRoutes: routes });
    await screen.findAllByTestId('tournee-etape', {}, { timeout: 15_000 });
    await userEvent.click(screen.getByRole('button', { name: 'Imprimer' }));
    expect(print).toHaveBeenCalledTimes(1);
    const css = [...document.querySelectorAll('style')].map((s) => s.textContent ?? '').find((t) => t.includes('@media print')) ?? '';
    expect(css).toMatch(/\.mantine-AppShell-header, \.mantine-AppShell-navbar[^{]*\.tournee-no-print \{ display: none !important; \}/);
    // Every button of a stop sits in what the print hides.
    for (const button of within(stops()[0]).getAllByRole('button')) expect(button.closest('.tournee-no-print')).not.toBeNull();
  });

  it('shows the route it has with a notice when the network is gone, and keeps the order as it is', async () => {
    api();
    renderApp('/admin/tournee', { loggedRoutes: routes });
    await screen.findAllByTestId('tournee-etape', {}, { timeout: 15_000 });
    act(() => useConnectivityStore.setState({ browserOnline: false }));
    expect(await screen.findByText(/Vous lisez la tournée gardée sur ce téléphone/)).toBeInTheDocument();
    expect(screen.getByText(/^Données du \d\d\/\d\d à \d\d:\d\d$/)).toBeInTheDocument();
    expect(screen.getByRole('button', { name: 'Descendre l’étape 1 (Jardin des Capucins)' })).toBeDisabled();
    expect(within(stops()[0]).getByRole('button', { name: 'Traiter' })).toBeEnabled();
  });

  it('says when nothing is planned that day, and asks the day picked', async () => {
    const calls = api({}, { ...TOURNEE, depart: null, etapes: [], sansPosition: [], distanceTotaleKm: 0 });
    renderApp('/admin/tournee', { loggedRoutes: routes });
    expect(await screen.findByText('Aucune demande programmée ce jour-là', {}, { timeout: 15_000 })).toBeInTheDocument();
    const day = screen.getByLabelText('Jour');
    fireEvent.change(day, { target: { value: '2026-06-02' } });
    await waitFor(() => expect(calls.callsTo('GET', '/api/admin/tournee').map((c) => c.path)).toContain('/api/admin/tournee?date=2026-06-02'));
  });

  it('is kept on the phone with the board (readable offline after one visit), as the person’s own data', () => {
    expect(isPersistedQuery(mapKeys.tournee(TODAY))).toBe(true);
    expect(isPersonalFieldQuery(mapKeys.tournee(TODAY))).toBe(true);
  });

  it('is refused to a site manager', async () => {
    await expectScreenRefused(['ROLE_ADMIN_SITE'], '/admin/tournee', mapRoutes, { timeout: 15_000 });
  });
});
