// /admin/user (spec.md "Users"): external accounts with their type, sites and states, the
// row actions of their lifecycle (type, sites, activate, deactivate / refuse, delete) and the
// red cells that flag what needs attention.
import { useState, type CSSProperties, type ReactNode } from 'react';
import { ActionIcon, Button, Group, Text, Tooltip, VisuallyHidden } from '@mantine/core';
import { modals } from '@mantine/modals';
import { IconTrash, IconUserEdit } from '@tabler/icons-react';
import { useQueryClient } from '@tanstack/react-query';
import { can } from '../../../shared/permissions';
import { NO_SITE, TYPE_PRESTATAIRE, USER_MESSAGES, type UserRow } from '../../../shared/schemas/users';
import { PageMessage } from '../../components/page-message';
import { DataTable, type ListColumn } from '../../components/data-table';
import { useListQuery } from '../../components/use-list-query';
import { readFailure } from '../../lib/api';
import { notifyError, notifySuccess } from '../../lib/notify';
import { useSessionStore } from '../../app/session-store';
import { UserSitesDialog } from './user-sites-dialog';
import { UserTypeDialog } from './user-type-dialog';
import { activateUser, deleteUser, refuseUser, USERS_LIST_URL, usersKeys } from './users.api';
import { formatParisDate } from '../../../shared/dates';

type UserFilter = { date?: string; organisme?: string; nom?: string; prenom?: string; email?: string; tel?: string; type?: string };

const RED_CELL: CSSProperties = { backgroundColor: 'var(--mantine-color-red-1)', color: 'var(--mantine-color-red-9)' };

const fullName = (u: UserRow) => [u.prenom, u.nom].filter(Boolean).join(' ');

/** A disabled control still explains itself: the tooltip sits on a wrapper that gets the pointer. */
function WithReason({ reason, children }: { reason: string | null; children: ReactNode }) {
  if (!reason) return <>{children}</>;
  return (
    <Tooltip label={reason} withArrow>
      <span style={{ display: 'inline-block' }}>{children}</span>
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
  });
  const [typeOf, setTypeOf] = useState<UserRow | null>(null);
  const [sitesOf, setSitesOf] = useState<UserRow | null>(null);
  const [busy, setBusy] = useState<number | null>(null);

  const reload = () => queryClient.invalidateQueries({ queryKey: usersKeys.all });

  const run = async (user: UserRow, call: (id: number) => Promise<{ message?: string }>) => {
    setBusy(user.id);
    try {
      const res = await call(user.id);
      if (res.message) notifySuccess(res.message);
      await reload();
    } catch (e) {
      const failure = await readFailure(e);
      if (failure.status !== 401 && failure.status !== 403) notifyError('Une erreur est survenue');
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
      else notifyError('Une erreur est survenue');
      if (failure.status === 404) await reload();
    } finally {
      setBusy(null);
    }
  };

  const confirmDelete = (user: UserRow) =>
    modals.openConfirmModal({
      title: 'Supprimer  ?',
      children: <Text size="sm">Etes-vous sûre de vouloir supprimer cet utilisateur ? Cette action est irréversible.</Text>,
      labels: { confirm: 'Oui', cancel: 'Non' },
      confirmProps: { color: 'red' },
      closeButtonProps: { 'aria-label': 'Fermer' },
      onConfirm: () => void remove(user),
    });

  // Deactivating shuts a referent out of the field app at once: ask first.
  const confirmDeactivate = (user: UserRow) =>
    modals.openConfirmModal({
      title: 'Désactiver ce compte ?',
      children: <Text size="sm">{`${fullName(user)} ne pourra plus se connecter tant que le compte ne sera pas réactivé.`}</Text>,
      labels: { confirm: 'Désactiver', cancel: 'Annuler' },
      confirmProps: { color: 'orange' },
      closeButtonProps: { 'aria-label': 'Fermer' },
      onConfirm: () => void run(user, refuseUser),
    });

  const columns: ListColumn<UserRow>[] = [
    {
      accessor: 'date',
      title: 'Date inscription',
      sortable: true,
      render: (u) => formatParisDate(u.date),
      filterBy: { type: 'text', name: 'date', placeholder: 'jj/mm/aaaa' },
    },
    { accessor: 'organisme', title: 'Organisme', sortable: true, filterBy: { type: 'text', name: 'organisme' } },
    { accessor: 'nom', title: 'Nom', sortable: true, filterBy: { type: 'text', name: 'nom' } },
    { accessor: 'prenom', title: 'Prénom', sortable: true, filterBy: { type: 'text', name: 'prenom' } },
    {
      accessor: 'email',
      title: 'Email',
      sortable: true,
      filterBy: { type: 'text', name: 'email' },
      cellsStyle: (u) => (u.emailValide ? undefined : RED_CELL),
      render: (u) => (
        <>
          {u.email}
          {!u.emailValide && <VisuallyHidden> (adresse mail non validée)</VisuallyHidden>}
        </>
      ),
    },
    { accessor: 'tel', title: 'Téléphone', sortable: true, filterBy: { type: 'text', name: 'tel' } },
    { accessor: 'typeUser', title: 'Type', sortable: true, sortKey: 'type', filterBy: { type: 'text', name: 'type' } },
    { accessor: 'site', title: 'Site', cellsStyle: (u) => (u.site === NO_SITE ? RED_CELL : undefined) },
    {
      accessor: 'actif',
      title: 'Actif',
      sortable: true,
      render: (u) => (u.actif ? 'Oui' : 'Non'),
      cellsStyle: (u) => (u.actif ? undefined : RED_CELL),
    },
    {
      accessor: 'editType',
      title: <VisuallyHidden>Type</VisuallyHidden>,
      width: 56,
      render: (u) => (
        <WithReason reason={u.emailValide ? null : 'Adresse mail non validée'}>
          <ActionIcon variant="subtle" aria-label={`Modifier le type de ${fullName(u)}`} disabled={!u.emailValide} onClick={() => setTypeOf(u)}>
            <IconUserEdit size={18} aria-hidden />
          </ActionIcon>
        </WithReason>
      ),
    },
    {
      accessor: 'editSites',
      title: <VisuallyHidden>Sites</VisuallyHidden>,
      render: (u) => {
        const reason = !u.actif ? 'Compte inactif' : u.idTypeUser === TYPE_PRESTATAIRE ? 'Un prestataire voit tous les sites' : null;
        return (
          <WithReason reason={reason}>
            <Button size="compact-sm" variant="light" disabled={reason !== null} onClick={() => setSitesOf(u)} aria-label={`Voir / Modifier les sites de ${fullName(u)}`}>
              Voir / Modifier
            </Button>
          </WithReason>
        );
      },
    },
    {
      accessor: 'state',
      title: <VisuallyHidden>Activation</VisuallyHidden>,
      render: (u) => (
        <Group gap={6} wrap="nowrap">
          {!u.actif && (
            <WithReason reason={u.emailValide ? null : 'Adresse mail non validée'}>
              <Button
                size="compact-sm"
                color="green"
                disabled={!u.emailValide}
                loading={busy === u.id}
                onClick={() => void run(u, activateUser)}
                aria-label={`Activer ${fullName(u)}`}
              >
                Activer
              </Button>
            </WithReason>
          )}
          <Button
            size="compact-sm"
            color="orange"
            variant="light"
            loading={busy === u.id}
            onClick={() => (u.actif ? confirmDeactivate(u) : void run(u, refuseUser))}
            aria-label={`${u.actif ? 'Désactiver' : 'Refuser'} ${fullName(u)}`}
          >
            {u.actif ? 'Désactiver' : 'Refuser'}
          </Button>
        </Group>
      ),
    },
    {
      accessor: 'delete',
      title: <VisuallyHidden>Supprimer</VisuallyHidden>,
      width: 56,
      render: (u) => (
        <WithReason reason={u.actif ? USER_MESSAGES.deleteActive : null}>
          <ActionIcon variant="subtle" color="red" aria-label={`Supprimer ${fullName(u)}`} disabled={u.actif} onClick={() => confirmDelete(u)}>
            <IconTrash size={18} aria-hidden />
          </ActionIcon>
        </WithReason>
      ),
    },
  ];

  return (
    <>
      <DataTable title="Utilisateurs" list={list} columns={columns} />
      <UserTypeDialog user={typeOf} onClose={() => setTypeOf(null)} />
      <UserSitesDialog user={sitesOf} onClose={() => setSitesOf(null)} />
    </>
  );
}
