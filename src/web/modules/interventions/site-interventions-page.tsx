// /interventions/site/{id} (public; spec.md "Site interventions table"): one site's
// interventions, server-side paging, sorting and filters, with the master composter's contact.
import { useMemo } from 'react';
import { Alert, Stack } from '@mantine/core';
import { IconInfoCircle } from '@tabler/icons-react';
import { useQuery } from '@tanstack/react-query';
import { HTTPError } from 'ky';
import { useParams } from 'react-router';
import { appInfoQuery, typeActionsQuery } from '../../app/bootstrap.api';
import { DataTable, type ListColumn } from '../../components/data-table';
import { useListQuery } from '../../components/use-list-query';
import type { PublicSiteInterventionRow } from '../../../shared/schemas/interventions-admin';
import { interventionsKeys, PUBLIC_LIST_URL, typeBacsQuery } from './interventions.api';
import { formatParisDateTime } from '../../../shared/dates';

export const CONTACT_BANNER = 'Vous avez une question ? Vous souhaiter vous investir dans le compostage collectif ? Vous pouvez joindre le Maitre composteur au : ';

/** Cell numbers run from 0 to 20 (spec.md section 9). */
const CELL_NUMBERS = Array.from({ length: 21 }, (_, n) => ({ value: String(n), label: String(n) }));

type Filter = { date?: string; action?: string; typeBac?: string; numeroBac?: string };

export function SiteInterventionsPage() {
  const siteId = Number(useParams().id);
  const valid = Number.isInteger(siteId) && siteId > 0;
  const appInfo = useQuery(appInfoQuery());
  const typeActions = useQuery(typeActionsQuery());
  const typeBacs = useQuery(typeBacsQuery());
  const list = useListQuery<PublicSiteInterventionRow, Filter>({
    queryKey: interventionsKeys.publicList(siteId),
    url: PUBLIC_LIST_URL(siteId),
    listKey: 'interventions',
    defaultSort: { name: 'date', direction: 'desc' },
    enabled: valid,
  });

  const columns = useMemo<ListColumn<PublicSiteInterventionRow>[]>(
    () => [
      {
        accessor: 'date',
        title: 'Date',
        sortable: true,
        render: (row) => formatParisDateTime(row.date),
        filterBy: { type: 'text', name: 'date', placeholder: 'jj/mm/aaaa' },
      },
      {
        accessor: 'typeAction',
        title: 'Action',
        sortable: true,
        sortKey: 'action',
        filterBy: { type: 'select', name: 'action', options: (typeActions.data ?? []).map((a) => ({ value: String(a.id), label: a.libelle })) },
      },
      {
        accessor: 'typeBac',
        title: 'Type Cellule',
        sortable: true,
        filterBy: { type: 'select', name: 'typeBac', options: (typeBacs.data ?? []).map((t) => ({ value: String(t.id), label: t.libelle })) },
      },
      {
        accessor: 'numeroBac',
        title: 'Cellule N°',
        sortable: true,
        filterBy: { type: 'select', name: 'numeroBac', options: CELL_NUMBERS },
      },
      { accessor: 'valeur', title: 'Valeur', render: (row) => row.valeur ?? '' },
      { accessor: 'observations', title: 'Observations', render: (row) => row.observations ?? '' },
    ],
    [typeActions.data, typeBacs.data],
  );

  const notFound = !valid || (list.query.error instanceof HTTPError && list.query.error.response.status === 404);

  return (
    <Stack gap="md">
      <Alert color="green" variant="light" icon={<IconInfoCircle aria-hidden />}>
        {CONTACT_BANNER}
        {appInfo.data?.contact ?? ''}
      </Alert>
      {notFound ? (
        <Alert color="red" role="alert">
          Site introuvable
        </Alert>
      ) : (
        <DataTable list={list} columns={columns} ariaLabel="Interventions du site" idAccessor="id" />
      )}
    </Stack>
  );
}
