import { cleanup, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { PageTitle } from '../components/page-title';
import { browser } from '../lib/browser';
import { registerHeaderItem } from '../lib/header-items';
import { registerBeforeLogout } from '../session/logout';
import { loggedAs, mockApi, renderApp, reply } from '../../../tests/helpers/web-app';

const screenAt = (path: string, text: string) => ({ path, element: <p>{text}</p> });

const ALL_ADMIN_SCREENS = [
  screenAt('/admin/choix/site', 'Écran choix du site'),
  screenAt('/admin/user', 'Écran utilisateurs'),
  screenAt('/admin/site', 'Écran sites'),
  screenAt('/admin/role', 'Écran rôles'),
  screenAt('/admin/composteur', 'Écran composteurs'),
];

let assign: ReturnType<typeof vi.spyOn>;

beforeEach(() => {
  localStorage.clear();
  sessionStorage.clear();
  assign = vi.spyOn(browser, 'assign').mockImplementation(() => {});
});

afterEach(() => {
  cleanup();
  vi.restoreAllMocks();
  vi.unstubAllGlobals();
});

function drawer() {
  return screen.getByRole('navigation', { name: 'Menu principal' });
}

describe('drawer', () => {
  it('lists the entries of an administrator whose screens exist, and only those', async () => {
    mockApi({ 'GET /api/logged': loggedAs(['ROLE_ADMIN']) });
    renderApp('/admin/site', { loggedRoutes: ALL_ADMIN_SCREENS });
    await screen.findByText('Écran sites');
    const links = within(drawer()).getAllByRole('link').map((a) => a.textContent);
    expect(links).toEqual(['Saisir une intervention', 'Utilisateurs', 'Sites', 'Composteurs', 'Roles']);
  });

  it('gives a site referent only the site choice', async () => {
    mockApi({ 'GET /api/logged': loggedAs(['ROLE_USER']) });
    renderApp('/admin/choix/site', { loggedRoutes: ALL_ADMIN_SCREENS });
    await screen.findByText('Écran choix du site');
    const links = within(drawer()).getAllByRole('link');
    expect(links.map((a) => a.textContent)).toEqual(['Choix du site']);
    expect(links[0]).toHaveAttribute('href', '/admin/choix/site');
  });

  it('gives a user manager the users screen but not the sites', async () => {
    mockApi({ 'GET /api/logged': loggedAs(['ROLE_ADMIN_USER']) });
    renderApp('/admin/user', { loggedRoutes: ALL_ADMIN_SCREENS });
    await screen.findByText('Écran utilisateurs');
    expect(within(drawer()).getAllByRole('link').map((a) => a.textContent)).toEqual(['Utilisateurs']);
  });

  it('is absent for a visitor, whose account menu offers to log in', async () => {
    mockApi();
    renderApp('/login', { publicRoutes: [screenAt('/login', 'Écran de connexion')] });
    await screen.findByText('Écran de connexion');
    expect(screen.queryByRole('navigation', { name: 'Menu principal' })).not.toBeInTheDocument();
    await userEvent.click(screen.getByRole('button', { name: 'Compte' }));
    expect(await screen.findByRole('menuitem', { name: 'Connexion' })).toBeInTheDocument();
  });
});

describe('top bar', () => {
  it('shows the application name from the app info', async () => {
    mockApi({ 'GET /api/app/info/get': reply(200, { appName: 'Compost Brest', contact: '' }) });
    renderApp('/login', { publicRoutes: [screenAt('/login', 'Écran de connexion')] });
    expect(await screen.findByText('Compost Brest')).toBeInTheDocument();
  });

  it('shows the items other modules register', async () => {
    mockApi();
    const unregister = registerHeaderItem(() => <span>3 en attente</span>);
    renderApp('/login', { publicRoutes: [screenAt('/login', 'Écran de connexion')] });
    expect(await screen.findByText('3 en attente')).toBeInTheDocument();
    unregister();
    await waitFor(() => expect(screen.queryByText('3 en attente')).not.toBeInTheDocument());
  });

  it('logs out through /logout from the account menu', async () => {
    mockApi({ 'GET /api/logged': loggedAs(['ROLE_ADMIN']) });
    renderApp('/admin/site', { loggedRoutes: ALL_ADMIN_SCREENS });
    await screen.findByText('Écran sites');
    await userEvent.click(screen.getByRole('button', { name: 'Compte' }));
    await userEvent.click(await screen.findByRole('menuitem', { name: 'Déconnexion' }));
    await waitFor(() => expect(assign).toHaveBeenCalledWith('/logout'));
  });

  it('stays logged in when a logout guard objects', async () => {
    mockApi({ 'GET /api/logged': loggedAs(['ROLE_ADMIN']) });
    const guard = vi.fn(async () => false);
    const unregister = registerBeforeLogout(guard);
    renderApp('/admin/site', { loggedRoutes: ALL_ADMIN_SCREENS });
    await screen.findByText('Écran sites');
    await userEvent.click(screen.getByRole('button', { name: 'Compte' }));
    await userEvent.click(await screen.findByRole('menuitem', { name: 'Déconnexion' }));
    await waitFor(() => expect(guard).toHaveBeenCalled());
    expect(assign).not.toHaveBeenCalled();
    unregister();
  });
});

describe('loading', () => {
  it('shows the full-screen loader until the session and the action types have loaded', async () => {
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    mockApi({ 'GET /api/typeAction/get/all': async () => (await held, reply(200, [])) });
    renderApp('/login', { publicRoutes: [screenAt('/login', 'Écran de connexion')] });
    expect(await screen.findByText('Chargement…')).toBeInTheDocument();
    expect(screen.queryByText('Écran de connexion')).not.toBeInTheDocument();
    release();
    expect(await screen.findByText('Écran de connexion')).toBeInTheDocument();
  });

  it('waits for the active sites of a provider', async () => {
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    mockApi({ 'GET /api/logged': loggedAs(['ROLE_PRESTATAIRE']), 'GET /api/admin/site/get/all/actif': async () => (await held, reply(200, [])) });
    renderApp('/admin/choix/site', { loggedRoutes: ALL_ADMIN_SCREENS });
    expect(await screen.findByText('Chargement…')).toBeInTheDocument();
    release();
    expect(await screen.findByText('Écran choix du site')).toBeInTheDocument();
  });

  it('does not wait for the active sites of a plain referent', async () => {
    // The list never comes: the screen shows all the same. (Whether it is asked for at all depends
    // on the modules loaded with the shell, such as the field outbox's refresh of its copies.)
    mockApi({ 'GET /api/logged': loggedAs(['ROLE_USER']), 'GET /api/admin/site/get/all/actif': () => new Promise<never>(() => {}) });
    renderApp('/admin/choix/site', { loggedRoutes: ALL_ADMIN_SCREENS });
    expect(await screen.findByText('Écran choix du site')).toBeInTheDocument();
  });

  it('reopens with the last known session when the server cannot be reached', async () => {
    mockApi({ 'GET /api/logged': loggedAs(['ROLE_ADMIN']) });
    const online = renderApp('/admin/site', { loggedRoutes: ALL_ADMIN_SCREENS });
    await screen.findByText('Écran sites');
    online.unmount();
    vi.unstubAllGlobals();

    mockApi({ 'GET /api/logged': 'network', 'GET /api/typeAction/get/all': 'network', 'GET /api/admin/site/get/all/actif': 'network', 'GET /api/app/info/get': 'network' });
    renderApp('/admin/site', { loggedRoutes: ALL_ADMIN_SCREENS });
    expect(await screen.findByText('Écran sites')).toBeInTheDocument();
    expect(within(drawer()).getByRole('link', { name: 'Sites' })).toBeInTheDocument();
  });

  it('offers to retry when the action types cannot be loaded', async () => {
    let fail = true;
    mockApi({ 'GET /api/typeAction/get/all': () => (fail ? reply(500, { status: 'error', message: 'Une erreur est survenue.' }) : reply(200, [])) });
    renderApp('/login', { publicRoutes: [screenAt('/login', 'Écran de connexion')] });
    const retry = await screen.findByRole('button', { name: 'Réessayer' });
    fail = false;
    await userEvent.click(retry);
    expect(await screen.findByText('Écran de connexion')).toBeInTheDocument();
  });
});

describe('page titles', () => {
  it("names each screen in the document title, before the application name, and gives it one h1", async () => {
    mockApi({ 'GET /api/logged': loggedAs(['ROLE_ADMIN']), 'GET /api/app/info/get': reply(200, { appName: 'Compost Brest', contact: '' }) });
    const { router } = renderApp('/admin/site', {
      loggedRoutes: [
        { path: '/admin/site', element: <PageTitle>Sites</PageTitle> },
        { path: '/admin/user', element: <PageTitle>Utilisateurs</PageTitle> },
        { path: '/admin/choix/site', element: <p>Écran sans titre</p> },
      ],
    });
    expect(await screen.findByRole('heading', { level: 1, name: 'Sites' })).toBeInTheDocument();
    await waitFor(() => expect(document.title).toBe('Sites – Compost Brest'));
    expect(screen.getAllByRole('heading', { level: 1 })).toHaveLength(1);
    await router.navigate('/admin/user');
    await waitFor(() => expect(document.title).toBe('Utilisateurs – Compost Brest'));
    // A screen that does not name itself leaves the application name alone.
    await router.navigate('/admin/choix/site');
    await screen.findByText('Écran sans titre');
    await waitFor(() => expect(document.title).toBe('Compost Brest'));
  });

  it('titles the not-found page', async () => {
    mockApi();
    renderApp('/nulle/part');
    expect(await screen.findByRole('heading', { level: 1, name: 'Page introuvable' })).toBeInTheDocument();
    await waitFor(() => expect(document.title).toBe('Page introuvable – Compost'));
  });
});

describe('routes', () => {
  it('shows a French not-found page with a way home for an unknown address', async () => {
    mockApi();
    renderApp('/nulle/part');
    expect(await screen.findByRole('heading', { name: 'Page introuvable' })).toBeInTheDocument();
    expect(screen.getByRole('link', { name: 'Retour à l’accueil' })).toHaveAttribute('href', '/');
  });

  it('sends a visitor who opens a logged-in screen to the login page', async () => {
    mockApi();
    const { router } = renderApp('/admin/site', { publicRoutes: [screenAt('/login', 'Écran de connexion')], loggedRoutes: ALL_ADMIN_SCREENS });
    expect(await screen.findByText('Écran de connexion')).toBeInTheDocument();
    expect(router.state.location.pathname).toBe('/login');
  });

  it('lets a visitor open a public screen of a domain', async () => {
    mockApi();
    renderApp('/interventions/site/4', { publicRoutes: [screenAt('/interventions/site/:id', 'Interventions du site')] });
    expect(await screen.findByText('Interventions du site')).toBeInTheDocument();
  });
});

describe('/admin', () => {
  it.each([
    [['ROLE_ADMIN'], '/admin/site', 'Écran sites'],
    [['ROLE_USER'], '/admin/choix/site', 'Écran choix du site'],
    [['ROLE_PRESTATAIRE'], '/admin/choix/site', 'Écran choix du site'],
    [['ROLE_ADMIN_SITE'], '/admin/site', 'Écran sites'],
    [['ROLE_ADMIN_USER'], '/admin/user', 'Écran utilisateurs'],
    [['ROLE_ADMIN_ROLE'], '/admin/role', 'Écran rôles'],
    [['ROLE_ADMIN_COMPOSTEUR'], '/admin/composteur', 'Écran composteurs'],
  ])('sends %j to %s', async (roles, path, text) => {
    mockApi({ 'GET /api/logged': loggedAs(roles) });
    const { router } = renderApp('/admin', { loggedRoutes: ALL_ADMIN_SCREENS });
    // The redirect waits for the session and the lazy screen: seconds on a busy machine.
    expect(await screen.findByText(text, {}, { timeout: 15_000 })).toBeInTheDocument();
    expect(router.state.location.pathname).toBe(path);
  });

  it('shows Redirection... and logs out a role without a home screen', async () => {
    mockApi({ 'GET /api/logged': loggedAs(['ROLE_ADMIN_UPDATE']) });
    renderApp('/admin', { loggedRoutes: ALL_ADMIN_SCREENS });
    expect(await screen.findByText('Redirection...')).toBeInTheDocument();
    await waitFor(() => expect(assign).toHaveBeenCalledWith('/logout'));
  });
});
