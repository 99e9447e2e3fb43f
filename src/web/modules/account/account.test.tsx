import { cleanup, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { LOGIN_MESSAGES } from '../../../shared/schemas/account';
import { UNAUTHORIZED_FLASH_KEY } from '../../lib/api';
import { browser } from '../../lib/browser';
import { loggedAs, mockApi, renderApp, reply } from '../../../../tests/helpers/web-app';
import { accountRoutes } from './account.routes';

const adminScreens = [
  { path: '/admin/site', element: <p>Écran sites</p> },
  { path: '/admin/fiche/site/:id', element: <p>Fiche du site</p> },
];
const open = (path: string) => renderApp(path, { publicRoutes: accountRoutes, loggedRoutes: adminScreens });

const TYPE_USERS = reply(200, [
  { id: 1, libelle: 'Particulier' },
  { id: 2, libelle: 'Organisme' },
  { id: 3, libelle: 'Prestataire' },
]);

beforeEach(() => {
  localStorage.clear();
  sessionStorage.clear();
  vi.spyOn(browser, 'assign').mockImplementation(() => {});
});

afterEach(() => {
  cleanup();
  vi.restoreAllMocks();
  vi.unstubAllGlobals();
});

async function fillLogin(username: string, password: string) {
  // The first screen of a file waits for the app's start and its lazy chunk: seconds on a busy machine.
  await userEvent.type(await screen.findByLabelText(/Identifiant ou adresse mail/, {}, { timeout: 15_000 }), username);
  await userEvent.type(screen.getByLabelText(/Mot de passe/), password);
  await userEvent.click(screen.getByRole('button', { name: 'Connexion' }));
}

describe('login', () => {
  it('shows the server message when the account cannot log in', async () => {
    const api = mockApi({ 'POST /api/login': reply(400, { status: 'error', message: LOGIN_MESSAGES.inactive }) });
    open('/login');
    await fillLogin('jean@exemple.fr', 'motdepasse');
    expect(await screen.findByRole('alert')).toHaveTextContent(LOGIN_MESSAGES.inactive);
    expect(api.callsTo('POST', '/api/login')[0].body).toEqual({ username: 'jean@exemple.fr', password: 'motdepasse' });
  });

  it('says which fields are missing without calling the server', async () => {
    const api = mockApi();
    open('/');
    await userEvent.click(await screen.findByRole('button', { name: 'Connexion' }));
    expect(await screen.findByText('Identifiant ou adresse mail obligatoire')).toBeInTheDocument();
    expect(screen.getByText('Mot de passe obligatoire')).toBeInTheDocument();
    expect(api.callsTo('POST', '/api/login')).toHaveLength(0);
  });

  it('shows the access-refused message once, then forgets it', async () => {
    mockApi();
    sessionStorage.setItem(UNAUTHORIZED_FLASH_KEY, 'Accès non authorisé.');
    open('/login');
    expect(await screen.findByRole('alert')).toHaveTextContent('Accès non authorisé.');
    expect(sessionStorage.getItem(UNAUTHORIZED_FLASH_KEY)).toBeNull();
  });

  it('takes the user to their home screen once logged in', async () => {
    mockApi({ 'POST /api/login': reply(200, { status: 'success', user: { id: 1, username: 'admin', nom: 'ADMIN', prenom: null, roles: ['ROLE_ADMIN'] } }) });
    const { router } = open('/login');
    await fillLogin('admin', 'motdepasse');
    expect(await screen.findByText('Écran sites')).toBeInTheDocument();
    expect(router.state.location.pathname).toBe('/admin/site');
    expect(within(screen.getByRole('navigation', { name: 'Menu principal' })).getByRole('link', { name: 'Sites' })).toBeInTheDocument();
  });

  it('tells an account without a role to contact an administrator, ends its session and stays on the login page', async () => {
    const api = mockApi({
      'POST /api/login': reply(200, { status: 'success', user: { id: 3, username: 'n@x.fr', nom: 'N', prenom: 'N', roles: [] } }),
      'GET /logout': reply(302),
    });
    const { router } = open('/login');
    await fillLogin('n@x.fr', 'motdepasse');
    expect(await screen.findByRole('alert')).toHaveTextContent("Votre compte n'a pas encore de rôle : contactez un administrateur.");
    expect(router.state.location.pathname).toBe('/login');
    expect(api.callsTo('GET', '/logout')).toHaveLength(1);
    expect(screen.queryByRole('navigation', { name: 'Menu principal' })).toBeNull();
  });

  it('returns to the screen a visitor was sent away from', async () => {
    mockApi({ 'POST /api/login': reply(200, { status: 'success', user: { id: 2, username: 'r@x.fr', nom: 'R', prenom: 'R', roles: ['ROLE_USER'] } }) });
    const { router } = open('/admin/fiche/site/12?cellule=3');
    await fillLogin('r@x.fr', 'motdepasse');
    expect(await screen.findByText('Fiche du site')).toBeInTheDocument();
    expect(router.state.location.pathname + router.state.location.search).toBe('/admin/fiche/site/12?cellule=3');
  });

  it('sends a user already logged in to /admin', async () => {
    mockApi({ 'GET /api/logged': loggedAs(['ROLE_ADMIN']) });
    const { router } = open('/login');
    expect(await screen.findByText('Écran sites')).toBeInTheDocument();
    expect(router.state.location.pathname).toBe('/admin/site');
  });

  it('links to the forgotten password and signup screens', async () => {
    mockApi();
    open('/login');
    expect(await screen.findByRole('link', { name: 'Mot de passe oublié ?' })).toHaveAttribute('href', '/password');
    expect(screen.getByRole('link', { name: 'Créer un compte' })).toHaveAttribute('href', '/signup');
  });
});

async function chooseType(label: string) {
  const select = await screen.findByLabelText(/^Type d’utilisateur/, { selector: 'input' });
  await waitFor(() => expect(select).toBeEnabled());
  await userEvent.click(select);
  await userEvent.click(await screen.findByRole('option', { name: label }));
}

async function fillSignup(values: Record<string, string>) {
  for (const [label, value] of Object.entries(values)) {
    await userEvent.type(screen.getByLabelText(new RegExp(`^${label}`)), value);
  }
}

describe('signup', () => {
  it('asks for the organisme only for an organisation, and requires it then', async () => {
    const api = mockApi({ 'GET /api/typeUser/get/all': TYPE_USERS });
    open('/signup');
    await chooseType('Particulier');
    expect(screen.queryByLabelText(/^Organisme/)).not.toBeInTheDocument();
    await chooseType('Organisme');
    await fillSignup({ Nom: 'Dupont', Téléphone: '0601020304', 'Adresse mail': 'contact@mairie.fr', 'Mot de passe': 'motdepasse', 'Confirmation du mot de passe': 'motdepasse' });
    await userEvent.click(screen.getByRole('button', { name: 'Créer mon compte' }));
    const organisme = screen.getByLabelText(/^Organisme/);
    await waitFor(() => expect(organisme).toHaveAccessibleDescription('Champ obligatoire'));
    expect(screen.getByRole('alert')).toHaveTextContent('Veuillez renseigner les champs obligatoires');
    expect(screen.getByLabelText(/^Prénom/)).not.toHaveAccessibleDescription('Champ obligatoire');
    expect(api.callsTo('POST', '/api/signup')).toHaveLength(0);
  });

  it('requires the prénom of a private person', async () => {
    mockApi({ 'GET /api/typeUser/get/all': TYPE_USERS });
    open('/signup');
    await chooseType('Particulier');
    await fillSignup({ Nom: 'Dupont', Téléphone: '0601020304', 'Adresse mail': 'jean@exemple.fr', 'Mot de passe': 'motdepasse', 'Confirmation du mot de passe': 'motdepasse' });
    await userEvent.click(screen.getByRole('button', { name: 'Créer mon compte' }));
    await waitFor(() => expect(screen.getByLabelText(/^Prénom/)).toHaveAccessibleDescription('Champ obligatoire'));
  });

  it('formats nom, prénom and téléphone while typing', async () => {
    mockApi({ 'GET /api/typeUser/get/all': TYPE_USERS });
    open('/signup');
    await screen.findByLabelText(/^Nom/);
    await fillSignup({ Nom: 'le gall', Prénom: 'jean-pierre marie', Téléphone: '06a0102' });
    expect(screen.getByLabelText(/^Nom/)).toHaveValue('LE GALL');
    expect(screen.getByLabelText(/^Prénom/)).toHaveValue('Jean-Pierre Marie');
    expect(screen.getByLabelText(/^Téléphone/)).toHaveValue('060102');
    await userEvent.type(screen.getByLabelText(/^Téléphone/), '030405');
    expect(screen.getByLabelText(/^Téléphone/)).toHaveValue('0601020304');
  });

  it('shows the server errors under their fields', async () => {
    mockApi({
      'GET /api/typeUser/get/all': TYPE_USERS,
      'POST /api/signup': reply(400, { status: 'error', errors: [{ key: 'email', error: 'Un compte existe déjà avec cette adresse mail' }], message: 'Veuillez renseigner les champs obligatoires' }),
    });
    open('/signup');
    await chooseType('Particulier');
    await fillSignup({ Nom: 'Dupont', Prénom: 'Jean', Téléphone: '0601020304', 'Adresse mail': 'jean@exemple.fr', 'Mot de passe': 'motdepasse', 'Confirmation du mot de passe': 'motdepasse' });
    await userEvent.click(screen.getByRole('button', { name: 'Créer mon compte' }));
    await waitFor(() => expect(screen.getByLabelText(/^Adresse mail/)).toHaveAccessibleDescription('Un compte existe déjà avec cette adresse mail'));
    expect(screen.getByRole('alert')).toHaveTextContent('Veuillez renseigner les champs obligatoires');
  });

  it('sends the account and says a confirmation mail will follow the validation', async () => {
    const api = mockApi({ 'GET /api/typeUser/get/all': TYPE_USERS, 'POST /api/signup': reply(200, { status: 'success' }) });
    open('/signup');
    await chooseType('Particulier');
    await fillSignup({ Nom: 'dupont', Prénom: 'jean', Téléphone: '0601020304', 'Adresse mail': 'jean@exemple.fr', 'Mot de passe': 'motdepasse', 'Confirmation du mot de passe': 'motdepasse' });
    await userEvent.click(screen.getByRole('button', { name: 'Créer mon compte' }));
    expect(await screen.findByText('Un mail de confirmation vous sera envoyé une fois le compte validé')).toBeInTheDocument();
    expect(api.callsTo('POST', '/api/signup')[0].body).toEqual({
      type: 1,
      organisme: '',
      nom: 'DUPONT',
      prenom: 'Jean',
      tel: '0601020304',
      email: 'jean@exemple.fr',
      password: 'motdepasse',
      confirmPassword: 'motdepasse',
    });
  });
});

describe('confirmation', () => {
  it('validates the address once and says so', async () => {
    const api = mockApi({ 'PUT /api/confirmation/jeton': reply(200, { status: 'success' }) });
    open('/confirmation/jeton');
    expect(await screen.findByRole('heading', { name: 'Validation adresse mail' })).toBeInTheDocument();
    expect(api.callsTo('PUT', '/api/confirmation/jeton')).toHaveLength(1);
  });

  it('says Compte introuvable for an unknown or used link', async () => {
    mockApi({ 'PUT /api/confirmation/vieux': reply(404, { status: 'error', message: 'Compte introuvable' }) });
    open('/confirmation/vieux');
    expect(await screen.findByRole('heading', { name: 'Compte introuvable' })).toBeInTheDocument();
  });
});

describe('forgotten password', () => {
  it('always shows the confirmation, whatever the server answered', async () => {
    const api = mockApi({ 'PUT /api/password': reply(429, { status: 'error', message: 'Trop de tentatives.' }) });
    open('/password');
    await userEvent.type(await screen.findByLabelText(/^Adresse mail/), 'inconnu@exemple.fr');
    await userEvent.click(screen.getByRole('button', { name: 'Envoyer' }));
    expect(await screen.findByText(/Si un compte correspond à cette adresse/)).toBeInTheDocument();
    expect(api.callsTo('PUT', '/api/password')[0].body).toEqual({ mail: 'inconnu@exemple.fr' });
  });
});

describe('password reset', () => {
  it('says Compte introuvable when the link is not valid', async () => {
    mockApi({ 'GET /api/password/reset/perime': reply(404, { status: 'error', message: 'Compte introuvable' }) });
    open('/reset/perime');
    expect(await screen.findByRole('heading', { name: 'Compte introuvable' })).toBeInTheDocument();
    expect(screen.queryByLabelText(/Nouveau mot de passe/)).not.toBeInTheDocument();
  });

  it('sets the new password and goes to the login page', async () => {
    const api = mockApi({ 'GET /api/password/reset/bon': reply(200, { status: 'success' }), 'PUT /api/password/update/bon': reply(200, { status: 'success' }) });
    const { router } = open('/reset/bon');
    expect(await screen.findByRole('heading', { name: 'Modification du mot de passe' })).toBeInTheDocument();
    await userEvent.type(screen.getByLabelText(/^Nouveau mot de passe/), 'nouveaumotdepasse');
    await userEvent.type(screen.getByLabelText(/^Confirmation du mot de passe/), 'autre chose');
    await userEvent.click(screen.getByRole('button', { name: 'Enregistrer' }));
    await waitFor(() => expect(screen.getByLabelText(/^Confirmation du mot de passe/)).toHaveAccessibleDescription('Les mots de passe ne correspondent pas'));
    expect(api.callsTo('PUT', '/api/password/update/bon')).toHaveLength(0);

    await userEvent.clear(screen.getByLabelText(/^Confirmation du mot de passe/));
    await userEvent.type(screen.getByLabelText(/^Confirmation du mot de passe/), 'nouveaumotdepasse');
    await userEvent.click(screen.getByRole('button', { name: 'Enregistrer' }));
    await waitFor(() => expect(router.state.location.pathname).toBe('/login'));
    expect(await screen.findByText('Mot de passe modifié : vous pouvez vous connecter.')).toBeInTheDocument();
    expect(api.callsTo('PUT', '/api/password/update/bon')[0].body).toEqual({ password: 'nouveaumotdepasse', confirmPassword: 'nouveaumotdepasse' });
  });

  it('says Compte introuvable when the update is refused', async () => {
    mockApi({ 'GET /api/password/reset/court': reply(200, { status: 'success' }), 'PUT /api/password/update/court': reply(404, { status: 'error', message: 'Compte introuvable' }) });
    open('/reset/court');
    await userEvent.type(await screen.findByLabelText(/^Nouveau mot de passe/), 'nouveaumotdepasse');
    await userEvent.type(screen.getByLabelText(/^Confirmation du mot de passe/), 'nouveaumotdepasse');
    await userEvent.click(screen.getByRole('button', { name: 'Enregistrer' }));
    expect(await screen.findByRole('heading', { name: 'Compte introuvable' })).toBeInTheDocument();
  });
});
