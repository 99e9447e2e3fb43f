// /admin/typeSite: the 'Types de Site' table with its libelle filter
// and the add dialog.
import { useState } from 'react';
import { Button } from '@mantine/core';
import { IconPlus } from '@tabler/icons-react';
import { can } from '../../../shared/permissions';
import type { SiteTypeRow } from '../../../shared/schemas/site-types';
import { DataTable, type ListColumn } from '../../components/data-table';
import { PageMessage } from '../../components/page-message';
import { useListQuery } from '../../components/use-list-query';
import { useSessionStore } from '../../session/session-store';
import { SiteTypeAddDialog } from './site-type-add-dialog';
import { SITE_TYPES_LIST_URL, siteTypesKeys } from './site-types.api';

type SiteTypeFilter = { libelle?: string };

const columns: ListColumn<SiteTypeRow>[] = [
  { accessor: 'libelle', title: 'Libellé', sortable: true, filterBy: { type: 'text', name: 'libelle' } },
  { accessor: 'code', title: 'Code', sortable: true },
];

export function SiteTypesPage() {
  const roles = useSessionStore((s) => s.roles);
  if (!can(roles, 'siteType.manage')) return <PageMessage title="Accès non authorisé.">Cet écran est réservé à la gestion des sites.</PageMessage>;
  return <SiteTypesTable />;
}

function SiteTypesTable() {
  const [adding, setAdding] = useState(false);
  const list = useListQuery<SiteTypeRow, SiteTypeFilter>({
    queryKey: siteTypesKeys.list,
    url: SITE_TYPES_LIST_URL,
    listKey: 'typeSites',
    defaultSort: { name: 'libelle', direction: 'asc' },
    urlState: true,
  });
  return (
    <>
      <DataTable
        title="Types de Site"
        list={list}
        columns={columns}
        toolbar={
          <Button leftSection={<IconPlus size={16} aria-hidden />} onClick={() => setAdding(true)}>
            Ajouter un type de site
          </Button>
        }
      />
      <SiteTypeAddDialog opened={adding} onClose={() => setAdding(false)} />
    </>
  );
}
