// Dialog 'Type d'utilisateur': a select of the user types, saved with
// PUT /api/admin/user/update/typeUser/{id}.
import { useState } from 'react';
import { Alert, Button, Group, Modal, Select, Stack, Text } from '@mantine/core';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { userTypeUpdateSchema, USER_MESSAGES, type UserRow } from '../../../shared/schemas/users';
import { useZodForm } from '../../lib/form';
import { notifySuccess } from '../../lib/notify';
import { showSaveFailure } from './save-failure';
import { updateUserType, usersKeys, userTypesQuery } from './users.api';

export function UserTypeDialog({ user, onClose }: { user: UserRow | null; onClose: () => void }) {
  return (
    <Modal closeButtonProps={{ 'aria-label': 'Fermer' }} opened={user !== null} onClose={onClose} title="Type d'utilisateur">
      {user && <UserTypeForm key={user.id} user={user} onDone={onClose} />}
    </Modal>
  );
}

function UserTypeForm({ user, onDone }: { user: UserRow; onDone: () => void }) {
  const queryClient = useQueryClient();
  const types = useQuery(userTypesQuery());
  const [banner, setBanner] = useState<string | null>(null);
  const [saving, setSaving] = useState(false);
  const form = useZodForm(userTypeUpdateSchema, {
    initialValues: { type: user.idTypeUser === null ? null : String(user.idTypeUser) } as { type: string | null },
    blankAsMissing: ['type'],
  });

  const submit = form.onSubmit(
    async (payload) => {
      setBanner(null);
      setSaving(true);
      try {
        await updateUserType(user.id, payload);
        notifySuccess(USER_MESSAGES.typeUpdated);
        await queryClient.invalidateQueries({ queryKey: usersKeys.all });
        onDone();
      } catch (e) {
        await showSaveFailure(e, { setServerErrors: form.setServerErrors, setBanner });
      } finally {
        setSaving(false);
      }
    },
    () => setBanner('Veuillez renseigner les champs obligatoires'),
  );

  return (
    <form onSubmit={submit} noValidate>
      <Stack gap="sm">
        {banner && (
          <Alert color="red" role="alert">
            {banner}
          </Alert>
        )}
        <Text size="sm">
          {[user.prenom, user.nom].filter(Boolean).join(' ')} ({user.email})
        </Text>
        <Select
          label="Type"
          required
          data={(types.data ?? []).map((t) => ({ value: String(t.id), label: t.libelle }))}
          disabled={types.isPending}
          error={types.isError ? "Les types d'utilisateur n'ont pas pu être chargés" : undefined}
          comboboxProps={{ withinPortal: false }}
          {...form.getInputProps('type')}
        />
        <Group justify="flex-end">
          <Button type="submit" loading={saving}>
            Enregistrer
          </Button>
        </Group>
      </Stack>
    </form>
  );
}
