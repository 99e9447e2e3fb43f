// /admin/composteur ('Composteurs'): the catalogue of composter types with a
// volume filter and the 'Ajouter un Composteur' dialog.
import { useState } from 'react';
import { Button } from '@mantine/core';
import { IconPlus } from '@tabler/icons-react';
import { can } from '../../../shared/permissions';
import type { ComposterRow } from '../../../shared/schemas/composters';
import { DataTable, type ListColumn } from '../../components/data-table';
import { PageMessage } from '../../components/page-message';
import { useListQuery } from '../../components/use-list-query';
import { formatLitres } from '../../lib/format';
import { useSessionStore } from '../../session/session-store';
import { ComposterAddDialog } from './composter-add-dialog';
import { COMPOSTERS_LIST_URL, compostersKeys } from './composters.api';

type ComposterFilter = { volume?: number };

const columns: ListColumn<ComposterRow>[] = [
  { accessor: 'volume', title: 'Volume', sortable: true, render: (c) => formatLitres(c.volume), filterBy: { type: 'number', name: 'volume', label: 'Volume (litres)', min: 0 } },
  { accessor: 'precisions', title: 'Précisions', sortable: true },
];

export function CompostersPage() {
  const roles = useSessionStore((s) => s.roles);
  if (!can(roles, 'composter.manage')) return <PageMessage title="Accès non authorisé.">Cet écran est réservé à la gestion des composteurs.</PageMessage>;
  return <CompostersTable />;
}

function CompostersTable() {
  const [adding, setAdding] = useState(false);
  const list = useListQuery<ComposterRow, ComposterFilter>({
    queryKey: compostersKeys.list,
    url: COMPOSTERS_LIST_URL,
    listKey: 'composteurs',
    defaultSort: { name: 'volume', direction: 'asc' },
    urlState: true,
  });
  return (
    <>
      <DataTable
        title="Composteurs"
        list={list}
        columns={columns}
        toolbar={
          <Button leftSection={<IconPlus size={16} aria-hidden />} onClick={() => setAdding(true)}>
            Ajouter un Composteur
          </Button>
        }
      />
      <ComposterAddDialog opened={adding} onClose={() => setAdding(false)} />
    </>
  );
}
