// The only HTTP client of the web app. JSON under /api with the session cookie.
// A 401 or 403 sends the browser to /logout with 'Accès non authorisé.' (spec.md section 8),
// except for calls made with `quiet` (the offline outbox keeps its queue and asks to log in).
import ky, { HTTPError, type KyInstance, type Options } from 'ky';
import type { ErrorBody, FieldError } from '../../shared/errors';
import { browser } from './browser';

export const UNAUTHORIZED_FLASH_KEY = 'compost.flash';

/** When a request never reached the server (offline, DNS, timeout). */
export const NETWORK_ERROR_MESSAGE = 'Le serveur est injoignable. Vérifiez votre connexion puis réessayez.';

export function redirectToLogout(message = 'Accès non authorisé.') {
  try {
    sessionStorage.setItem(UNAUTHORIZED_FLASH_KEY, message);
  } catch {
    /* private mode: the message is lost, the redirect still happens */
  }
  browser.assign('/logout');
}

const base: Options = {
  prefixUrl: '/api',
  credentials: 'same-origin',
  timeout: 30_000,
  retry: 0,
  headers: { accept: 'application/json' },
};

/** Calls whose 401/403 must not log the user out (login itself, the outbox). */
export const quietApi: KyInstance = ky.create(base);

export const api: KyInstance = ky.create({
  ...base,
  hooks: {
    afterResponse: [
      (_request, _options, response) => {
        if (response.status === 401 || response.status === 403) redirectToLogout();
      },
    ],
  },
});

/** What a failed call said, in the shape of spec.md: per-field errors and/or a message. */
export interface ApiFailure {
  status: number | null;
  errors: FieldError[];
  message: string | null;
  /** true when the request never reached the server (offline, DNS, timeout). */
  network: boolean;
}

export async function readFailure(error: unknown): Promise<ApiFailure> {
  if (error instanceof HTTPError) {
    let body: Partial<ErrorBody> = {};
    try {
      body = (await error.response.clone().json()) as Partial<ErrorBody>;
    } catch {
      body = {};
    }
    return { status: error.response.status, errors: body.errors ?? [], message: body.message ?? null, network: false };
  }
  return { status: null, errors: [], message: null, network: true };
}
