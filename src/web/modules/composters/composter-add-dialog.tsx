// Dialog 'Ajouter un Composteur': volume in litres and precisions, validated with the
// schema the API uses (POST /api/admin/typeComposteur/add).
import { useState } from 'react';
import { Alert, Button, Group, Modal, NumberInput, Stack, TextInput } from '@mantine/core';
import { useQueryClient } from '@tanstack/react-query';
import { COMPOSTER_MESSAGES, composterAddSchema, PRECISIONS_MAX, VOLUME_MIN } from '../../../shared/schemas/composters';
import { readFailure } from '../../lib/api';
import { useZodForm } from '../../lib/form';
import { notifyError, notifySuccess } from '../../lib/notify';
import { addComposter, compostersKeys } from './composters.api';

const REQUIRED_FIELDS_MESSAGE = 'Veuillez renseigner les champs obligatoires';
const GENERIC_ERROR = 'Une erreur est survenue';

export function ComposterAddDialog({ opened, onClose }: { opened: boolean; onClose: () => void }) {
  return (
    <Modal closeButtonProps={{ 'aria-label': 'Fermer' }} opened={opened} onClose={onClose} title="Ajouter un Composteur">
      {opened && <ComposterAddForm onDone={onClose} />}
    </Modal>
  );
}

function ComposterAddForm({ onDone }: { onDone: () => void }) {
  const queryClient = useQueryClient();
  const [banner, setBanner] = useState<string | null>(null);
  const [saving, setSaving] = useState(false);
  const form = useZodForm(composterAddSchema, {
    initialValues: { volume: '' as number | string, precisions: '' },
    blankAsMissing: ['volume'],
  });

  const submit = form.onSubmit(
    async (payload) => {
      setBanner(null);
      setSaving(true);
      try {
        await addComposter(payload);
        notifySuccess(COMPOSTER_MESSAGES.added);
        await queryClient.invalidateQueries({ queryKey: compostersKeys.all });
        onDone();
      } catch (e) {
        const failure = await readFailure(e);
        if (failure.status === 401 || failure.status === 403) return;
        if (failure.status === 400 && failure.errors.length > 0) {
          const unmatched = form.setServerErrors(failure.errors);
          setBanner([REQUIRED_FIELDS_MESSAGE, ...unmatched.map((x) => x.error)].join(' : '));
          notifyError(REQUIRED_FIELDS_MESSAGE);
        } else {
          setBanner(`${GENERIC_ERROR}.`);
          notifyError(GENERIC_ERROR);
        }
      } finally {
        setSaving(false);
      }
    },
    () => setBanner(REQUIRED_FIELDS_MESSAGE),
  );

  return (
    <form onSubmit={submit} noValidate>
      <Stack gap="sm">
        {banner && (
          <Alert color="red" role="alert">
            {banner}
          </Alert>
        )}
        <NumberInput label="Volume en Litres" required min={VOLUME_MIN} allowDecimal={false} allowNegative={false} data-autofocus {...form.getInputProps('volume')} />
        <TextInput label="Précisions" required maxLength={PRECISIONS_MAX} description={`${PRECISIONS_MAX} caractères au plus`} {...form.getInputProps('precisions')} />
        <Group justify="flex-end">
          <Button variant="default" onClick={onDone}>
            Annuler
          </Button>
          <Button type="submit" loading={saving}>
            Enregistrer
          </Button>
        </Group>
      </Stack>
    </form>
  );
}
