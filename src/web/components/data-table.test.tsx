import { act, cleanup, render, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { MantineProvider } from '@mantine/core';
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { DataTable, type ListColumn } from './data-table';
import { DEBOUNCE_MS, useListQuery } from './use-list-query';

const { get } = vi.hoisted(() => ({ get: vi.fn() }));
vi.mock('../lib/api', () => ({ api: { get } }));

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

function Harness({ defaultRowsPerPage }: { defaultRowsPerPage?: number }) {
  const list = useListQuery<Row>({
    queryKey: ['test-list'],
    url: 'admin/test/get/list/by/filters',
    listKey: 'items',
    defaultSort: { name: 'nom', direction: 'asc' },
    defaultRowsPerPage,
  });
  return <DataTable title="Essais" list={list} columns={columns} />;
}

let client: QueryClient;

function renderTable(props: { defaultRowsPerPage?: number } = {}) {
  client = new QueryClient({ defaultOptions: { queries: { retry: false } } });
  return render(
    <MantineProvider env="test">
      <QueryClientProvider client={client}>
        <Harness {...props} />
      </QueryClientProvider>
    </MantineProvider>,
  );
}

// mantine-datatable shows a column when matchMedia(column media query or '') matches; a real
// browser matches the empty query, the shared jsdom stub matches nothing.
const originalMatchMedia = window.matchMedia;
beforeAll(() => {
  // The table scrolls back to the top on page change; jsdom has no scrollTo.
  Element.prototype.scrollTo ??= function scrollTo() {};
  window.matchMedia = (query: string) => ({ ...originalMatchMedia(query), matches: query.trim() === '' }) as MediaQueryList;
});
afterAll(() => {
  window.matchMedia = originalMatchMedia;
});

beforeEach(() => {
  get.mockReset();
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
afterEach(cleanup);

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
    // spec.md: no print, download, column chooser or row selection.
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
