// 'Annuler' on the requests board: asks for the reason ('Motif d'annulation', always required
// here though the API takes none from older clients), then cancels the selected requests as a
// whole (status 6, with the date, who cancelled and the reason) and says how many. A refusal
// (already processed elsewhere, two sites, gone) shows the server's French message, and under
// each listed request the reason it stopped the whole selection.
import { useEffect, useState } from 'react';
import { Modal, Stack, Text, Textarea } from '@mantine/core';
import { notifications } from '@mantine/notifications';
import { useQueryClient } from '@tanstack/react-query';
import { REQUEST_MESSAGES, cancelBodySchema, cancelledCountLabel, type DemandeIntervention } from '../../../shared/schemas/requests';
import { ConfirmFooter, ErrorBanner } from '../../components/form-dialog';
import { readFailure } from '../../lib/api';
import { refusalMessage } from '../../lib/form';
import { cancelRequests, requestsKeys } from './requests.api';

export const cancelTitle = (n: number) => (n > 1 ? "Annuler ces demandes d'interventions ?" : "Annuler cette demande d'intervention ?");

/** The reason as sent, or the refusal to show under the field. */
function checkMotif(motif: string): { motif: string } | { error: string } {
  const trimmed = motif.trim();
  if (trimmed === '') return { error: REQUEST_MESSAGES.motifRequired };
  const parsed = cancelBodySchema.shape.motif.safeParse(trimmed);
  return parsed.success ? { motif: trimmed } : { error: parsed.error.issues[0].message };
}

export function CancelDialog({ opened, demandes, onClose, onDone }: { opened: boolean; demandes: DemandeIntervention[]; onClose: () => void; onDone: () => void }) {
  const queryClient = useQueryClient();
  const [saving, setSaving] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const [motif, setMotif] = useState('');
  const [motifError, setMotifError] = useState<string | null>(null);
  /** The server's refusal of each request, by request id. */
  const [itemErrors, setItemErrors] = useState<Record<number, string>>({});

  useEffect(() => {
    if (!opened) return;
    setMotif('');
    setMotifError(null);
    setItemErrors({});
    setError(null);
  }, [opened, demandes]);

  const confirm = async () => {
    const checked = checkMotif(motif);
    if ('error' in checked) {
      setMotifError(checked.error);
      setError(REQUEST_MESSAGES.required);
      return;
    }
    setSaving(true);
    setError(null);
    setMotifError(null);
    setItemErrors({});
    try {
      const res = await cancelRequests(
        demandes.map((d) => d.id),
        checked.motif,
      );
      // How many, above the contract's own message.
      notifications.show({ title: cancelledCountLabel(res.count), message: res.message, color: 'green', autoClose: 3000 });
      await queryClient.invalidateQueries({ queryKey: requestsKeys.all });
      onDone();
    } catch (e) {
      const failure = await readFailure(e);
      const byId: Record<number, string> = {};
      const others: string[] = [];
      for (const err of failure.errors) {
        const item = /^demandesInterventions(\d+)$/.exec(err.key);
        const d = item ? demandes[Number(item[1])] : undefined;
        if (d) byId[d.id] = err.error;
        else if (err.key === 'motif') setMotifError(err.error);
        else others.push(err.error);
      }
      setItemErrors(byId);
      setError(failure.status === 400 ? [REQUEST_MESSAGES.required, ...others].join(' : ') : refusalMessage(failure));
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
        <Stack gap={2} component="ul" aria-label="Demandes à annuler" style={{ listStyle: 'none', padding: 0, margin: 0 }}>
          {demandes.map((d) => (
            <li key={d.id}>
              <Text size="sm">
                {d.actionProgrammee} – {d.site}, cellule n°{d.numero}
              </Text>
              {itemErrors[d.id] && (
                <Text size="sm" c="red">
                  {itemErrors[d.id]}
                </Text>
              )}
            </li>
          ))}
        </Stack>
        <Textarea
          label="Motif d'annulation"
          withAsterisk
          autosize
          minRows={2}
          maxRows={6}
          value={motif}
          onChange={(e) => {
            setMotif(e.currentTarget.value);
            setMotifError(null);
          }}
          error={motifError}
        />
        <ConfirmFooter saving={saving} onNo={onClose} onYes={() => void confirm()} />
      </Stack>
    </Modal>
  );
}
