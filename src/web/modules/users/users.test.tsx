import { cleanup, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { UserRow } from '../../../shared/schemas/users';
import { loggedAs, mockApi, renderApp, reply } from '../../../../tests/helpers/web-app';
import { behaveLikeABrowserForTables, expectScreenRefused } from '../../../../tests/helpers/web-screens';
import { usersRoutes } from './users.routes';

behaveLikeABrowserForTables();
afterEach(() => {
  cleanup();
  vi.unstubAllGlobals();
});

function user(over: Partial<UserRow>): UserRow {
  return {
    id: 1,
    date: '2024-03-12T10:00:00.000Z',
    organisme: null,
    nom: 'MARTIN',
    prenom: 'Jeanne',
    email: 'jeanne@exemple.fr',
    tel: '0601020304',
    typeUser: 'Particulier',
    idTypeUser: 1,
    site: 'QUA001 - Jardin',
    actif: true,
    emailValide: true,
    ...over,
  };
}

const ACTIVE = user({});
const PENDING = user({ id: 2, nom: 'LEROUX', prenom: 'Paul', email: 'paul@exemple.fr', actif: false, emailValide: false, site: 'Aucun' });
const PRESTA = user({ id: 3, nom: 'SERVICES', prenom: 'Compost', email: 'presta@exemple.fr', typeUser: 'Prestataire', idTypeUser: 3, site: 'Aucun' });

function open(extra: Parameters<typeof mockApi>[0] = {}, users: UserRow[] = [ACTIVE, PENDING, PRESTA]) {
  const api = mockApi({
    'GET /api/logged': loggedAs(['ROLE_ADMIN_USER']),
    'GET /api/admin/user/get/list/by/filters': reply(200, { count: users.length, users }),
    'GET /api/typeUser/get/all': reply(200, [
      { id: 1, libelle: 'Particulier' },
      { id: 2, libelle: 'Organisme' },
      { id: 3, libelle: 'Prestataire' },
    ]),
    ...extra,
  });
  renderApp('/admin/user', { loggedRoutes: usersRoutes });
  return api;
}

// The first render also loads the lazy screen and the session: slow on a busy machine.
const rowOf = async (email: string) => (await screen.findByText(email, {}, { timeout: 5000 })).closest('tr') as HTMLElement;

describe('users screen', () => {
  it('shows the columns of the contract, French dates and the red cells', async () => {
    open();
    const active = await rowOf('jeanne@exemple.fr');
    for (const title of ['Date inscription', 'Organisme', 'Nom', 'Prénom', 'Email', 'Téléphone', 'Type', 'Site', 'Actif']) {
      expect(screen.getAllByText(title).length).toBeGreaterThan(0);
    }
    expect(within(active).getByText('12/03/2024')).toBeInTheDocument();
    const pending = await rowOf('paul@exemple.fr');
    const cells = within(pending).getAllByRole('cell');
    expect(cells[4].style.backgroundColor).toBe('var(--mantine-color-red-1)');
    expect(cells[4]).toHaveTextContent('(adresse mail non validée)');
    expect(cells[7]).toHaveTextContent('Aucun');
    expect(cells[7].style.backgroundColor).toBe('var(--mantine-color-red-1)');
    expect(cells[8]).toHaveTextContent('Non');
    expect(cells[8].style.backgroundColor).toBe('var(--mantine-color-red-1)');
    expect(within(active).getAllByRole('cell')[8].style.backgroundColor).not.toBe('var(--mantine-color-red-1)');
  });

  it('enables each row action only when the account lifecycle allows it', async () => {
    open();
    const active = await rowOf('jeanne@exemple.fr');
    expect(within(active).getByRole('button', { name: 'Modifier le type de Jeanne MARTIN' })).toBeEnabled();
    expect(within(active).getByRole('button', { name: 'Voir / Modifier les sites de Jeanne MARTIN' })).toBeEnabled();
    expect(within(active).queryByRole('button', { name: /^Activer/ })).not.toBeInTheDocument();
    expect(within(active).getByRole('button', { name: 'Désactiver Jeanne MARTIN' })).toBeInTheDocument();
    expect(within(active).getByRole('button', { name: 'Supprimer Jeanne MARTIN' })).toBeDisabled();

    const pending = await rowOf('paul@exemple.fr');
    expect(within(pending).getByRole('button', { name: 'Modifier le type de Paul LEROUX' })).toBeDisabled();
    expect(within(pending).getByRole('button', { name: 'Voir / Modifier les sites de Paul LEROUX' })).toBeDisabled();
    expect(within(pending).getByRole('button', { name: 'Activer Paul LEROUX' })).toBeDisabled();
    expect(within(pending).getByRole('button', { name: 'Refuser Paul LEROUX' })).toBeInTheDocument();
    expect(within(pending).getByRole('button', { name: 'Supprimer Paul LEROUX' })).toBeEnabled();

    const presta = await rowOf('presta@exemple.fr');
    expect(within(presta).getByRole('button', { name: 'Voir / Modifier les sites de Compost SERVICES' })).toBeDisabled();
  });

  it('asks before deleting and shows the server message, then reloads the list', async () => {
    const api = open({ 'PUT /api/admin/user/delete/2': reply(200, { status: 'success', message: 'Utilisateur supprimé' }) });
    const pending = await rowOf('paul@exemple.fr');
    await userEvent.click(within(pending).getByRole('button', { name: 'Supprimer Paul LEROUX' }));
    const dialog = await screen.findByRole('dialog');
    expect(within(dialog).getByText('Supprimer ?', { normalizer: (s) => s.replace(/\s+/g, ' ') })).toBeInTheDocument();
    expect(within(dialog).getByText('Etes-vous sûre de vouloir supprimer cet utilisateur ? Cette action est irréversible.')).toBeInTheDocument();
    const loads = api.callsTo('GET', '/api/admin/user/get/list/by/filters').length;
    await userEvent.click(within(dialog).getByRole('button', { name: 'Oui' }));
    expect(await screen.findByText('Utilisateur supprimé')).toBeInTheDocument();
    expect(api.callsTo('PUT', '/api/admin/user/delete/2')).toHaveLength(1);
    await waitFor(() => expect(api.callsTo('GET', '/api/admin/user/get/list/by/filters').length).toBeGreaterThan(loads));
  });

  it('activates and refuses from the row, then reloads the list with the filters still applied', async () => {
    const VALIDATED = user({ id: 4, nom: 'KERVELLA', prenom: 'Camille', email: 'camille@exemple.fr', actif: false, emailValide: true, site: 'Aucun' });
    const api = open(
      {
        'PUT /api/admin/user/active/4': reply(200, { status: 'success', message: 'Compte activé' }),
        'PUT /api/admin/user/refuse/1': reply(200, { status: 'success', message: 'Compte désactivé' }),
      },
      [ACTIVE, VALIDATED],
    );
    const lists = () => api.callsTo('GET', '/api/admin/user/get/list/by/filters').map((c) => new URL(c.path, 'http://x').searchParams);
    await rowOf('camille@exemple.fr');
    await userEvent.click(screen.getByRole('button', { name: 'Filtrer la colonne Nom' }));
    await userEvent.type(await screen.findByRole('textbox', { name: 'Nom' }), 'kerv');
    await waitFor(() => expect(lists().at(-1)?.get('filter[nom]')).toBe('kerv'), { timeout: 2500 });
    const loads = lists().length;

    await userEvent.click(within(await rowOf('camille@exemple.fr')).getByRole('button', { name: 'Activer Camille KERVELLA' }));
    expect(await screen.findByText('Compte activé')).toBeInTheDocument();
    expect(api.callsTo('PUT', '/api/admin/user/active/4')).toHaveLength(1);
    await waitFor(() => expect(lists().length).toBe(loads + 1));
    expect(lists().at(-1)?.get('filter[nom]')).toBe('kerv');

    await userEvent.click(within(await rowOf('jeanne@exemple.fr')).getByRole('button', { name: 'Désactiver Jeanne MARTIN' }));
    // Nothing is sent before the administrator confirms.
    const confirm = await screen.findByRole('dialog', { name: 'Désactiver ce compte ?' });
    expect(confirm).toHaveTextContent('Jeanne MARTIN ne pourra plus se connecter');
    expect(api.callsTo('PUT', '/api/admin/user/refuse/1')).toHaveLength(0);
    await userEvent.click(within(confirm).getByRole('button', { name: 'Désactiver' }));
    expect(await screen.findByText('Compte désactivé')).toBeInTheDocument();
    expect(api.callsTo('PUT', '/api/admin/user/refuse/1')).toHaveLength(1);
    await waitFor(() => expect(lists().length).toBe(loads + 2));
    expect(lists().at(-1)?.get('filter[nom]')).toBe('kerv');
  });

  it('keeps the account active when the deactivation is cancelled', async () => {
    const api = open({ 'PUT /api/admin/user/refuse/1': reply(200, { status: 'success', message: 'Compte désactivé' }) }, [ACTIVE]);
    await userEvent.click(within(await rowOf('jeanne@exemple.fr')).getByRole('button', { name: 'Désactiver Jeanne MARTIN' }));
    const confirm = await screen.findByRole('dialog', { name: 'Désactiver ce compte ?' });
    await userEvent.click(within(confirm).getByRole('button', { name: 'Annuler' }));
    await waitFor(() => expect(screen.queryByRole('dialog', { name: 'Désactiver ce compte ?' })).toBeNull());
    expect(api.callsTo('PUT', '/api/admin/user/refuse/1')).toHaveLength(0);
  });

  it('says Une erreur est survenue when an activation fails', async () => {
    const VALIDATED = user({ id: 4, nom: 'KERVELLA', prenom: 'Camille', email: 'camille@exemple.fr', actif: false, emailValide: true });
    open({ 'PUT /api/admin/user/active/4': reply(500, { status: 'error', message: 'Une erreur est survenue.' }) }, [VALIDATED]);
    await userEvent.click(within(await rowOf('camille@exemple.fr')).getByRole('button', { name: 'Activer Camille KERVELLA' }));
    expect(await screen.findByText('Une erreur est survenue')).toBeInTheDocument();
  });

  it("says 'Utilisateur introuvable.' when the user is already gone", async () => {
    open({ 'PUT /api/admin/user/delete/2': reply(404, { status: 'error', message: 'Ressource introuvable.' }) });
    await userEvent.click(within(await rowOf('paul@exemple.fr')).getByRole('button', { name: 'Supprimer Paul LEROUX' }));
    await userEvent.click(within(await screen.findByRole('dialog')).getByRole('button', { name: 'Oui' }));
    expect(await screen.findByText('Utilisateur introuvable.')).toBeInTheDocument();
  });

  it("changes the type through the 'Type d'utilisateur' dialog", async () => {
    const api = open({ 'PUT /api/admin/user/update/typeUser/1': reply(200, { status: 'success', message: "Type de l'utilisateur modifié" }) });
    await userEvent.click(within(await rowOf('jeanne@exemple.fr')).getByRole('button', { name: 'Modifier le type de Jeanne MARTIN' }));
    const dialog = await screen.findByRole('dialog', { name: "Type d'utilisateur" });
    await userEvent.click(within(dialog).getByRole('combobox', { name: 'Type' }));
    await userEvent.click(await within(dialog).findByRole('option', { name: 'Organisme' }));
    await userEvent.click(within(dialog).getByRole('button', { name: 'Enregistrer' }));
    expect(await screen.findByText("Type de l'utilisateur modifié")).toBeInTheDocument();
    expect(api.callsTo('PUT', '/api/admin/user/update/typeUser/1')[0].body).toEqual({ type: 2 });
  });

  it('shows the server errors of the Site dialog under the field with the French banner', async () => {
    open({
      'GET /api/admin/user/get/sites/1': reply(200, []),
      'GET /api/admin/user/get/all/sites': reply(200, [{ id: 5, code: 'QUA005', nom: 'Square', ville: 'Brest' }]),
      'PUT /api/admin/user/update/site/1': reply(400, { status: 'error', errors: [{ key: 'site', error: 'Site inconnu' }], message: 'Veuillez renseigner les champs obligatoires' }),
    });
    await userEvent.click(within(await rowOf('jeanne@exemple.fr')).getByRole('button', { name: 'Voir / Modifier les sites de Jeanne MARTIN' }));
    const dialog = await screen.findByRole('dialog', { name: 'Site' });
    expect(await within(dialog).findByText('Aucun Site')).toBeInTheDocument();
    await userEvent.click(within(dialog).getByRole('combobox', { name: 'Sites' }));
    await userEvent.click(await within(dialog).findByRole('option', { name: 'QUA005 - Square (Brest)' }));
    await userEvent.click(within(dialog).getByRole('button', { name: 'Enregistrer' }));
    expect(await within(dialog).findByText('Site inconnu')).toBeInTheDocument();
    expect(within(dialog).getByRole('alert')).toHaveTextContent('Veuillez renseigner les champs obligatoires');
  });

  it('refuses the screen to a role that may not manage users', async () => {
    const api = await expectScreenRefused(['ROLE_ADMIN_COMPOSTEUR'], '/admin/user', usersRoutes);
    expect(api.callsTo('GET', '/api/admin/user/get/list/by/filters')).toHaveLength(0);
  });
});
