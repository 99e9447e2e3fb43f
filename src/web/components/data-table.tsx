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
//       { accessor: 'nom', title: 'Nom', sortable: true, width: 140, ellipsis: true, filterBy: { type: 'text', name: 'nom' } },
//       { accessor: 'date', title: 'Date', sortable: true,
//         filterBy: { type: 'text', name: 'date', description: DATE_FILTER_HINT } },
//       { accessor: 'typeUser', title: 'Type', sortable: true, sortKey: 'type',         // server sort name
//         filterBy: { type: 'select', name: 'type', options: [{ value: '1', label: 'Particulier' }] } },
//       { accessor: 'ville', filterBy: { type: 'multiselect', name: 'ville', options: villes } },
//       { accessor: 'volume', filterBy: { type: 'number', name: 'volume', min: 0 } },
//     ]}
//   />
//
// - Columns are mantine-datatable columns plus `filterBy`: the filter popover of the column
//   header (text, whole number, select or multi-select, with a reset button) bound to
//   `filter[name]`; a text filter may say its format (`description`).
// - Headers are real headers: a sortable column's title is a 'Trier par …' button inside the
//   <th>, which carries aria-sort; the filter is a 'Filtrer la colonne …' button beside it.
//   (mantine-datatable's own sortable header is itself a button holding the filter button, a
//   nesting screen readers cannot use.) The server sort name is `sortKey`, else the accessor.
// - Following mantine-datatable's conventions for admin tables: give long-text columns a
//   `width` and `ellipsis: true` (one line, cut with an ellipsis, the whole text in a tooltip
//   on hover or touch; screen readers read it all), but let a name that tells rows apart (a
//   site's) wrap: two long names sharing their beginning would look alike once cut. Put the
//   row actions in the last column with `pinned: 'right'` so they stay in view when the table
//   scrolls sideways (from 768 px: on a phone a pinned column would hide most of the others).
// - Below 768 px (Mantine's `sm`) the rows show as cards (components/card-table.ts): each
//   cell on its own line after its column's name, the pinned (actions) cells first, the sort
//   and filter buttons of the headers as a row of buttons above; long texts wrap there rather
//   than being cut. It is still a table for screen readers.
// - The title is the screen's <h1> and names it in the document title (page-title.tsx).
// - Active search and filters show as chips above the table (each removes itself), with
//   'Réinitialiser' back to the screen's first state; with `urlState` (use-list-query.ts)
//   they survive a reload and travel with a shared link.
// - Page sizes 5, 10, 20, 50, 100; the default comes from the list (20, or 10 for roles and sites).
// - Deliberately absent (the contract leaves them out): print, download, column chooser, row selection.
// - States: loader over the table while loading, 'Aucun résultat' when empty, and an error
//   banner with 'Réessayer' when the list could not be loaded.
import { useLayoutEffect, useRef, useState, type CSSProperties, type ReactNode } from 'react';
import {
  ActionIcon,
  Alert,
  Button,
  CloseButton,
  Group,
  Loader,
  MultiSelect,
  NumberInput,
  Popover,
  Select,
  Stack,
  Text,
  TextInput,
  Title,
  Tooltip,
  UnstyledButton,
  type ComboboxData,
} from '@mantine/core';
import { useMediaQuery } from '@mantine/hooks';
import { IconArrowDown, IconArrowUp, IconArrowsSort, IconFilter, IconFilterFilled, IconSearch, IconX } from '@tabler/icons-react';
import { DataTable as MantineDataTable, type DataTableColumn, type DataTableRowExpansionProps } from 'mantine-datatable';
import 'mantine-datatable/styles.layer.css';
import './data-table.css';
import { CARDS_CLASS, WIDE_QUERY } from './card-table';
import { HTTPError } from 'ky';
import { MESSAGES } from '../../shared/errors';
import { usePageTitle } from './page-title';
import { PAGE_SIZE_OPTIONS, type FilterValue, type ListFilter, type ListQuery } from './use-list-query';

export type ColumnFilter =
  | { type: 'text'; name: string; label?: string; placeholder?: string; description?: string }
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
  /** The screen's name: its <h1> and its document title. */
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
  reset: 'Réinitialiser',
  activeFilters: 'Filtres actifs',
} as const;

/** What a date filter accepts (the server matches the text of the date). */
export const DATE_FILTER_HINT = 'Format jj/mm/aaaa ; une partie suffit (03/2024, 2024).';
/** The same for a date and time. */
export const DATE_TIME_FILTER_HINT = 'Format jj/mm/aaaa hh:mm ; une partie suffit (03/2024, 14:30).';

export function paginationText({ from, to, totalRecords }: { from: number; to: number; totalRecords: number }) {
  return `${from} - ${to} / ${totalRecords}`;
}

const PAGINATION_CONTROL_LABELS: Record<string, string> = {
  first: 'Première page',
  last: 'Dernière page',
  previous: 'Page précédente',
  next: 'Page suivante',
};

/** French typography: a no-break space before the colon. */
const COLON = '\u00a0: ';

function columnLabel(column: DataTableColumn<unknown>, fallback: string): string {
  return typeof column.title === 'string' ? column.title : fallback;
}

function filterLabel(column: DataTableColumn<unknown>, filter: ColumnFilter): string {
  return filter.label ?? columnLabel(column, filter.name);
}

function isBlank(v: FilterValue): boolean {
  return v === undefined || v === null || v === '' || (Array.isArray(v) && v.length === 0);
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
        description={filter.description}
        placeholder={filter.placeholder}
        value={value === undefined || value === null ? '' : String(value)}
        onChange={(e) => list.setFilter(name, e.currentTarget.value as F[typeof name])}
        onKeyDown={onEnter}
        data-autofocus
        maw={320}
        rightSection={value ? <CloseButton aria-label={`Effacer le filtre ${label}`} onClick={reset} /> : null}
      />
    );
  }
  if (filter.type === 'number') {
    // A value read back from the URL is a string of digits.
    const number = typeof value === 'number' ? value : typeof value === 'string' && value !== '' && Number.isFinite(Number(value)) ? Number(value) : '';
    return (
      <NumberInput
        label={label}
        value={number}
        onChange={(v) => (typeof v === 'number' ? list.setFilter(name, v as F[typeof name]) : v === '' ? reset() : undefined)}
        onKeyDown={onEnter}
        min={filter.min}
        allowDecimal={false}
        allowNegative={filter.min === undefined || filter.min < 0}
        hideControls
        data-autofocus
        rightSection={number !== '' ? <CloseButton aria-label={`Effacer le filtre ${label}`} onClick={reset} /> : null}
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
  // One value read back from the URL is a plain string.
  const selected = Array.isArray(value) ? value.map(String) : isBlank(value) ? [] : [String(value)];
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

/** The filter button of a column header and its popover (focus kept inside, Escape closes it). */
function FilterButton({ label, active, children }: { label: string; active: boolean; children: (close: () => void) => ReactNode }) {
  const [opened, setOpened] = useState(false);
  return (
    <Popover opened={opened} onChange={setOpened} trapFocus returnFocus withArrow shadow="md" position="bottom-end">
      <Popover.Target>
        <ActionIcon variant={active ? 'light' : 'subtle'} color={active ? undefined : 'gray'} size={28} aria-label={`Filtrer la colonne ${label}`} onClick={() => setOpened((o) => !o)}>
          {active ? <IconFilterFilled size={16} aria-hidden /> : <IconFilter size={16} aria-hidden />}
        </ActionIcon>
      </Popover.Target>
      <Popover.Dropdown>{children(() => setOpened(false))}</Popover.Dropdown>
    </Popover>
  );
}

type SortState = 'asc' | 'desc' | null;

/**
 * The content of a sortable or filterable column's header. mantine-datatable draws the <th>;
 * from here it gets aria-sort and its plain column name (without it, the header's name would
 * run its buttons' names together, and screen readers repeat it before every cell).
 */
function HeaderContent({ label, sort, children }: { label: string; sort: SortState | undefined; children: ReactNode }) {
  const ref = useRef<HTMLDivElement>(null);
  useLayoutEffect(() => {
    const th = ref.current?.closest('th');
    if (!th) return;
    th.setAttribute('aria-label', label);
    if (sort !== undefined) th.setAttribute('aria-sort', sort === 'asc' ? 'ascending' : sort === 'desc' ? 'descending' : 'none');
  }, [label, sort]);
  return (
    <Group ref={ref} gap={2} wrap="nowrap" style={HEADER}>
      {children}
    </Group>
  );
}

/** The title of a sortable column as a button. */
function SortButton({ title, label, state, onSort }: { title: ReactNode; label: string; state: SortState; onSort: () => void }) {
  const Icon = state === 'asc' ? IconArrowUp : state === 'desc' ? IconArrowDown : IconArrowsSort;
  return (
    <UnstyledButton onClick={onSort} aria-label={`Trier par ${label}`} style={SORT_BUTTON}>
      <span>{title}</span>
      <Icon size={14} aria-hidden style={{ flex: 'none', color: state ? undefined : 'var(--mantine-color-dimmed)' }} />
    </UnstyledButton>
  );
}

const SORT_BUTTON: CSSProperties = {
  display: 'inline-flex',
  alignItems: 'center',
  gap: 4,
  minWidth: 0,
  minHeight: 28,
  fontWeight: 'inherit',
  fontSize: 'inherit',
  textAlign: 'left',
  borderRadius: 'var(--mantine-radius-sm)',
};

const HEADER: CSSProperties = { whiteSpace: 'normal', width: '100%', justifyContent: 'space-between' };

const ELLIPSIS: CSSProperties = { display: 'block', overflow: 'hidden', textOverflow: 'ellipsis', whiteSpace: 'nowrap' };

/** One line cut with an ellipsis; the whole text in a tooltip when it does not fit. */
export function EllipsisText({ children }: { children: ReactNode }) {
  const ref = useRef<HTMLSpanElement>(null);
  const [full, setFull] = useState<string | null>(null);
  const show = () => {
    const el = ref.current;
    setFull(el && el.scrollWidth > el.clientWidth ? (el.textContent ?? null) : null);
  };
  return (
    <Tooltip label={full} opened={full !== null} multiline maw={360} withArrow>
      <span ref={ref} className="compost-ellipsis" style={ELLIPSIS} onMouseEnter={show} onMouseLeave={() => setFull(null)} onTouchStart={show}>
        {children}
      </span>
    </Tooltip>
  );
}

function valueAt(record: unknown, accessor: string): unknown {
  return accessor.split('.').reduce<unknown>((v, key) => (v === null || v === undefined ? v : (v as Record<string, unknown>)[key]), record);
}

function optionLabel(options: ComboboxData, value: string): string {
  const labelOf = (o: string | { value: string; label?: string }) => (typeof o === 'string' ? (o === value ? o : null) : o.value === value ? (o.label ?? o.value) : null);
  for (const o of options) {
    const found = typeof o !== 'string' && 'group' in o ? o.items.map(labelOf).find((l) => l !== null) : labelOf(o);
    if (found) return found;
  }
  return value;
}

/** How an applied filter reads on its chip. */
function filterText(filter: ColumnFilter | undefined, value: FilterValue): string {
  const values = (Array.isArray(value) ? value : [value]).map(String);
  if (filter && (filter.type === 'select' || filter.type === 'multiselect')) return values.map((v) => optionLabel(filter.options, v)).join(', ');
  return values.join(', ');
}

interface Chip {
  key: string;
  label: string;
  text: string;
  remove: () => void;
}

function ActiveFilters<Row, F extends ListFilter>({ list, columns }: { list: ListQuery<Row, F>; columns: ListColumn<Row>[] }) {
  const chips: Chip[] = [];
  if (list.applied.search) chips.push({ key: '\u0000search', label: 'Recherche', text: list.applied.search, remove: list.resetSearch });
  for (const [name, value] of Object.entries(list.applied.filter)) {
    if (isBlank(value)) continue;
    const column = columns.find((c) => c.filterBy?.name === name);
    const label = column?.filterBy ? filterLabel(column as DataTableColumn<unknown>, column.filterBy) : name;
    chips.push({ key: name, label, text: filterText(column?.filterBy, value), remove: () => list.resetFilter(name as keyof F & string) });
  }
  if (chips.length === 0 && list.isDefault) return null;
  return (
    <Group gap="xs" role="group" aria-label={TABLE_LABELS.activeFilters}>
      {chips.map((chip) => (
        <Button
          key={chip.key}
          variant="light"
          size="compact-sm"
          radius="xl"
          maw="100%"
          rightSection={<IconX size={14} aria-hidden />}
          aria-label={`Retirer le filtre ${chip.label}${COLON}${chip.text}`}
          onClick={chip.remove}
        >
          <span style={{ ...ELLIPSIS, maxWidth: 280 }}>{`${chip.label}${COLON}${chip.text}`}</span>
        </Button>
      ))}
      <Button variant="subtle" size="compact-sm" onClick={list.reset} disabled={list.isDefault}>
        {TABLE_LABELS.reset}
      </Button>
    </Group>
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
  usePageTitle(typeof title === 'string' ? title : '');
  const { query, applied } = list;
  // Read at the first render (no server rendering here); mantine-datatable takes its pinning
  // once, hence the key below that remounts it when the window crosses the breakpoint.
  const wide = useMediaQuery(WIDE_QUERY, undefined, { getInitialValueInEffect: false }) ?? true;

  const mantineColumns: DataTableColumn<Row>[] = columns.map(({ filterBy, sortable, ellipsis, render, ...rest }) => {
    const column = rest as DataTableColumn<Row>;
    const accessor = String(column.accessor);
    const label = columnLabel(column as DataTableColumn<unknown>, accessor);
    const out: DataTableColumn<Row> = { ...column, render, pinned: wide ? column.pinned : undefined };
    if (!wide) {
      // The card shows each value after its column's name; the pinned cells are the row's actions.
      const cell = { 'data-label': typeof column.title === 'string' && column.title ? column.title : undefined, 'data-actions': column.pinned ? '' : undefined };
      out.customCellAttributes = (record, index) => ({ ...cell, ...column.customCellAttributes?.(record, index) });
    }
    if (ellipsis) {
      out.render = (record, index) => <EllipsisText>{render ? render(record, index) : String(valueAt(record, accessor) ?? '')}</EllipsisText>;
    }
    if (!sortable && !filterBy) return out;
    const sortName = column.sortKey ?? accessor;
    const state: SortState = sortable && applied.sort.name === sortName ? applied.sort.direction : null;
    const active = filterBy ? !isBlank(list.draft.filter[filterBy.name as keyof F]) : false;
    const fLabel = filterBy ? filterLabel(column as DataTableColumn<unknown>, filterBy) : label;
    out.title = (
      <HeaderContent label={label} sort={sortable ? state : undefined}>
        {sortable ? (
          <SortButton
            title={column.title ?? label}
            label={label}
            state={state}
            onSort={() => list.setSort({ name: sortName, direction: state === 'asc' ? 'desc' : 'asc' })}
          />
        ) : (
          <span>{column.title ?? label}</span>
        )}
        {filterBy && (
          <FilterButton label={fLabel} active={active}>
            {(close) => <FilterInput list={list} filter={filterBy} label={fLabel} close={close} />}
          </FilterButton>
        )}
      </HeaderContent>
    );
    return out;
  });

  return (
    <Stack gap="sm">
      {(title || toolbar || searchable) && (
        <Group justify="space-between" align="flex-end" wrap="wrap">
          <Group align="flex-end" gap="md">
            {title && (
              <Title order={1} size="h3">
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
                maw="100%"
              />
            )}
          </Group>
          {toolbar && <Group gap="xs">{toolbar}</Group>}
        </Group>
      )}
      <ActiveFilters list={list} columns={columns} />
      {query.isError &&
        (query.error instanceof HTTPError && query.error.response.status === 403 ? (
          // Refused to this user (a role withdrawn meanwhile): said in place, the session stays.
          <Alert color="red" title={MESSAGES.forbidden} role="alert" />
        ) : (
          <Alert color="red" title={TABLE_LABELS.error} role="alert">
            <Button size="xs" variant="light" color="red" onClick={() => void query.refetch()}>
              {TABLE_LABELS.retry}
            </Button>
          </Alert>
        ))}
      <MantineDataTable<Row>
        key={wide ? 'wide' : 'narrow'}
        className={wide ? undefined : CARDS_CLASS}
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
        emptyState={
          <Text size="sm" c="dimmed">
            {TABLE_LABELS.empty}
          </Text>
        }
        totalRecords={list.count}
        page={applied.page + 1}
        onPageChange={(p) => list.setPage(p - 1)}
        recordsPerPage={applied.rowsPerPage}
        recordsPerPageOptions={PAGE_SIZE_OPTIONS}
        onRecordsPerPageChange={list.setRowsPerPage}
        recordsPerPageLabel={TABLE_LABELS.rowsPerPage}
        paginationText={paginationText}
        getPaginationControlProps={(control) => ({ 'aria-label': PAGINATION_CONTROL_LABELS[control] })}
        rowStyle={rowStyle}
        rowExpansion={rowExpansion}
      />
    </Stack>
  );
}
