import { afterEach, describe, expect, it, vi } from 'vitest';
import { notifications } from '@mantine/notifications';
import { HTTPError } from 'ky';
import { notifyError, notifySuccess } from './notify';
import { createQueryClient, shouldRetry } from './query-client';

describe('toasts (the durations of the contract)', () => {
  afterEach(() => vi.restoreAllMocks());

  it('keeps a success 3 s and an error 10 s', () => {
    const show = vi.spyOn(notifications, 'show').mockReturnValue('id');
    notifySuccess('Enregistrement effectué');
    notifyError('Veuillez renseigner les champs obligatoires');
    notifyError();
    expect(show.mock.calls.map(([n]) => [n.message, n.color, n.autoClose])).toEqual([
      ['Enregistrement effectué', 'green', 3000],
      ['Veuillez renseigner les champs obligatoires', 'red', 10_000],
      ['Une erreur est survenue', 'red', 10_000],
    ]);
  });
});

describe('query client', () => {
  const httpError = (status: number) =>
    new HTTPError(new Response(null, { status }), new Request('http://localhost/api/x'), {} as ConstructorParameters<typeof HTTPError>[2]);

  it('retries network failures and server errors twice, never a client error', () => {
    expect(shouldRetry(0, new TypeError('Failed to fetch'))).toBe(true);
    expect(shouldRetry(1, httpError(503))).toBe(true);
    expect(shouldRetry(2, httpError(503))).toBe(false);
    for (const status of [400, 401, 403, 404, 409]) expect(shouldRetry(0, httpError(status))).toBe(false);
  });

  it('does not reload lists on window focus and never retries a mutation', () => {
    const options = createQueryClient().getDefaultOptions();
    expect(options.queries?.refetchOnWindowFocus).toBe(false);
    expect(options.mutations?.retry).toBe(false);
  });
});
