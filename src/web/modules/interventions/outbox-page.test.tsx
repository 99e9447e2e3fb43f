// The outbox page for entries the server fails on (issue 9): 'Erreur serveur' with its reason
// and 'Renvoyer', an entry backing off that can be resent at once, and an entry waiting for an
// earlier one that processes the same request.
import { cleanup, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { notifications } from '@mantine/notifications';
import { afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { loggedAs, mockApi, renderApp, reply, type MockHandler } from '../../app/test-utils';
import type { InterventionSubmission } from '../../../shared/schemas/interventions';
import type { OutboxEntry } from '../../offline/db';
import { useConnectivityStore } from '../../offline/connectivity';
import { openOfflineDb } from '../../offline/store';
import { interventionsPublicRoutes, interventionsRoutes } from './interventions.routes';

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

const open = () => renderApp('/admin/envois', { loggedRoutes: interventionsRoutes, publicRoutes: interventionsPublicRoutes });

let sequence = 0;
async function queue(overrides: Partial<OutboxEntry<InterventionSubmission>> & { date?: string; request?: number } = {}): Promise<string> {
  const { date = '2026-03-02T09:30:00.000Z', request = null, ...entry } = overrides;
  sequence += 1;
  const clientId = `0b7c2a3e-2222-4222-8333-${String(sequence).padStart(12, '0')}`;
  const createdAt = Date.now() - 60_000 + sequence;
  const payload: InterventionSubmission = {
    clientId,
    site: 5,
    date,
    values: [{ composteur: 51, action: 14, valeur: null, bacDestination: null, observations: null, demandeIntervention: request }],
  };
  await (
    await openOfflineDb()
  ).outbox.add({
    clientId,
    payload,
    createdAt,
    ownerId: 7,
    ownerName: 'jean@exemple.fr',
    siteLabel: 'QUA005 - Rue de Siam (Jardin des Capucins)',
    state: 'pending',
    attempts: 0,
    failures: 0,
    nextAttemptAt: createdAt,
    lastError: null,
    fieldErrors: [],
    ...entry,
  });
  return clientId;
}

const rows = async () => (await openOfflineDb()).outbox.orderBy('createdAt').toArray();
const posted = (calls: ReturnType<typeof api>) => calls.callsTo('POST', '/api/admin/intervention/add').map((c) => (c.body as InterventionSubmission).clientId);

beforeAll(async () => {
  // A lazy route: compile it once up front so that the first test does not time out.
  await import('./outbox-page');
}, 60_000);

beforeEach(async () => {
  notifications.clean();
  localStorage.clear();
  useConnectivityStore.setState({ browserOnline: true, serverUnreachable: false });
  await (await openOfflineDb()).outbox.clear();
});

afterEach(() => {
  cleanup();
  vi.restoreAllMocks();
  vi.unstubAllGlobals();
});

describe('outbox page, server errors', () => {
  it("shows an entry the server kept failing on as 'Erreur serveur' with its reason, and 'Renvoyer' sends it", async () => {
    const calls = api(ADDED);
    const id = await queue({ state: 'error', attempts: 5, failures: 5, lastError: REASON });
    open();
    const card = await screen.findByRole('listitem', { name: /QUA005 - Rue de Siam/ });
    expect(within(card).getByText('Erreur serveur')).toBeInTheDocument();
    expect(within(card).getByText(`Dernière erreur : ${REASON}`)).toBeInTheDocument();
    expect(within(card).getByText(/n’est plus renvoyée automatiquement/)).toBeInTheDocument();
    // Nothing to correct field by field; nothing was sent by itself.
    expect(within(card).queryByRole('button', { name: 'Corriger' })).not.toBeInTheDocument();
    expect(await screen.findByText('1 en échec')).toBeInTheDocument();
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
    expect(await screen.findByText('1 en échec')).toBeInTheDocument();
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
