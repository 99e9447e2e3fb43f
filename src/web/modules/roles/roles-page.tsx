// /admin/role: the roles with their filter, what each role allows (ROLE_MEANINGS of
// shared/schemas/roles.ts), and the dialog giving a role to agents (the pinned 'Actions' column).
import { useState } from 'react';
import { ActionIcon, Alert, Group, List, Stack, Text, Tooltip } from '@mantine/core';
import { IconInfoCircle, IconUsers } from '@tabler/icons-react';
import { can, roleLabel } from '../../../shared/permissions';
import { ROLE_MEANINGS, type RoleRow } from '../../../shared/schemas/roles';
import { DataTable, type ListColumn } from '../../components/data-table';
import { PageMessage } from '../../components/page-message';
import { useListQuery } from '../../components/use-list-query';
import { useSessionStore } from '../../session/session-store';
import { RoleDialog } from './role-dialog';
import { ROLES_LIST_URL, rolesKeys } from './roles.api';

type RoleFilter = { libelle?: string };

export function RolesPage() {
  const roles = useSessionStore((s) => s.roles);
  if (!can(roles, 'role.manage')) return <PageMessage title="Accès non authorisé.">Cet écran est réservé à la gestion des rôles.</PageMessage>;
  return <RolesTable />;
}

function RolesInfo() {
  return (
    <Alert color="blue" icon={<IconInfoCircle aria-hidden />} title="Signification des rôles">
      <List size="sm" spacing={2}>
        {ROLE_MEANINGS.map((m) => (
          <List.Item key={m.role}>
            <Text span fw={600} size="sm">
              {m.role}
            </Text>{' '}
            : {m.meaning}
          </List.Item>
        ))}
      </List>
    </Alert>
  );
}

function RolesTable() {
  const [open, setOpen] = useState<RoleRow | null>(null);
  const list = useListQuery<RoleRow, RoleFilter>({
    queryKey: rolesKeys.list,
    url: ROLES_LIST_URL,
    listKey: 'roles',
    defaultSort: { name: 'libelle', direction: 'asc' },
    defaultRowsPerPage: 10,
    urlState: true,
  });
  const columns: ListColumn<RoleRow>[] = [
    {
      accessor: 'libelle',
      title: 'Role',
      sortable: true,
      filterBy: { type: 'text', name: 'libelle' },
      render: (r) => (
        <Group gap="xs" wrap="nowrap">
          <Text size="sm" ff="monospace">
            {r.libelle}
          </Text>
          {roleLabel(r.libelle) && (
            <Text size="sm" c="dimmed">
              {roleLabel(r.libelle)}
            </Text>
          )}
        </Group>
      ),
    },
    {
      accessor: 'agents',
      title: 'Actions',
      textAlign: 'right',
      pinned: 'right',
      width: 90,
      render: (r) => (
        <Tooltip label="Gérer les agents" withArrow>
          <ActionIcon variant="subtle" size={28} aria-label={`Gérer les agents du rôle ${r.libelle}`} onClick={() => setOpen(r)}>
            <IconUsers size={18} aria-hidden />
          </ActionIcon>
        </Tooltip>
      ),
    },
  ];
  return (
    <Stack gap="md">
      <RolesInfo />
      <DataTable title="Roles" list={list} columns={columns} />
      <RoleDialog role={open} onClose={() => setOpen(null)} />
    </Stack>
  );
}
