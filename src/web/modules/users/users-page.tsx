// /admin/user ('Utilisateurs'): external accounts with their type, sites and states, the
// row actions of their lifecycle (type, sites, activate, deactivate / refuse, delete) and the
// red cells that flag what needs attention. One line a row: long texts are cut with their
// whole value in a tooltip, and the actions are icon buttons (named, with a tooltip) in a
// column pinned to the right. Search, filters, sort and page size live in the URL.
import { useState, type CSSProperties, type ReactNode } from 'react';
import { ActionIcon, Group, Tooltip, VisuallyHidden } from '@mantine/core';
import { IconBuildingCommunity, IconTrash, IconUserCheck, IconUserEdit, IconUserOff, IconUserX } from '@tabler/icons-react';
import { useQueryClient } from '@tanstack/react-query';
import { can } from '../../../shared/permissions';
import { NO_SITE, TYPE_PRESTATAIRE, USER_MESSAGES, type UserRow } from '../../../shared/schemas/users';
import { useConfirm } from '../../components/confirm-dialog';
import { PageMessage } from '../../components/page-message';
import { DATE_FILTER_HINT, DataTable, type ListColumn } from '../../components/data-table';
import { useListQuery } from '../../components/use-list-query';
import { readFailure } from '../../lib/api';
import { notifyError, notifySuccess } from '../../lib/notify';
import { useSessionStore } from '../../session/session-store';
import { UserSitesDialog } from './user-sites-dialog';
import { UserTypeDialog } from './user-type-dialog';
import { activateUser, deleteUser, refuseUser, USERS_LIST_URL, usersKeys } from './users.api';
import { formatParisDate } from '../../../shared/dates';

type UserFilter = { date?: string; organisme?: string; nom?: string; prenom?: string; email?: string; tel?: string; type?: string };

const RED_CELL: CSSProperties = { backgroundColor: 'var(--mantine-color-red-1)', color: 'var(--mantine-color-red-9)' };

const fullName = (u: UserRow) => [u.prenom, u.nom].filter(Boolean).join(' ');

/**
 * An icon button of the actions column: its tooltip shows what it does, or why it is disabled
 * (on a wrapper, since a disabled button gets no pointer events).
 */
function RowAction({
  label,
  tip,
  reason,
  color,
  loading,
  onClick,
  children,
}: {
  label: string;
  tip: string;
  reason?: string | null;
  color?: string;
  loading?: boolean;
  onClick: () => void;
  children: ReactNode;
}) {
  const button = (
    <ActionIcon variant="subtle" color={color} size={28} aria-label={label} disabled={!!reason} loading={loading} onClick={onClick}>
      {children}
    </ActionIcon>
  );
  return (
    <Tooltip label={reason ?? tip} withArrow>
      {reason ? <span style={{ display: 'inline-block' }}>{button}</span> : button}
    </Tooltip>
  );
}

export function UsersPage() {
  const roles = useSessionStore((s) => s.roles);
  if (!can(roles, 'user.manage')) return <PageMessage title="Accès non authorisé.">Cet écran est réservé à la gestion des utilisateurs.</PageMessage>;
  return <UsersTable />;
}

function UsersTable() {
  const queryClient = useQueryClient();
  const list = useListQuery<UserRow, UserFilter>({
    queryKey: usersKeys.list,
    url: USERS_LIST_URL,
    listKey: 'users',
    defaultSort: { name: 'nom', direction: 'asc' },
    urlState: true,
  });
  const [typeOf, setTypeOf] = useState<UserRow | null>(null);
  const [sitesOf, setSitesOf] = useState<UserRow | null>(null);
  const [busy, setBusy] = useState<number | null>(null);
  const [confirm, confirmDialog] = useConfirm();

  const reload = () => queryClient.invalidateQueries({ queryKey: usersKeys.all });

  const run = async (user: UserRow, call: (id: number) => Promise<{ message?: string }>) => {
    setBusy(user.id);
    try {
      const res = await call(user.id);
      if (res.message) notifySuccess(res.message);
      await reload();
    } catch (e) {
      const failure = await readFailure(e);
      if (failure.status !== 401 && failure.status !== 403) notifyError();
    } finally {
      setBusy(null);
    }
  };

  const remove = async (user: UserRow) => {
    setBusy(user.id);
    try {
      const res = await deleteUser(user.id);
      notifySuccess(res.message ?? USER_MESSAGES.deleted);
      await reload();
    } catch (e) {
      const failure = await readFailure(e);
      if (failure.status === 401 || failure.status === 403) return;
      if (failure.status === 404) notifyError(USER_MESSAGES.notFound);
      else if (failure.message && failure.status !== 500) notifyError(failure.message);
      else notifyError();
      if (failure.status === 404) await reload();
    } finally {
      setBusy(null);
    }
  };

  const confirmDelete = (user: UserRow) =>
    confirm({
      title: 'Supprimer  ?',
      message: 'Etes-vous sûre de vouloir supprimer cet utilisateur ? Cette action est irréversible.',
      onConfirm: () => void remove(user),
    });

  // Deactivating shuts a referent out of the field app at once: ask first.
  const confirmDeactivate = (user: UserRow) =>
    confirm({
      title: 'Désactiver ce compte ?',
      message: `${fullName(user)} ne pourra plus se connecter tant que le compte ne sera pas réactivé.`,
      confirmLabel: 'Désactiver',
      cancelLabel: 'Annuler',
      color: 'orange',
      onConfirm: () => void run(user, refuseUser),
    });

  const columns: ListColumn<UserRow>[] = [
    {
      accessor: 'date',
      title: 'Date inscription',
      sortable: true,
      noWrap: true,
      render: (u) => formatParisDate(u.date),
      filterBy: { type: 'text', name: 'date', placeholder: 'jj/mm/aaaa', description: DATE_FILTER_HINT },
    },
    { accessor: 'organisme', title: 'Organisme', sortable: true, width: 150, ellipsis: true, filterBy: { type: 'text', name: 'organisme' } },
    { accessor: 'nom', title: 'Nom', sortable: true, width: 130, ellipsis: true, filterBy: { type: 'text', name: 'nom' } },
    { accessor: 'prenom', title: 'Prénom', sortable: true, width: 130, ellipsis: true, filterBy: { type: 'text', name: 'prenom' } },
    {
      accessor: 'email',
      title: 'Email',
      sortable: true,
      width: 200,
      ellipsis: true,
      filterBy: { type: 'text', name: 'email' },
      cellsStyle: (u) => (u.emailValide ? undefined : RED_CELL),
      render: (u) => (
        <>
          {u.email}
          {!u.emailValide && <VisuallyHidden> (adresse mail non validée)</VisuallyHidden>}
        </>
      ),
    },
    { accessor: 'tel', title: 'Téléphone', sortable: true, noWrap: true, filterBy: { type: 'text', name: 'tel' } },
    { accessor: 'typeUser', title: 'Type', sortable: true, sortKey: 'type', width: 120, ellipsis: true, filterBy: { type: 'text', name: 'type' } },
    { accessor: 'site', title: 'Site', width: 160, cellsStyle: (u) => (u.site === NO_SITE ? RED_CELL : undefined) },
    {
      accessor: 'actif',
      title: 'Actif',
      sortable: true,
      noWrap: true,
      render: (u) => (u.actif ? 'Oui' : 'Non'),
      cellsStyle: (u) => (u.actif ? undefined : RED_CELL),
    },
    {
      accessor: 'actions',
      title: 'Actions',
      textAlign: 'right',
      pinned: 'right',
      width: 172,
      render: (u) => {
        const name = fullName(u);
        const notValidated = u.emailValide ? null : 'Adresse mail non validée';
        const sitesReason = !u.actif ? 'Compte inactif' : u.idTypeUser === TYPE_PRESTATAIRE ? 'Un prestataire voit tous les sites' : null;
        return (
          <Group gap={4} wrap="nowrap" justify="flex-end">
            <RowAction label={`Modifier le type de ${name}`} tip="Modifier le type" reason={notValidated} onClick={() => setTypeOf(u)}>
              <IconUserEdit size={18} aria-hidden />
            </RowAction>
            <RowAction label={`Voir / Modifier les sites de ${name}`} tip="Voir / Modifier les sites" reason={sitesReason} onClick={() => setSitesOf(u)}>
              <IconBuildingCommunity size={18} aria-hidden />
            </RowAction>
            {!u.actif && (
              <RowAction label={`Activer ${name}`} tip="Activer" reason={notValidated} color="green" loading={busy === u.id} onClick={() => void run(u, activateUser)}>
                <IconUserCheck size={18} aria-hidden />
              </RowAction>
            )}
            {u.actif ? (
              <RowAction label={`Désactiver ${name}`} tip="Désactiver" color="orange" loading={busy === u.id} onClick={() => confirmDeactivate(u)}>
                <IconUserOff size={18} aria-hidden />
              </RowAction>
            ) : (
              <RowAction label={`Refuser ${name}`} tip="Refuser" color="orange" loading={busy === u.id} onClick={() => void run(u, refuseUser)}>
                <IconUserX size={18} aria-hidden />
              </RowAction>
            )}
            <RowAction label={`Supprimer ${name}`} tip="Supprimer" reason={u.actif ? USER_MESSAGES.deleteActive : null} color="red" onClick={() => confirmDelete(u)}>
              <IconTrash size={18} aria-hidden />
            </RowAction>
          </Group>
        );
      },
    },
  ];

  return (
    <>
      <DataTable title="Utilisateurs" list={list} columns={columns} />
      <UserTypeDialog user={typeOf} onClose={() => setTypeOf(null)} />
      <UserSitesDialog user={sitesOf} onClose={() => setSitesOf(null)} />
      {confirmDialog}
    </>
  );
}
