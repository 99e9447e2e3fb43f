// Turns the answer of POST /api/admin/intervention/add (or of another entry's target, a tally's
// PUT), or of a photo's upload, into an outbox decision. The HTTP call itself is injected: the app passes quietApi or fetch (a 401 must not
// log out and lose the context), the benchmark passes fetch with a cookie.
import type { FieldError } from '../../shared/errors';
import type { OutboxTarget } from './db';
import { SERVER_ERROR_MESSAGE, SERVER_UNAVAILABLE_MESSAGE, type SendResult, type Sender } from './outbox';

export const GENERIC_REFUSAL = 'Une erreur est survenue';

/**
 * Sends the JSON body (to `target`, else the intervention add) and resolves with the raw
 * response; rejects only when nothing came back.
 */
export type PostJson = (body: unknown, target?: OutboxTarget) => Promise<Response>;

async function readBody(response: Response): Promise<{ errors?: FieldError[]; message?: string }> {
  try {
    const body: unknown = await response.json();
    return typeof body === 'object' && body !== null ? (body as { errors?: FieldError[]; message?: string }) : {};
  } catch {
    return {};
  }
}

export async function interpretResponse(response: Response): Promise<SendResult> {
  const { status } = response;
  if (status >= 200 && status < 300) {
    const body = (await readBody(response)) as { status?: unknown };
    // A 200 that is not the API's answer (a captive portal page, a proxy) proves nothing.
    if (body.status === 'success') return { kind: 'sent', body };
    return { kind: 'retry', message: SERVER_ERROR_MESSAGE };
  }
  if (status === 401) return { kind: 'auth' };
  // Timeouts, throttling, a gateway that cannot reach the app, an app without its database:
  // about the server as a whole, not this entry.
  if (status === 408 || status === 429 || status === 502 || status === 503 || status === 504) return { kind: 'retry', message: SERVER_UNAVAILABLE_MESSAGE };
  const body = await readBody(response);
  // The app answered and failed on this very request: the entry backs off on its own.
  if (status >= 500) {
    const reason = typeof body.message === 'string' && body.message ? body.message.slice(0, 300) : GENERIC_REFUSAL;
    return { kind: 'error', message: `Erreur serveur (${status}) : ${reason}` };
  }
  const errors = Array.isArray(body.errors) ? body.errors.filter((e) => typeof e?.key === 'string' && typeof e?.error === 'string') : [];
  if (status === 400 && errors.length > 0) {
    return { kind: 'invalid', errors, message: body.message ?? 'Veuillez renseigner les champs obligatoires' };
  }
  return { kind: 'rejected', message: body.message ?? GENERIC_REFUSAL };
}

/** A Sender over any POST function; a thrown error (no answer) means "retry later". */
export function httpSender<P>(post: PostJson): Sender<P> {
  return async (payload, entry) => interpretResponse(await post(payload, entry?.target));
}
