import { cleanup, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { loggedAs, mockApi, renderApp, reply } from '../../../../tests/helpers/web-app';
import { behaveLikeABrowserForTables } from '../../../../tests/helpers/web-screens';
import { DEBOUNCE_MS } from '../../components/use-list-query';
import { rolesRoutes } from './roles.routes';

behaveLikeABrowserForTables();
afterEach(() => {
  cleanup();
  vi.unstubAllGlobals();
});

const ROLE = { id: 6, libelle: 'ROLE_ADMIN_UPDATE' };
const LOIC = { id: 40, prenom: 'Loïc', nom: 'KERGUELEN', photo: null };
const ANNE = { id: 41, prenom: 'Anne', nom: 'MORVAN', photo: '/photos/anne.jpg' };

function open(extra: Parameters<typeof mockApi>[0] = {}) {
  const api = mockApi({
    'GET /api/logged': loggedAs(['ROLE_ADMIN_ROLE']),
    'GET /api/admin/role/get/list/by/filters': reply(200, { count: 1, roles: [ROLE] }),
    'GET /api/admin/role/get/6': reply(200, { ...ROLE, agents: [LOIC] }),
    // The server's answer is shown as is, even when it does not contain what was typed.
    'GET /api/admin/agent/get/by/name': reply(200, [ANNE]),
    'PUT /api/admin/role/update/6': reply(200, { status: 'success', message: 'Enregistrement effectué' }),
    ...extra,
  });
  renderApp('/admin/role', { loggedRoutes: rolesRoutes });
  return api;
}

describe('roles screen', () => {
  it('loads ten roles per page and explains every role', async () => {
    const api = open();
    expect(await screen.findByText('ROLE_ADMIN_UPDATE', {}, { timeout: 5000 })).toBeInTheDocument();
    expect(api.callsTo('GET', '/api/admin/role/get/list/by/filters')[0].path).toContain('rowsPerPage=10');
    expect(screen.getByText('Signification des rôles')).toBeInTheDocument();
    expect(screen.getByText(/Gérer les utilisateurs externes/)).toBeInTheDocument();
    // The code comes with what it means, in French.
    expect(await screen.findByText('Modification des interventions')).toBeInTheDocument();
  });

  it('asks an administrator who removes their own ROLE_ADMIN to confirm, and saves only then', async () => {
    const ADMIN_ROLE = { id: 1, libelle: 'ROLE_ADMIN' };
    const api = open({
      'GET /api/logged': loggedAs(['ROLE_ADMIN'], { id: LOIC.id }),
      'GET /api/admin/role/get/list/by/filters': reply(200, { count: 1, roles: [ADMIN_ROLE] }),
      'GET /api/admin/role/get/1': reply(200, { ...ADMIN_ROLE, agents: [LOIC, ANNE] }),
      'PUT /api/admin/role/update/1': reply(200, { status: 'success', message: 'Enregistrement effectué' }),
    });
    await userEvent.click(await screen.findByRole('button', { name: 'Gérer les agents du rôle ROLE_ADMIN' }, { timeout: 5000 }));
    const dialog = await screen.findByRole('dialog', { name: 'ROLE_ADMIN' });
    await userEvent.click(await within(dialog).findByRole('button', { name: 'Retirer Loïc KERGUELEN' }));
    await userEvent.click(within(dialog).getByRole('button', { name: 'Enregistrer' }));
    let confirm = await screen.findByRole('dialog', { name: 'Retirer votre propre rôle ROLE_ADMIN ?' });
    await userEvent.click(within(confirm).getByRole('button', { name: 'Annuler' }));
    await waitFor(() => expect(screen.queryByRole('dialog', { name: 'Retirer votre propre rôle ROLE_ADMIN ?' })).toBeNull());
    expect(api.callsTo('PUT', '/api/admin/role/update/1')).toHaveLength(0);

    await userEvent.click(within(dialog).getByRole('button', { name: 'Enregistrer' }));
    confirm = await screen.findByRole('dialog', { name: 'Retirer votre propre rôle ROLE_ADMIN ?' });
    await userEvent.click(within(confirm).getByRole('button', { name: 'Retirer mon rôle' }));
    await waitFor(() => expect(api.callsTo('PUT', '/api/admin/role/update/1')).toHaveLength(1));
    expect(api.callsTo('PUT', '/api/admin/role/update/1')[0].body).toEqual({ agents: [ANNE.id] });
  });

  it('shows no stale agents while a new search runs, with a loader', async () => {
    let answer: ((r: ReturnType<typeof reply>) => void) | null = null;
    open({
      'GET /api/admin/agent/get/by/name': (call) => {
        const name = new URL(call.path, 'http://x').searchParams.get('name');
        if (name === 'anx') return new Promise((r) => (answer = r));
        return reply(200, name === 'an' ? [ANNE] : []);
      },
    });
    await userEvent.click(await screen.findByRole('button', { name: 'Gérer les agents du rôle ROLE_ADMIN_UPDATE' }, { timeout: 5000 }));
    const dialog = await screen.findByRole('dialog', { name: 'ROLE_ADMIN_UPDATE' });
    await userEvent.click(await within(dialog).findByRole('button', { name: 'Ajouter' }));
    const add = await screen.findByRole('dialog', { name: 'Ajouter' });
    const box = within(add).getByRole('combobox', { name: 'Ajouter un agent' });
    await userEvent.type(box, 'an');
    expect(await within(add).findByRole('option', { name: 'Anne MORVAN' }, { timeout: 2500 })).toBeInTheDocument();
    await userEvent.type(box, 'x');
    // The answer for 'an' no longer applies to 'anx': it is gone at once, a loader says a search is coming.
    expect(within(add).queryByRole('option', { name: 'Anne MORVAN' })).toBeNull();
    expect(await within(add).findByLabelText('Recherche en cours')).toBeInTheDocument();
    await waitFor(() => expect(answer).not.toBeNull(), { timeout: 2500 });
    answer!(reply(200, []));
    expect(await within(add).findByText('Aucun résultat', {}, { timeout: 2500 })).toBeInTheDocument();
  });

  it('adds an agent found by the server one second after typing, removes another, and saves the ids', async () => {
    const api = open();
    await userEvent.click(await screen.findByRole('button', { name: 'Gérer les agents du rôle ROLE_ADMIN_UPDATE' }, { timeout: 5000 }));
    const dialog = await screen.findByRole('dialog', { name: 'ROLE_ADMIN_UPDATE' });
    expect(await within(dialog).findByText('Loïc KERGUELEN')).toBeInTheDocument();
    expect(within(dialog).getByText('LK')).toBeInTheDocument();

    await userEvent.click(within(dialog).getByRole('button', { name: 'Ajouter' }));
    const add = await screen.findByRole('dialog', { name: 'Ajouter' });
    await userEvent.click(within(add).getByRole('button', { name: 'Ajouter' }));
    expect(within(add).getByText('Veuillez sélectionner un agent')).toBeInTheDocument();

    const searches = () => api.callsTo('GET', '/api/admin/agent/get/by/name').map((c) => new URL(c.path, 'http://x').searchParams.get('name'));
    await userEvent.type(within(add).getByRole('combobox', { name: 'Ajouter un agent' }), 'zz');
    await new Promise((r) => setTimeout(r, DEBOUNCE_MS - 400));
    expect(searches()).not.toContain('zz');
    await waitFor(() => expect(searches()).toContain('zz'), { timeout: 2000 });
    await userEvent.click(await within(add).findByRole('option', { name: 'Anne MORVAN' }));
    await userEvent.click(within(add).getByRole('button', { name: 'Ajouter' }));
    await waitFor(() => expect(screen.queryByRole('dialog', { name: 'Ajouter' })).not.toBeInTheDocument());

    await userEvent.click(within(dialog).getByRole('button', { name: 'Retirer Loïc KERGUELEN' }));
    expect(within(dialog).queryByText('Loïc KERGUELEN')).not.toBeInTheDocument();
    expect(within(dialog).getByRole('img', { name: 'Anne MORVAN' })).toHaveAttribute('src', '/photos/anne.jpg');
    await userEvent.click(within(dialog).getByRole('button', { name: 'Enregistrer' }));
    expect(await screen.findByText('Enregistrement effectué')).toBeInTheDocument();
    expect(api.callsTo('PUT', '/api/admin/role/update/6')[0].body).toEqual({ agents: [ANNE.id] });
  });

  it("says Aucun résultat when the server finds no agent, and 'Annuler' closes without saving", async () => {
    const api = open({ 'GET /api/admin/agent/get/by/name': reply(200, []) });
    await userEvent.click(await screen.findByRole('button', { name: 'Gérer les agents du rôle ROLE_ADMIN_UPDATE' }, { timeout: 5000 }));
    const dialog = await screen.findByRole('dialog', { name: 'ROLE_ADMIN_UPDATE' });
    await userEvent.click(await within(dialog).findByRole('button', { name: 'Ajouter' }));
    const add = await screen.findByRole('dialog', { name: 'Ajouter' });
    await userEvent.type(within(add).getByRole('combobox', { name: 'Ajouter un agent' }), 'personne');
    expect(await within(add).findByText('Aucun résultat', {}, { timeout: 2500 })).toBeInTheDocument();
    await userEvent.click(within(add).getByRole('button', { name: 'Annuler' }));
    await waitFor(() => expect(screen.queryByRole('dialog', { name: 'Ajouter' })).not.toBeInTheDocument());
    await userEvent.click(within(dialog).getByRole('button', { name: 'Retirer Loïc KERGUELEN' }));
    await userEvent.click(within(dialog).getByRole('button', { name: 'Annuler' }));
    await waitFor(() => expect(screen.queryByRole('dialog', { name: 'ROLE_ADMIN_UPDATE' })).not.toBeInTheDocument());
    expect(api.callsTo('PUT', '/api/admin/role/update/6')).toHaveLength(0);
  });

  it('shows why the server refused a change, in the dialog', async () => {
    const message = 'Impossible de retirer le dernier administrateur (ROLE_ADMIN) : ajoutez d’abord un autre agent actif.';
    open({ 'PUT /api/admin/role/update/6': reply(409, { status: 'error', message }) });
    await userEvent.click(await screen.findByRole('button', { name: 'Gérer les agents du rôle ROLE_ADMIN_UPDATE' }, { timeout: 5000 }));
    const dialog = await screen.findByRole('dialog', { name: 'ROLE_ADMIN_UPDATE' });
    await userEvent.click(await within(dialog).findByRole('button', { name: 'Retirer Loïc KERGUELEN' }));
    expect(within(dialog).getByText('Aucun agent')).toBeInTheDocument();
    await userEvent.click(within(dialog).getByRole('button', { name: 'Enregistrer' }));
    expect(await within(dialog).findByRole('alert')).toHaveTextContent(message);
    expect(screen.getByRole('dialog', { name: 'ROLE_ADMIN_UPDATE' })).toBeInTheDocument();
  });

  it('never offers to give ROLE_USER or ROLE_PRESTATAIRE to an agent', async () => {
    const USER_ROLE = { id: 8, libelle: 'ROLE_USER' };
    const api = open({
      'GET /api/admin/role/get/list/by/filters': reply(200, { count: 2, roles: [ROLE, USER_ROLE] }),
      'GET /api/admin/role/get/8': reply(200, { ...USER_ROLE, agents: [] }),
    });
    await userEvent.click(await screen.findByRole('button', { name: 'Gérer les agents du rôle ROLE_USER' }, { timeout: 5000 }));
    const dialog = await screen.findByRole('dialog', { name: 'ROLE_USER' });
    expect(await within(dialog).findByText('Ce rôle est réservé aux utilisateurs externes : il ne peut pas être donné à un agent.')).toBeInTheDocument();
    expect(within(dialog).getByRole('button', { name: 'Ajouter' })).toBeDisabled();
    expect(within(dialog).getByRole('button', { name: 'Enregistrer' })).toBeDisabled();
    expect(api.callsTo('PUT', '/api/admin/role/update/8')).toHaveLength(0);
  });
});
