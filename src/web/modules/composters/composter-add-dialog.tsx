// Dialog 'Ajouter un Composteur': volume in litres and precisions, validated with the
// schema the API uses (POST /api/admin/typeComposteur/add).
import { NumberInput, TextInput } from '@mantine/core';
import { COMPOSTER_MESSAGES, composterAddSchema, PRECISIONS_MAX, VOLUME_MIN } from '../../../shared/schemas/composters';
import { Dialog } from '../../components/dialog';
import { DialogForm } from '../../components/form-dialog';
import { useFormSave, useZodForm } from '../../lib/form';
import { addComposter, compostersKeys } from './composters.api';

export function ComposterAddDialog({ opened, onClose }: { opened: boolean; onClose: () => void }) {
  return (
    <Dialog opened={opened} onClose={onClose} title="Ajouter un Composteur">
      {opened && <ComposterAddForm onDone={onClose} />}
    </Dialog>
  );
}

function ComposterAddForm({ onDone }: { onDone: () => void }) {
  const form = useZodForm(composterAddSchema, {
    initialValues: { volume: '' as number | string, precisions: '' },
    blankAsMissing: ['volume'],
  });
  const save = useFormSave(form, { call: addComposter, success: COMPOSTER_MESSAGES.added, invalidate: [compostersKeys.all], onDone });

  return (
    <DialogForm save={save} onCancel={onDone}>
      <NumberInput label="Volume en Litres" required min={VOLUME_MIN} allowDecimal={false} allowNegative={false} data-autofocus {...form.getInputProps('volume')} />
      <TextInput label="Précisions" required maxLength={PRECISIONS_MAX} description={`${PRECISIONS_MAX} caractères au plus`} {...form.getInputProps('precisions')} />
    </DialogForm>
  );
}
