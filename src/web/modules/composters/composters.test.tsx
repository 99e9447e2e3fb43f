import { cleanup, screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { loggedAs, mockApi, renderApp, reply } from '../../../../tests/helpers/web-app';
import { behaveLikeABrowserForTables } from '../../../../tests/helpers/web-screens';
import { compostersRoutes } from './composters.routes';

behaveLikeABrowserForTables();
afterEach(() => {
  cleanup();
  vi.unstubAllGlobals();
});

function open(addReply = reply(200, { status: 'success', message: 'Site ajouté', id: 9 })) {
  const api = mockApi({
    'GET /api/logged': loggedAs(['ROLE_ADMIN_COMPOSTEUR']),
    'GET /api/admin/typeComposteur/get/list/by/filters': reply(200, { count: 1, composteurs: [{ id: 1, volume: 400, precisions: 'Bac bois 400 L' }] }),
    'POST /api/admin/typeComposteur/add': addReply,
  });
  renderApp('/admin/composteur', { loggedRoutes: compostersRoutes });
  return api;
}

describe('composter types screen', () => {
  it('checks the fields before sending, then adds the type with the Site ajouté toast', async () => {
    const api = open();
    // The first render also loads the lazy screen and the session: slow on a busy machine.
    expect(await screen.findByText('Bac bois 400 L', {}, { timeout: 5000 })).toBeInTheDocument();
    expect(screen.getByText('400 L')).toBeInTheDocument();
    await userEvent.click(screen.getByRole('button', { name: 'Ajouter un Composteur' }));
    const dialog = await screen.findByRole('dialog', { name: 'Ajouter un Composteur' });
    await userEvent.click(within(dialog).getByRole('button', { name: 'Enregistrer' }));
    expect(within(dialog).getByText('Le volume est obligatoire')).toBeInTheDocument();
    expect(within(dialog).getByText('Les précisions sont obligatoires')).toBeInTheDocument();
    expect(within(dialog).getByRole('alert')).toHaveTextContent('Veuillez renseigner les champs obligatoires');
    expect(api.callsTo('POST', '/api/admin/typeComposteur/add')).toHaveLength(0);

    await userEvent.type(within(dialog).getByLabelText(/Volume en Litres/), '600');
    await userEvent.type(within(dialog).getByLabelText(/Précisions/), 'Bac métal');
    await userEvent.click(within(dialog).getByRole('button', { name: 'Enregistrer' }));
    expect(await screen.findByText('Site ajouté')).toBeInTheDocument();
    expect(api.callsTo('POST', '/api/admin/typeComposteur/add')[0].body).toEqual({ volume: 600, precisions: 'Bac métal' });
  });

  it('says Une erreur est survenue when the server fails', async () => {
    open(reply(500, { status: 'error', message: 'Une erreur est survenue.' }));
    await userEvent.click(await screen.findByRole('button', { name: 'Ajouter un Composteur' }));
    const dialog = await screen.findByRole('dialog', { name: 'Ajouter un Composteur' });
    await userEvent.type(within(dialog).getByLabelText(/Volume en Litres/), '600');
    await userEvent.type(within(dialog).getByLabelText(/Précisions/), 'Bac métal');
    await userEvent.click(within(dialog).getByRole('button', { name: 'Enregistrer' }));
    expect(await within(dialog).findByRole('alert')).toHaveTextContent('Une erreur est survenue.');
  });
});
