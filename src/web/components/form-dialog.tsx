// The pieces every admin dialog repeats (its wait and its loading failure: query-state.tsx): the
// form, the red banner of a failure (role="alert", so it is read out), the 'Annuler' /
// 'Enregistrer' footer and the 'Non' / 'Oui' one.
// A refused save in a form (the form's own checks, or the server's field errors) scrolls to its
// first field to correct and focuses it, and the footer says how many fields are to correct
// beside 'Enregistrer': on a phone the errors of a long form are out of sight (as the site sheet).
import { useCallback, useEffect, useRef, useState, type FormEvent, type ReactNode } from 'react';
import { Alert, Anchor, Button, Group, Stack } from '@mantine/core';

/** Nothing while `message` is empty. */
export function ErrorBanner({ message }: { message: string | null }) {
  if (!message) return null;
  return (
    <Alert color="red" role="alert">
      {message}
    </Alert>
  );
}

/** A dialog's form (lib/form.ts useFormSave): the banner of its save above the fields, the footer below. */
export function DialogForm({ save, onCancel, children }: { save: { submit: (event?: FormEvent<HTMLFormElement>) => void; banner: string | null; saving: boolean }; onCancel?: () => void; children: ReactNode }) {
  return (
    <form onSubmit={save.submit} noValidate>
      <Stack gap="sm">
        <ErrorBanner message={save.banner} />
        {children}
        <FormDialogFooter saving={save.saving} onCancel={onCancel} />
      </Stack>
    </form>
  );
}

/**
 * 'Annuler' (only with `onCancel`) and 'Enregistrer', which submits the enclosing form, or
 * calls `onSave` in a dialog without one.
 */
export function FormDialogFooter({ saving, onCancel, onSave, disabled }: { saving: boolean; onCancel?: () => void; onSave?: () => void; disabled?: boolean }) {
  const { ref, count, focusFirst } = useFieldsToFix(saving);
  return (
    <Group ref={ref} justify="flex-end">
      <div aria-live="polite">
        {count > 0 && (
          <Anchor component="button" type="button" c="red" fw={600} size="sm" onClick={focusFirst}>
            {fieldsToFix(count)}
          </Anchor>
        )}
      </div>
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

/** '1 champ à corriger', '2 champs à corriger'. */
export function fieldsToFix(n: number): string {
  return n === 1 ? '1 champ à corriger' : `${n} champs à corriger`;
}

const INVALID = '[aria-invalid="true"]:not([disabled])';

/**
 * Watches the form around the footer: how many fields show an error, and after a submit, the
 * first of them (else the error banner) is scrolled to and focused, once the form's checks or
 * the server's answer have drawn the errors.
 */
function useFieldsToFix(saving: boolean) {
  const ref = useRef<HTMLDivElement>(null);
  const [count, setCount] = useState(0);
  const pending = useRef(false);
  const savingNow = useRef(saving);
  savingNow.current = saving;
  const focusFirst = useCallback(() => {
    const form = ref.current?.closest('form');
    const target = form?.querySelector<HTMLElement>(INVALID) ?? form?.querySelector<HTMLElement>('[role="alert"]');
    if (!target) return;
    target.scrollIntoView?.({ block: 'center' });
    target.focus({ preventScroll: true });
  }, []);
  const check = useCallback(() => {
    const form = ref.current?.closest('form');
    if (!form) return;
    const invalid = form.querySelectorAll(INVALID).length;
    setCount(invalid);
    if (pending.current && (invalid > 0 || form.querySelector('[role="alert"]'))) {
      pending.current = false;
      focusFirst();
    }
  }, [focusFirst]);
  useEffect(() => {
    const form = ref.current?.closest('form');
    if (!form) return;
    const observer = new MutationObserver(check);
    observer.observe(form, { subtree: true, childList: true, attributes: true, attributeFilter: ['aria-invalid'] });
    const onSubmit = () => {
      pending.current = true;
      // After the form's handler has drawn its errors, or started the save.
      setTimeout(() => {
        check();
        if (!savingNow.current) pending.current = false;
      });
    };
    form.addEventListener('submit', onSubmit);
    return () => {
      observer.disconnect();
      form.removeEventListener('submit', onSubmit);
    };
  }, [check]);
  useEffect(() => {
    // The save is over: its field errors, if any, were drawn with it.
    if (saving) return;
    setTimeout(() => {
      check();
      pending.current = false;
    });
  }, [saving, check]);
  return { ref, count, focusFirst };
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
