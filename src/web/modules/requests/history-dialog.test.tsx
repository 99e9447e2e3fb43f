import { cleanup, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { loggedAs, mockApi, renderApp, reply } from '../../app/test-utils';
import type { HistoryRow } from '../../../shared/schemas/requests';
import { requestsRoutes } from './requests.routes';

const originalMatchMedia = window.matchMedia;
beforeAll(() => {
  Element.prototype.scrollTo ??= function scrollTo() {};
  window.matchMedia = (query: string) => ({ ...originalMatchMedia(query), matches: query.trim() === '' }) as MediaQueryList;
});
afterAll(() => {
  window.matchMedia = originalMatchMedia;
});
afterEach(() => {
  cleanup();
  vi.unstubAllGlobals();
});

const TRIGGER = { id: 900, date: '2026-03-01T09:00:00Z', intervenant: 'MARTIN Jeanne', typeAction: "Niveau d'apport", valeur: '3/4', observations: null };
const LATEST = { id: 950, date: '2026-03-08T09:00:00Z', intervenant: 'VERT Paul', idAction: 16, typeAction: "Niveau d'apport", valeur: 'Plein', observations: null };

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
  dateCreation: '2026-03-01T09:00:05Z',
  dateAnnulation: '2026-03-09T10:00:00Z',
  annuleePar: 'DURAND Alice',
  interventionDeclenchante: TRIGGER,
  interventionRealisee: null,
};

function setup() {
  return mockApi({
    'GET /api/logged': loggedAs(['ROLE_ADMIN']),
    'GET /api/admin/demande/intervention/get/list': reply(200, { count: 0, demandesInterventions: [] }),
    'GET /api/admin/demande/intervention/get/sites': reply(200, []),
    'GET /api/admin/demande/intervention/get/all/by/filters': reply(200, { count: 1, demandesInterventions: [ROW] }),
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
