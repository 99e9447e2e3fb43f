// The table of every admin list, on mantine-datatable, driven by a `useListQuery` result
// (components/use-list-query.ts) so that paging, sorting, search and filters are server-side.
//
//   const list = useListQuery<UserRow>({ queryKey: USERS_KEY, url: 'admin/user/get/list/by/filters',
//                                         listKey: 'users', defaultSort: { name: 'nom', direction: 'asc' } });
//   <DataTable
//     title="Utilisateurs"
//     list={list}
//     toolbar={<Button onClick={open}>Ajouter un Composteur</Button>}
//     columns={[
//       { accessor: 'nom', title: 'Nom', sortable: true, filterBy: { type: 'text', name: 'nom' } },
//       { accessor: 'typeUser', title: 'Type', sortable: true, sortKey: 'type',         // server sort name
//         filterBy: { type: 'select', name: 'type', options: [{ value: '1', label: 'Particulier' }] } },
//       { accessor: 'ville', filterBy: { type: 'multiselect', name: 'ville', options: villes } },
//       { accessor: 'volume', filterBy: { type: 'number', name: 'volume', min: 0 } },
//     ]}
//   />
//
// - Columns are mantine-datatable columns plus `filterBy`: the filter popover of the column
//   header (text, whole number, select or multi-select, with a reset button) bound to
//   `filter[name]`.
// - The server sort name of a sortable column is its `sortKey`, else its accessor.
// - Page sizes 5, 10, 20, 50, 100; the default comes from the list (20, or 10 for roles and sites).
// - Deliberately absent (spec.md): print, download, column chooser, row selection.
// - States: loader over the table while loading, 'Aucun résultat' when empty, and an error
//   banner with 'Réessayer' when the list could not be loaded.
import { useEffect, useRef, type ReactNode } from 'react';
import { Alert, Button, CloseButton, Group, Loader, MultiSelect, NumberInput, Select, Stack, TextInput, Title, type ComboboxData } from '@mantine/core';
import { IconSearch } from '@tabler/icons-react';
import { DataTable as MantineDataTable, type DataTableColumn, type DataTableRowExpansionProps, type DataTableSortStatus } from 'mantine-datatable';
import 'mantine-datatable/styles.layer.css';
import { PAGE_SIZE_OPTIONS, type ListFilter, type ListQuery } from './use-list-query';

export type ColumnFilter =
  | { type: 'text'; name: string; label?: string; placeholder?: string }
  | { type: 'number'; name: string; label?: string; min?: number }
  | { type: 'select'; name: string; label?: string; options: ComboboxData }
  | { type: 'multiselect'; name: string; label?: string; options: ComboboxData };

export type ListColumn<Row> = DataTableColumn<Row> & {
  /** Server-side filter edited from this column's header. */
  filterBy?: ColumnFilter;
};

export interface DataTableProps<Row, F extends ListFilter> {
  list: ListQuery<Row, F>;
  columns: ListColumn<Row>[];
  title?: ReactNode;
  /** Buttons shown beside the search box (add, CSV export). */
  toolbar?: ReactNode;
  /** false: no global search box. */
  searchable?: boolean;
  idAccessor?: keyof Row | ((record: Row) => React.Key);
  rowStyle?: (record: Row, index: number) => React.CSSProperties | undefined;
  /** Accessible name of the table. */
  ariaLabel?: string;
  /** Rows that open to show more (e.g. the requests history's 'Interventions liées'). */
  rowExpansion?: DataTableRowExpansionProps<Row>;
}

export const TABLE_LABELS = {
  search: 'Rechercher',
  empty: 'Aucun résultat',
  error: 'Une erreur est survenue',
  retry: 'Réessayer',
  rowsPerPage: 'Lignes par page',
  loading: 'Chargement…',
} as const;

export function paginationText({ from, to, totalRecords }: { from: number; to: number; totalRecords: number }) {
  return `${from} - ${to} / ${totalRecords}`;
}

const PAGINATION_CONTROL_LABELS: Record<string, string> = {
  first: 'Première page',
  last: 'Dernière page',
  previous: 'Page précédente',
  next: 'Page suivante',
};

// mantine-datatable names its header icons in English and leaves the filter button unnamed;
// these French names are set on the rendered header so screen readers get something usable.
const SORT_ICON_LABELS: Record<string, string> = {
  'Sorted ascending': 'Tri croissant',
  'Sorted descending': 'Tri décroissant',
  'Not sorted': 'Non trié',
};

function useFrenchHeaderLabels(root: React.RefObject<HTMLDivElement | null>) {
  useEffect(() => {
    const el = root.current;
    if (!el) return;
    for (const icon of el.querySelectorAll<HTMLElement>('thead [role="img"][aria-label]')) {
      const french = SORT_ICON_LABELS[icon.getAttribute('aria-label') ?? ''];
      if (french) icon.setAttribute('aria-label', french);
    }
    for (const th of el.querySelectorAll<HTMLElement>('thead th')) {
      const title = th.textContent?.trim() ?? '';
      th.querySelector('.mantine-datatable-header-cell-filter-action-icon')?.setAttribute('aria-label', `Filtrer la colonne ${title}`.trim());
      // A sortable header is a button whose name would otherwise run its icons' names together.
      if (th.getAttribute('role') === 'button') {
        const sorted = th.querySelector('.mantine-datatable-header-cell-sortable-icon');
        const state = !sorted ? '' : sorted.classList.contains('mantine-datatable-header-cell-sortable-icon-reversed') ? ' (tri décroissant)' : ' (tri croissant)';
        th.setAttribute('aria-label', `Trier par ${title}${state}`);
      }
    }
  });
}

function filterLabel(column: DataTableColumn<unknown>, filter: ColumnFilter): string {
  if (filter.label) return filter.label;
  return typeof column.title === 'string' ? column.title : filter.name;
}

function FilterInput<Row, F extends ListFilter>({ list, filter, label, close }: { list: ListQuery<Row, F>; filter: ColumnFilter; label: string; close: () => void }) {
  const name = filter.name as keyof F & string;
  const value = list.draft.filter[name];
  const reset = () => {
    list.resetFilter(name);
    close();
  };
  const onEnter = (e: React.KeyboardEvent) => {
    if (e.key === 'Enter') close();
  };
  if (filter.type === 'text') {
    return (
      <TextInput
        label={label}
        placeholder={filter.placeholder}
        value={value === undefined || value === null ? '' : String(value)}
        onChange={(e) => list.setFilter(name, e.currentTarget.value as F[typeof name])}
        onKeyDown={onEnter}
        data-autofocus
        rightSection={value ? <CloseButton aria-label={`Effacer le filtre ${label}`} onClick={reset} /> : null}
      />
    );
  }
  if (filter.type === 'number') {
    return (
      <NumberInput
        label={label}
        value={typeof value === 'number' ? value : ''}
        onChange={(v) => (typeof v === 'number' ? list.setFilter(name, v as F[typeof name]) : v === '' ? reset() : undefined)}
        onKeyDown={onEnter}
        min={filter.min}
        allowDecimal={false}
        allowNegative={filter.min === undefined || filter.min < 0}
        hideControls
        data-autofocus
        rightSection={value !== undefined && value !== null && value !== '' ? <CloseButton aria-label={`Effacer le filtre ${label}`} onClick={reset} /> : null}
      />
    );
  }
  if (filter.type === 'select') {
    return (
      <Select
        label={label}
        data={filter.options}
        value={value === undefined || value === null ? null : String(value)}
        onChange={(v) => (v === null ? reset() : list.setFilter(name, v as F[typeof name]))}
        clearable
        clearButtonProps={{ 'aria-label': `Effacer le filtre ${label}` }}
        searchable
        nothingFoundMessage={TABLE_LABELS.empty}
        comboboxProps={{ withinPortal: false }}
        data-autofocus
      />
    );
  }
  const selected = Array.isArray(value) ? value.map(String) : [];
  return (
    <MultiSelect
      label={label}
      data={filter.options}
      value={selected}
      onChange={(v) => (v.length === 0 ? reset() : list.setFilter(name, v as F[typeof name]))}
      clearable
      clearButtonProps={{ 'aria-label': `Effacer le filtre ${label}` }}
      searchable
      nothingFoundMessage={TABLE_LABELS.empty}
      comboboxProps={{ withinPortal: false }}
      maw={320}
      data-autofocus
    />
  );
}

export function DataTable<Row, F extends ListFilter = ListFilter>({
  list,
  columns,
  title,
  toolbar,
  searchable = true,
  idAccessor,
  rowStyle,
  rowExpansion,
  ariaLabel,
}: DataTableProps<Row, F>) {
  const rootRef = useRef<HTMLDivElement>(null);
  useFrenchHeaderLabels(rootRef);
  const { query, applied } = list;

  const mantineColumns: DataTableColumn<Row>[] = columns.map(({ filterBy, ...column }) => {
    if (!filterBy) return column;
    const label = filterLabel(column as DataTableColumn<unknown>, filterBy);
    const current = list.draft.filter[filterBy.name as keyof F];
    const active = !(current === undefined || current === null || current === '' || (Array.isArray(current) && current.length === 0));
    return {
      ...column,
      filtering: active,
      filter: ({ close }: { close: () => void }) => <FilterInput list={list} filter={filterBy} label={label} close={close} />,
    };
  });

  const sortColumn = columns.find((c) => (c.sortKey ?? String(c.accessor)) === applied.sort.name);
  const sortStatus: DataTableSortStatus<Row> = {
    columnAccessor: sortColumn ? sortColumn.accessor : applied.sort.name,
    sortKey: sortColumn?.sortKey,
    direction: applied.sort.direction,
  };

  return (
    <Stack gap="sm" ref={rootRef}>
      {(title || toolbar || searchable) && (
        <Group justify="space-between" align="flex-end" wrap="wrap">
          <Group align="flex-end" gap="md">
            {title && (
              <Title order={2} size="h3">
                {title}
              </Title>
            )}
            {searchable && (
              <TextInput
                label={TABLE_LABELS.search}
                leftSection={<IconSearch size={16} aria-hidden />}
                value={list.draft.search}
                onChange={(e) => list.setSearch(e.currentTarget.value)}
                rightSection={list.draft.search ? <CloseButton aria-label="Effacer la recherche" onClick={() => list.setSearch('')} /> : null}
                w={260}
              />
            )}
          </Group>
          {toolbar && <Group gap="xs">{toolbar}</Group>}
        </Group>
      )}
      {query.isError && (
        <Alert color="red" title={TABLE_LABELS.error} role="alert">
          <Button size="xs" variant="light" color="red" onClick={() => void query.refetch()}>
            {TABLE_LABELS.retry}
          </Button>
        </Alert>
      )}
      <MantineDataTable<Row>
        aria-label={ariaLabel ?? (typeof title === 'string' ? title : undefined)}
        withTableBorder
        borderRadius="sm"
        striped
        highlightOnHover
        minHeight={list.records.length === 0 ? 180 : undefined}
        records={list.records}
        columns={mantineColumns}
        idAccessor={idAccessor as never}
        fetching={query.isFetching}
        customLoader={<Loader role="status" aria-label={TABLE_LABELS.loading} />}
        loadingText={TABLE_LABELS.loading}
        noRecordsText={TABLE_LABELS.empty}
        totalRecords={list.count}
        page={applied.page + 1}
        onPageChange={(p) => list.setPage(p - 1)}
        recordsPerPage={applied.rowsPerPage}
        recordsPerPageOptions={PAGE_SIZE_OPTIONS}
        onRecordsPerPageChange={list.setRowsPerPage}
        recordsPerPageLabel={TABLE_LABELS.rowsPerPage}
        paginationText={paginationText}
        getPaginationControlProps={(control) => ({ 'aria-label': PAGINATION_CONTROL_LABELS[control] })}
        sortStatus={sortStatus}
        onSortStatusChange={(s) => list.setSort({ name: s.sortKey ?? String(s.columnAccessor), direction: s.direction })}
        rowStyle={rowStyle}
        rowExpansion={rowExpansion}
      />
    </Stack>
  );
}
