// /interventions/site/{id} (public): one site's
// interventions, server-side paging, sorting and filters, with the master composter's contact.
// Its <h1> is the site's name (or code): from the site's infos for someone who records on it
// (also without network, from the phone's copy), else from the rows; someone logged in gets a
// way back to the site choice.
import { useMemo, useState } from 'react';
import { Alert, Anchor, Stack } from '@mantine/core';
import { IconArrowLeft, IconInfoCircle } from '@tabler/icons-react';
import { useQuery } from '@tanstack/react-query';
import { HTTPError } from 'ky';
import { Link, useParams } from 'react-router';
import { appInfoQuery, typeActionsQuery } from '../../session/bootstrap.api';
import { useSessionStore } from '../../session/session-store';
import { can } from '../../../shared/permissions';
import { DataTable, type ListColumn } from '../../components/data-table';
import { PageTitle } from '../../components/page-title';
import { useListQuery } from '../../components/use-list-query';
import type { PublicSiteInterventionRow } from '../../../shared/schemas/interventions-admin';
import { cellTypesQuery, fieldEntryKeys, PUBLIC_LIST_URL, siteInfosQuery } from './field-entry.api';
import { SITE_CHOICE_PATH } from './field-entry-paths';
import { formatParisDateTime } from '../../../shared/dates';

export const CONTACT_BANNER = 'Vous avez une question ? Vous souhaiter vous investir dans le compostage collectif ? Vous pouvez joindre le Maitre composteur au : ';

/** Cell numbers run from 0 to 20 (NUMERO_MIN to NUMERO_MAX of the sites schemas). */
const CELL_NUMBERS = Array.from({ length: 21 }, (_, n) => ({ value: String(n), label: String(n) }));

type Filter = { date?: string; action?: string; typeBac?: string; numeroBac?: string };

/** The h1 until the site's name is known. */
export const UNNAMED_SITE_TITLE = 'Interventions du site';

export function SiteInterventionsPage() {
  const siteId = Number(useParams().id);
  const valid = Number.isInteger(siteId) && siteId > 0;
  const appInfo = useQuery(appInfoQuery());
  const typeActions = useQuery(typeActionsQuery());
  const cellTypes = useQuery(cellTypesQuery());
  const list = useListQuery<PublicSiteInterventionRow, Filter>({
    queryKey: fieldEntryKeys.publicList(siteId),
    url: PUBLIC_LIST_URL(siteId),
    listKey: 'interventions',
    defaultSort: { name: 'date', direction: 'desc' },
    enabled: valid,
  });
  const logged = useSessionStore((s) => s.logged);
  const records = useSessionStore((s) => s.logged && can(s.roles, 'intervention.add'));
  // Someone who records on the site knows its name even before any row (a 403: not their site).
  const infos = useQuery({ ...siteInfosQuery(siteId), enabled: valid && records });
  const rowName = list.records[0]?.site;
  // Kept once known: a filter with no result must not take the title away.
  const [knownName, setKnownName] = useState<string | null>(null);
  const name = infos.data ? (infos.data.data.nom ?? infos.data.data.code) : (rowName ?? knownName);
  if (name && name !== knownName) setKnownName(name);

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
        filterBy: { type: 'select', name: 'typeBac', options: (cellTypes.data ?? []).map((t) => ({ value: String(t.id), label: t.libelle })) },
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
    [typeActions.data, cellTypes.data],
  );

  const notFound = !valid || (list.query.error instanceof HTTPError && list.query.error.response.status === 404);

  return (
    <Stack gap="md">
      {logged && (
        <Anchor component={Link} to={SITE_CHOICE_PATH} size="sm" style={{ alignSelf: 'flex-start', display: 'inline-flex', alignItems: 'center', gap: 4 }}>
          <IconArrowLeft size={16} aria-hidden />
          Retour au choix du site
        </Anchor>
      )}
      <PageTitle size="h3" style={{ overflowWrap: 'anywhere' }}>
        {name ?? UNNAMED_SITE_TITLE}
      </PageTitle>
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
