// The coordinates of the site form: shown with a decimal comma, typed with a comma or a point,
// a position from the address said so with the way to correct it, the server's refusals under
// the fields.
import { afterEach, describe, expect, it, vi } from 'vitest';
import { cleanup, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { loggedAs, mockApi, renderApp, reply } from '../../../../tests/helpers/web-app';
import { behaveLikeABrowserForTables } from '../../../../tests/helpers/web-screens';
import type { SiteDetail, SiteRow } from '../../../shared/schemas/sites';
import { sitesRoutes } from './sites.routes';

const row: SiteRow = {
  id: 1,
  code: 'QUA001',
  nom: 'Jardin du Vallon',
  ville: 'Brest',
  cp: '29200',
  adresse: 'Rue de Siam',
  numero: '3',
  complement: null,
  idType: 2,
  typeSite: 'Quartier',
  referent: null,
  volume: 0,
  nbComposteurs: 0,
  cadena: null,
  observations: null,
  statut: 'Actif',
  idStatut: 1,
  dateConvention: null,
  dateImplantation: null,
  dateInauguration: null,
  idDemandeur: null,
};

function detail(o: Partial<SiteDetail>): SiteDetail {
  return { ...row, dateConventions: [], referents: [], horaires: null, consignes: null, latitude: 48.3881, longitude: -4.489, coordonneesSource: 'ban', openData: true, ...o };
}

function mockSite(site: SiteDetail, update = reply(200, { status: 'success' })) {
  return mockApi({
    'GET /api/logged': loggedAs(['ROLE_ADMIN']),
    'GET /api/admin/site/get/list/by/filters': reply(200, { count: 1, sites: [row] }),
    'GET /api/ville/get/all': reply(200, [{ nom: 'Brest', cp: '29200', codeInsee: '29019' }]),
    'GET /api/admin/statut/get/all/sites': reply(200, [
      { id: 1, libelle: 'Actif' },
      { id: 2, libelle: 'Demande' },
    ]),
    'GET /api/typeSite/get/all': reply(200, [{ id: 2, libelle: 'Quartier', code: 'QUA' }]),
    'GET /api/rues/get/all/Brest': reply(200, [{ nom: 'Rue de Siam' }]),
    'GET /api/admin/site/get/1': reply(200, site),
    'PUT /api/admin/site/update/1': update,
  });
}

behaveLikeABrowserForTables();
afterEach(() => {
  cleanup();
  vi.unstubAllGlobals();
});

describe('site position in the edit form', () => {
  const user = () => userEvent.setup({ delay: null });
  async function openEdit() {
    renderApp('/admin/site', { loggedRoutes: sitesRoutes });
    const u = user();
    await u.click(await screen.findByRole('button', { name: 'Actions du site Jardin du Vallon (QUA001)' }, { timeout: 10_000 }));
    await u.click(await screen.findByRole('menuitem', { name: 'Modifier Site' }, { timeout: 5000 }));
    const dialog = await screen.findByRole('dialog', { name: 'Modifier Site' }, { timeout: 5000 });
    const latitude = await within(dialog).findByRole('textbox', { name: 'Latitude' }, { timeout: 5000 });
    return { u, dialog, latitude, longitude: within(dialog).getByRole('textbox', { name: 'Longitude' }) };
  }

  it('shows a position from the address with decimal commas, says it is estimated and how to correct it, and sends it back as numbers', async () => {
    const api = mockSite(detail({}));
    const { u, dialog, latitude, longitude } = await openEdit();
    expect(latitude).toHaveValue('48,3881');
    expect(longitude).toHaveValue('-4,489');
    expect(within(dialog).getByText(/^Position estimée depuis l'adresse\./)).toHaveTextContent(
      "Position estimée depuis l'adresse. Pour la corriger, saisissez d'autres valeurs : elles seront gardées telles quelles. Videz les deux champs pour revenir à l'adresse.",
    );
    await u.click(within(dialog).getByRole('button', { name: 'Enregistrer' }));
    await waitFor(() => expect(api.callsTo('PUT', '/api/admin/site/update/1')).toHaveLength(1));
    expect(api.callsTo('PUT', '/api/admin/site/update/1')[0].body).toMatchObject({ latitude: 48.3881, longitude: -4.489 });
  }, 40_000);

  it('takes typed values with a point or a comma, says they will be kept as typed, and back to the address when both are emptied', async () => {
    const api = mockSite(detail({}));
    const { u, dialog, latitude, longitude } = await openEdit();
    await u.clear(latitude);
    await u.type(latitude, '48.4');
    await u.clear(longitude);
    await u.type(longitude, '-4,5');
    expect(within(dialog).getByText("Position saisie : elle sera gardée telle quelle, même si l'adresse change.")).toBeInTheDocument();
    expect(within(dialog).queryByText(/Position estimée depuis l'adresse/)).toBeNull();
    await u.click(within(dialog).getByRole('button', { name: 'Enregistrer' }));
    await waitFor(() => expect(api.callsTo('PUT', '/api/admin/site/update/1')).toHaveLength(1));
    expect(api.callsTo('PUT', '/api/admin/site/update/1')[0].body).toMatchObject({ latitude: 48.4, longitude: -4.5 });
    await screen.findByText('Site modifié', {}, { timeout: 5000 });

    cleanup();
    const again = mockSite(detail({ latitude: 48.41, longitude: -4.51, coordonneesSource: 'saisie' }));
    const second = await openEdit();
    expect(second.latitude).toHaveValue('48,41');
    expect(within(second.dialog).getByText("Position saisie : elle est gardée même si l'adresse change. Videz les deux champs pour revenir à l'adresse.")).toBeInTheDocument();
    await second.u.clear(second.latitude);
    await second.u.clear(second.longitude);
    expect(
      within(second.dialog).getByText("Laissées vides, les coordonnées sont reprises de l'adresse quand la rue et le numéro figurent dans les adresses importées."),
    ).toBeInTheDocument();
    await second.u.click(within(second.dialog).getByRole('button', { name: 'Enregistrer' }));
    await waitFor(() => expect(again.callsTo('PUT', '/api/admin/site/update/1')).toHaveLength(1));
    const body = again.callsTo('PUT', '/api/admin/site/update/1')[0].body as Record<string, unknown>;
    expect(body.latitude ?? null).toBeNull();
    expect(body.longitude ?? null).toBeNull();
  }, 60_000);

  it("shows the server's refusal of a swapped pair under both fields", async () => {
    const swapped = 'Latitude et longitude inversées ?';
    mockSite(
      detail({}),
      reply(400, {
        status: 'error',
        errors: [
          { key: 'latitude', error: swapped },
          { key: 'longitude', error: swapped },
        ],
      }),
    );
    const { u, dialog, latitude, longitude } = await openEdit();
    await u.clear(latitude);
    await u.type(latitude, '-4,4861');
    await u.clear(longitude);
    await u.type(longitude, '48,3904');
    await u.click(within(dialog).getByRole('button', { name: 'Enregistrer' }));
    await waitFor(() => expect(within(dialog).getAllByText(swapped)).toHaveLength(2));
    expect(latitude).toHaveAccessibleDescription(swapped);
    expect(longitude).toHaveAccessibleDescription(swapped);
  }, 40_000);
});
