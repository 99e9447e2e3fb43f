// /admin/interventions (interventions administration): the 'Interventions' table of
// the whole field log on the shared server-side table with each entry's photos, its filters
// (Site and Action dropdowns, Date as text), the CSV export, and the edit and delete buttons of
// the roles that may use them.
// Search, filters, sort and page size live in the query string (a reload or a shared link shows
// the same list); long texts are cut to one line with the whole text on hover, and the edit and
// delete buttons stay in view on the right when the table scrolls sideways.
// A locked intervention (linked to another through a request) keeps disabled buttons whose
// tooltip says why.
import { useState } from 'react';
import { ActionIcon, Alert, Button, Stack, Text, Tooltip, VisuallyHidden } from '@mantine/core';
import { modals } from '@mantine/modals';
import { IconDownload, IconPencil, IconTrash } from '@tabler/icons-react';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { typeActionsQuery } from '../../session/bootstrap.api';
import { useSessionStore } from '../../session/session-store';
import { DATE_TIME_FILTER_HINT, DataTable, type ListColumn } from '../../components/data-table';
import { useListQuery, type FilterValue } from '../../components/use-list-query';
import { readFailure } from '../../lib/api';
import { notifyError, notifySuccess } from '../../lib/notify';
import { formatParisDateTime } from '../../../shared/dates';
import { can } from '../../../shared/permissions';
import { COUNT_CAP, INTERVENTION_ADMIN_MESSAGES, type InterventionAdminListRow } from '../../../shared/schemas/interventions-admin';
import { InterventionEditDialog, photosSubject } from './intervention-edit-dialog';
import { InterventionPhotos } from './intervention-photos';
import { INTERVENTIONS_LIST_URL, deleteIntervention, exportInterventions, interventionsAdminKeys, siteOptionsQuery } from './interventions-admin.api';
import { frenchValue } from '../../lib/format';

type InterventionFilter = { date?: string; site?: string; action?: string };

/** The longest Date filter that can match ('dd/MM/yyyy HH:mm'). */
const DATE_TERM_MAX = 16;

/**
 * What is wrong with a Date filter as typed (or read from a link), or null: the server matches
 * the text of 'dd/MM/yyyy HH:mm', so anything but digits and its separators matches nothing.
 */
export function dateFilterProblem(term: FilterValue): string | null {
  // A link may repeat the parameter.
  if (Array.isArray(term)) return term.length > 1 ? 'Filtre Date : une seule date à la fois.' : dateFilterProblem(term[0]);
  const t = String(term ?? '').trim();
  if (t === '') return null;
  if (!/^[0-9/: ]+$/.test(t)) return 'Filtre Date : saisissez des chiffres avec « / », « : » ou une espace, par exemple 25/12/2025, 12/2025, 2025 ou 14:30.';
  if (t.length > DATE_TERM_MAX) return 'Filtre Date : 16 caractères au plus (jj/mm/aaaa hh:mm).';
  return null;
}

export const DELETE_TEXT = {
  plain: 'Etes-vous sûr de vouloir supprimer cette intervention ? Cette action est irréversible.',
  withDemande:
    "Cette intervention a déclenché une demande d'intervention encore en attente : la demande sera également supprimée. Cette action est irréversible.",
} as const;

/** A button that stays focusable and announced when locked, so its tooltip can say why. */
function RowButton({ label, lockedLabel, locked, onClick, icon, color }: { label: string; lockedLabel: string; locked: boolean; onClick: () => void; icon: React.ReactNode; color?: string }) {
  return (
    <Tooltip label={locked ? lockedLabel : label} withArrow>
      <ActionIcon
        variant="subtle"
        color={color}
        aria-label={locked ? lockedLabel : label}
        aria-disabled={locked || undefined}
        data-disabled={locked || undefined}
        onClick={(e) => {
          if (locked) e.preventDefault();
          else onClick();
        }}
      >
        {icon}
      </ActionIcon>
    </Tooltip>
  );
}

export function InterventionsAdminPage() {
  const roles = useSessionStore((s) => s.roles);
  const canEdit = can(roles, 'intervention.update');
  const canDelete = can(roles, 'intervention.delete');
  const queryClient = useQueryClient();
  const sites = useQuery(siteOptionsQuery());
  const actions = useQuery(typeActionsQuery());
  const list = useListQuery<InterventionAdminListRow, InterventionFilter>({
    queryKey: interventionsAdminKeys.list,
    url: INTERVENTIONS_LIST_URL,
    listKey: 'interventions',
    defaultSort: { name: 'date', direction: 'desc' },
    urlState: true,
  });
  const [editing, setEditing] = useState<number | null>(null);

  const reload = () => void queryClient.invalidateQueries({ queryKey: interventionsAdminKeys.all });

  const remove = async (row: InterventionAdminListRow) => {
    try {
      const answer = await deleteIntervention(row.id);
      notifySuccess(answer.message);
      reload();
    } catch (e) {
      const failure = await readFailure(e);
      // As the contract has it: the server's message when it gives one (404, 409), nothing otherwise.
      if (failure.status !== 401 && failure.status !== 403 && failure.message) notifyError(failure.message);
      reload();
    }
  };

  const confirmDelete = (row: InterventionAdminListRow) =>
    modals.openConfirmModal({
      title: 'Supprimer ?',
      children: <Text size="sm">{row.pendingDemande ? DELETE_TEXT.withDemande : DELETE_TEXT.plain}</Text>,
      labels: { confirm: 'Supprimer', cancel: 'Annuler' },
      confirmProps: { color: 'red' },
      closeButtonProps: { 'aria-label': 'Fermer' },
      onConfirm: () => void remove(row),
    });

  const siteOptions = (sites.data ?? []).map((s) => ({ value: String(s.id), label: s.nom ? `${s.nom} (${s.code})` : s.code }));
  const actionOptions = (actions.data ?? []).map((a) => ({ value: String(a.id), label: a.libelle }));

  const columns: ListColumn<InterventionAdminListRow>[] = [
    {
      accessor: 'date',
      title: 'Date',
      sortable: true,
      width: 150,
      noWrap: true,
      render: (r) => formatParisDateTime(r.date),
      filterBy: { type: 'text', name: 'date', placeholder: 'jj/mm/aaaa hh:mm', description: DATE_TIME_FILTER_HINT },
    },
    // A site's name wraps, never cut: two long names sharing their beginning stay apart.
    { accessor: 'site', title: 'Site', sortable: true, width: 170, filterBy: { type: 'select', name: 'site', options: siteOptions } },
    { accessor: 'intervenant', title: 'Intervenant', sortable: true, width: 150, ellipsis: true },
    { accessor: 'typeBac', title: 'Type Cellule', sortable: true, width: 110, ellipsis: true },
    { accessor: 'numeroBac', title: 'N° Cellule', sortable: true, width: 100, textAlign: 'right' },
    {
      accessor: 'typeAction',
      title: 'Action',
      sortable: true,
      sortKey: 'action',
      width: 170,
      ellipsis: true,
      filterBy: { type: 'select', name: 'action', options: actionOptions },
    },
    { accessor: 'valeur', title: 'Valeur', width: 170, ellipsis: true, render: (r) => frenchValue(r.valeur) },
    { accessor: 'observations', title: 'Observations', width: 220, ellipsis: true },
    {
      accessor: 'photos',
      title: 'Photos',
      width: 96,
      render: (r) => <InterventionPhotos photos={r.photos} what={photosSubject(r)} size={36} />,
    },
    {
      accessor: 'modificationAgent',
      title: 'Modifiée par',
      width: 190,
      ellipsis: true,
      render: (r) => (r.modificationAgent ? `${r.modificationAgent} le ${formatParisDateTime(r.modifiedAt)}` : ''),
    },
  ];
  if (canEdit)
    columns.push({
      accessor: 'edit',
      title: <VisuallyHidden>Modifier</VisuallyHidden>,
      width: 52,
      pinned: 'right',
      render: (r) => (
        <RowButton label="Modifier" lockedLabel={INTERVENTION_ADMIN_MESSAGES.lockedUpdate} locked={r.locked} onClick={() => setEditing(r.id)} icon={<IconPencil size={18} aria-hidden />} />
      ),
    });
  if (canDelete)
    columns.push({
      accessor: 'delete',
      title: <VisuallyHidden>Supprimer</VisuallyHidden>,
      width: 52,
      pinned: 'right',
      render: (r) => (
        <RowButton
          label="Supprimer"
          lockedLabel={INTERVENTION_ADMIN_MESSAGES.lockedDelete}
          locked={r.locked}
          color="red"
          onClick={() => confirmDelete(r)}
          icon={<IconTrash size={18} aria-hidden />}
        />
      ),
    });

  // The server stops counting a filtered list at COUNT_CAP rows: say so.
  const capped = list.query.data !== undefined && list.count >= COUNT_CAP;
  const dateProblem = dateFilterProblem(list.draft.filter.date);

  return (
    <Stack p="md" gap="sm">
      <DataTable
        title="Interventions"
        list={list}
        columns={columns}
        ariaLabel="Interventions"
        toolbar={
          <Button leftSection={<IconDownload size={16} aria-hidden />} variant="default" onClick={() => exportInterventions(list.queryString)}>
            Exporter en CSV
          </Button>
        }
      />
      {dateProblem && (
        <Alert color="orange" role="alert">
          {dateProblem}
        </Alert>
      )}
      {capped && (
        <Alert color="blue" role="status">
          Plus de 10 000 interventions correspondent : seules les 10 000 premières sont paginées. Précisez les filtres pour réduire la liste (l'export
          CSV les contient toutes).
        </Alert>
      )}
      <InterventionEditDialog
        id={editing}
        onClose={() => setEditing(null)}
        onSaved={() => {
          setEditing(null);
          reload();
        }}
      />
    </Stack>
  );
}
