// 'Voir l'historique' on the requests board: 'Historique des demandes d'interventions' on the
// shared server-side table (creation date, scheduled action, due date, status in colour,
// cancelled on, by and why, how many entries called for the request), searched and filtered on the
// server, each row opening its 'Interventions liées' (the triggering intervention, the latest
// entry that called for it again, and the performed intervention, each with its photos).
// Under 576 px (a provider's phone) the same list shows as cards (history-cards.tsx) in a
// full-screen dialog, since the table would need sideways scrolling to be read.
import { useState } from 'react';
import { ActionIcon, Badge, Modal, Paper, Stack, Table, Text, Title } from '@mantine/core';
import { useMediaQuery } from '@mantine/hooks';
import { useQuery } from '@tanstack/react-query';
import { IconChevronDown, IconChevronRight } from '@tabler/icons-react';
import { formatParisDate, formatParisDateTime } from '../../../shared/dates';
import { STATUT_ANNULEE, STATUT_PROGRAMMEE, STATUT_REALISEE } from '../../../shared/domain';
import type { HistoryRow, LinkedIntervention } from '../../../shared/schemas/requests';
import { DataAge } from '../../components/data-age';
import { DataTable, type ListColumn } from '../../components/data-table';
import { useListQuery } from '../../components/use-list-query';
import { useIsOffline } from '../../offline/connectivity';
import { InterventionPhotos } from '../interventions/public';
import { HistoryCards, type HistoryFilter } from './history-cards';
import { HISTORY_URL, requestStatutsQuery, requestsKeys } from './requests.api';
import { frenchValue } from '../../lib/format';

/** The colour of a request status: scheduled blue, processed green, cancelled red. */
export const STATUT_COLORS: Record<number, string> = { [STATUT_PROGRAMMEE]: 'blue', [STATUT_REALISEE]: 'green', [STATUT_ANNULEE]: 'red' };

/** A long reason wraps within its column, its own line breaks kept. */
const MOTIF_STYLE = { whiteSpace: 'pre-line', overflowWrap: 'anywhere', maxWidth: '20rem' } as const;

/** Below Mantine's xs breakpoint (576 px): a phone held upright. */
export const PHONE_QUERY = '(max-width: 35.99em)';

export function HistoryDialog({ opened, onClose }: { opened: boolean; onClose: () => void }) {
  // Read at the first render, so that a phone never draws the table first.
  const phone = useMediaQuery(PHONE_QUERY, undefined, { getInitialValueInEffect: false }) ?? false;
  return (
    <Modal opened={opened} onClose={onClose} title="Historique des demandes d'interventions" size="95%" fullScreen={phone}>
      {opened && <HistoryList phone={phone} />}
    </Modal>
  );
}

function HistoryList({ phone }: { phone: boolean }) {
  const [expanded, setExpanded] = useState<number[]>([]);
  const list = useListQuery<HistoryRow, HistoryFilter>({
    queryKey: requestsKeys.history,
    url: HISTORY_URL,
    listKey: 'demandesInterventions',
    defaultSort: { name: 'dateCreation', direction: 'desc' },
  });
  const statuts = useQuery(requestStatutsQuery());
  const offline = useIsOffline();
  const toggle = (id: number) => setExpanded((s) => (s.includes(id) ? s.filter((x) => x !== id) : [...s, id]));
  const statutOptions = (statuts.data ?? []).map((st) => ({ value: String(st.id), label: st.libelle }));
  const query = list.query;
  const age = <DataAge updatedAt={query.dataUpdatedAt} show={query.data !== undefined && (offline || query.isRefetchError)} />;
  if (phone) return <HistoryCards list={list} statutOptions={statutOptions} colors={STATUT_COLORS} toolbar={age} />;
  const columns: ListColumn<HistoryRow>[] = [
    {
      accessor: 'expand',
      title: '',
      width: 44,
      render: (r) => (
        <ActionIcon variant="subtle" aria-label={`Interventions liées à la demande ${r.id}`} aria-expanded={expanded.includes(r.id)} onClick={() => toggle(r.id)}>
          {expanded.includes(r.id) ? <IconChevronDown size={16} aria-hidden /> : <IconChevronRight size={16} aria-hidden />}
        </ActionIcon>
      ),
    },
    { accessor: 'dateCreation', title: 'Créée le', sortable: true, render: (r) => formatParisDateTime(r.dateCreation) },
    { accessor: 'site', title: 'Site', sortable: true },
    { accessor: 'actionProgrammee', title: 'Action programmée', sortable: true },
    { accessor: 'dateEcheance', title: 'Echéance', sortable: true, render: (r) => formatParisDate(r.dateEcheance) },
    {
      accessor: 'statut',
      title: 'Statut',
      sortable: true,
      filterBy: { type: 'select', name: 'statut', options: statutOptions },
      render: (r) => (
        <Badge color={STATUT_COLORS[r.idStatut] ?? 'gray'} variant="light">
          {r.statut}
        </Badge>
      ),
    },
    { accessor: 'dateAnnulation', title: 'Annulée le', sortable: true, render: (r) => formatParisDate(r.dateAnnulation) },
    { accessor: 'annuleePar', title: 'Annulée par' },
    {
      accessor: 'motifAnnulation',
      title: "Motif d'annulation",
      render: (r) =>
        r.motifAnnulation ? (
          <Text size="sm" style={MOTIF_STYLE}>
            {r.motifAnnulation}
          </Text>
        ) : null,
    },
    {
      accessor: 'nbSignalements',
      title: 'Signalements',
      render: (r) => (r.nbSignalements > 1 && r.dernierSignalement?.valeur ? `${r.nbSignalements} (dernier : ${frenchValue(r.dernierSignalement.valeur)})` : r.nbSignalements),
    },
  ];
  return (
    <DataTable
      list={list}
      columns={columns}
      toolbar={age}
      ariaLabel="Historique des demandes d'interventions"
      // Opened by the first column's button (keyboard and screen readers), not by a row click.
      rowExpansion={{
        allowMultiple: true,
        trigger: 'never',
        expanded: { recordIds: expanded, onRecordIdsChange: setExpanded },
        content: ({ record: r }) => (
          <Paper withBorder p="sm" m="xs" component="section" aria-label={`Interventions liées à la demande ${r.id}`}>
            <Title order={4} size="h5" mb="xs">
              Interventions liées
            </Title>
            <LinkedTable
              declenchante={r.interventionDeclenchante}
              // The latest call, when another entry than the trigger made it.
              dernier={r.dernierSignalement && r.dernierSignalement.id !== r.interventionDeclenchante?.id ? r.dernierSignalement : null}
              realisee={r.interventionRealisee}
            />
            <OtherSignalPhotos row={r} />
          </Paper>
        ),
      }}
    />
  );
}

function LinkedTable({ declenchante, dernier, realisee }: { declenchante: LinkedIntervention | null; dernier: LinkedIntervention | null; realisee: LinkedIntervention | null }) {
  if (!declenchante && !dernier && !realisee) return <Text size="sm">Aucune intervention liée</Text>;
  return (
    <Table.ScrollContainer minWidth={560}>
      <Table withTableBorder>
        <Table.Thead>
          <Table.Tr>
            <Table.Th />
            <Table.Th>Id</Table.Th>
            <Table.Th>Date</Table.Th>
            <Table.Th>Intervenant</Table.Th>
            <Table.Th>Action</Table.Th>
            <Table.Th>Valeur</Table.Th>
            <Table.Th>Observations</Table.Th>
            <Table.Th>Photos</Table.Th>
          </Table.Tr>
        </Table.Thead>
        <Table.Tbody>
          {(
            [
              ['Déclenchante', declenchante],
              ['Dernier signalement', dernier],
              ['Réalisée', realisee],
            ] as const
          ).map(([kind, i]) =>
            i ? (
              <Table.Tr key={kind}>
                <Table.Td>{kind}</Table.Td>
                <Table.Td>{i.id}</Table.Td>
                <Table.Td>{formatParisDateTime(i.date)}</Table.Td>
                <Table.Td>{i.intervenant}</Table.Td>
                <Table.Td>{i.typeAction}</Table.Td>
                <Table.Td>{frenchValue(i.valeur)}</Table.Td>
                <Table.Td>{i.observations}</Table.Td>
                <Table.Td>
                  <InterventionPhotos photos={i.photos} what={`${i.typeAction} (${kind.toLowerCase()}) du ${formatParisDateTime(i.date)}`} size={48} />
                </Table.Td>
              </Table.Tr>
            ) : null,
          )}
        </Table.Tbody>
      </Table>
    </Table.ScrollContainer>
  );
}

/**
 * The photos of the entries that called for the request between its trigger and the latest one
 * (the table shows those two): a request signalled three times or more.
 */
function OtherSignalPhotos({ row }: { row: HistoryRow }) {
  const shown = new Set([...(row.interventionDeclenchante?.photos ?? []), ...(row.dernierSignalement?.photos ?? [])].map((p) => p.id));
  const others = (row.photos ?? []).filter((p) => !shown.has(p.id));
  if (others.length === 0) return null;
  return (
    <Stack gap={4} mt="xs">
      <Text size="sm">Photos des autres signalements</Text>
      <InterventionPhotos photos={others} what={`autres signalements de la demande ${row.id}`} size={48} />
    </Stack>
  );
}
