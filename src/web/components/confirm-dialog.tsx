// A question asked before an action that destroys or shuts something ('Supprimer ?',
// 'Désactiver ce compte ?'), on the app's Dialog (dialog.tsx: focus kept inside, Escape closes
// only this layer, even above another dialog). The focus starts on the answer that does
// nothing, so a stray Enter never confirms.
//
//   const [confirm, confirmDialog] = useConfirm();
//   confirm({ title: 'Supprimer ?', message: 'Cette action est irréversible.', onConfirm: () => remove(row) });
//   return <>{…}{confirmDialog}</>;
//
// Answers default to 'Non' / 'Oui', the 'Oui' in red; the dialog closes before `onConfirm` runs.
import { useCallback, useState, type ReactNode } from 'react';
import { Button, Group, Stack, Text } from '@mantine/core';
import { Dialog } from './dialog';

export interface ConfirmOptions {
  title: string;
  /** A sentence (shown as text) or richer content. */
  message: ReactNode;
  confirmLabel?: string;
  cancelLabel?: string;
  /** Colour of the confirming button. */
  color?: string;
  onConfirm: () => void;
}

/** Above an ordinary dialog, which it may be opened from. */
const Z_INDEX = 400;

export function ConfirmDialog({ opened, onClose, options }: { opened: boolean; onClose: () => void; options: ConfirmOptions | null }) {
  const confirm = () => {
    onClose();
    options?.onConfirm();
  };
  return (
    <Dialog opened={opened && options !== null} onClose={onClose} title={options?.title} zIndex={Z_INDEX} centered>
      {options && (
        <Stack gap="lg">
          {typeof options.message === 'string' ? <Text size="sm">{options.message}</Text> : options.message}
          <Group justify="flex-end">
            <Button variant="default" onClick={onClose} data-autofocus>
              {options.cancelLabel ?? 'Non'}
            </Button>
            <Button color={options.color ?? 'red'} onClick={confirm}>
              {options.confirmLabel ?? 'Oui'}
            </Button>
          </Group>
        </Stack>
      )}
    </Dialog>
  );
}

/** `confirm(options)` opens the question; render the returned element once in the screen. */
export function useConfirm(): [(options: ConfirmOptions) => void, ReactNode] {
  const [opened, setOpened] = useState(false);
  // Kept after closing, so the dialog does not go blank while it fades out.
  const [options, setOptions] = useState<ConfirmOptions | null>(null);
  const confirm = useCallback((next: ConfirmOptions) => {
    setOptions(next);
    setOpened(true);
  }, []);
  const element = <ConfirmDialog opened={opened} onClose={() => setOpened(false)} options={options} />;
  return [confirm, element];
}
