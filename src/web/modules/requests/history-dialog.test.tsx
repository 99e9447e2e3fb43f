import { cleanup, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { loggedAs, mockApi, renderApp, reply } from '../../../../tests/helpers/web-app';
import { behaveLikeABrowserForTables } from '../../../../tests/helpers/web-screens';
import type { HistoryRow } from '../../../shared/schemas/requests';
import { requestsRoutes } from './requests.routes';
import { PHONE_QUERY } from './history-dialog';

behaveLikeABrowserForTables();
afterEach(() => {
  cleanup();
  vi.unstubAllGlobals();
});

const TRIGGER = { id: 900, date: '2026-03-01T09:00:00Z', intervenant: 'MARTIN Jeanne', typeAction: "Niveau d'apport", valeur: '3/4', observations: null, photos: [] };
const LATEST = { id: 950, date: '2026-03-08T09:00:00Z', intervenant: 'VERT Paul', idAction: 16, typeAction: "Niveau d'apport", valeur: 'Plein', observations: null, photos: [] };

const ROW: HistoryRow = {
  id: 11,
  idStatut: 6,
  statut: 'Annulée',
  dateEcheance: '2026-03-08T09:00:00Z',
  dateProgrammee: null,
  programmationReferent: null,
  programmationAgent: null,
  idAction: 16,
  actionDeclenchante: "Niveau d'apport",
  referent: 'MARTIN Jeanne',
  agent: null,
  idActionProgrammee: 3,
  actionProgrammee: 'Transfert',
  idSite: 5,
  site: 'Square Wilson',
  adresse: '2 rue de Siam, 29200 Brest',
  value: '3/4',
  idBac: 41,
  numero: 1,
  destinationIdBac: null,
  idInterventionDeclenchante: 900,
  dateDeclenchement: TRIGGER.date,
  nbSignalements: 2,
  dernierSignalement: LATEST,
  delaiJours: 7,
  photos: [],
  dateCreation: '2026-03-01T09:00:05Z',
  dateAnnulation: '2026-03-09T10:00:00Z',
  annuleePar: 'DURAND Alice',
  motifAnnulation: null,
  interventionDeclenchante: TRIGGER,
  interventionRealisee: null,
};

function setup(rows: HistoryRow[] = [ROW]) {
  return mockApi({
    'GET /api/logged': loggedAs(['ROLE_ADMIN']),
    'GET /api/admin/demande/intervention/get/list': reply(200, { count: 0, demandesInterventions: [] }),
    'GET /api/admin/demande/intervention/get/sites': reply(200, []),
    'GET /api/admin/demande/intervention/get/all/by/filters': reply(200, { count: rows.length, demandesInterventions: rows }),
    // The server's own labels: the filter offers exactly what it answers.
    'GET /api/admin/statut/get/all/demandes/interventions': reply(200, [
      { id: 3, libelle: 'En attente' },
      { id: 4, libelle: 'Programmée' },
      { id: 5, libelle: 'Réalisée' },
      { id: 6, libelle: 'Annulée (statut serveur)' },
    ]),
  });
}

async function openHistory() {
  renderApp('/admin/demande/intervention/list', { loggedRoutes: requestsRoutes });
  await userEvent.click(await screen.findByRole('button', { name: "Voir l'historique" }, { timeout: 15_000 }));
  return screen.findByRole('dialog', { name: "Historique des demandes d'interventions" });
}

describe('requests history', () => {
  it('shows the count of signals with the latest value, and the latest entry among the linked interventions', async () => {
    setup();
    const dialog = await openHistory();
    const row = (await within(dialog).findByText('Square Wilson')).closest('tr')!;
    expect(row).toHaveTextContent('2 (dernier : Plein)');
    expect(row).toHaveTextContent('DURAND Alice');
    await userEvent.click(within(dialog).getByRole('button', { name: 'Interventions liées à la demande 11' }));
    const linked = await within(dialog).findByRole('region', { name: 'Interventions liées à la demande 11' });
    expect(within(linked).getByText('Déclenchante').closest('tr')).toHaveTextContent('MARTIN Jeanne');
    expect(within(linked).getByText('Dernier signalement').closest('tr')).toHaveTextContent(/950.*VERT Paul.*Plein/);
  });

  it("shows the reason a request was cancelled for, in the 'Motif d'annulation' column", async () => {
    setup([{ ...ROW, motifAnnulation: 'Bac remplacé par la mairie' }, { ...ROW, id: 12, site: 'Place Guérin', idStatut: 5, statut: 'Réalisée', dateAnnulation: null, annuleePar: null }]);
    const dialog = await openHistory();
    const cancelled = (await within(dialog).findByText('Square Wilson')).closest('tr')!;
    const header = within(dialog).getByRole('columnheader', { name: "Motif d'annulation" });
    const column = [...header.parentElement!.children].indexOf(header);
    expect(cancelled.children[column]).toHaveTextContent(/^Bac remplacé par la mairie$/);
    expect(within(dialog).getByText('Place Guérin').closest('tr')!.children[column]).toHaveTextContent(/^$/);
  });

  it('shows the photos of each linked intervention, and those of the signals in between', async () => {
    // Signalled three times: the trigger (photo 1), an entry in between (photo 2), the latest (photo 3); processed (photos 4 and 5).
    const DONE = { id: 990, date: '2026-03-10T09:00:00Z', intervenant: 'VERT Paul', typeAction: 'Transfert', valeur: '200 L', observations: null, photos: [{ id: 4 }, { id: 5 }] };
    setup([
      {
        ...ROW,
        idStatut: 5,
        statut: 'Réalisée',
        nbSignalements: 3,
        dateAnnulation: null,
        annuleePar: null,
        photos: [{ id: 1 }, { id: 2 }, { id: 3 }],
        interventionDeclenchante: { ...TRIGGER, photos: [{ id: 1 }] },
        dernierSignalement: { ...LATEST, photos: [{ id: 3 }] },
        interventionRealisee: DONE,
      },
    ]);
    const dialog = await openHistory();
    await within(dialog).findByText('Square Wilson');
    await userEvent.click(within(dialog).getByRole('button', { name: 'Interventions liées à la demande 11' }));
    const linked = await within(dialog).findByRole('region', { name: 'Interventions liées à la demande 11' });
    const srcs = (el: HTMLElement) => within(el).queryAllByRole('img').map((i) => i.getAttribute('src'));
    expect(srcs(within(linked).getByText('Déclenchante').closest('tr')!)).toEqual(['/api/admin/photo/1?taille=miniature']);
    expect(srcs(within(linked).getByText('Dernier signalement').closest('tr')!)).toEqual(['/api/admin/photo/3?taille=miniature']);
    const done = within(linked).getByText('Réalisée').closest('tr')!;
    expect(srcs(done)).toEqual(['/api/admin/photo/4?taille=miniature', '/api/admin/photo/5?taille=miniature']);
    expect(within(done).getByRole('list', { name: 'Photos : Transfert (réalisée) du 10/03/2026 10:00' })).toBeInTheDocument();
    expect(srcs(within(linked).getByRole('list', { name: 'Photos : autres signalements de la demande 11' }))).toEqual(['/api/admin/photo/2?taille=miniature']);

    await userEvent.click(within(done).getByRole('button', { name: 'Agrandir la photo 2 sur 2' }));
    const viewer = await screen.findByRole('dialog', { name: 'Photo 2 sur 2' });
    expect(within(viewer).getByRole('img')).toHaveAttribute('src', '/api/admin/photo/5?taille=complete');
  });

  it('shows no photo where a linked intervention has none', async () => {
    setup();
    const dialog = await openHistory();
    await within(dialog).findByText('Square Wilson');
    await userEvent.click(within(dialog).getByRole('button', { name: 'Interventions liées à la demande 11' }));
    const linked = await within(dialog).findByRole('region', { name: 'Interventions liées à la demande 11' });
    expect(within(linked).getByRole('columnheader', { name: 'Photos' })).toBeInTheDocument();
    expect(within(linked).queryAllByRole('img')).toEqual([]);
    expect(within(linked).queryByText('Photos des autres signalements')).toBeNull();
  });

  it('searches on the server after a second of quiet', async () => {
    const api = setup();
    const dialog = await openHistory();
    await within(dialog).findByText('Square Wilson');
    const history = () => api.callsTo('GET', '/api/admin/demande/intervention/get/all/by/filters');
    const before = history().length;
    await userEvent.type(within(dialog).getByRole('textbox', { name: 'Rechercher' }), 'wilson');
    expect(history()).toHaveLength(before);
    await waitFor(() => expect(history().at(-1)!.path).toContain('search=wilson'), { timeout: 2500 });
    expect(history()).toHaveLength(before + 1);
  });

  it('takes the status filter options from the server', async () => {
    const api = setup();
    const dialog = await openHistory();
    await within(dialog).findByText('Square Wilson');
    expect(api.callsTo('GET', '/api/admin/statut/get/all/demandes/interventions')).toHaveLength(1);
    await userEvent.click(within(dialog).getByRole('button', { name: 'Filtrer la colonne Statut' }));
    // The popover opens outside the dialog's tree.
    const input = (await screen.findAllByLabelText('Statut')).find((e) => e.tagName === 'INPUT')!;
    await userEvent.click(input);
    expect(await screen.findByRole('option', { name: 'Annulée (statut serveur)' })).toBeInTheDocument();
    await userEvent.click(screen.getByRole('option', { name: 'Réalisée' }));
    await waitFor(() => expect(api.callsTo('GET', '/api/admin/demande/intervention/get/all/by/filters').at(-1)!.path).toContain('filter%5Bstatut%5D=5'), { timeout: 2500 });
  });
});

describe('requests history on a phone', () => {
  // A 390 px phone: the '' query of the tables and the phone query match.
  behaveLikeABrowserForTables({ alsoMatching: [PHONE_QUERY] });

  const historyCalls = (api: ReturnType<typeof setup>) => api.callsTo('GET', '/api/admin/demande/intervention/get/all/by/filters').map((c) => decodeURIComponent(c.path));

  it('shows each request as a card with its site, cell, work, status, dates and photos, instead of the table', async () => {
    setup([{ ...ROW, photos: [{ id: 1 }, { id: 2 }] }]);
    const dialog = await openHistory();
    const card = await within(dialog).findByRole('article', { name: 'Demande 11' });
    expect(within(dialog).queryByRole('table')).toBeNull();
    expect(card).toHaveTextContent('Transfert');
    expect(within(card).getByText('Annulée')).toBeInTheDocument();
    expect(card).toHaveTextContent('Site : Square Wilson');
    expect(card).toHaveTextContent("Cellule n°1 · Niveau d'apport : 3/4");
    expect(card).toHaveTextContent('Signalée 2 fois (dernier : Plein)');
    // Created at 09:00:05 UTC in March: 10:00 in Paris.
    expect(card).toHaveTextContent('Créée le 01/03/2026 10:00');
    expect(card).toHaveTextContent('Echéance : 08/03/2026');
    expect(card).toHaveTextContent('Annulée le 09/03/2026 par DURAND Alice');
    const photos = within(card).getByRole('list', { name: 'Photos : signalements de la demande 11' });
    expect(within(photos).getAllByRole('img').map((i) => i.getAttribute('src'))).toEqual(['/api/admin/photo/1?taille=miniature', '/api/admin/photo/2?taille=miniature']);
  });

  it('shows on the card of a cancelled request the reason it was cancelled for', async () => {
    setup([{ ...ROW, motifAnnulation: 'Doublon de la demande 10' }]);
    const dialog = await openHistory();
    const card = await within(dialog).findByRole('article', { name: 'Demande 11' });
    expect(card).toHaveTextContent("Annulée le 09/03/2026 par DURAND AliceMotif d'annulation : Doublon de la demande 10");
  });

  it('opens the linked interventions of a card below it, with the photos of the performed one', async () => {
    const DONE = { id: 990, date: '2026-03-10T09:00:00Z', intervenant: 'VERT Paul', typeAction: 'Transfert', valeur: '200 L', observations: 'Fait', photos: [{ id: 4 }] };
    setup([{ ...ROW, idStatut: 5, statut: 'Réalisée', dateAnnulation: null, annuleePar: null, interventionRealisee: DONE }]);
    const dialog = await openHistory();
    const card = await within(dialog).findByRole('article', { name: 'Demande 11' });
    expect(card).not.toHaveTextContent('Annulée le');
    const toggle = within(card).getByRole('button', { name: 'Interventions liées à la demande 11' });
    expect(toggle).toHaveAttribute('aria-expanded', 'false');
    await userEvent.click(toggle);
    expect(toggle).toHaveAttribute('aria-expanded', 'true');
    const linked = within(card).getByRole('region', { name: 'Interventions liées à la demande 11' });
    expect(linked).toHaveTextContent('Intervention n°900 · 01/03/2026 10:00 · MARTIN Jeanne');
    expect(linked).toHaveTextContent("Dernier signalementIntervention n°950 · 08/03/2026 10:00 · VERT PaulNiveau d'apport : Plein");
    expect(linked).toHaveTextContent('Intervention n°990 · 10/03/2026 10:00 · VERT PaulTransfert : 200 LFait');
    expect(within(linked).getByRole('list', { name: 'Photos : Transfert (réalisée) du 10/03/2026 10:00' })).toBeInTheDocument();
  });

  it('searches, filters by status, sorts and pages on the server, and resets', async () => {
    const api = mockApi({
      'GET /api/logged': loggedAs(['ROLE_PRESTATAIRE']),
      'GET /api/admin/demande/intervention/get/list': reply(200, { count: 0, demandesInterventions: [] }),
      'GET /api/admin/demande/intervention/get/sites': reply(200, []),
      // 45 requests: three pages of 20.
      'GET /api/admin/demande/intervention/get/all/by/filters': reply(200, { count: 45, demandesInterventions: [ROW] }),
      'GET /api/admin/statut/get/all/demandes/interventions': reply(200, [
        { id: 3, libelle: 'En attente' },
        { id: 5, libelle: 'Réalisée' },
      ]),
    });
    const dialog = await openHistory();
    await within(dialog).findByRole('article', { name: 'Demande 11' });
    expect(within(dialog).getByText('1 - 1 / 45')).toBeInTheDocument();
    expect(within(dialog).getByRole('button', { name: 'Page précédente' })).toBeDisabled();
    expect(within(dialog).queryByRole('button', { name: 'Réinitialiser' })).toBeNull();

    await userEvent.click(within(dialog).getByRole('button', { name: 'Page suivante' }));
    await waitFor(() => expect(historyCalls(api).at(-1)).toContain('page=1&'));

    await userEvent.type(within(dialog).getByRole('textbox', { name: 'Rechercher' }), 'wilson');
    await waitFor(() => expect(historyCalls(api).at(-1)).toContain('search=wilson'), { timeout: 2500 });
    // A new search starts again from the first page.
    expect(historyCalls(api).at(-1)).toContain('page=0&');

    await userEvent.click(within(dialog).getByRole('combobox', { name: 'Statut' }));
    await userEvent.click(await screen.findByRole('option', { name: 'Réalisée' }));
    await waitFor(() => expect(historyCalls(api).at(-1)).toContain('filter[statut]=5'), { timeout: 2500 });

    await userEvent.click(within(dialog).getByRole('combobox', { name: 'Trier par' }));
    await userEvent.click(await screen.findByRole('option', { name: 'Echéance la plus proche' }));
    await waitFor(() => expect(historyCalls(api).at(-1)).toContain('sort[name]=dateEcheance&sort[direction]=asc'));

    await userEvent.click(within(dialog).getByRole('button', { name: 'Réinitialiser' }));
    await waitFor(() => expect(historyCalls(api).at(-1)).toBe('/api/admin/demande/intervention/get/all/by/filters?page=0&rowsPerPage=20&sort[name]=dateCreation&sort[direction]=desc'));
    expect(within(dialog).getByRole('textbox', { name: 'Rechercher' })).toHaveValue('');
  });

  it('says when no request matches, and offers to try again when the list cannot be loaded', async () => {
    setup([]);
    const dialog = await openHistory();
    expect(await within(dialog).findByText('Aucun résultat')).toBeInTheDocument();
    cleanup();
    mockApi({
      'GET /api/logged': loggedAs(['ROLE_ADMIN']),
      'GET /api/admin/demande/intervention/get/list': reply(200, { count: 0, demandesInterventions: [] }),
      'GET /api/admin/demande/intervention/get/sites': reply(200, []),
      'GET /api/admin/demande/intervention/get/all/by/filters': reply(500, { status: 'error', message: 'Une erreur est survenue.' }),
      'GET /api/admin/statut/get/all/demandes/interventions': reply(200, []),
    });
    const failed = await openHistory();
    expect(await within(failed).findByRole('button', { name: 'Réessayer' })).toBeInTheDocument();
  });
});
