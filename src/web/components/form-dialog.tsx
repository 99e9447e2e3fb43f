// The pieces every admin dialog repeats: the wait while its data loads, the red banner of a
// failure (role="alert", so it is read out), the 'Annuler' / 'Enregistrer' footer and the 'Non' / 'Oui' one.
import { Alert, Button, Center, Group, Loader } from '@mantine/core';

export function DialogLoader() {
  return (
    <Center py="xl">
      <Loader aria-label="Chargement" />
    </Center>
  );
}

/** Nothing while `message` is empty. */
export function ErrorBanner({ message }: { message: string | null }) {
  if (!message) return null;
  return (
    <Alert color="red" role="alert">
      {message}
    </Alert>
  );
}

/**
 * 'Annuler' (only with `onCancel`) and 'Enregistrer', which submits the enclosing form, or
 * calls `onSave` in a dialog without one.
 */
export function FormDialogFooter({ saving, onCancel, onSave, disabled }: { saving: boolean; onCancel?: () => void; onSave?: () => void; disabled?: boolean }) {
  return (
    <Group justify="flex-end">
      {onCancel && (
        <Button variant="default" onClick={onCancel}>
          Annuler
        </Button>
      )}
      {/* A spread, not type={undefined}: Mantine's own type="button" must stay when onSave is given. */}
      <Button {...(onSave ? { onClick: onSave } : { type: 'submit' as const })} loading={saving} disabled={disabled}>
        Enregistrer
      </Button>
    </Group>
  );
}

/** The 'Non' / 'Oui' footer of a confirmation that destroys or closes something (the red 'Oui'). */
export function ConfirmFooter({ saving, onNo, onYes }: { saving: boolean; onNo: () => void; onYes: () => void }) {
  return (
    <Group justify="flex-end">
      <Button variant="default" onClick={onNo}>
        Non
      </Button>
      <Button color="red" loading={saving} onClick={onYes}>
        Oui
      </Button>
    </Group>
  );
}
