import { act, cleanup, render, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { MantineProvider } from '@mantine/core';
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { createMemoryRouter, RouterProvider } from 'react-router';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { behaveLikeABrowserForTables } from '../../../tests/helpers/web-screens';
import { api } from '../lib/api';
import { DataTable, type ListColumn } from './data-table';
import { CARDS_CLASS } from './card-table';
import { DEBOUNCE_MS, readListUrl, useListQuery, writeListUrl } from './use-list-query';

// The table's only call: the app's client, whose `get` each test answers (a spy on the shared
// client rather than a mocked module, which a worker reusing its modules across files could
// not honour once another file has loaded the real one).
const get = vi.fn();

interface Row {
  id: number;
  nom: string;
  ville: string;
}

type Answer = { count: number; rows: Row[] } | Error | Promise<{ count: number; rows: Row[] }>;
let answer: (params: URLSearchParams) => Answer;

function rows(from: number, n: number): Row[] {
  return Array.from({ length: n }, (_, i) => ({ id: from + i, nom: `Nom ${from + i}`, ville: 'Brest' }));
}

/** The query strings the table sent, in order. */
function calls(): URLSearchParams[] {
  return get.mock.calls.map((c) => new URLSearchParams(String((c[1] as { searchParams: string }).searchParams)));
}

const columns: ListColumn<Row>[] = [
  { accessor: 'nom', title: 'Nom', sortable: true, filterBy: { type: 'text', name: 'nom' } },
  { accessor: 'ville', title: 'Ville', sortable: true, filterBy: { type: 'select', name: 'ville', options: ['Brest', 'Guipavas'] } },
];

function Harness({ defaultRowsPerPage, urlState, cols = columns }: { defaultRowsPerPage?: number; urlState?: boolean; cols?: ListColumn<Row>[] }) {
  const list = useListQuery<Row>({
    queryKey: ['test-list'],
    url: 'admin/test/get/list/by/filters',
    listKey: 'items',
    defaultSort: { name: 'nom', direction: 'asc' },
    defaultRowsPerPage,
    urlState,
  });
  return <DataTable title="Essais" list={list} columns={cols} />;
}

let client: QueryClient;

/** The table on a memory router at `path`, keeping its state in the query string. */
function renderRouted(path: string, cols?: ListColumn<Row>[]) {
  client = new QueryClient({ defaultOptions: { queries: { retry: false } } });
  const router = createMemoryRouter([{ path: '/', element: <Harness urlState cols={cols} /> }], { initialEntries: [path] });
  render(
    <MantineProvider env="test">
      <QueryClientProvider client={client}>
        <RouterProvider router={router} />
      </QueryClientProvider>
    </MantineProvider>,
  );
  return router;
}

function renderTable(props: { defaultRowsPerPage?: number; cols?: ListColumn<Row>[] } = {}) {
  client = new QueryClient({ defaultOptions: { queries: { retry: false } } });
  return render(
    <MantineProvider env="test">
      <QueryClientProvider client={client}>
        <Harness {...props} />
      </QueryClientProvider>
    </MantineProvider>,
  );
}

behaveLikeABrowserForTables();

beforeEach(() => {
  get.mockReset();
  vi.spyOn(api, 'get').mockImplementation(get);
  answer = () => ({ count: 57, rows: rows(1, 20) });
  get.mockImplementation((_url: string, opts: { searchParams: string }) => ({
    json: async () => {
      const a = await answer(new URLSearchParams(opts.searchParams));
      if (a instanceof Error) throw a;
      return { count: a.count, items: a.rows };
    },
  }));
});
// No vitest globals here, so Testing Library cannot unmount by itself between tests.
afterEach(() => {
  cleanup();
  vi.restoreAllMocks();
});

describe('DataTable', () => {
  it('loads the first page sorted by name ascending and shows the French pagination text', async () => {
    renderTable();
    expect(await screen.findByText('Nom 1')).toBeInTheDocument();
    expect(get).toHaveBeenCalledTimes(1);
    expect(get.mock.calls[0][0]).toBe('admin/test/get/list/by/filters');
    const first = calls()[0];
    expect(Object.fromEntries(first)).toEqual({ page: '0', rowsPerPage: '20', 'sort[name]': 'nom', 'sort[direction]': 'asc' });
    expect(screen.getByText('1 - 20 / 57')).toBeInTheDocument();
    expect(screen.getByText('Lignes par page')).toBeInTheDocument();
    expect(screen.getByRole('textbox', { name: 'Rechercher' })).toBeInTheDocument();
    // As the contract has it: no print, download, column chooser or row selection.
    expect(screen.queryByRole('checkbox')).not.toBeInTheDocument();
    expect(screen.queryByRole('button', { name: /imprimer|télécharger|export|colonnes/i })).not.toBeInTheDocument();
  });

  it('shows a loader while a page loads', async () => {
    let release!: () => void;
    answer = () => new Promise((resolve) => (release = () => resolve({ count: 1, rows: rows(1, 1) })));
    renderTable();
    expect(await screen.findByRole('status', { name: 'Chargement…' })).toBeInTheDocument();
    act(() => release());
    expect(await screen.findByText('Nom 1')).toBeInTheDocument();
    await waitFor(() => expect(screen.queryByRole('status', { name: 'Chargement…' })).not.toBeInTheDocument());
  });

  it('reloads with the current search, filters, sort and page when the list is invalidated after a change', async () => {
    const user = userEvent.setup();
    renderTable();
    await screen.findByText('Nom 1');
    await user.click(screen.getByRole('button', { name: 'Filtrer la colonne Nom' }));
    await user.type(await screen.findByRole('textbox', { name: 'Nom' }), 'dupont');
    await waitFor(() => expect(calls().at(-1)?.get('filter[nom]')).toBe('dupont'), { timeout: 2500 });
    await user.click(screen.getByText('Ville'));
    await waitFor(() => expect(calls().at(-1)?.get('sort[name]')).toBe('ville'));
    await user.click(screen.getByRole('button', { name: 'Page suivante' }));
    await waitFor(() => expect(calls().at(-1)?.get('page')).toBe('1'));
    const before = get.mock.calls.length;
    await act(() => client.invalidateQueries({ queryKey: ['test-list'] }));
    await waitFor(() => expect(get.mock.calls.length).toBe(before + 1));
    expect(Object.fromEntries(calls().at(-1)!)).toEqual({
      page: '1',
      rowsPerPage: '20',
      'sort[name]': 'ville',
      'sort[direction]': 'asc',
      'filter[nom]': 'dupont',
    });
  });

  it('starts at the page size the screen asks for', async () => {
    answer = () => ({ count: 57, rows: rows(1, 10) });
    renderTable({ defaultRowsPerPage: 10 });
    expect(await screen.findByText('1 - 10 / 57')).toBeInTheDocument();
    expect(calls()[0].get('rowsPerPage')).toBe('10');
  });

  it('waits one second of quiet typing before searching, then searches once from the first page', async () => {
    const user = userEvent.setup();
    renderTable();
    await screen.findByText('Nom 1');
    await user.click(screen.getByRole('button', { name: 'Page suivante' }));
    await waitFor(() => expect(calls().at(-1)?.get('page')).toBe('1'));
    const before = get.mock.calls.length;

    const started = Date.now();
    await user.type(screen.getByRole('textbox', { name: 'Rechercher' }), 'Kér');
    await new Promise((r) => setTimeout(r, DEBOUNCE_MS - 300));
    expect(get.mock.calls.length).toBe(before);

    await waitFor(() => expect(get.mock.calls.length).toBe(before + 1), { timeout: 2000 });
    expect(Date.now() - started).toBeGreaterThanOrEqual(DEBOUNCE_MS);
    expect(calls().at(-1)?.get('search')).toBe('Kér');
    expect(calls().at(-1)?.get('page')).toBe('0');
  });

  it('changes the page size at once and goes back to the first page', async () => {
    const user = userEvent.setup();
    renderTable();
    await screen.findByText('Nom 1');
    await user.click(screen.getByRole('button', { name: 'Page suivante' }));
    await waitFor(() => expect(calls().at(-1)?.get('page')).toBe('1'));
    await user.click(screen.getByRole('button', { name: '20' }));
    for (const size of ['5', '10', '50', '100']) expect(screen.getByRole('menuitem', { name: size })).toBeInTheDocument();
    answer = () => ({ count: 57, rows: rows(1, 50) });
    await user.click(screen.getByRole('menuitem', { name: '50' }));
    await waitFor(() => expect(calls().at(-1)?.get('rowsPerPage')).toBe('50'));
    expect(calls().at(-1)?.get('page')).toBe('0');
    expect(await screen.findByText('1 - 50 / 57')).toBeInTheDocument();
  });

  it('sorts at once when a sortable header is clicked', async () => {
    const user = userEvent.setup();
    renderTable();
    await screen.findByText('Nom 1');
    await user.click(screen.getByText('Ville'));
    await waitFor(() => expect(calls().at(-1)?.get('sort[name]')).toBe('ville'));
    expect(calls().at(-1)?.get('sort[direction]')).toBe('asc');
    await user.click(screen.getByText('Ville'));
    await waitFor(() => expect(calls().at(-1)?.get('sort[direction]')).toBe('desc'));
  });

  it('debounces a column filter and resets it at once', async () => {
    const user = userEvent.setup();
    renderTable();
    await screen.findByText('Nom 1');
    const filterButton = screen.getByRole('button', { name: 'Filtrer la colonne Nom' });
    await user.click(filterButton);
    const input = await screen.findByRole('textbox', { name: 'Nom' });
    await user.type(input, 'dupont');
    const before = get.mock.calls.length;
    await waitFor(() => expect(calls().at(-1)?.get('filter[nom]')).toBe('dupont'), { timeout: 2500 });
    expect(get.mock.calls.length).toBe(before + 1);

    await user.click(screen.getByRole('button', { name: 'Effacer le filtre Nom' }));
    await waitFor(() => expect(get.mock.calls.length).toBe(before + 2), { timeout: 300 });
    expect(calls().at(-1)?.has('filter[nom]')).toBe(false);
  });

  it('steps back to the last page when a reload finds the current page empty', async () => {
    const user = userEvent.setup();
    answer = (p) => (p.get('page') === '2' ? { count: 41, rows: rows(41, 1) } : { count: 41, rows: rows(1 + Number(p.get('page')) * 20, 20) });
    renderTable();
    await screen.findByText('Nom 1');
    await user.click(screen.getByRole('button', { name: 'Page suivante' }));
    expect(await screen.findByText('Nom 21')).toBeInTheDocument();
    await user.click(screen.getByRole('button', { name: 'Page suivante' }));
    expect(await screen.findByText('Nom 41')).toBeInTheDocument();
    // The only row of page 3 is deleted: the reload answers no rows and 40 in all.
    answer = (p) => (p.get('page') === '2' ? { count: 40, rows: [] } : { count: 40, rows: rows(1 + Number(p.get('page')) * 20, 20) });
    await act(() => client.invalidateQueries({ queryKey: ['test-list'] }));
    expect(await screen.findByText('Nom 21')).toBeInTheDocument();
    expect(calls().at(-1)?.get('page')).toBe('1');
    expect(screen.getByText('21 - 40 / 40')).toBeInTheDocument();
  });

  it('says Aucun résultat when the list is empty', async () => {
    answer = () => ({ count: 0, rows: [] });
    renderTable();
    expect(await screen.findByText('Aucun résultat')).toBeInTheDocument();
  });

  it('shows an error with a retry button when the list cannot be loaded', async () => {
    const user = userEvent.setup();
    answer = () => new Error('boom');
    renderTable();
    const alert = await screen.findByRole('alert');
    expect(within(alert).getByText('Une erreur est survenue')).toBeInTheDocument();
    answer = () => ({ count: 1, rows: rows(1, 1) });
    await act(() => user.click(within(alert).getByRole('button', { name: 'Réessayer' })));
    expect(await screen.findByText('Nom 1')).toBeInTheDocument();
    expect(screen.queryByRole('alert')).not.toBeInTheDocument();
  });
});

// Accessible names of the chips put a no-break space before the colon (French typography).
const chipName = (label: string, text: string) => new RegExp(`^Retirer le filtre ${label}\\s:\\s${text}$`);

describe('DataTable headers, chips and long texts', () => {
  it('is the screen heading and names the screen in the document title', async () => {
    renderTable();
    expect(await screen.findByRole('heading', { level: 1, name: 'Essais' })).toBeInTheDocument();
    expect(document.title.startsWith('Essais')).toBe(true);
  });

  it('puts each sort button inside a real column header that says how the list is sorted', async () => {
    const user = userEvent.setup();
    renderTable();
    await screen.findByText('Nom 1');
    const nom = screen.getByRole('columnheader', { name: 'Nom' });
    const ville = screen.getByRole('columnheader', { name: 'Ville' });
    expect(nom).toHaveAttribute('aria-sort', 'ascending');
    expect(ville).toHaveAttribute('aria-sort', 'none');
    // A header cell is no button itself: its sort and filter buttons sit side by side in it.
    expect(document.querySelectorAll('th[role], th[tabindex]')).toHaveLength(0);
    expect(within(nom).getByRole('button', { name: 'Filtrer la colonne Nom' })).toBeInTheDocument();

    await user.click(within(ville).getByRole('button', { name: 'Trier par Ville' }));
    await waitFor(() => expect(ville).toHaveAttribute('aria-sort', 'ascending'));
    expect(nom).toHaveAttribute('aria-sort', 'none');
    expect(calls().at(-1)?.get('sort[name]')).toBe('ville');
    await user.click(within(ville).getByRole('button', { name: 'Trier par Ville' }));
    await waitFor(() => expect(ville).toHaveAttribute('aria-sort', 'descending'));
    expect(calls().at(-1)?.get('sort[direction]')).toBe('desc');
  });

  it('shows the applied search and filters as chips that remove themselves, and Réinitialiser goes back to the first state', async () => {
    const user = userEvent.setup();
    renderTable();
    await screen.findByText('Nom 1');
    expect(screen.queryByRole('group', { name: 'Filtres actifs' })).not.toBeInTheDocument();

    await user.type(screen.getByRole('textbox', { name: 'Rechercher' }), 'Kér');
    await user.click(screen.getByRole('button', { name: 'Filtrer la colonne Nom' }));
    await user.type(await screen.findByRole('textbox', { name: 'Nom' }), 'dupont{Enter}');
    await waitFor(() => expect(calls().at(-1)?.get('filter[nom]')).toBe('dupont'), { timeout: 2500 });
    const chips = screen.getByRole('group', { name: 'Filtres actifs' });
    expect(within(chips).getByRole('button', { name: chipName('Recherche', 'Kér') })).toBeInTheDocument();

    const before = get.mock.calls.length;
    await user.click(within(chips).getByRole('button', { name: chipName('Nom', 'dupont') }));
    // At once, not after the typing delay; the search stays.
    await waitFor(() => expect(get.mock.calls.length).toBe(before + 1), { timeout: 300 });
    expect(calls().at(-1)?.has('filter[nom]')).toBe(false);
    expect(calls().at(-1)?.get('search')).toBe('Kér');
    expect(within(chips).queryByRole('button', { name: /Retirer le filtre Nom/ })).not.toBeInTheDocument();

    await user.click(screen.getByRole('button', { name: 'Trier par Ville' }));
    await waitFor(() => expect(calls().at(-1)?.get('sort[name]')).toBe('ville'));
    await user.click(within(chips).getByRole('button', { name: 'Réinitialiser' }));
    await waitFor(() => expect(calls().at(-1)?.get('sort[name]')).toBe('nom'));
    expect(Object.fromEntries(calls().at(-1)!)).toEqual({ page: '0', rowsPerPage: '20', 'sort[name]': 'nom', 'sort[direction]': 'asc' });
    expect(screen.getByRole('textbox', { name: 'Rechercher' })).toHaveValue('');
    expect(screen.queryByRole('group', { name: 'Filtres actifs' })).not.toBeInTheDocument();
  });

  it('names the chip of a select filter by the option label, and says the format of a date filter', async () => {
    const user = userEvent.setup();
    const cols: ListColumn<Row>[] = [
      { accessor: 'nom', title: 'Date', filterBy: { type: 'text', name: 'date', description: 'Format jj/mm/aaaa' } },
      { accessor: 'ville', title: 'Ville', filterBy: { type: 'select', name: 'ville', options: [{ value: '29019', label: 'Brest' }] } },
    ];
    const router = renderRouted('/?ville=29019', cols);
    await screen.findByText('Nom 1');
    expect(calls()[0].get('filter[ville]')).toBe('29019');
    expect(screen.getByRole('button', { name: chipName('Ville', 'Brest') })).toBeInTheDocument();
    await user.click(screen.getByRole('button', { name: 'Filtrer la colonne Date' }));
    expect(await screen.findByRole('textbox', { name: 'Date' })).toHaveAccessibleDescription('Format jj/mm/aaaa');
    expect(router.state.location.search).toBe('?ville=29019');
  });

  it('cuts a long text on one line and shows it whole in a tooltip', async () => {
    const long = 'Association des jardins partagés de Kérinou';
    answer = () => ({ count: 2, rows: [{ id: 1, nom: long, ville: 'Brest' }, { id: 2, nom: 'Court', ville: 'Brest' }] });
    // The test DOM has no layout: a text is said to overflow its 100 px cell from 13 characters on.
    const scroll = vi.spyOn(HTMLElement.prototype, 'scrollWidth', 'get').mockImplementation(function (this: HTMLElement) {
      return (this.textContent?.length ?? 0) * 8;
    });
    const client = vi.spyOn(HTMLElement.prototype, 'clientWidth', 'get').mockReturnValue(100);
    try {
      const user = userEvent.setup();
      renderTable({ cols: [{ accessor: 'nom', title: 'Nom', width: 120, ellipsis: true }, columns[1]] });
      const cut = await screen.findByText(long);
      expect(cut).toHaveStyle({ whiteSpace: 'nowrap', textOverflow: 'ellipsis', overflow: 'hidden' });
      await user.hover(screen.getByText('Court'));
      expect(screen.queryByRole('tooltip')).not.toBeInTheDocument();
      await user.hover(cut);
      expect(await screen.findByRole('tooltip')).toHaveTextContent(long);
      await user.unhover(cut);
      await waitFor(() => expect(screen.queryByRole('tooltip')).not.toBeInTheDocument());
    } finally {
      scroll.mockRestore();
      client.mockRestore();
    }
  });
});

describe('DataTable with its state in the URL', () => {
  it('starts from the query string, writes each change back in place, and follows a navigation to another one', async () => {
    const user = userEvent.setup();
    const router = renderRouted('/?recherche=ker&nom=dupont&tri=ville&sens=desc&lignes=50');
    await screen.findByText('Nom 1');
    expect(get).toHaveBeenCalledTimes(1);
    expect(Object.fromEntries(calls()[0])).toEqual({
      search: 'ker',
      page: '0',
      rowsPerPage: '50',
      'sort[name]': 'ville',
      'sort[direction]': 'desc',
      'filter[nom]': 'dupont',
    });
    expect(screen.getByRole('textbox', { name: 'Rechercher' })).toHaveValue('ker');
    const chips = screen.getByRole('group', { name: 'Filtres actifs' });
    expect(within(chips).getByRole('button', { name: chipName('Nom', 'dupont') })).toBeInTheDocument();
    expect(screen.getByRole('columnheader', { name: 'Ville' })).toHaveAttribute('aria-sort', 'descending');
    const entries = router.state.historyAction;

    // Back to the default sort: it leaves the URL.
    await user.click(screen.getByRole('button', { name: 'Trier par Nom' }));
    await waitFor(() => expect(router.state.location.search).toBe('?recherche=ker&nom=dupont&lignes=50'));
    expect(router.state.historyAction).toBe('REPLACE');
    expect(entries).toBe('POP');

    await user.click(within(chips).getByRole('button', { name: 'Réinitialiser' }));
    await waitFor(() => expect(router.state.location.search).toBe('?lignes=50'));
    expect(Object.fromEntries(calls().at(-1)!)).toEqual({ page: '0', rowsPerPage: '50', 'sort[name]': 'nom', 'sort[direction]': 'asc' });

    // A link to the same screen with other filters sets the list to them.
    await act(() => router.navigate('/?ville=Brest&ville=Guipavas'));
    await waitFor(() => expect(calls().at(-1)?.getAll('filter[ville][]')).toEqual(['Brest', 'Guipavas']));
    expect(calls().at(-1)?.get('rowsPerPage')).toBe('20');
    expect(screen.getByRole('button', { name: chipName('Ville', 'Brest, Guipavas') })).toBeInTheDocument();
  });

  it('reads a malformed query string as the defaults', () => {
    const defaults = { sort: { name: 'nom', direction: 'asc' as const }, rowsPerPage: 20 };
    const read = readListUrl(new URLSearchParams('lignes=7&tri=nom;drop&sens=up&%3Cb%3E=1&nom=%20&ville=Brest'), defaults);
    expect(read).toEqual({ search: '', filter: { ville: 'Brest' }, sort: { name: 'nom', direction: 'asc' }, rowsPerPage: 20 });
    expect(readListUrl(new URLSearchParams('tri=ville'), defaults).sort).toEqual({ name: 'ville', direction: 'asc' });
    expect(writeListUrl({ search: '', filter: { nom: '' }, sort: defaults.sort, rowsPerPage: 20 }, defaults).toString()).toBe('');
  });
});

describe('rows as cards on a phone', () => {
  const withActions: ListColumn<Row>[] = [
    ...columns,
    { accessor: 'actions', title: '', pinned: 'right', render: (r) => <button type="button">{`Modifier ${r.nom}`}</button> },
  ];

  it('names each cell by its column and marks the actions, below the sm breakpoint only', async () => {
    renderTable({ cols: withActions });
    const table = await screen.findByRole('table', { name: 'Essais' });
    await screen.findByRole('button', { name: 'Modifier Nom 1' });
    expect(table.closest(`.${CARDS_CLASS}`)).not.toBeNull();
    const row = screen.getByRole('button', { name: 'Modifier Nom 1' }).closest('tr')!;
    const cells = within(row).getAllByRole('cell');
    expect(cells.map((c) => c.getAttribute('data-label'))).toEqual(['Nom', 'Ville', null]);
    expect(cells.map((c) => c.hasAttribute('data-actions'))).toEqual([false, false, true]);
  });
});
