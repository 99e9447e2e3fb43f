// What the public page's two forms ('Signaler un problème', 'Je composte ici') share: their
// values, the errors under each field (cleared as the field changes), the banner, the sending
// state, and what a send's answer does (success: the form is emptied and says so; a 400: each
// error under its field, the others in the banner; anything else: the banner).
import { useId, useState, type ReactNode } from 'react';
import type { FieldError } from '../../../shared/errors';
import type { SendResult } from './public-site.api';

export const CHECK_FIELDS = 'Vérifiez les champs signalés.';

export function usePublicForm<V extends object>(empty: V, fields?: ReadonlySet<string>) {
  const id = useId();
  const [values, setValues] = useState<V>(empty);
  const [errors, setErrors] = useState<Record<string, string>>({});
  const [banner, setBanner] = useState<string | null>(null);
  const [sent, setSent] = useState<string | null>(null);
  const [sending, setSending] = useState(false);

  const set = <K extends keyof V>(key: K, value: V[K]) => {
    setValues((v) => ({ ...v, [key]: value }));
    setErrors((e) => {
      if (!(key in e)) return e;
      const next = { ...e };
      delete next[key as string];
      return next;
    });
  };

  /** Shows what the form found itself; true when there is nothing, so the form may send. */
  const checked = (found: Record<string, string>) => {
    setErrors(found);
    if (Object.keys(found).length > 0) {
      setBanner(CHECK_FIELDS);
      return false;
    }
    return true;
  };

  const send = async (request: () => Promise<SendResult>) => {
    setSending(true);
    setBanner(null);
    const result = await request();
    setSending(false);
    if (result.kind === 'ok') {
      setValues(empty);
      setSent(result.message);
    } else if (result.kind === 'invalid') {
      // Keys the form has no field for (none today, but the server may add some) go to the banner.
      const mine = result.errors.filter((e: FieldError) => !fields || fields.has(e.key));
      const others = result.errors.filter((e: FieldError) => fields && !fields.has(e.key)).map((e) => e.error);
      setErrors(Object.fromEntries(mine.map((e) => [e.key, e.error])));
      setBanner([result.message, ...others].join(' '));
    } else setBanner(result.message);
  };

  const describedBy = (key: string, help?: string) => [help, errors[key] ? `${id}-${key}-error` : null].filter(Boolean).join(' ') || undefined;
  const fieldError = (key: string): ReactNode =>
    errors[key] ? (
      <p id={`${id}-${key}-error`} className="ps-error">
        {errors[key]}
      </p>
    ) : null;

  return { id, values, set, errors, banner, sent, setSent, sending, checked, send, describedBy, fieldError };
}
