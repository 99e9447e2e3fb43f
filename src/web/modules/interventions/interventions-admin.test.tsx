import { afterEach, describe, expect, it, vi } from 'vitest';
import { cleanup, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { loggedAs, mockApi, renderApp, reply } from '../../../../tests/helpers/web-app';
import { behaveLikeABrowserForTables } from '../../../../tests/helpers/web-screens';
import type { InterventionAdminListRow, InterventionDetail } from '../../../shared/schemas/interventions-admin';
import { downloader } from '../../lib/download';
import { interventionsAdminRoutes } from './interventions-admin.routes';
import { dateFilterProblem } from './interventions-admin-page';

const row = (o: Partial<InterventionAdminListRow>): InterventionAdminListRow => ({
  id: 1,
  date: '2026-01-10T13:05:00.000Z',
  intervenant: 'DURAND Alice',
  typeBac: 'Apport',
  idTypeBac: 1,
  numeroBac: 1,
  idSiteComposteur: 11,
  typeAction: 'Température',
  idAction: 6,
  valeur: '55 °C',
  observations: null,
  site: 'Épinette',
  idSite: 3,
  modificationAgent: null,
  modifiedAt: null,
  locked: false,
  pendingDemande: false,
  referent: 'DURAND Alice',
  actionValeur: true,
  siteNom: 'Épinette',
  idBacDestination: null,
  idStatut: null,
  demandeIntervention: null,
  interventionRealisee: null,
  photos: [],
  ...o,
});

const ROWS = [
  row({}),
  row({
    id: 2,
    typeAction: 'Réparation à effectuer',
    idAction: 18,
    valeur: 'Trappe bloquée',
    pendingDemande: true,
    modificationAgent: 'LEROY Paul',
    modifiedAt: '2026-01-11T08:00:00.000Z',
    photos: [{ id: 71 }, { id: 72 }],
  }),
  row({ id: 3, typeAction: 'Réparation effectuée', idAction: 14, valeur: 'Trappe réparée', locked: true }),
];

const TYPE_ACTIONS = [
  { id: 6, libelle: 'Température', valeur: true, valueKind: 'temperature', typeBac: [1, 3], aConstantes: false, constantes: [] },
  { id: 13, libelle: 'Autre intervention', valeur: false, valueKind: 'none', typeBac: [1, 2, 3], aConstantes: false, constantes: [] },
  { id: 18, libelle: 'Réparation à effectuer', valeur: true, valueKind: 'text', typeBac: [1, 2, 3], aConstantes: false, constantes: [] },
];

const DETAIL: InterventionDetail = {
  intervention: { ...row({ photos: [{ id: 70 }] }), valeurSaisie: 55, bacDestination: null },
  site: {
    id: 3,
    code: 'QUA003',
    nom: 'Épinette',
    adresse: 'Rue de Siam',
    ville: 'Brest',
    siteComposteurs: [{ id: 11, numero: 1, typeBac: 1, libelleTypeBac: 'Apport', actif: true }],
  },
  lastChange: { agent: 'LEROY Paul', at: '2026-01-11T08:00:00.000Z', action: 'update' },
};

function mockScreen(roles: string[], extra: Parameters<typeof mockApi>[0] = {}) {
  return mockApi({
    'GET /api/logged': loggedAs(roles),
    'GET /api/admin/intervention/get/list/by/filters': reply(200, { count: 3, countCapped: false, interventions: ROWS }),
    'GET /api/typeAction/get/all': reply(200, TYPE_ACTIONS),
    'GET /api/typeActionConstante/get/all': reply(200, []),
    'GET /api/admin/site/get/all/actif': reply(200, [{ id: 3, code: 'QUA003', nom: 'Épinette', adresse: 'Rue de Siam', numero: '1', ville: 'Brest', cp: '29200' }]),
    'GET /api/admin/intervention/get/1': reply(200, DETAIL),
    ...extra,
  });
}

behaveLikeABrowserForTables();
afterEach(() => {
  cleanup();
  vi.unstubAllGlobals();
});

const FULL = ['ROLE_ADMIN_SITE', 'ROLE_ADMIN_UPDATE', 'ROLE_ADMIN_DELETE'];

/** The whole app on the interventions administration, at `path` (its query string carries the list's state). */
const openList = (path = '/admin/interventions') => renderApp(path, { loggedRoutes: interventionsAdminRoutes });

describe('interventions administration screen', () => {
  it('shows long site names whole, so that two sharing their first 60 characters stay apart', async () => {
    const prefix = 'Jardin partagé de la résidence des Capucins, entrée principa';
    expect(prefix).toHaveLength(60);
    const rows = [row({ id: 1, site: `${prefix}le nord` }), row({ id: 2, site: `${prefix}le sud`, idSite: 4 })];
    mockScreen(['ROLE_ADMIN'], { 'GET /api/admin/intervention/get/list/by/filters': reply(200, { count: 2, countCapped: false, interventions: rows }) });
    openList();
    const table = await screen.findByRole('table', { name: 'Interventions' }, { timeout: 10_000 });
    for (const r of rows) {
      const name = await within(table).findByText(r.site, {}, { timeout: 5000 });
      expect(name.closest('.compost-ellipsis')).toBeNull();
      expect(name.closest('td')).toHaveTextContent(r.site);
    }
  }, 40_000);

  it('shows the columns of the spec, newest first by 20, without edit or delete for ROLE_ADMIN alone', async () => {
    const api = mockScreen(['ROLE_ADMIN']);
    openList();
    const table = await screen.findByRole('table', { name: 'Interventions' }, { timeout: 10_000 });
    await within(table).findByText('55 °C', {}, { timeout: 5000 });
    const headers = [...table.querySelectorAll('thead th')].map((h) => h.textContent?.trim());
    expect(headers).toEqual(['Date', 'Site', 'Intervenant', 'Type Cellule', 'N° Cellule', 'Action', 'Valeur', 'Observations', 'Photos', 'Modifiée par']);
    const call = api.callsTo('GET', '/api/admin/intervention/get/list/by/filters')[0];
    expect(decodeURIComponent(call.path)).toContain('rowsPerPage=20&sort[name]=date&sort[direction]=desc');
    // 13:05 UTC in January is 14:05 in Paris.
    expect(within(table).getAllByText('10/01/2026 14:05')).toHaveLength(3);
    expect(within(table).getByText('LEROY Paul le 11/01/2026 09:00')).toBeInTheDocument();
    expect(screen.queryByRole('button', { name: 'Modifier' })).toBeNull();
    expect(screen.queryByRole('button', { name: 'Supprimer' })).toBeNull();
    expect(screen.getByRole('button', { name: 'Exporter en CSV' })).toBeInTheDocument();
  }, 40_000);

  it('shows the photos of an intervention as thumbnails in their column, which open full screen', async () => {
    mockScreen(['ROLE_ADMIN']);
    openList();
    const table = await screen.findByRole('table', { name: 'Interventions' }, { timeout: 10_000 });
    const repair = (await within(table).findByText('Trappe bloquée', {}, { timeout: 5000 })).closest('tr')!;
    const strip = within(repair).getByRole('list', { name: 'Photos : Réparation à effectuer, cellule n°1, Épinette, le 10/01/2026 14:05' });
    expect(within(strip).getAllByRole('img').map((i) => i.getAttribute('src'))).toEqual(['/api/admin/photo/71?taille=miniature', '/api/admin/photo/72?taille=miniature']);
    // The other rows have none.
    expect(within(table).getAllByRole('list')).toHaveLength(1);
    await userEvent.setup({ delay: null }).click(within(repair).getByRole('button', { name: 'Agrandir la photo 1 sur 2' }));
    const viewer = await screen.findByRole('dialog', { name: 'Photo 1 sur 2' });
    expect(within(viewer).getByRole('img')).toHaveAttribute('src', '/api/admin/photo/71?taille=complete');
  }, 40_000);

  it('disables the buttons of a locked intervention and says why', async () => {
    mockScreen(FULL);
    openList();
    await screen.findByText('Trappe réparée', {}, { timeout: 10_000 });
    expect(screen.getAllByRole('button', { name: 'Modifier' })).toHaveLength(2);
    const lockedEdit = screen.getByRole('button', { name: 'Impossible de modifier car liée à une autre intervention' });
    const lockedDelete = screen.getByRole('button', { name: 'Impossible à supprimer car liée à une autre intervention' });
    expect(lockedEdit).toHaveAttribute('aria-disabled', 'true');
    expect(lockedDelete).toHaveAttribute('aria-disabled', 'true');
  }, 40_000);

  it('warns that the pending request goes too, then shows the server message', async () => {
    const api = mockScreen(FULL, {
      'PUT /api/admin/intervention/delete/2': reply(200, { status: 'success', message: "Intervention et demande d'intervention liée supprimées", demandeSupprimee: 9 }),
    });
    openList();
    await screen.findByText('Trappe bloquée', {}, { timeout: 10_000 });
    const user = userEvent.setup({ delay: null });
    await user.click(screen.getAllByRole('button', { name: 'Supprimer' })[1]);
    const dialog = await screen.findByRole('dialog', { name: 'Supprimer ?' });
    expect(dialog).toHaveTextContent("demande d'intervention encore en attente : la demande sera également supprimée");
    expect(dialog).toHaveTextContent('irréversible');
    await user.click(within(dialog).getByRole('button', { name: 'Supprimer' }));
    expect(await screen.findByText("Intervention et demande d'intervention liée supprimées")).toBeInTheDocument();
    expect(api.callsTo('PUT', '/api/admin/intervention/delete/2')).toHaveLength(1);
  }, 40_000);

  it('plainly confirms the delete of an intervention without request, and shows a refusal', async () => {
    mockScreen(FULL, {
      'PUT /api/admin/intervention/delete/1': reply(409, { status: 'error', message: 'Impossible à supprimer car liée à une autre intervention' }),
    });
    openList();
    await screen.findByText('55 °C', {}, { timeout: 10_000 });
    const user = userEvent.setup({ delay: null });
    await user.click(screen.getAllByRole('button', { name: 'Supprimer' })[0]);
    const dialog = await screen.findByRole('dialog', { name: 'Supprimer ?' });
    expect(dialog).toHaveTextContent('Etes-vous sûr de vouloir supprimer cette intervention ? Cette action est irréversible.');
    await user.click(within(dialog).getByRole('button', { name: 'Supprimer' }));
    expect(await screen.findByText('Impossible à supprimer car liée à une autre intervention')).toBeInTheDocument();
  }, 40_000);

  it('corrects a temperature in the edit dialog, with the last change shown and the server errors under the fields', async () => {
    let attempt = 0;
    const api = mockScreen(FULL, {
      'PUT /api/admin/intervention/update/1': () =>
        ++attempt === 1
          ? reply(400, {
              status: 'error',
              message: 'Veuillez remplir les champs obligatoires',
              errors: [{ key: 'values0.valeur', error: 'La température doit être comprise entre -20 et 90 °C' }],
            })
          : reply(200, { status: 'success', message: 'Intervention modifiée', demandesAnnulees: [], demandesCreees: [] }),
    });
    openList();
    await screen.findByText('55 °C', {}, { timeout: 10_000 });
    const user = userEvent.setup({ delay: null });
    await user.click(screen.getAllByRole('button', { name: 'Modifier' })[0]);
    const dialog = await screen.findByRole('dialog', { name: "Modifier l'intervention" });
    expect(await within(dialog).findByText('Modifiée par LEROY Paul le 11/01/2026 09:00')).toBeInTheDocument();
    // The entry's photo, to see what is being corrected.
    expect(within(dialog).getByRole('img', { name: 'Photo 1 sur 1 : Température, cellule n°1, Épinette, le 10/01/2026 14:05' })).toHaveAttribute(
      'src',
      '/api/admin/photo/70?taille=miniature',
    );
    const temperature = await within(dialog).findByRole('textbox', { name: /Température/ });
    expect(temperature).toHaveValue('55');
    await user.clear(temperature);
    await user.type(temperature, '42,5');
    await user.click(within(dialog).getByRole('button', { name: 'Enregistrer' }));
    expect(await within(dialog).findByRole('alert')).toHaveTextContent('Veuillez remplir les champs obligatoires');
    expect(within(dialog).getByText('La température doit être comprise entre -20 et 90 °C')).toBeInTheDocument();
    await user.click(within(dialog).getByRole('button', { name: 'Enregistrer' }));
    expect(await screen.findByText('Intervention modifiée')).toBeInTheDocument();
    const sent = api.callsTo('PUT', '/api/admin/intervention/update/1').at(-1)!.body as { date: string; values: unknown[] };
    expect(sent.values).toEqual([{ composteur: 11, action: 6, valeur: 42.5, bacDestination: null, observations: null }]);
    expect(sent.date).toBe('2026-01-10T13:05:00.000Z');
    await waitFor(() => expect(screen.queryByRole('dialog', { name: "Modifier l'intervention" })).toBeNull());
  }, 40_000);

  it('searches on the server once the typing has paused for a second', async () => {
    const api = mockScreen(['ROLE_ADMIN']);
    openList();
    await screen.findByText('55 °C', {}, { timeout: 10_000 });
    const user = userEvent.setup({ delay: null });
    const searches = () => api.callsTo('GET', '/api/admin/intervention/get/list/by/filters').map((c) => new URL(c.path, 'http://x').searchParams.get('search'));
    await user.type(screen.getByRole('textbox', { name: 'Rechercher' }), 'trappe');
    // Not at each key: the list is asked again only after a second without typing.
    expect(searches()).not.toContain('trappe');
    await waitFor(() => expect(searches()).toContain('trappe'), { timeout: 3000 });
    expect(searches().filter((q) => q !== null)).toEqual(['trappe']);
  }, 40_000);

  it("hands export.csv of the table's search, filters and sort to the browser's downloads, and says so", async () => {
    const api = mockScreen(['ROLE_ADMIN']);
    const start = vi.spyOn(downloader, 'start').mockImplementation(() => {});
    try {
      openList();
      await screen.findByText('55 °C', {}, { timeout: 10_000 });
      const user = userEvent.setup({ delay: null });
      await user.type(screen.getByRole('textbox', { name: 'Rechercher' }), 'durand');
      await waitFor(() => expect(api.callsTo('GET', '/api/admin/intervention/get/list/by/filters').some((c) => c.path.includes('search=durand'))).toBe(true), { timeout: 3000 });
      await user.click(screen.getByRole('button', { name: 'Exporter en CSV' }));
      expect(start).toHaveBeenCalledTimes(1);
      const [href, filename] = start.mock.calls[0];
      expect(filename).toBe('export.csv');
      const url = new URL(href, 'http://x');
      expect(url.pathname).toBe('/api/admin/intervention/export');
      expect(Object.fromEntries(url.searchParams)).toMatchObject({ search: 'durand', 'sort[name]': 'date', 'sort[direction]': 'desc' });
      expect(await screen.findByText('Téléchargement de export.csv lancé')).toBeInTheDocument();
    } finally {
      start.mockRestore();
    }
  }, 40_000);

  it('starts no download without network and says the server cannot be reached', async () => {
    mockScreen(['ROLE_ADMIN']);
    const start = vi.spyOn(downloader, 'start').mockImplementation(() => {});
    const online = vi.spyOn(navigator, 'onLine', 'get').mockReturnValue(false);
    try {
      openList();
      await screen.findByText('55 °C', {}, { timeout: 10_000 });
      await userEvent.setup({ delay: null }).click(screen.getByRole('button', { name: 'Exporter en CSV' }));
      expect(start).not.toHaveBeenCalled();
      expect(await screen.findByText('Le serveur est injoignable. Vérifiez votre connexion puis réessayez.')).toBeInTheDocument();
    } finally {
      online.mockRestore();
      start.mockRestore();
    }
  }, 40_000);

  it('refuses an empty required field without calling the server', async () => {
    const api = mockScreen(FULL);
    openList();
    await screen.findByText('55 °C', {}, { timeout: 10_000 });
    const user = userEvent.setup({ delay: null });
    await user.click(screen.getAllByRole('button', { name: 'Modifier' })[0]);
    const dialog = await screen.findByRole('dialog', { name: "Modifier l'intervention" });
    const temperature = await within(dialog).findByRole('textbox', { name: /Température/ });
    await user.clear(temperature);
    await user.click(within(dialog).getByRole('button', { name: 'Enregistrer' }));
    expect(await within(dialog).findByRole('alert')).toHaveTextContent('Veuillez remplir les champs obligatoires');
    expect(within(dialog).getByText('Veuillez renseigner une température')).toBeInTheDocument();
    expect(api.callsTo('PUT', '/api/admin/intervention/update/1')).toHaveLength(0);
  }, 40_000);
});

describe('interventions administration filters in the address', () => {
  const listCalls = (api: ReturnType<typeof mockScreen>) => api.callsTo('GET', '/api/admin/intervention/get/list/by/filters').map((c) => decodeURIComponent(c.path));

  it('reads the search, filters and sort of a shared link, shows them as chips, and resets them with the address', async () => {
    const api = mockScreen(['ROLE_ADMIN']);
    const { router } = openList('/admin/interventions?recherche=trappe&date=12%2F2025&site=3&tri=site&sens=asc');
    await screen.findByText('55 °C', {}, { timeout: 10_000 });
    expect(listCalls(api)[0]).toContain('search=trappe&page=0&rowsPerPage=20&sort[name]=site&sort[direction]=asc&filter[date]=12/2025&filter[site]=3');
    const chips = screen.getByRole('group', { name: 'Filtres actifs' });
    expect(within(chips).getByRole('button', { name: 'Retirer le filtre Recherche\u00a0: trappe' })).toBeInTheDocument();
    expect(within(chips).getByRole('button', { name: 'Retirer le filtre Date\u00a0: 12/2025' })).toBeInTheDocument();
    // The site's name once the options are in.
    expect(await within(chips).findByRole('button', { name: 'Retirer le filtre Site\u00a0: Épinette (QUA003)' })).toBeInTheDocument();
    const user = userEvent.setup({ delay: null });

    // One chip removes its own filter, from the list and from the address.
    await user.click(within(chips).getByRole('button', { name: 'Retirer le filtre Date\u00a0: 12/2025' }));
    await waitFor(() => expect(router.state.location.search).toBe('?recherche=trappe&site=3&tri=site&sens=asc'));
    expect(listCalls(api).at(-1)).not.toContain('filter[date]');

    await user.click(within(chips).getByRole('button', { name: 'Réinitialiser' }));
    await waitFor(() => expect(router.state.location.search).toBe(''));
    expect(listCalls(api).at(-1)).toBe('/api/admin/intervention/get/list/by/filters?page=0&rowsPerPage=20&sort[name]=date&sort[direction]=desc');
    expect(screen.queryByRole('group', { name: 'Filtres actifs' })).toBeNull();
  }, 40_000);

  it('says the formats the Date filter accepts, and writes what is typed into the address', async () => {
    const api = mockScreen(['ROLE_ADMIN']);
    const { router } = openList();
    await screen.findByText('55 °C', {}, { timeout: 10_000 });
    const user = userEvent.setup({ delay: null });
    await user.click(screen.getByRole('button', { name: 'Filtrer la colonne Date' }));
    const input = await screen.findByRole('textbox', { name: 'Date' });
    expect(input).toHaveAttribute('placeholder', 'jj/mm/aaaa hh:mm');
    expect(input).toHaveAccessibleDescription('Format jj/mm/aaaa hh:mm ; une partie suffit (03/2024, 14:30).');
    await user.type(input, '12/2025');
    await waitFor(() => expect(router.state.location.search).toBe('?date=12%2F2025'), { timeout: 3000 });
    expect(listCalls(api).at(-1)).toContain('filter[date]=12/2025');
  }, 40_000);

  it('explains a Date filter that cannot match any date', async () => {
    mockScreen(['ROLE_ADMIN']);
    openList('/admin/interventions?date=hier');
    expect(await screen.findByRole('alert', {}, { timeout: 10_000 })).toHaveTextContent(
      'Filtre Date : saisissez des chiffres avec « / », « : » ou une espace, par exemple 25/12/2025, 12/2025, 2025 ou 14:30.',
    );
  }, 40_000);

  it('accepts any part of jj/mm/aaaa hh:mm as a Date filter, and nothing else', () => {
    for (const ok of ['', '2025', '12/2025', '25/12/2025', '25/12/2025 14:30', '14:3', '12/0', undefined, ['2025']]) expect(dateFilterProblem(ok), String(ok)).toBeNull();
    expect(dateFilterProblem('hier')).toMatch(/^Filtre Date : saisissez des chiffres/);
    expect(dateFilterProblem('25-12-2025')).toMatch(/^Filtre Date : saisissez des chiffres/);
    expect(dateFilterProblem('25/12/2025 14:30:00')).toBe('Filtre Date : 16 caractères au plus (jj/mm/aaaa hh:mm).');
    expect(dateFilterProblem(['2025', '2026'])).toBe('Filtre Date : une seule date à la fois.');
  });
});
