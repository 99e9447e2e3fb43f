// The requests history on a phone (history-dialog.tsx picks it under 576 px): one card per
// request instead of the wide table, on the same server-side list (search, status filter, sort
// and pages of useListQuery). A card says the site, the cell, the work asked for, its status,
// its dates, who cancelled it and why, shows the photos of the entries that called for it, and opens
// its 'Interventions liées' below itself (with the photos of the performed one: the others' are
// on the card already).
import { useState, type CSSProperties } from 'react';
import { ActionIcon, Alert, Badge, Button, Card, CloseButton, Group, Loader, Paper, Select, Stack, Text, TextInput, Title } from '@mantine/core';
import { IconChevronDown, IconChevronLeft, IconChevronRight, IconSearch } from '@tabler/icons-react';
import { formatParisDate, formatParisDateTime } from '../../../shared/dates';
import type { DemandeIntervention, HistoryRow, LinkedIntervention } from '../../../shared/schemas/requests';
import { TABLE_LABELS, paginationText } from '../../components/data-table';
import type { ListQuery } from '../../components/use-list-query';
import { InterventionPhotos } from '../interventions/public';
import { frenchValue } from '../../lib/format';

export type HistoryFilter = { statut?: string; site?: string };

/** The colour of each request status id. */
export type StatusColors = Record<number, string>;

/** The orders a phone offers (the table sorts by any column header). */
export const HISTORY_CARD_SORTS = [
  { value: 'dateCreation:desc', label: 'Les plus récentes' },
  { value: 'dateCreation:asc', label: 'Les plus anciennes' },
  { value: 'dateEcheance:asc', label: 'Echéance la plus proche' },
  { value: 'site:asc', label: 'Site (A à Z)' },
] as const;

const WRAP: CSSProperties = { overflowWrap: 'anywhere' };
const NO_SHRINK: CSSProperties = { flex: 'none' };

/** 'Signalée 3 fois (dernier : Plein)', for a request called for more than once. */
export function signalsText(r: Pick<HistoryRow, 'nbSignalements' | 'dernierSignalement'>): string | null {
  if (r.nbSignalements < 2) return null;
  const latest = r.dernierSignalement?.valeur;
  return `Signalée ${r.nbSignalements} fois${latest ? ` (dernier : ${latest})` : ''}`;
}

export function HistoryCards({
  list,
  statutOptions,
  colors,
  toolbar,
}: {
  list: ListQuery<HistoryRow, HistoryFilter>;
  statutOptions: { value: string; label: string }[];
  colors: StatusColors;
  toolbar?: React.ReactNode;
}) {
  const { query, applied } = list;
  const sortValue = `${applied.sort.name}:${applied.sort.direction}`;
  const sortOptions = HISTORY_CARD_SORTS.some((o) => o.value === sortValue)
    ? [...HISTORY_CARD_SORTS]
    : // An order chosen on a wider screen stays on offer under its own name.
      [...HISTORY_CARD_SORTS, { value: sortValue, label: 'Autre tri' }];
  const statut = list.draft.filter.statut;
  const from = applied.page * applied.rowsPerPage + 1;
  const to = from + list.records.length - 1;
  const lastPage = Math.max(0, Math.ceil(list.count / applied.rowsPerPage) - 1);

  return (
    <Stack gap="sm">
      <Group gap="xs" align="flex-end" wrap="wrap">
        <TextInput
          label={TABLE_LABELS.search}
          leftSection={<IconSearch size={16} aria-hidden />}
          value={list.draft.search}
          onChange={(e) => list.setSearch(e.currentTarget.value)}
          rightSection={list.draft.search ? <CloseButton aria-label="Effacer la recherche" onClick={() => list.setSearch('')} /> : null}
          style={{ flex: '1 1 12rem', minWidth: 0 }}
        />
        <Select
          label="Statut"
          placeholder="Tous"
          data={statutOptions}
          value={typeof statut === 'string' ? statut : null}
          onChange={(v) => (v === null ? list.resetFilter('statut') : list.setFilter('statut', v))}
          clearable
          clearButtonProps={{ 'aria-label': 'Effacer le filtre Statut' }}
          style={{ flex: '1 1 9rem', minWidth: 0 }}
        />
        <Select
          label="Trier par"
          data={sortOptions}
          value={sortValue}
          allowDeselect={false}
          onChange={(v) => {
            if (!v) return;
            const [name, direction] = v.split(':');
            list.setSort({ name, direction: direction === 'asc' ? 'asc' : 'desc' });
          }}
          style={{ flex: '1 1 9rem', minWidth: 0 }}
        />
      </Group>
      <Group gap="xs" justify="space-between" wrap="wrap">
        {toolbar}
        {!list.isDefault && (
          <Button variant="subtle" size="compact-sm" onClick={list.reset}>
            {TABLE_LABELS.reset}
          </Button>
        )}
      </Group>
      {query.isError && (
        <Alert color="red" title={TABLE_LABELS.error} role="alert">
          <Button size="xs" variant="light" color="red" onClick={() => void query.refetch()}>
            {TABLE_LABELS.retry}
          </Button>
        </Alert>
      )}
      {query.isPending && (
        <Group justify="center" py="md">
          <Loader role="status" aria-label={TABLE_LABELS.loading} />
        </Group>
      )}
      {query.data && list.records.length === 0 && (
        <Text size="sm" c="dimmed" role="status">
          {TABLE_LABELS.empty}
        </Text>
      )}
      {list.records.length > 0 && (
        <Stack gap="sm" component="ul" aria-label="Historique des demandes d'interventions" aria-busy={query.isFetching} style={{ listStyle: 'none', padding: 0, margin: 0 }}>
          {list.records.map((r) => (
            <li key={r.id}>
              <HistoryCard row={r} color={colors[r.idStatut] ?? 'gray'} />
            </li>
          ))}
        </Stack>
      )}
      {list.count > 0 && (
        <Group justify="space-between" wrap="nowrap" gap="xs" aria-label="Pages" role="navigation">
          <ActionIcon variant="default" size="lg" aria-label="Page précédente" disabled={applied.page === 0} onClick={() => list.setPage(applied.page - 1)}>
            <IconChevronLeft size={18} aria-hidden />
          </ActionIcon>
          <Text size="sm">{paginationText({ from, to, totalRecords: list.count })}</Text>
          <ActionIcon variant="default" size="lg" aria-label="Page suivante" disabled={applied.page >= lastPage} onClick={() => list.setPage(applied.page + 1)}>
            <IconChevronRight size={18} aria-hidden />
          </ActionIcon>
        </Group>
      )}
    </Stack>
  );
}

function HistoryCard({ row: r, color }: { row: HistoryRow; color: string }) {
  const [open, setOpen] = useState(false);
  const signals = signalsText(r);
  const linkedId = `interventions-liees-${r.id}`;
  return (
    <Card withBorder radius="md" padding="sm" component="article" aria-label={`Demande ${r.id}`} data-testid="history-card">
      <Stack gap={4}>
        <Group justify="space-between" wrap="nowrap" align="flex-start" gap="xs">
          <Text fw={600} style={{ ...WRAP, minWidth: 0 }}>
            {r.actionProgrammee}
          </Text>
          <Badge color={color} variant="light" style={NO_SHRINK}>
            {r.statut}
          </Badge>
        </Group>
        <Text size="sm" style={WRAP}>
          Site : {r.site}
        </Text>
        <Text size="sm" style={WRAP}>
          Cellule n°{r.numero}
          {r.actionDeclenchante ? ` · ${r.actionDeclenchante}${r.value ? ` : ${r.value}` : ''}` : ''}
        </Text>
        {signals && (
          <Text size="sm" style={WRAP}>
            {signals}
          </Text>
        )}
        <Text size="sm">Créée le {formatParisDateTime(r.dateCreation)}</Text>
        <Text size="sm">Echéance : {formatParisDate(r.dateEcheance)}</Text>
        {r.dateProgrammee && (
          <Text size="sm" style={WRAP}>
            Programmée le {formatParisDate(r.dateProgrammee)}
            {(r.programmationReferent ?? r.programmationAgent) ? ` par ${r.programmationReferent ?? r.programmationAgent}` : ''}
          </Text>
        )}
        {r.dateAnnulation && (
          <Text size="sm" style={WRAP}>
            Annulée le {formatParisDate(r.dateAnnulation)}
            {r.annuleePar ? ` par ${r.annuleePar}` : ''}
          </Text>
        )}
        {r.motifAnnulation && (
          <Text size="sm" style={{ ...WRAP, whiteSpace: 'pre-line' }}>
            Motif d'annulation : {r.motifAnnulation}
          </Text>
        )}
        <InterventionPhotos photos={r.photos} what={`signalements de la demande ${r.id}`} size={56} />
        <Button
          variant="subtle"
          size="compact-sm"
          mt={4}
          style={{ alignSelf: 'flex-start' }}
          leftSection={open ? <IconChevronDown size={16} aria-hidden /> : <IconChevronRight size={16} aria-hidden />}
          aria-expanded={open}
          aria-controls={open ? linkedId : undefined}
          aria-label={`Interventions liées à la demande ${r.id}`}
          onClick={() => setOpen((o) => !o)}
        >
          Interventions liées
        </Button>
        {open && (
          <Paper withBorder p="xs" id={linkedId} component="section" aria-label={`Interventions liées à la demande ${r.id}`}>
            <LinkedList row={r} />
          </Paper>
        )}
      </Stack>
    </Card>
  );
}

export const PUBLIC_REPORT = 'Signalement public';

/**
 * Who called for the request, for its 'Intervenant' line: the author of its trigger, or
 * 'Signalement public' for a request raised from a visitor's report (no entry ever called for
 * it); null when the author is not known (an account deleted since).
 */
export function requestAuthor(d: Pick<DemandeIntervention, 'referent' | 'agent' | 'idInterventionDeclenchante' | 'nbSignalements'>): string | null {
  if (d.referent ?? d.agent) return d.referent ?? d.agent;
  return d.idInterventionDeclenchante === null && d.nbSignalements === 0 ? PUBLIC_REPORT : null;
}

/** The trigger, the latest call (when another entry made it) and the performed intervention, one under the other. */
function LinkedList({ row }: { row: HistoryRow }) {
  const dernier = row.dernierSignalement && row.dernierSignalement.id !== row.interventionDeclenchante?.id ? row.dernierSignalement : null;
  const all: [string, LinkedIntervention | null][] = [
    ['Déclenchante', row.interventionDeclenchante],
    ['Dernier signalement', dernier],
    ['Réalisée', row.interventionRealisee],
  ];
  const entries = all.filter((e): e is [string, LinkedIntervention] => e[1] !== null);
  if (entries.length === 0) return <Text size="sm">{requestAuthor(row) === PUBLIC_REPORT ? PUBLIC_REPORT : 'Aucune intervention liée'}</Text>;
  return (
    <Stack gap="xs">
      {entries.map(([kind, i]) => (
        <Stack key={kind} gap={2}>
          <Title order={4} size="h6">
            {kind}
          </Title>
          <Text size="sm" style={WRAP}>
            Intervention n°{i.id} · {formatParisDateTime(i.date)} · {i.intervenant}
          </Text>
          <Text size="sm" style={WRAP}>
            {i.typeAction}
            {i.valeur ? ` : ${frenchValue(i.valeur)}` : ''}
          </Text>
          {i.observations && (
            <Text size="sm" c="dimmed" style={WRAP}>
              {i.observations}
            </Text>
          )}
          {kind === 'Réalisée' && <InterventionPhotos photos={i.photos} what={`${i.typeAction} (réalisée) du ${formatParisDateTime(i.date)}`} size={56} />}
        </Stack>
      ))}
    </Stack>
  );
}
