// 'Annuler' one occurrence: the reason is asked (the openers and the site's subscribed
// households receive it by e-mail), checked with the API's own schema before it leaves.
import { useState, type FormEvent } from 'react';
import { Button, Group, Stack, Text, Textarea } from '@mantine/core';
import { useQueryClient } from '@tanstack/react-query';
import { permanenceAnnulerSchema, PERMANENCE_MESSAGES, PERMANENCE_MOTIF_MAX, type PermanenceRow } from '../../../shared/schemas/permanences';
import type { FieldError } from '../../../shared/errors';
import { Dialog } from '../../components/dialog';
import { ErrorBanner } from '../../components/form-dialog';
import { FIELDS_REQUIRED, useSaveAction } from '../../lib/form';
import { notifySuccess } from '../../lib/notify';
import { cancelPermanence, permanenceKeys } from './permanences.api';
import { formatPermanenceWhen } from './permanence-format';

export function CancelDialog({ permanence, onClose }: { permanence: Pick<PermanenceRow, 'id' | 'debut' | 'fin'>; onClose: () => void }) {
  const queryClient = useQueryClient();
  const [motif, setMotif] = useState('');
  const [error, setError] = useState<string | undefined>();
  const save = useSaveAction({
    invalid: FIELDS_REQUIRED,
    serverMessage: true,
    setServerErrors: (errors: readonly FieldError[]) => {
      setError(errors.find((e) => e.key === 'motif')?.error);
      return errors.filter((e) => e.key !== 'motif');
    },
  });

  const submit = (event: FormEvent) => {
    event.preventDefault();
    const parsed = permanenceAnnulerSchema.safeParse({ motif });
    if (!parsed.success) {
      setError(parsed.error.issues[0]?.message ?? PERMANENCE_MESSAGES.motifLength);
      save.showInvalid();
      return;
    }
    setError(undefined);
    void save.run(async () => {
      await cancelPermanence(permanence.id, parsed.data.motif);
      notifySuccess(PERMANENCE_MESSAGES.cancelledDone);
      await queryClient.invalidateQueries({ queryKey: permanenceKeys.all });
      onClose();
    });
  };

  return (
    <Dialog opened onClose={onClose} title="Annuler la permanence" size="md">
      <form onSubmit={submit} noValidate>
        <Stack gap="sm">
          <ErrorBanner message={save.banner} />
          <Text size="sm">
            Permanence du {formatPermanenceWhen(permanence.debut, permanence.fin)}. Les ouvreurs et les foyers inscrits recevront ce motif par e-mail.
          </Text>
          <Textarea
            label="Motif de l’annulation"
            withAsterisk
            rows={3}
            maxLength={PERMANENCE_MOTIF_MAX}
            value={motif}
            onChange={(e) => {
              setMotif(e.currentTarget.value);
              setError(undefined);
            }}
            error={error}
            data-autofocus
          />
          {/* 'Annuler' would read both ways here: the buttons say what they do. */}
          <Group justify="flex-end" gap="sm">
            <Button variant="default" onClick={onClose}>
              Retour
            </Button>
            <Button type="submit" color="red" loading={save.saving}>
              Annuler la permanence
            </Button>
          </Group>
        </Stack>
      </form>
    </Dialog>
  );
}
