// The only HTTP client of the web app. JSON under /api with the session cookie.
// A 401 (no session) sends the browser to /logout with 'Accès non authorisé.', except for calls
// made with `quietApi` (the offline outbox keeps its queue and asks to log in). A 403 never
// logs out: the session is fine, this one thing is refused (a referent opening another site's
// QR label, a role withdrawn meanwhile), and logging out would throw away the work in progress.
// A refused read is for its screen to show in place (components: AccessDenied); a refused
// write is said by a toast, since a dialog's save shows nothing of its own for it.
//
// The calls read like ky's (api.get('path', { searchParams }).json()) and a refusal is ky's
// HTTPError, but the client itself is this small fetch wrapper: the app uses none of ky's
// retries, hooks chain or progress events, and ky's core would add about 5 KB gzip to the
// first load of the field screens (npm run bench).
import { HTTPError } from 'ky';
import type { ErrorBody, FieldError } from '../../shared/errors';
import { notifications } from '@mantine/notifications';
import { browser } from './browser';

export const UNAUTHORIZED_FLASH_KEY = 'compost.flash';

/** What a 403 says, in place or as a toast (the spelling is the product's own). */
export const FORBIDDEN_MESSAGE = 'Accès non authorisé.';

/** Whether `error` is the server refusing this user this request (403). */
export function isForbidden(error: unknown): boolean {
  return error instanceof HTTPError && error.response.status === 403;
}

function notifyForbidden() {
  // One toast however many calls were refused at once.
  notifications.show({ id: 'api-forbidden', message: FORBIDDEN_MESSAGE, color: 'red', autoClose: 10_000 });
}

/** When a request never reached the server (offline, DNS, timeout). */
export const NETWORK_ERROR_MESSAGE = 'Le serveur est injoignable. Vérifiez votre connexion puis réessayez.';

export function redirectToLogout(message = FORBIDDEN_MESSAGE) {
  try {
    sessionStorage.setItem(UNAUTHORIZED_FLASH_KEY, message);
  } catch {
    /* private mode: the message is lost, the redirect still happens */
  }
  browser.assign('/logout');
}

export type SearchParams = string | URLSearchParams | Record<string, string | number | boolean | null | undefined>;

export interface RequestOptions {
  /** Sent as the JSON body. */
  json?: unknown;
  searchParams?: SearchParams;
  signal?: AbortSignal;
  /** ms before the request is given up (a network failure for the caller); default 30 s. */
  timeout?: number;
  /** false: a 4xx/5xx answer resolves like a 200 instead of throwing HTTPError. */
  throwHttpErrors?: boolean;
  headers?: Record<string, string>;
}

export interface ResponsePromise extends Promise<Response> {
  /** The body as JSON; '' for an empty body (a 204). */
  json<T = unknown>(): Promise<T>;
  blob(): Promise<Blob>;
  text(): Promise<string>;
}

export interface ApiClient {
  get(path: string, options?: RequestOptions): ResponsePromise;
  post(path: string, options?: RequestOptions): ResponsePromise;
  put(path: string, options?: RequestOptions): ResponsePromise;
  patch(path: string, options?: RequestOptions): ResponsePromise;
  delete(path: string, options?: RequestOptions): ResponsePromise;
}

const DEFAULT_TIMEOUT_MS = 30_000;

function query(searchParams: SearchParams | undefined): string {
  if (searchParams === undefined) return '';
  let text: string;
  if (typeof searchParams === 'string') text = searchParams.replace(/^\?/, '');
  else if (searchParams instanceof URLSearchParams) text = searchParams.toString();
  else {
    const params = new URLSearchParams();
    for (const [key, value] of Object.entries(searchParams)) if (value !== undefined && value !== null) params.append(key, String(value));
    text = params.toString();
  }
  return text ? `?${text}` : '';
}

async function send(method: string, path: string, options: RequestOptions, onResponse?: (response: Response, method: string) => void): Promise<Response> {
  const headers: Record<string, string> = { accept: 'application/json', ...options.headers };
  let body: string | undefined;
  if (options.json !== undefined) {
    headers['content-type'] = 'application/json';
    body = JSON.stringify(options.json);
  }
  // One signal for the caller's abort and the timeout (AbortSignal.any is too recent for some phones).
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(new DOMException('Request timed out', 'TimeoutError')), options.timeout ?? DEFAULT_TIMEOUT_MS);
  const { signal } = options;
  const forward = () => controller.abort(signal?.reason);
  if (signal?.aborted) forward();
  else signal?.addEventListener('abort', forward, { once: true });
  try {
    const url = `/api/${path}${query(options.searchParams)}`;
    const init: RequestInit = { method, headers, body, credentials: 'same-origin', signal: controller.signal };
    const response = await fetch(url, init);
    onResponse?.(response, method);
    if (!response.ok && options.throwHttpErrors !== false) {
      // ky's error, so `error instanceof HTTPError` keeps working wherever it is tested.
      throw new HTTPError(response, new Request(new URL(url, globalThis.location?.href ?? 'http://localhost/'), { method }), {} as never);
    }
    return response;
  } finally {
    clearTimeout(timer);
    signal?.removeEventListener('abort', forward);
  }
}

function createClient(onResponse?: (response: Response, method: string) => void): ApiClient {
  const call = (method: string) => (path: string, options: RequestOptions = {}) => {
    const promise = send(method, path, options, onResponse) as ResponsePromise;
    promise.json = async <T,>() => {
      const text = await (await promise).text();
      return (text === '' ? '' : JSON.parse(text)) as T;
    };
    promise.blob = async () => (await promise).blob();
    promise.text = async () => (await promise).text();
    return promise;
  };
  return { get: call('GET'), post: call('POST'), put: call('PUT'), patch: call('PATCH'), delete: call('DELETE') };
}

/** Calls whose 401 must not log the user out, and whose 403 no toast announces (login itself, the outbox). */
export const quietApi: ApiClient = createClient();

export const api: ApiClient = createClient((response, method) => {
  if (response.status === 401) redirectToLogout();
  else if (response.status === 403 && method !== 'GET') notifyForbidden();
});

/** What a failed call said, in the shape of the API's error body: per-field errors and/or a message. */
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
