// Dialog 'Type d'utilisateur': a select of the user types, saved with
// PUT /api/admin/user/update/typeUser/{id}.
import { Select, Stack, Text } from '@mantine/core';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { userTypeUpdateSchema, USER_MESSAGES, type UserRow } from '../../../shared/schemas/users';
import { Dialog } from '../../components/dialog';
import { ErrorBanner, FormDialogFooter } from '../../components/form-dialog';
import { useSaveAction, useZodForm } from '../../lib/form';
import { notifySuccess } from '../../lib/notify';
import { updateUserType, usersKeys, userTypesQuery } from './users.api';

export function UserTypeDialog({ user, onClose }: { user: UserRow | null; onClose: () => void }) {
  return (
    <Dialog opened={user !== null} onClose={onClose} title="Type d'utilisateur">
      {user && <UserTypeForm key={user.id} user={user} onDone={onClose} />}
    </Dialog>
  );
}

function UserTypeForm({ user, onDone }: { user: UserRow; onDone: () => void }) {
  const queryClient = useQueryClient();
  const types = useQuery(userTypesQuery());
  const form = useZodForm(userTypeUpdateSchema, {
    initialValues: { type: user.idTypeUser === null ? null : String(user.idTypeUser) } as { type: string | null },
    blankAsMissing: ['type'],
  });
  const save = useSaveAction({ invalid: 'Veuillez renseigner les champs obligatoires', serverMessage: true, setServerErrors: form.setServerErrors });

  const submit = form.onSubmit(
    (payload) =>
      save.run(async () => {
        await updateUserType(user.id, payload);
        notifySuccess(USER_MESSAGES.typeUpdated);
        await queryClient.invalidateQueries({ queryKey: usersKeys.all });
        onDone();
      }),
    save.showInvalid,
  );

  return (
    <form onSubmit={submit} noValidate>
      <Stack gap="sm">
        <ErrorBanner message={save.banner} />
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
        <FormDialogFooter saving={save.saving} />
      </Stack>
    </form>
  );
}
