// What a failed save of the sites screen shows (spec.md section 8): per-field errors under
// their fields with the dialog's validation message in the banner and a toast; the server's
// message for a refusal (404, 409); 'Une erreur est survenue.' for a 500; the generic toast
// for anything else. A 401/403 already sent the browser to /logout.
import type { FieldError } from '../../../shared/errors';
import { readFailure } from '../../lib/api';
import { notifyError } from '../../lib/notify';

export const VALIDATION_MESSAGE = 'Veuillez renseigner les champs obligatoires';
export const GENERIC_MESSAGE = 'Une erreur est survenue';

export async function showSaveFailure(
  error: unknown,
  opts: {
    /** Shows per-field errors; returns those no field could show. */
    setServerErrors?: (errors: readonly FieldError[]) => FieldError[];
    setBanner: (message: string | null) => void;
    validationMessage?: string;
  },
) {
  const failure = await readFailure(error);
  if (failure.status === 401 || failure.status === 403) return;
  const validationMessage = opts.validationMessage ?? VALIDATION_MESSAGE;
  if (failure.status === 400 && failure.errors.length > 0) {
    const unmatched = opts.setServerErrors ? opts.setServerErrors(failure.errors) : failure.errors;
    opts.setBanner([validationMessage, ...unmatched.map((e) => e.error)].join(' : '));
    notifyError(validationMessage);
    return;
  }
  if (failure.status === 500 || failure.network) opts.setBanner(`${GENERIC_MESSAGE}.`);
  else opts.setBanner(failure.message ?? `${GENERIC_MESSAGE}.`);
  notifyError(GENERIC_MESSAGE);
}
