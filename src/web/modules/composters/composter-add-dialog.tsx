// Dialog 'Ajouter un Composteur': volume in litres and precisions, validated with the
// schema the API uses (POST /api/admin/typeComposteur/add).
import { NumberInput, Stack, TextInput } from '@mantine/core';
import { useQueryClient } from '@tanstack/react-query';
import { COMPOSTER_MESSAGES, composterAddSchema, PRECISIONS_MAX, VOLUME_MIN } from '../../../shared/schemas/composters';
import { Dialog } from '../../components/dialog';
import { ErrorBanner, FormDialogFooter } from '../../components/form-dialog';
import { useSaveAction, useZodForm } from '../../lib/form';
import { notifySuccess } from '../../lib/notify';
import { addComposter, compostersKeys } from './composters.api';

export function ComposterAddDialog({ opened, onClose }: { opened: boolean; onClose: () => void }) {
  return (
    <Dialog opened={opened} onClose={onClose} title="Ajouter un Composteur">
      {opened && <ComposterAddForm onDone={onClose} />}
    </Dialog>
  );
}

function ComposterAddForm({ onDone }: { onDone: () => void }) {
  const queryClient = useQueryClient();
  const form = useZodForm(composterAddSchema, {
    initialValues: { volume: '' as number | string, precisions: '' },
    blankAsMissing: ['volume'],
  });
  const save = useSaveAction({ invalid: 'Veuillez renseigner les champs obligatoires', setServerErrors: form.setServerErrors });

  const submit = form.onSubmit(
    (payload) =>
      save.run(async () => {
        await addComposter(payload);
        notifySuccess(COMPOSTER_MESSAGES.added);
        await queryClient.invalidateQueries({ queryKey: compostersKeys.all });
        onDone();
      }),
    save.showInvalid,
  );

  return (
    <form onSubmit={submit} noValidate>
      <Stack gap="sm">
        <ErrorBanner message={save.banner} />
        <NumberInput label="Volume en Litres" required min={VOLUME_MIN} allowDecimal={false} allowNegative={false} data-autofocus {...form.getInputProps('volume')} />
        <TextInput label="Précisions" required maxLength={PRECISIONS_MAX} description={`${PRECISIONS_MAX} caractères au plus`} {...form.getInputProps('precisions')} />
        <FormDialogFooter saving={save.saving} onCancel={onDone} />
      </Stack>
    </form>
  );
}
