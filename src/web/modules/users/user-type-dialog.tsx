// Dialog 'Type d'utilisateur': a select of the user types, saved with
// PUT /api/admin/user/update/typeUser/{id}.
import { Select, Text } from '@mantine/core';
import { useQuery } from '@tanstack/react-query';
import { userTypeUpdateSchema, USER_MESSAGES, type UserRow } from '../../../shared/schemas/users';
import { Dialog } from '../../components/dialog';
import { DialogForm } from '../../components/form-dialog';
import { useFormSave, useZodForm } from '../../lib/form';
import { updateUserType, usersKeys, userTypesQuery } from './users.api';

export function UserTypeDialog({ user, onClose }: { user: UserRow | null; onClose: () => void }) {
  return (
    <Dialog opened={user !== null} onClose={onClose} title="Type d'utilisateur">
      {user && <UserTypeForm key={user.id} user={user} onDone={onClose} />}
    </Dialog>
  );
}

function UserTypeForm({ user, onDone }: { user: UserRow; onDone: () => void }) {
  const types = useQuery(userTypesQuery());
  const form = useZodForm(userTypeUpdateSchema, {
    initialValues: { type: user.idTypeUser === null ? null : String(user.idTypeUser) } as { type: string | null },
    blankAsMissing: ['type'],
  });
  const save = useFormSave(form, { serverMessage: true, call: (payload) => updateUserType(user.id, payload), success: USER_MESSAGES.typeUpdated, invalidate: [usersKeys.all], onDone });

  return (
    <DialogForm save={save}>
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
    </DialogForm>
  );
}
