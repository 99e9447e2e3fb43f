// Dialog of one role, titled with its name: the agents holding it (photo or initials), a
// remove button each, the 'Ajouter' row, and 'Annuler' / 'Enregistrer', which replaces the
// role's agents (PUT /api/admin/role/update/{id}).
import { useState } from 'react';
import { ActionIcon, Alert, Avatar, Button, Group, Stack, Text } from '@mantine/core';
import { IconPlus, IconX } from '@tabler/icons-react';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { EXTERNAL_ROLES } from '../../../shared/permissions';
import { agentName, initials, ROLE_MESSAGES, type Agent, type RoleDetail, type RoleRow } from '../../../shared/schemas/roles';
import { useConfirm } from '../../components/confirm-dialog';
import { Dialog } from '../../components/dialog';
import { ErrorBanner, FormDialogFooter } from '../../components/form-dialog';
import { QueryState } from '../../components/query-state';
import { useSaveAction } from '../../lib/form';
import { notifySuccess } from '../../lib/notify';
import { useSessionStore } from '../../session/session-store';
import { AddAgentDialog } from './add-agent-dialog';
import { roleQuery, rolesKeys, updateRole } from './roles.api';

export function RoleDialog({ role, onClose }: { role: RoleRow | null; onClose: () => void }) {
  const detail = useQuery({ ...roleQuery(role?.id ?? 0), enabled: role !== null });
  return (
    <Dialog opened={role !== null} onClose={onClose} title={role?.libelle} size="lg">
      {role && (
        <QueryState queries={[detail]} detail="Les agents de ce rôle n'ont pas pu être chargés.">
          {(d) => <RoleAgentsForm key={d.id} role={d} onDone={onClose} />}
        </QueryState>
      )}
    </Dialog>
  );
}

function RoleAgentsForm({ role, onDone }: { role: RoleDetail; onDone: () => void }) {
  const queryClient = useQueryClient();
  const myId = useSessionStore((s) => s.id);
  const [agents, setAgents] = useState<Agent[]>(role.agents);
  const [adding, setAdding] = useState(false);
  const [confirm, confirmDialog] = useConfirm();
  // The server's errors have no field here: the banner lists them alone.
  const save = useSaveAction({ invalid: 'Veuillez renseigner les champs obligatoires', invalidInBanner: false, serverMessage: true });
  // ROLE_USER and ROLE_PRESTATAIRE follow from an external account's type: never an agent's.
  const external = (EXTERNAL_ROLES as readonly string[]).includes(role.libelle);

  // An administrator who takes ROLE_ADMIN off their own account loses this screen at once.
  const removesSelf = role.libelle === 'ROLE_ADMIN' && role.agents.some((a) => a.id === myId) && !agents.some((a) => a.id === myId);

  const confirmThenSubmit = () => {
    if (!removesSelf) return void submit();
    confirm({
      title: 'Retirer votre propre rôle ROLE_ADMIN ?',
      message:
        "Vous ne serez plus administrateur : l'administration vous sera fermée dès l'enregistrement et seul un autre administrateur pourra vous rendre ce rôle.",
      confirmLabel: 'Retirer mon rôle',
      cancelLabel: 'Annuler',
      onConfirm: () => void submit(),
    });
  };

  const submit = () =>
    save.run(async () => {
      const res = await updateRole(role.id, { agents: agents.map((a) => a.id) });
      notifySuccess(res.message ?? ROLE_MESSAGES.saved);
      await queryClient.invalidateQueries({ queryKey: rolesKeys.all });
      onDone();
    });

  return (
    <Stack gap="sm">
      <ErrorBanner message={save.banner} />
      {external && <Alert color="blue">{ROLE_MESSAGES.externalRole}</Alert>}
      {agents.length === 0 ? (
        <Text size="sm" c="dimmed">
          Aucun agent
        </Text>
      ) : (
        <Stack gap={6} component="ul" style={{ listStyle: 'none', padding: 0, margin: 0 }} aria-label={`Agents ${role.libelle}`}>
          {agents.map((a) => (
            <Group key={a.id} component="li" justify="space-between" wrap="nowrap">
              <Group gap="sm" wrap="nowrap">
                <Avatar src={a.photo} alt={agentName(a)} radius="xl" color="green">
                  {initials(a)}
                </Avatar>
                <Text size="sm">{agentName(a)}</Text>
              </Group>
              <ActionIcon variant="subtle" color="red" aria-label={`Retirer ${agentName(a)}`} onClick={() => setAgents((list) => list.filter((x) => x.id !== a.id))}>
                <IconX size={18} aria-hidden />
              </ActionIcon>
            </Group>
          ))}
        </Stack>
      )}
      <Group>
        <Button variant="light" leftSection={<IconPlus size={16} aria-hidden />} disabled={external} onClick={() => setAdding(true)}>
          Ajouter
        </Button>
      </Group>
      <FormDialogFooter saving={save.saving} onCancel={onDone} onSave={confirmThenSubmit} disabled={external} />
      <AddAgentDialog
        opened={adding}
        exclude={agents.map((a) => a.id)}
        onClose={() => setAdding(false)}
        onAdd={(agent) => {
          setAgents((list) => [...list, agent]);
          setAdding(false);
        }}
      />
      {confirmDialog}
    </Stack>
  );
}
