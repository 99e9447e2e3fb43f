// 'Annuler' on the requests board: confirms, then cancels the selected requests (status 6,
// with the date and who cancelled). A refusal (already processed elsewhere, two sites, gone)
// shows the server's French message.
import { useState } from 'react';
import { Modal, Stack, Text } from '@mantine/core';
import { useQueryClient } from '@tanstack/react-query';
import type { DemandeIntervention } from '../../../shared/schemas/requests';
import { ConfirmFooter, ErrorBanner } from '../../components/form-dialog';
import { readFailure } from '../../lib/api';
import { refusalMessage } from '../../lib/form';
import { notifySuccess } from '../../lib/notify';
import { cancelRequests, requestsKeys } from './requests.api';

export const cancelTitle = (n: number) => (n > 1 ? "Annuler ces demandes d'interventions ?" : "Annuler cette demande d'intervention ?");

export function CancelDialog({ opened, demandes, onClose, onDone }: { opened: boolean; demandes: DemandeIntervention[]; onClose: () => void; onDone: () => void }) {
  const queryClient = useQueryClient();
  const [saving, setSaving] = useState(false);
  const [error, setError] = useState<string | null>(null);

  const confirm = async () => {
    setSaving(true);
    setError(null);
    try {
      const res = await cancelRequests(demandes.map((d) => d.id));
      notifySuccess(res.message);
      await queryClient.invalidateQueries({ queryKey: requestsKeys.all });
      onDone();
    } catch (e) {
      const failure = await readFailure(e);
      setError(refusalMessage(failure));
      // Someone else changed these requests: show the board as it is now.
      if (failure.status === 409 || failure.status === 404) void queryClient.invalidateQueries({ queryKey: requestsKeys.all });
    } finally {
      setSaving(false);
    }
  };

  return (
    <Modal
      opened={opened}
      onClose={() => {
        setError(null);
        onClose();
      }}
      title={cancelTitle(demandes.length)}
      centered
    >
      <Stack gap="md">
        <ErrorBanner message={error} />
        <Stack gap={2}>
          {demandes.map((d) => (
            <Text key={d.id} size="sm">
              {d.actionProgrammee} – {d.site}, cellule n°{d.numero}
            </Text>
          ))}
        </Stack>
        <ConfirmFooter saving={saving} onNo={onClose} onYes={() => void confirm()} />
      </Stack>
    </Modal>
  );
}
