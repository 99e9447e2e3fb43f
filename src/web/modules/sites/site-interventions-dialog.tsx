// 'Voir les interventions' from the sites list: the administrator's full-screen table of one
// site's interventions (the columns of the public site interventions table), served by
// GET /api/admin/intervention/get/list/by/filters?id={siteId} with filters on date and action.
import { Dialog } from '../../components/dialog';
import { useQuery } from '@tanstack/react-query';
import { DataTable, type ListColumn } from '../../components/data-table';
import { useListQuery } from '../../components/use-list-query';
import type { InterventionAdminListRow } from '../../../shared/schemas/interventions-admin';
import { formatParisDateTime } from '../../../shared/dates';
import { frenchValue } from '../../lib/format';
import { typeActionsQuery } from './sites.api';

type InterventionFilter = { date?: string; action?: string };

export function SiteInterventionsDialog({ site, onClose }: { site: { id: number; code: string; nom: string | null } | null; onClose: () => void }) {
  return (
    <Dialog opened={site !== null} onClose={onClose} fullScreen title={site ? `Interventions du site ${site.nom ? `${site.nom} - ` : ''}${site.code}` : ''}>
      {site && <InterventionsTable siteId={site.id} />}
    </Dialog>
  );
}

function InterventionsTable({ siteId }: { siteId: number }) {
  const actions = useQuery(typeActionsQuery());
  const list = useListQuery<InterventionAdminListRow, InterventionFilter>({
    queryKey: ['interventions', 'list', 'site', siteId],
    url: 'admin/intervention/get/list/by/filters',
    listKey: 'interventions',
    defaultSort: { name: 'date', direction: 'desc' },
    extraParams: { id: siteId },
  });
  const columns: ListColumn<InterventionAdminListRow>[] = [
    {
      accessor: 'date',
      title: 'Date',
      sortable: true,
      noWrap: true,
      render: (r) => formatParisDateTime(r.date),
      filterBy: { type: 'text', name: 'date', placeholder: 'jj/mm/aaaa' },
    },
    { accessor: 'intervenant', title: 'Intervenant', width: 180, ellipsis: true },
    { accessor: 'typeBac', title: 'Cellule' },
    { accessor: 'numeroBac', title: 'N°' },
    {
      accessor: 'typeAction',
      title: 'Action',
      filterBy: { type: 'select', name: 'action', options: (actions.data ?? []).map((a) => ({ value: String(a.id), label: a.libelle })) },
    },
    { accessor: 'valeur', title: 'Valeur', width: 220, ellipsis: true, render: (r) => frenchValue(r.valeur) },
    { accessor: 'observations', title: 'Observations', width: 260, ellipsis: true },
  ];
  return <DataTable list={list} columns={columns} ariaLabel="Interventions du site" />;
}
