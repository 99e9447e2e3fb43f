// What the public page's two forms ('Signaler un problème', 'Je composte ici') share: their
// values, the errors under each field (cleared as the field changes), the banner, the sending
// state, and what a send's answer does (success: the form is emptied and says so; a 400: each
// error under its field, the others in the banner; anything else: the banner).
import { useId, useState, type ReactNode } from 'react';
import type { FieldError } from '../../../shared/errors';
import type { SendResult } from './public-site.api';

export const CHECK_FIELDS = 'Vérifiez les champs signalés.';

/** What every public form holds besides its own fields: an optional e-mail, its consent, the hidden field. */
interface ContactValues {
  email: string;
  consentement: boolean;
  siteWeb: string;
}

export function usePublicForm<V extends ContactValues>(empty: V, fields?: ReadonlySet<string>) {
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

type PublicForm<V extends ContactValues> = ReturnType<typeof usePublicForm<V>>;

/** The optional e-mail, what it is for, and the consent asked once an address is typed. */
export function EmailWithConsent<V extends ContactValues>({ form, label, help, consent }: { form: PublicForm<V>; label: string; help: string; consent: string }) {
  const { id, values, set, errors, describedBy, fieldError } = form;
  return (
    <>
      <label htmlFor={`${id}-email`} className="ps-label">
        {label}
      </label>
      <input
        id={`${id}-email`}
        name="email"
        type="email"
        inputMode="email"
        autoComplete="email"
        maxLength={254}
        value={values.email}
        aria-invalid={errors.email ? true : undefined}
        aria-describedby={describedBy('email', `${id}-email-help`)}
        onChange={(e) => set('email', e.currentTarget.value as V['email'])}
      />
      <p id={`${id}-email-help`} className="ps-help">
        {help}
      </p>
      {fieldError('email')}
      {values.email.trim() !== '' && (
        <>
          <label className="ps-consent">
            <input
              type="checkbox"
              name="consentement"
              checked={values.consentement}
              aria-invalid={errors.consentement ? true : undefined}
              aria-describedby={describedBy('consentement')}
              onChange={(e) => set('consentement', e.currentTarget.checked as V['consentement'])}
            />
            <span>{consent}</span>
          </label>
          {fieldError('consentement')}
        </>
      )}
    </>
  );
}

/** A field people never see nor hear, that robots fill (the server drops what they send), and the send button. */
export function RobotTrapAndSubmit<V extends ContactValues>({ form, label }: { form: PublicForm<V>; label: string }) {
  const { id, values, set, sending } = form;
  return (
    <>
      <div className="ps-hp" aria-hidden="true">
        <label htmlFor={`${id}-site-web`}>Site web</label>
        <input id={`${id}-site-web`} name="site_web" type="text" tabIndex={-1} autoComplete="off" value={values.siteWeb} onChange={(e) => set('siteWeb', e.currentTarget.value as V['siteWeb'])} />
      </div>

      <button type="submit" className="ps-button" disabled={sending}>
        {sending ? 'Envoi…' : label}
      </button>
    </>
  );
}
