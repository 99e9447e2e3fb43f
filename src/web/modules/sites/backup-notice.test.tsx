// The backup notice on the administrator's home (the sites screen): the last backup in grey,
// overdue backups in red with the reason, 'Sauvegarder maintenant' that makes one and refreshes
// the notice, and nothing at all for an account that may not manage backups.
import { afterEach, describe, expect, it, vi } from 'vitest';
import { cleanup, screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { loggedAs, mockApi, renderApp, reply } from '../../../../tests/helpers/web-app';
import { behaveLikeABrowserForTables } from '../../../../tests/helpers/web-screens';
import { sitesRoutes } from './sites.routes';

afterEach(() => {
  cleanup();
  vi.unstubAllGlobals();
});
behaveLikeABrowserForTables();

const SITES = {
  'GET /api/admin/site/get/list/by/filters': reply(200, { count: 0, sites: [] }),
  'GET /api/ville/get/all': reply(200, []),
  'GET /api/admin/statut/get/all/sites': reply(200, []),
};

describe('backup notice', () => {
  it('shows the last backup to an administrator', async () => {
    mockApi({
      ...SITES,
      'GET /api/logged': loggedAs(['ROLE_ADMIN']),
      'GET /api/admin/sauvegarde/status': reply(200, { derniere: '2026-11-28T02:15:00.000Z', fichier: '/srv/b/x.jsonl.gz', taille: 5 * 1024 * 1024, erreur: null, enRetard: false }),
    });
    renderApp('/admin/site', { loggedRoutes: sitesRoutes });
    expect(await screen.findByText('Dernière sauvegarde : 28/11/2026 03:15 (5 Mo)', {}, { timeout: 10_000 })).toBeInTheDocument();
    expect(screen.queryByRole('alert')).toBeNull();
    expect(screen.getByRole('button', { name: 'Sauvegarder maintenant' })).toBeInTheDocument();
  }, 30_000);

  it('says in red why the backups are overdue, and makes one now', async () => {
    let made = false;
    const api = mockApi({
      ...SITES,
      'GET /api/logged': loggedAs(['ROLE_ADMIN']),
      'GET /api/admin/sauvegarde/status': () =>
        made
          ? reply(200, { derniere: '2026-11-28T10:00:00.000Z', fichier: '/srv/b/y.jsonl.gz', taille: 2048, erreur: null, enRetard: false })
          : reply(200, { derniere: '2026-11-25T02:15:00.000Z', fichier: '/srv/b/x.jsonl.gz', taille: 2048, erreur: 'ENOSPC: no space left on device', enRetard: true }),
      'POST /api/admin/sauvegarde/run': () => {
        made = true;
        return reply(200, { status: 'success', message: 'Sauvegarde écrite : /srv/b/y.jsonl.gz (2 Ko)', fichier: '/srv/b/y.jsonl.gz', taille: 2048, sha256: 'a'.repeat(64) });
      },
    });
    renderApp('/admin/site', { loggedRoutes: sitesRoutes });
    const alert = await screen.findByRole('alert', {}, { timeout: 10_000 });
    expect(alert).toHaveTextContent('Sauvegardes en retard');
    expect(alert).toHaveTextContent('La dernière sauvegarde a échoué : ENOSPC: no space left on device');
    expect(alert).toHaveTextContent('Dernière sauvegarde : 25/11/2026 03:15 (2 Ko).');
    await userEvent.click(screen.getByRole('button', { name: 'Sauvegarder maintenant' }));
    expect(await screen.findByText('Sauvegarde écrite : /srv/b/y.jsonl.gz (2 Ko)')).toBeInTheDocument();
    await waitFor(() => expect(screen.queryByText('Sauvegardes en retard')).toBeNull());
    expect(screen.getByText('Dernière sauvegarde : 28/11/2026 11:00 (2 Ko)')).toBeInTheDocument();
    expect(api.callsTo('POST', '/api/admin/sauvegarde/run')).toHaveLength(1);
  }, 30_000);

  it('shows the server’s reason when the backup cannot be made', async () => {
    mockApi({
      ...SITES,
      'GET /api/logged': loggedAs(['ROLE_ADMIN']),
      'GET /api/admin/sauvegarde/status': reply(200, { derniere: null, fichier: null, taille: null, erreur: null, enRetard: false }),
      'POST /api/admin/sauvegarde/run': reply(409, { status: 'error', message: 'Une sauvegarde est déjà en cours.' }),
    });
    renderApp('/admin/site', { loggedRoutes: sitesRoutes });
    expect(await screen.findByText('Aucune sauvegarde pour le moment', {}, { timeout: 10_000 })).toBeInTheDocument();
    await userEvent.click(screen.getByRole('button', { name: 'Sauvegarder maintenant' }));
    expect(await screen.findByText('Une sauvegarde est déjà en cours.')).toBeInTheDocument();
  }, 30_000);

  it('shows nothing to a site manager, and does not ask', async () => {
    const api = mockApi({ ...SITES, 'GET /api/logged': loggedAs(['ROLE_ADMIN_SITE']) });
    renderApp('/admin/site', { loggedRoutes: sitesRoutes });
    expect(await screen.findByRole('table', { name: 'Sites' }, { timeout: 10_000 })).toBeInTheDocument();
    expect(screen.queryByRole('button', { name: 'Sauvegarder maintenant' })).toBeNull();
    expect(api.callsTo('GET', '/api/admin/sauvegarde/status')).toHaveLength(0);
  }, 30_000);
});
