import { cleanup, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { loggedAs, mockApi, renderApp, reply } from '../../../../tests/helpers/web-app';
import { expectScreenRefused } from '../../../../tests/helpers/web-screens';
import type { Carte, CarteSite } from '../../../shared/schemas/map';
import { mapRoutes } from './map.routes';

// Leaflet sizes the map from its container, which the test DOM lays out at 0 × 0: give the map a
// desktop's 800 × 600 so that it picks a real zoom for the sites.
const size = { width: Object.getOwnPropertyDescriptor(HTMLElement.prototype, 'clientWidth'), height: Object.getOwnPropertyDescriptor(HTMLElement.prototype, 'clientHeight') };
beforeAll(() => {
  const sized = (n: number, fallback?: PropertyDescriptor) => ({
    configurable: true,
    get(this: HTMLElement) {
      return this.classList.contains('leaflet-container') ? n : (fallback?.get?.call(this) ?? 0);
    },
  });
  Object.defineProperty(HTMLElement.prototype, 'clientWidth', sized(800, size.width));
  Object.defineProperty(HTMLElement.prototype, 'clientHeight', sized(600, size.height));
});
afterAll(() => {
  if (size.width) Object.defineProperty(HTMLElement.prototype, 'clientWidth', size.width);
  if (size.height) Object.defineProperty(HTMLElement.prototype, 'clientHeight', size.height);
});
afterEach(() => {
  cleanup();
  vi.unstubAllGlobals();
});

const site = (over: Partial<CarteSite>): CarteSite => ({
  id: 1,
  code: 'QUA001',
  nom: 'Site',
  adresse: '1 rue de Siam',
  ville: 'Brest',
  latitude: 48.39,
  longitude: -4.49,
  alertes: 0,
  demandesEnAttente: 0,
  ...over,
});

// Three sites a few kilometres apart in Brest, and one not placed yet.
const SITES: CarteSite[] = [
  site({ id: 5, code: 'QUA005', nom: 'Jardin des Capucins', adresse: '2 rue de Siam', latitude: 48.3904, longitude: -4.4861, alertes: 2, demandesEnAttente: 1 }),
  site({ id: 6, code: 'QUA006', nom: 'Quartier Nord', adresse: '1 rue Jean Jaurès', latitude: 48.4203, longitude: -4.4702, demandesEnAttente: 3 }),
  site({ id: 7, code: 'QUA007', nom: 'Square Wilson', adresse: '3 place Wilson', latitude: 48.3805, longitude: -4.5201 }),
  site({ id: 8, code: 'QUA008', nom: 'Résidence Kerbernard', adresse: '4 rue de Kerbernard', latitude: null, longitude: null }),
];

const CARTE: Carte = { sites: SITES, tuiles: { url: 'https://tuiles.invalid/{z}/{x}/{y}.png', attribution: '© Contributeurs OpenStreetMap' } };

const PENDING = {
  count: 1,
  demandesInterventions: [
    {
      id: 11,
      idStatut: 2,
      statut: 'Programmée',
      dateEcheance: '2026-05-12T10:00:00.000Z',
      actionProgrammee: 'Retournement',
      numero: 2,
      idSite: 5,
      site: 'Jardin des Capucins',
    },
  ],
};

function api(roles: string[], carte: unknown = CARTE) {
  return mockApi({
    'GET /api/logged': loggedAs(roles),
    'GET /api/admin/site/get/carte': reply(200, carte),
    'GET /api/admin/demande/intervention/get/list': reply(200, PENDING),
  });
}

/** The entry of a site in the list of the placed ones. */
const entryOf = async (name: string) => within(await screen.findByRole('region', { name: /^Sites sur la carte/ }, { timeout: 15_000 })).getByRole('button', { name: new RegExp(`^${name} `) });

const markers = () => [...document.querySelectorAll<HTMLElement>('.leaflet-marker-icon')];

describe('the map of the sites', () => {
  it('draws a marker per placed site with its state in shape and words, and lists every site, the unplaced under "Sans position"', async () => {
    api(['ROLE_ADMIN']);
    renderApp('/admin/carte', { loggedRoutes: mapRoutes });
    expect(await screen.findByRole('heading', { level: 1, name: 'Carte des sites' }, { timeout: 15_000 })).toBeInTheDocument();

    // One marker each for the three placed sites (they are kilometres apart at the zoom shown).
    await waitFor(() => expect(markers()).toHaveLength(3));
    const state = (name: string) => screen.getByRole('button', { name: new RegExp(`^${name} : `) }).querySelector('[data-state]')?.getAttribute('data-state');
    expect(state('Jardin des Capucins')).toBe('alerte');
    expect(state('Quartier Nord')).toBe('demandes');
    expect(state('Square Wilson')).toBe('calme');
    expect(screen.getByRole('button', { name: 'Jardin des Capucins : 2 alertes, 1 demande en attente' })).toHaveAttribute('tabindex', '0');
    expect(screen.getByRole('button', { name: 'Square Wilson : Rien en attente' })).toBeInTheDocument();

    const placed = screen.getByRole('region', { name: 'Sites sur la carte (3)' });
    expect(within(placed).getAllByRole('listitem').map((li) => li.querySelector('p')?.textContent)).toEqual(['Jardin des Capucins', 'Quartier Nord', 'Square Wilson']);
    const unplaced = screen.getByRole('region', { name: 'Sans position' });
    expect(within(unplaced).getByRole('button', { name: /Résidence Kerbernard/ })).toHaveTextContent('4 rue de Kerbernard, Brest');
    expect(within(unplaced).getByRole('button', { name: /Résidence Kerbernard/ })).toHaveTextContent('Rien en attente');
    // The tiles come from the server's answer.
    expect(document.querySelector('.leaflet-tile-pane img')?.getAttribute('src')).toMatch(/^https:\/\/tuiles\.invalid\/\d+\/\d+\/\d+\.png$/);
    expect(screen.getByText(/Contributeurs OpenStreetMap/)).toBeInTheDocument();
  });

  it('opens the card of a site chosen in the list with the keyboard: address, alerts, its pending requests, its sheet and the board', async () => {
    const calls = api(['ROLE_PRESTATAIRE']);
    renderApp('/admin/carte', { loggedRoutes: mapRoutes });
    const entry = await entryOf('Jardin des Capucins');
    entry.focus();
    await userEvent.keyboard('{Enter}');

    const card = await screen.findByRole('region', { name: 'Jardin des Capucins' });
    expect(within(card).getByRole('heading', { name: 'Jardin des Capucins' })).toHaveFocus();
    expect(card).toHaveTextContent('2 rue de Siam, Brest');
    expect(card).toHaveTextContent('Alertes ouvertes : 2');
    expect(await within(card).findByText('Retournement, cellule n°2 : échéance 12/05/2026 (Programmée)')).toBeInTheDocument();
    expect(calls.callsTo('GET', '/api/admin/demande/intervention/get/list')[0].path).toContain('filter%5Bsite%5D=5');
    expect(within(card).getByRole('link', { name: 'Fiche du site' })).toHaveAttribute('href', '/admin/fiche/site/5');
    expect(within(card).getByRole('link', { name: 'Tableau des demandes' })).toHaveAttribute('href', '/admin/demande/intervention/list?site=5');
    expect(entry).toHaveAttribute('aria-current', 'true');

    // Closing it gives the keyboard back to the list.
    await userEvent.click(within(card).getByRole('button', { name: 'Fermer la fiche du site' }));
    expect(screen.queryByRole('region', { name: 'Jardin des Capucins' })).not.toBeInTheDocument();
    expect(entry).toHaveFocus();
  });

  it('opens the card from a marker, and from an unplaced site in the list', async () => {
    api(['ROLE_ADMIN']);
    renderApp('/admin/carte', { loggedRoutes: mapRoutes });
    await userEvent.click(await screen.findByRole('button', { name: 'Quartier Nord : 3 demandes en attente' }, { timeout: 15_000 }));
    expect(await screen.findByRole('region', { name: 'Quartier Nord' })).toHaveTextContent('1 rue Jean Jaurès, Brest');

    await userEvent.click(within(screen.getByRole('region', { name: 'Sans position' })).getByRole('button', { name: /Résidence Kerbernard/ }));
    const card = await screen.findByRole('region', { name: 'Résidence Kerbernard' });
    expect(card).toHaveTextContent('Aucune demande en attente');
    expect(within(card).getByRole('link', { name: 'Fiche du site' })).toHaveAttribute('href', '/admin/fiche/site/8');
  });

  it('shows a site manager the counts without the board, which is not theirs', async () => {
    const calls = api(['ROLE_ADMIN_SITE']);
    renderApp('/admin/carte', { loggedRoutes: mapRoutes });
    await userEvent.click(await entryOf('Jardin des Capucins'));
    const card = await screen.findByRole('region', { name: 'Jardin des Capucins' });
    expect(card).toHaveTextContent('Demandes en attente : 1');
    expect(within(card).queryByRole('link', { name: 'Tableau des demandes' })).not.toBeInTheDocument();
    expect(calls.callsTo('GET', '/api/admin/demande/intervention/get/list')).toHaveLength(0);
  });

  it('groups sites that would overlap into one marker with their count, which zooms in when pressed', async () => {
    const close = [0, 1, 2].map((i) => site({ id: 20 + i, nom: `Jardin ${i}`, latitude: 48.39 + i * 0.0003, longitude: -4.49 }));
    const far = site({ id: 30, nom: 'Loin', latitude: 48.5, longitude: -4.2, alertes: 1 });
    api(['ROLE_ADMIN'], { ...CARTE, sites: [...close, far] });
    renderApp('/admin/carte', { loggedRoutes: mapRoutes });
    const group = await screen.findByRole('button', { name: '3 sites regroupés : zoomer sur ce groupe' }, { timeout: 15_000 });
    expect(group).toHaveTextContent('3');
    expect(screen.getByRole('button', { name: 'Loin : 1 alerte' })).toBeInTheDocument();
    await userEvent.click(group);
    expect(await screen.findByRole('button', { name: 'Jardin 0 : Rien en attente' })).toBeInTheDocument();
    expect(screen.getByRole('button', { name: 'Jardin 2 : Rien en attente' })).toBeInTheDocument();
  });

  it('says when there is no active site, and when the map cannot be loaded', async () => {
    api(['ROLE_ADMIN'], { ...CARTE, sites: [] });
    renderApp('/admin/carte', { loggedRoutes: mapRoutes });
    expect(await screen.findByText('Aucun site actif', {}, { timeout: 15_000 })).toBeInTheDocument();
    cleanup();

    mockApi({ 'GET /api/logged': loggedAs(['ROLE_ADMIN']), 'GET /api/admin/site/get/carte': reply(500, { status: 'error', message: 'Une erreur est survenue.' }) });
    renderApp('/admin/carte', { loggedRoutes: mapRoutes });
    expect(await screen.findByRole('alert')).toHaveTextContent('La carte des sites n’a pas pu être chargée.');
  });

  it('is refused to a referent', async () => {
    await expectScreenRefused(['ROLE_USER'], '/admin/carte', mapRoutes, { timeout: 15_000 });
  });
});
