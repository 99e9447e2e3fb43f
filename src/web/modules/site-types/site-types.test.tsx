import { cleanup, screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { loggedAs, mockApi, renderApp, reply } from '../../../../tests/helpers/web-app';
import { behaveLikeABrowserForTables } from '../../../../tests/helpers/web-screens';
import { formatSiteTypeCode } from '../../../shared/schemas/site-types';
import { siteTypesRoutes } from './site-types.routes';

behaveLikeABrowserForTables();
afterEach(() => {
  cleanup();
  vi.unstubAllGlobals();
});

describe('formatSiteTypeCode', () => {
  it('keeps at most three upper-case letters', () => {
    expect(formatSiteTypeCode('qua')).toBe('QUA');
    expect(formatSiteTypeCode('é1c-ol')).toBe('ECO');
  });
});

describe('site types screen', () => {
  it('forces the code to upper case and shows the server error under it', async () => {
    const api = mockApi({
      'GET /api/logged': loggedAs(['ROLE_ADMIN_SITE']),
      'GET /api/admin/typeSite/get/list/by/filters': reply(200, { count: 1, typeSites: [{ id: 2, libelle: 'Quartier', code: 'QUA' }] }),
      'POST /api/admin/typeSite/add': reply(400, { status: 'error', errors: [{ key: 'code', error: 'Ce code est déjà utilisé par un autre type de site' }], message: 'Veuillez renseigner les champs obligatoires' }),
    });
    renderApp('/admin/typeSite', { loggedRoutes: siteTypesRoutes });
    // The shell loads first: on a busy machine that takes more than the default second.
    expect(await screen.findByRole('heading', { name: 'Types de Site' }, { timeout: 5000 })).toBeInTheDocument();
    expect(await screen.findByText('Quartier')).toBeInTheDocument();
    await userEvent.click(screen.getByRole('button', { name: 'Ajouter un type de site' }));
    const dialog = await screen.findByRole('dialog', { name: 'Ajouter un type de site' });
    await userEvent.type(within(dialog).getByLabelText(/Libellé/), 'Quartier bis');
    const code = within(dialog).getByLabelText(/Code/);
    await userEvent.type(code, 'quar');
    expect(code).toHaveValue('QUA');
    await userEvent.click(within(dialog).getByRole('button', { name: 'Enregistrer' }));
    expect(await within(dialog).findByText('Ce code est déjà utilisé par un autre type de site')).toBeInTheDocument();
    expect(within(dialog).getByRole('alert')).toHaveTextContent('Veuillez renseigner les champs obligatoires');
    expect(api.callsTo('POST', '/api/admin/typeSite/add')[0].body).toEqual({ libelle: 'Quartier bis', code: 'QUA' });
  });
});
