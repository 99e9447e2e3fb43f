import { cleanup, screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { loggedAs, mockApi, renderApp, reply } from '../../../../tests/helpers/web-app';
import { behaveLikeABrowserForTables } from '../../../../tests/helpers/web-screens';
import { requestsRoutes } from './requests.routes';

behaveLikeABrowserForTables();
afterEach(() => {
  cleanup();
  vi.unstubAllGlobals();
});

const RULE = { id: 1, idActionDeclenchante: 18, actionDeclenchante: 'Réparation à effectuer', idConstante: null, constante: null, idActionProgrammee: 14, actionProgrammee: 'Réparation effectuée', delaiJours: 14 };
const TYPE_ACTIONS = [
  { id: 14, libelle: 'Réparation effectuée', valeur: true, valueKind: 'text', typeBac: [1, 2, 3], aConstantes: false },
  { id: 17, libelle: 'Tamisage', valeur: true, valueKind: 'litres', typeBac: [3], aConstantes: false },
  { id: 18, libelle: 'Réparation à effectuer', valeur: true, valueKind: 'text', typeBac: [1, 2, 3], aConstantes: false },
];

describe('request rules screen', () => {
  it('lists the rules and changes a delay, showing the server field errors', async () => {
    let attempt = 0;
    const api = mockApi({
      'GET /api/logged': loggedAs(['ROLE_ADMIN']),
      'GET /api/typeAction/get/all': reply(200, TYPE_ACTIONS),
      'GET /api/typeActionConstante/get/all': reply(200, []),
      'GET /api/admin/demande/regle/get/all': reply(200, [RULE]),
      'PUT /api/admin/demande/regle/update/1': () =>
        ++attempt === 1
          ? reply(400, { status: 'error', errors: [{ key: 'actionProgrammee', error: 'Cette règle existe déjà' }], message: 'Veuillez renseigner les champs obligatoires' })
          : reply(200, { status: 'success', message: 'Règle modifiée', id: 1 }),
    });
    renderApp('/admin/demande/regles', { loggedRoutes: requestsRoutes });
    const row = await screen.findByRole('row', { name: /Réparation à effectuer Toujours Réparation effectuée 14/ }, { timeout: 15_000 });
    await userEvent.click(within(row).getByRole('button', { name: /Modifier/ }));
    const dialog = await screen.findByRole('dialog', { name: 'Modifier la règle' });
    const delay = within(dialog).getByLabelText(/Délai/);
    await userEvent.clear(delay);
    await userEvent.type(delay, '3');
    await userEvent.click(within(dialog).getByRole('button', { name: 'Enregistrer' }));
    expect(await within(dialog).findByText('Cette règle existe déjà')).toBeInTheDocument();
    await userEvent.click(within(dialog).getByRole('button', { name: 'Enregistrer' }));
    expect(await screen.findByText('Règle modifiée')).toBeInTheDocument();
    expect(api.callsTo('PUT', '/api/admin/demande/regle/update/1')[1].body).toEqual({ actionDeclenchante: 18, constante: null, actionProgrammee: 14, delaiJours: 3 });
  });

  it('does not offer a scheduled action that leads back to the trigger, and shows why a second rule is refused', async () => {
    const api = mockApi({
      'GET /api/logged': loggedAs(['ROLE_ADMIN']),
      'GET /api/typeAction/get/all': reply(200, TYPE_ACTIONS),
      'GET /api/typeActionConstante/get/all': reply(200, []),
      'GET /api/admin/demande/regle/get/all': reply(200, [RULE]),
      'POST /api/admin/demande/regle/add': reply(409, {
        status: 'error',
        message: 'Une règle existe déjà pour ce déclencheur : Réparation à effectuer (toujours) → Réparation effectuée sous 14 jours',
      }),
    });
    renderApp('/admin/demande/regles', { loggedRoutes: requestsRoutes });
    await userEvent.click(await screen.findByRole('button', { name: 'Ajouter une règle' }, { timeout: 15_000 }));
    const dialog = await screen.findByRole('dialog', { name: 'Ajouter une règle' });
    const pick = async (label: RegExp, option: string) => {
      await userEvent.click(within(dialog).getAllByLabelText(label).find((e) => e.tagName === 'INPUT')!);
      return screen.findByRole('option', { name: option });
    };
    await userEvent.click(await pick(/Action déclenchante/, 'Réparation effectuée'));
    // Réparation effectuée → Réparation à effectuer → Réparation effectuée would never end.
    expect(await pick(/Action à programmer/, 'Réparation à effectuer (boucle)')).toHaveAttribute('data-combobox-disabled', 'true');
    expect(screen.getByRole('option', { name: 'Réparation effectuée (boucle)' })).toHaveAttribute('data-combobox-disabled', 'true');
    expect(screen.getByRole('option', { name: 'Tamisage' })).not.toHaveAttribute('data-combobox-disabled');
    await userEvent.keyboard('{Escape}');
    await userEvent.click(await pick(/Action déclenchante/, 'Réparation à effectuer'));
    await userEvent.click(await pick(/Action à programmer/, 'Tamisage'));
    await userEvent.click(within(dialog).getByRole('button', { name: 'Enregistrer' }));
    expect(await within(dialog).findByText('Une règle existe déjà pour ce déclencheur : Réparation à effectuer (toujours) → Réparation effectuée sous 14 jours')).toBeInTheDocument();
    expect(api.callsTo('POST', '/api/admin/demande/regle/add')[0].body).toEqual({ actionDeclenchante: 18, constante: null, actionProgrammee: 17, delaiJours: 7 });
  });

  it('is reserved to ROLE_ADMIN', async () => {
    mockApi({ 'GET /api/logged': loggedAs(['ROLE_PRESTATAIRE']) });
    renderApp('/admin/demande/regles', { loggedRoutes: requestsRoutes });
    expect(await screen.findByText('Accès non authorisé.', {}, { timeout: 15_000 })).toBeInTheDocument();
  });
});
