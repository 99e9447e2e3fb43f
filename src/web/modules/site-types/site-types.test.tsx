import { cleanup, screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { loggedAs, mockApi, renderApp, reply } from '../../app/test-utils';
import { formatSiteTypeCode } from '../../../shared/schemas/site-types';
import { siteTypesRoutes } from './site-types.routes';

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
    expect(await screen.findByRole('heading', { name: 'Types de Site' })).toBeInTheDocument();
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
