// What a failed save of the users screen shows (spec.md section 8): the server's per-field
// errors under their fields, 'Veuillez renseigner les champs obligatoires' in the dialog's
// banner and a toast; 'Une erreur est survenue' otherwise. A 401/403 already left for /logout.
import type { FieldError } from '../../../shared/errors';
import { readFailure } from '../../lib/api';
import { notifyError } from '../../lib/notify';

export const REQUIRED_FIELDS_MESSAGE = 'Veuillez renseigner les champs obligatoires';
export const GENERIC_ERROR = 'Une erreur est survenue';

export async function showSaveFailure(error: unknown, opts: { setServerErrors: (errors: readonly FieldError[]) => FieldError[]; setBanner: (message: string | null) => void }) {
  const failure = await readFailure(error);
  if (failure.status === 401 || failure.status === 403) return;
  if (failure.status === 400 && failure.errors.length > 0) {
    const unmatched = opts.setServerErrors(failure.errors);
    opts.setBanner([REQUIRED_FIELDS_MESSAGE, ...unmatched.map((e) => e.error)].join(' : '));
    notifyError(REQUIRED_FIELDS_MESSAGE);
    return;
  }
  opts.setBanner(failure.message && failure.status !== 500 ? failure.message : `${GENERIC_ERROR}.`);
  notifyError(GENERIC_ERROR);
}
