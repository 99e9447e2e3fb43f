import { afterEach, describe, expect, it, vi } from 'vitest';
import { cleanup, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { loggedAs, mockApi, renderApp, reply } from '../../../../tests/helpers/web-app';
import { behaveLikeABrowserForTables } from '../../../../tests/helpers/web-screens';
import type { SiteRow } from '../../../shared/schemas/sites';
import { downloader } from '../../lib/download';
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

behaveLikeABrowserForTables();
afterEach(() => {
  cleanup();
  vi.unstubAllGlobals();
});

describe('sites screen', () => {
  it('shows long site names whole, so that two sharing their first 60 characters stay apart', async () => {
    const prefix = 'Jardin partagé de la résidence des Capucins, entrée principa';
    expect(prefix).toHaveLength(60);
    const sites = [row({ nom: `${prefix}le nord` }), row({ id: 2, code: 'QUA002', nom: `${prefix}le sud` })];
    mockSites({ 'GET /api/admin/site/get/list/by/filters': reply(200, { count: 2, sites }) });
    renderApp('/admin/site', { loggedRoutes: sitesRoutes });
    const table = await screen.findByRole('table', { name: 'Sites' }, { timeout: 10_000 });
    for (const site of sites) {
      const name = await within(table).findByText(site.nom!, {}, { timeout: 5000 });
      // Not in a one-line cell cut with an ellipsis: the cell wraps and shows all of it.
      expect(name.closest('.compost-ellipsis')).toBeNull();
      expect(name.closest('td')).toHaveTextContent(`${site.nom} ${site.code}`);
    }
  }, 40_000);

  it('shows the columns of the spec in order and asks for the first 10 sites sorted by name', async () => {
    const api = mockSites();
    renderApp('/admin/site', { loggedRoutes: sitesRoutes });
    const table = await screen.findByRole('table', { name: 'Sites' }, { timeout: 5000 });
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

  it("starts from the link's filters and sort, shows them as chips and writes a change back to the URL", async () => {
    const api = mockSites();
    const { router } = renderApp('/admin/site?nom=vallon&ville=Brest&statut=1&tri=ville&sens=desc', { loggedRoutes: sitesRoutes });
    const table = await screen.findByRole('table', { name: 'Sites' }, { timeout: 5000 });
    await within(table).findByText('Jardin du Vallon', {}, { timeout: 5000 });
    const query = new URLSearchParams(api.callsTo('GET', '/api/admin/site/get/list/by/filters')[0].path.split('?')[1]);
    expect(query.get('filter[nom]')).toBe('vallon');
    expect(query.getAll('filter[ville]')).toEqual(['Brest']);
    expect(query.getAll('filter[statut]')).toEqual(['1']);
    expect(query.get('sort[name]')).toBe('ville');
    expect(query.get('sort[direction]')).toBe('desc');
    const chips = screen.getByRole('group', { name: 'Filtres actifs' });
    expect(within(chips).getByRole('button', { name: /^Retirer le filtre Nom \/ Code\s:\svallon$/ })).toBeInTheDocument();
    // A status chip reads as its label once the statuses are known.
    expect(await within(chips).findByRole('button', { name: /^Retirer le filtre Statut\s:\sActif$/ })).toBeInTheDocument();
    expect(within(table).getByRole('columnheader', { name: 'Ville' })).toHaveAttribute('aria-sort', 'descending');

    await userEvent.click(within(chips).getByRole('button', { name: /^Retirer le filtre Ville/ }));
    await waitFor(() => expect(router.state.location.search).toBe('?nom=vallon&statut=1&tri=ville&sens=desc'));
    // The name and the code share one line of one cell.
    const row = within(table).getByText('Jardin du Vallon').closest('tr')!;
    expect(within(row).getByText('QUA001').closest('td')).toBe(within(row).getByText('Jardin du Vallon').closest('td'));
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

describe('sites screen dialogs', () => {
  const user = () => userEvent.setup({ delay: null });
  const openMenu = async (u: ReturnType<typeof user>, siteLabel: string, item: string) => {
    await u.click(await screen.findByRole('button', { name: `Actions du site ${siteLabel}` }, { timeout: 5000 }));
    await u.click(await screen.findByRole('menuitem', { name: item }, { timeout: 5000 }));
  };

  it("shows the site's interventions full screen with the administrator's columns, filtered on date and action", async () => {
    const api = mockSites({
      'GET /api/typeAction/get/all': reply(200, [
        { id: 1, libelle: 'Retournement', valeur: false, typeBac: [1, 3], aConstantes: false },
        { id: 15, libelle: 'Arrosage', valeur: true, typeBac: [1, 3], aConstantes: false },
      ]),
      'GET /api/admin/intervention/get/list/by/filters': reply(200, {
        count: 1,
        interventions: [
          {
            id: 40,
            date: '2024-06-30T22:30:00.000Z',
            intervenant: 'LE BRIS Anne',
            typeBac: 'Apport',
            numeroBac: 2,
            typeAction: 'Arrosage',
            idAction: 15,
            valeur: '20 L',
            observations: 'Très sec',
          },
        ],
      }),
    });
    renderApp('/admin/site', { loggedRoutes: sitesRoutes });
    const u = user();
    await openMenu(u, 'Jardin du Vallon (QUA001)', 'Voir les interventions');
    const dialog = await screen.findByRole('dialog', { name: 'Interventions du site Jardin du Vallon - QUA001' }, { timeout: 5000 });
    const table = await within(dialog).findByRole('table', { name: 'Interventions du site' }, { timeout: 5000 });
    await within(table).findByText('LE BRIS Anne', {}, { timeout: 5000 });
    expect([...table.querySelectorAll('thead th')].map((h) => h.textContent?.trim())).toEqual(['Date', 'Intervenant', 'Cellule', 'N°', 'Action', 'Valeur', 'Observations']);
    // 22:30 UTC on 30 June is 00:30 on 1 July in Paris.
    expect(within(table).getByText('01/07/2024 00:30')).toBeInTheDocument();
    expect(within(table).getByText('20 L')).toBeInTheDocument();
    const call = api.callsTo('GET', '/api/admin/intervention/get/list/by/filters')[0];
    expect(decodeURIComponent(call.path)).toMatch(/[?&]id=1(&|$)/);
    expect(within(dialog).getByRole('button', { name: 'Filtrer la colonne Date' })).toBeInTheDocument();
    expect(within(dialog).getByRole('button', { name: 'Filtrer la colonne Action' })).toBeInTheDocument();
    expect(within(dialog).queryByRole('button', { name: 'Filtrer la colonne Intervenant' })).toBeNull();
    expect(dialog).toHaveAttribute('data-full-screen', 'true');
    // The search box of the dialog asks the server, for this site, once the typing pauses.
    await u.type(within(dialog).getByRole('textbox', { name: 'Rechercher' }), 'bris');
    await waitFor(
      () => expect(api.callsTo('GET', '/api/admin/intervention/get/list/by/filters').map((c) => Object.fromEntries(new URL(c.path, 'http://x').searchParams))).toContainEqual(expect.objectContaining({ id: '1', search: 'bris' })),
      { timeout: 3000 },
    );
  }, 40_000);

  it("hands exportSites.csv of the list's search, sort and filters to the browser's downloads, and says so", async () => {
    mockSites();
    const start = vi.spyOn(downloader, 'start').mockImplementation(() => {});
    try {
      renderApp('/admin/site', { loggedRoutes: sitesRoutes });
      const u = user();
      await u.click(await screen.findByRole('button', { name: 'Exporter en CSV' }, { timeout: 5000 }));
      expect(start).toHaveBeenCalledTimes(1);
      const [href, filename] = start.mock.calls[0];
      expect(filename).toBe('exportSites.csv');
      const url = new URL(href, 'http://x');
      expect(url.pathname).toBe('/api/admin/site/export');
      expect(Object.fromEntries(url.searchParams)).toMatchObject({ 'sort[name]': 'nom', 'sort[direction]': 'asc' });
      expect(await screen.findByText('Téléchargement de exportSites.csv lancé')).toBeInTheDocument();
    } finally {
      start.mockRestore();
    }
  }, 40_000);

  it("suggests the chosen city's streets for the address and offers planned years from -10 to +20", async () => {
    mockSites();
    renderApp('/admin/site', { loggedRoutes: sitesRoutes });
    const u = user();
    await u.click(await screen.findByRole('button', { name: 'Ajouter un site' }, { timeout: 5000 }));
    const dialog = await screen.findByRole('dialog', { name: 'Ajouter un site' }, { timeout: 5000 });
    expect(within(dialog).getByRole('textbox', { name: 'Code postal' })).toHaveAttribute('readonly');
    await u.click(within(dialog).getByRole('combobox', { name: 'Ville' }));
    await u.click(await screen.findByRole('option', { name: 'Brest (29200)' }, { timeout: 5000 }));
    await u.type(within(dialog).getByRole('combobox', { name: 'Adresse' }), 'siam');
    await u.click(await screen.findByRole('option', { name: 'Rue de Siam' }, { timeout: 5000 }));
    expect(within(dialog).getByRole('combobox', { name: 'Adresse' })).toHaveValue('Rue de Siam');

    await u.click(within(dialog).getByRole('combobox', { name: 'Statut' }));
    await u.click(await screen.findByRole('option', { name: 'Demande' }, { timeout: 5000 }));
    await u.click(within(dialog).getByRole('combobox', { name: "Année d'implantation" }));
    const year = new Date().getFullYear();
    const years = (await screen.findAllByRole('option')).map((o) => o.textContent);
    expect(years[0]).toBe(String(year - 10));
    expect(years.at(-1)).toBe(String(year + 20));
    expect(years).toHaveLength(31);
  }, 40_000);

  it('edits a site with its status and adds the new convention date, then says so', async () => {
    const api = mockSites({
      'GET /api/admin/site/get/1': reply(200, { ...row({}), dateConventions: ['2024-03-05T12:00:00.000Z'], referents: [] }),
      'PUT /api/admin/site/update/1': reply(200, { status: 'success' }),
    });
    renderApp('/admin/site', { loggedRoutes: sitesRoutes });
    const u = user();
    await openMenu(u, 'Jardin du Vallon (QUA001)', 'Modifier Site');
    const dialog = await screen.findByRole('dialog', { name: 'Modifier Site' }, { timeout: 5000 });
    expect(await within(dialog).findByText('Historique des conventions : 05/03/2024', {}, { timeout: 5000 })).toBeInTheDocument();
    await u.click(within(dialog).getByRole('combobox', { name: 'Statut' }));
    await u.click(await screen.findByRole('option', { name: 'Demande' }, { timeout: 5000 }));
    const convention = within(dialog).getByRole('textbox', { name: 'Date Convention' });
    await u.clear(convention);
    await u.type(convention, '10/01/2026');
    await u.click(within(dialog).getByRole('button', { name: 'Enregistrer' }));
    await waitFor(() => expect(api.callsTo('PUT', '/api/admin/site/update/1')).toHaveLength(1));
    expect(api.callsTo('PUT', '/api/admin/site/update/1')[0].body).toMatchObject({ statut: 2, dateConvention: '2026-01-10', nom: 'Jardin du Vallon', type: 2 });
    expect(await screen.findByText('Site modifié', {}, { timeout: 5000 })).toBeInTheDocument();
  }, 40_000);

  it('lists the cells with the deactivated ones in grey, and gives the messages of each cell save', async () => {
    const cell = (o: Record<string, unknown>) => ({ site: 1, composteur: 1, volume: 400, precisions: 'Bac bois 400 L', typeBac: 1, idTypeBac: 1, libelle: 'Apport', actif: true, aInterventions: false, ...o });
    let cellUpdate = reply(400, { status: 'error', errors: [{ key: 'numero', error: 'Ce numéro est déjà utilisé sur ce site' }], message: 'Veuillez renseigner les champs obligatoires' });
    let cellsAdd = reply(400, { status: 'error', errors: [{ key: 'composteurs0.numero', error: 'Ce numéro est déjà utilisé sur ce site' }], message: 'Veuillez renseigner les champs obligatoires' });
    const api = mockSites({
      'GET /api/admin/siteComposteurs/get/by/site/1': reply(200, [cell({ id: 11, numero: 1 }), cell({ id: 12, numero: 2, actif: false, aInterventions: true })]),
      'PUT /api/admin/siteComposteur/update/11': () => cellUpdate,
      'PUT /api/admin/site/add/composteur/1': () => cellsAdd,
    });
    renderApp('/admin/site', { loggedRoutes: sitesRoutes });
    const u = user();
    await u.click(await screen.findByRole('button', { name: 'Composteurs du site Jardin du Vallon (QUA001)' }, { timeout: 5000 }));
    const dialog = await screen.findByRole('dialog', { name: 'Composteurs du site Jardin du Vallon - QUA001' }, { timeout: 5000 });
    const retired = await within(dialog).findByText('Désactivé - Cellule n°2 - Apport - 400 L - Bac bois 400 L', {}, { timeout: 5000 });
    expect(retired.style.color).toBe('var(--mantine-color-dimmed)');
    expect(within(dialog).getByText('Cellule n°1 - Apport - 400 L - Bac bois 400 L').style.color).not.toBe('var(--mantine-color-dimmed)');
    expect(within(dialog).getByRole('switch', { name: 'Désactiver la cellule n°2' })).toBeChecked();

    await u.click(within(dialog).getByRole('switch', { name: 'Désactiver la cellule n°1' }));
    expect(await screen.findByText(/^Veuillez vérifier votre saisie/, {}, { timeout: 5000 })).toBeInTheDocument();
    expect(api.callsTo('PUT', '/api/admin/siteComposteur/update/11')[0].body).toEqual({ composteur: 1, typeBac: 1, numero: 1, actif: false });
    cellUpdate = reply(200, { status: 'success' });
    await u.click(within(dialog).getByRole('switch', { name: 'Désactiver la cellule n°1' }));
    expect(await screen.findByText('Composteur du site modifié', {}, { timeout: 5000 })).toBeInTheDocument();

    // New cells start at the first number no active cell uses.
    await u.click(within(dialog).getByRole('button', { name: 'Ajouter un composteur' }));
    expect(within(dialog).getByRole('textbox', { name: 'Numéro' })).toHaveValue('2');
    await u.click(within(dialog).getByRole('button', { name: 'Enregistrer les composteurs' }));
    expect(await within(dialog).findByRole('alert', {}, { timeout: 5000 })).toHaveTextContent('Veuillezvérifier votre saisie');
    expect(api.callsTo('PUT', '/api/admin/site/add/composteur/1')).toHaveLength(0);
    await u.click(within(dialog).getByRole('combobox', { name: 'Composteur' }));
    await u.click(await screen.findByRole('option', { name: '400 L - Bac bois 400 L' }, { timeout: 5000 }));
    await u.click(within(dialog).getByRole('combobox', { name: 'Usage' }));
    await u.click(await screen.findByRole('option', { name: 'Apport' }, { timeout: 5000 }));
    await u.click(within(dialog).getByRole('button', { name: 'Enregistrer les composteurs' }));
    expect(await within(dialog).findByText('Ce numéro est déjà utilisé sur ce site', {}, { timeout: 5000 })).toBeInTheDocument();
    expect(within(dialog).getByRole('alert')).toHaveTextContent('Veuillezvérifier votre saisie');
    cellsAdd = reply(200, { status: 'success' });
    await u.click(within(dialog).getByRole('button', { name: 'Enregistrer les composteurs' }));
    expect(await screen.findByText('Composteur(s) Site ajouté(s)', {}, { timeout: 5000 })).toBeInTheDocument();
    expect(api.callsTo('PUT', '/api/admin/site/add/composteur/1').at(-1)!.body).toEqual({ composteurs: [{ composteur: 1, typeBac: 1, numero: 2 }] });

    // The nested dialog edits one cell; a cell with interventions keeps its use.
    await u.click(within(dialog).getByRole('button', { name: 'Modifier la cellule n°2' }));
    const edit = await screen.findByRole('dialog', { name: 'Modifier la cellule n°2' }, { timeout: 5000 });
    expect(within(edit).getByRole('combobox', { name: 'Usage' })).toBeDisabled();
    expect(within(edit).getByRole('combobox', { name: 'Composteur' })).toBeEnabled();
  }, 60_000);

  it('corrects the requester details and says so', async () => {
    const api = mockSites({
      'GET /api/admin/demandeur/get/9': reply(200, {
        id: 9,
        date: '2024-09-15T12:00:00.000Z',
        civilite: 'Madame',
        nom: 'LE GALL',
        prenom: 'Marie',
        fonction: 'Ecole',
        precisions: null,
        telephone: '0298001122',
        telephone2: null,
        email: null,
        periodeImplantation: null,
        anneeImplantation: null,
      }),
      'PUT /api/admin/demandeur/update/9': reply(200, { status: 'success' }),
    });
    renderApp('/admin/site', { loggedRoutes: sitesRoutes });
    const u = user();
    await openMenu(u, 'Demande école (SCO001)', 'Détails demande');
    const dialog = await screen.findByRole('dialog', { name: 'Détails demande' }, { timeout: 5000 });
    expect(await within(dialog).findByText('Madame LE GALL Marie', {}, { timeout: 5000 })).toBeInTheDocument();
    expect(within(dialog).getByText(/Demande du 15\/09\/2024/)).toBeInTheDocument();
    const tel = within(dialog).getByRole('textbox', { name: 'Téléphone 2' });
    await u.type(tel, '06.11.22.33.44');
    expect(tel).toHaveValue('0611223344');
    await u.click(within(dialog).getByRole('button', { name: 'Enregistrer' }));
    expect(await screen.findByText('Informations modifiées', {}, { timeout: 5000 })).toBeInTheDocument();
    expect(api.callsTo('PUT', '/api/admin/demandeur/update/9')[0].body).toMatchObject({ fonction: 'Ecole', telephone: '0298001122', telephone2: '0611223344' });
  }, 40_000);

  it('replaces the referents and says so', async () => {
    const api = mockSites({
      'GET /api/admin/site/get/1': reply(200, { ...row({}), dateConventions: [], referents: [{ id: 5, nom: 'DUPONT', prenom: 'Jeanne' }] }),
      'GET /api/admin/user/get/all/actif': reply(200, [
        { id: 5, nom: 'DUPONT', prenom: 'Jeanne', email: 'jeanne@exemple.fr' },
        { id: 6, nom: 'KERBRAT', prenom: 'Yann', email: 'yann@exemple.fr' },
      ]),
      'PUT /api/admin/site/update/user/1': reply(200, { status: 'success' }),
    });
    renderApp('/admin/site', { loggedRoutes: sitesRoutes });
    const u = user();
    await u.click(await screen.findByRole('button', { name: 'Référents du site Jardin du Vallon (QUA001)' }, { timeout: 5000 }));
    const dialog = await screen.findByRole('dialog', { name: 'Référent(s) du site' }, { timeout: 5000 });
    await u.click(await within(dialog).findByRole('combobox', { name: 'Référent(s)' }, { timeout: 5000 }));
    await u.click(await screen.findByRole('option', { name: 'KERBRAT Yann (yann@exemple.fr)' }, { timeout: 5000 }));
    await u.click(within(dialog).getByRole('button', { name: 'Enregistrer' }));
    expect(await screen.findByText('Référent(s) Site modifié(s)', {}, { timeout: 5000 })).toBeInTheDocument();
    expect(api.callsTo('PUT', '/api/admin/site/update/user/1')[0].body).toEqual({ user: [5, 6] });
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
