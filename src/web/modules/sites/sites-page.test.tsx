import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { cleanup, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { loggedAs, mockApi, renderApp, reply } from '../../app/test-utils';
import type { SiteRow } from '../../../shared/schemas/sites';
import { sitesRoutes } from './sites.routes';
import { nextFreeNumero } from './site-form-dialog';
import { parseFrenchDate } from './site-date-input';

const row = (o: Partial<SiteRow>): SiteRow => ({
  id: 1,
  code: 'QUA001',
  nom: 'Jardin du Vallon',
  ville: 'Brest',
  cp: '29200',
  adresse: 'Rue de Siam',
  numero: '4',
  complement: null,
  idType: 2,
  typeSite: 'Quartier',
  referent: 'DUPONT Jeanne',
  volume: 1400,
  nbComposteurs: 2,
  cadena: '1234',
  observations: null,
  statut: 'Actif',
  idStatut: 1,
  dateConvention: '2024-03-05T12:00:00.000Z',
  dateImplantation: null,
  dateInauguration: null,
  idDemandeur: null,
  ...o,
});

function mockSites(extra: Parameters<typeof mockApi>[0] = {}) {
  return mockApi({
    'GET /api/logged': loggedAs(['ROLE_ADMIN']),
    'GET /api/admin/site/get/list/by/filters': reply(200, {
      count: 2,
      sites: [row({}), row({ id: 2, code: 'SCO001', nom: 'Demande école', statut: 'Demande', idStatut: 2, idDemandeur: 9, referent: null, volume: 0, nbComposteurs: 0, dateConvention: null })],
    }),
    'GET /api/ville/get/all': reply(200, [{ nom: 'Brest', cp: '29200', codeInsee: '29019' }]),
    'GET /api/admin/statut/get/all/sites': reply(200, [
      { id: 1, libelle: 'Actif' },
      { id: 2, libelle: 'Demande' },
    ]),
    'GET /api/typeSite/get/all': reply(200, [{ id: 2, libelle: 'Quartier', code: 'QUA' }]),
    'GET /api/typeComposteur/get/all': reply(200, [{ id: 1, volume: 400, precisions: 'Bac bois 400 L' }]),
    'GET /api/typeBac/get/all': reply(200, [{ id: 1, libelle: 'Apport' }]),
    'GET /api/rues/get/all/Brest': reply(200, [{ nom: 'Rue de Siam' }]),
    ...extra,
  });
}

// mantine-datatable shows a column when matchMedia('') matches, as in a real browser; the
// shared jsdom stub matches nothing. The table also scrolls to the top, which jsdom lacks.
const originalMatchMedia = window.matchMedia;
beforeAll(() => {
  Element.prototype.scrollTo ??= function scrollTo() {};
  // Mantine's autosize textarea listens to document.fonts, which jsdom lacks.
  if (!('fonts' in document)) Object.defineProperty(document, 'fonts', { configurable: true, value: { addEventListener() {}, removeEventListener() {} } });
  window.matchMedia = (query: string) => ({ ...originalMatchMedia(query), matches: query.trim() === '' }) as MediaQueryList;
});
afterAll(() => {
  window.matchMedia = originalMatchMedia;
});
afterEach(() => {
  cleanup();
  vi.unstubAllGlobals();
});

describe('sites screen', () => {
  it('shows the columns of the spec in order and asks for the first 10 sites sorted by name', async () => {
    const api = mockSites();
    renderApp('/admin/site', { loggedRoutes: sitesRoutes });
    const table = await screen.findByRole('table', { name: 'Sites' });
    await within(table).findByText('Jardin du Vallon', {}, { timeout: 5000 });
    const headers = [...table.querySelectorAll('thead th')].map((h) => h.textContent?.trim());
    expect(headers).toEqual([
      'Actions',
      'Nom / Code',
      'Ville',
      'Adresse',
      'Précisions',
      'Type',
      'Référent(s)',
      'Volume total',
      'nb Composteurs',
      'Cadena',
      'Observations',
      'Statut',
      'Date Convention',
      'Date Implantation',
      'Date inauguration',
    ]);
    const listCall = api.callsTo('GET', '/api/admin/site/get/list/by/filters')[0];
    expect(decodeURIComponent(listCall.path)).toContain('rowsPerPage=10&sort[name]=nom&sort[direction]=asc');
    expect(within(table).getByText('05/03/2024')).toBeInTheDocument();
  }, 40_000);

  it('offers referents and cells only on an installed site, and the requester only where there is one', async () => {
    mockSites();
    renderApp('/admin/site', { loggedRoutes: sitesRoutes });
    await screen.findByText('Jardin du Vallon', {}, { timeout: 5000 });
    expect(screen.getByRole('button', { name: 'Référents du site Jardin du Vallon (QUA001)' })).toBeInTheDocument();
    expect(screen.getByRole('button', { name: 'Composteurs du site Jardin du Vallon (QUA001)' })).toBeInTheDocument();
    expect(screen.queryByRole('button', { name: 'Référents du site Demande école (SCO001)' })).toBeNull();
    expect(screen.queryByRole('button', { name: 'Composteurs du site Demande école (SCO001)' })).toBeNull();

    const user = userEvent.setup({ delay: null });
    await user.click(screen.getByRole('button', { name: 'Actions du site Jardin du Vallon (QUA001)' }));
    expect(await screen.findByRole('menuitem', { name: 'Détails demande' })).toBeDisabled();
    await user.keyboard('{Escape}');
    await user.click(screen.getByRole('button', { name: 'Actions du site Demande école (SCO001)' }));
    expect(await screen.findByRole('menuitem', { name: 'Détails demande' })).toBeEnabled();
  }, 40_000);

  it('refuses an empty site without calling the server, then shows the server errors under the cells', async () => {
    const api = mockSites({
      'POST /api/admin/site/add': reply(400, {
        status: 'error',
        errors: [{ key: 'composteurs0.numero', error: 'Ce numéro est déjà utilisé sur ce site' }],
        message: 'Veuillez renseigner les champs obligatoires',
      }),
    });
    renderApp('/admin/site', { loggedRoutes: sitesRoutes });
    const user = userEvent.setup({ delay: null });
    await user.click(await screen.findByRole('button', { name: 'Ajouter un site' }, { timeout: 5000 }));
    const dialog = await screen.findByRole('dialog', { name: 'Ajouter un site' });
    await user.click(within(dialog).getByRole('button', { name: 'Enregistrer' }));
    expect(await within(dialog).findByRole('alert')).toHaveTextContent('Veuillez renseigner les champs obligatoires');
    expect(api.callsTo('POST', '/api/admin/site/add')).toHaveLength(0);

    await user.click(within(dialog).getByRole('combobox', { name: 'Type de site' }));
    await user.click(await screen.findByRole('option', { name: 'Quartier (QUA)' }));
    await user.click(within(dialog).getByRole('combobox', { name: 'Ville' }));
    await user.click(await screen.findByRole('option', { name: 'Brest (29200)' }));
    expect(within(dialog).getByRole('textbox', { name: 'Code postal' })).toHaveValue('29200');
    await user.click(within(dialog).getByRole('combobox', { name: 'Adresse' }));
    await user.paste('Rue de Siam');
    await user.click(within(dialog).getByRole('button', { name: 'Ajouter un composteur' }));
    await user.click(within(dialog).getByRole('combobox', { name: 'Composteur' }));
    await user.click(await screen.findByRole('option', { name: '400 L - Bac bois 400 L' }));
    await user.click(within(dialog).getByRole('combobox', { name: 'Usage' }));
    await user.click(await screen.findByRole('option', { name: 'Apport' }));
    await user.click(within(dialog).getByRole('button', { name: 'Enregistrer' }));

    expect(await within(dialog).findByText('Ce numéro est déjà utilisé sur ce site')).toBeInTheDocument();
    const [call] = api.callsTo('POST', '/api/admin/site/add');
    expect(call.body).toMatchObject({ statut: 1, type: 2, ville: 'Brest', cp: '29200', adresse: 'Rue de Siam', composteurs: [{ composteur: 1, typeBac: 1, numero: 1 }], demandeur: null });
  }, 40_000);

  it('sends the requester, and no cells, for a status 2 site', async () => {
    const api = mockSites({ 'POST /api/admin/site/add': reply(200, { status: 'success', id: 3, code: 'QUA002' }) });
    renderApp('/admin/site', { loggedRoutes: sitesRoutes });
    const user = userEvent.setup({ delay: null });
    await user.click(await screen.findByRole('button', { name: 'Ajouter un site' }, { timeout: 5000 }));
    const dialog = await screen.findByRole('dialog', { name: 'Ajouter un site' });
    await user.click(within(dialog).getByRole('combobox', { name: 'Statut' }));
    await user.click(await screen.findByRole('option', { name: 'Demande' }));
    const requester = within(dialog).getByRole('group', { name: 'Demandeur' });
    expect(within(dialog).queryByRole('group', { name: 'Composteurs' })).toBeNull();
    await user.click(within(dialog).getByRole('combobox', { name: 'Type de site' }));
    await user.click(await screen.findByRole('option', { name: 'Quartier (QUA)' }));
    await user.click(within(dialog).getByRole('combobox', { name: 'Ville' }));
    await user.click(await screen.findByRole('option', { name: 'Brest (29200)' }));
    await user.click(within(dialog).getByRole('combobox', { name: 'Adresse' }));
    await user.paste('Rue de Siam');
    await user.click(within(requester).getByRole('combobox', { name: 'Civilité' }));
    await user.click(await screen.findByRole('option', { name: 'Monsieur' }));
    await user.click(within(requester).getByRole('combobox', { name: 'Fonction' }));
    await user.click(await screen.findByRole('option', { name: 'Autre' }));
    await user.click(within(requester).getByRole('textbox', { name: 'Nom' }));
    await user.paste('kerjean');
    expect(within(requester).getByRole('textbox', { name: 'Nom' })).toHaveValue('KERJEAN');
    await user.click(within(requester).getByRole('textbox', { name: 'Prénom' }));
    await user.paste('yves');
    await user.click(within(requester).getByRole('textbox', { name: 'Téléphone' }));
    await user.paste('0298112233');
    await user.click(within(dialog).getByRole('button', { name: 'Enregistrer' }));
    expect(await within(requester).findByText('Précisez la fonction')).toBeInTheDocument();
    await user.click(within(requester).getByRole('textbox', { name: 'Précisions sur la fonction' }));
    await user.paste('Association');
    await user.click(within(dialog).getByRole('button', { name: 'Enregistrer' }));

    await waitFor(() => expect(api.callsTo('POST', '/api/admin/site/add')).toHaveLength(1));
    expect(api.callsTo('POST', '/api/admin/site/add')[0].body).toMatchObject({
      statut: 2,
      composteurs: [],
      demandeur: { civilite: 'Monsieur', nom: 'KERJEAN', prenom: 'Yves', fonction: 'Autre', precisions: 'Association', telephone: '0298112233' },
    });
    expect(await screen.findByText('Site ajouté')).toBeInTheDocument();
  }, 40_000);
});

describe('site form helpers', () => {
  it('reads dd/MM/yyyy dates and refuses impossible ones', () => {
    expect(parseFrenchDate('05/03/2024')).toBe('2024-03-05');
    expect(parseFrenchDate('5/3/2024')).toBe('2024-03-05');
    expect(parseFrenchDate('31/02/2024')).toBeNull();
    expect(parseFrenchDate('2024-03-05')).toBeNull();
  });

  it('proposes the first free cell number', () => {
    expect(nextFreeNumero([])).toBe(1);
    expect(nextFreeNumero([{ numero: 1 }, { numero: '' }], [2])).toBe(3);
    expect(nextFreeNumero([], Array.from({ length: 20 }, (_, i) => i + 1))).toBe(0);
    expect(nextFreeNumero([], Array.from({ length: 21 }, (_, i) => i))).toBe('');
  });
});
