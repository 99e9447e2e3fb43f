// The app's HTTP client and the session: only a 401 (no session) leads to /logout and the login
// page; a 403 keeps the user where they are, said in place by the screen for a read and by a
// toast for a write; quietApi never logs out.
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { HTTPError } from 'ky';
import { notifications, notificationsStore } from '@mantine/notifications';
import { api, FORBIDDEN_MESSAGE, isForbidden, quietApi, UNAUTHORIZED_FLASH_KEY } from './api';
import { browser } from './browser';

function answer(status: number, body: unknown = { status: 'error', message: 'Accès non authorisé.' }) {
  vi.stubGlobal(
    'fetch',
    vi.fn(async () => new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json' } })),
  );
}

/** The toasts waiting in Mantine's store (no host is rendered here). */
const toasts = () => [...notificationsStore.getState().notifications, ...notificationsStore.getState().queue].map((n) => n.message);

let assign: ReturnType<typeof vi.spyOn>;

beforeEach(() => {
  sessionStorage.clear();
  notifications.clean();
  assign = vi.spyOn(browser, 'assign').mockImplementation(() => {});
});

afterEach(() => {
  vi.restoreAllMocks();
  vi.unstubAllGlobals();
});

describe('api', () => {
  it('sends a 401 to /logout with the message for the login page', async () => {
    answer(401);
    await expect(api.get('admin/user/get/list/by/filters')).rejects.toBeInstanceOf(HTTPError);
    expect(assign).toHaveBeenCalledWith('/logout');
    expect(sessionStorage.getItem(UNAUTHORIZED_FLASH_KEY)).toBe(FORBIDDEN_MESSAGE);
  });

  it('keeps the session on a 403 read, and leaves the message to the screen', async () => {
    answer(403);
    const error = await api.get('admin/site/get/infos/pour/intervention/9').catch((e: unknown) => e);
    expect(isForbidden(error)).toBe(true);
    expect(assign).not.toHaveBeenCalled();
    expect(sessionStorage.getItem(UNAUTHORIZED_FLASH_KEY)).toBeNull();
    expect(toasts()).toEqual([]);
  });

  it('keeps the session on a 403 write and says so once, however many writes were refused', async () => {
    answer(403);
    await expect(api.put('admin/user/active/4')).rejects.toBeInstanceOf(HTTPError);
    await expect(api.post('admin/typeSite/add', { json: { libelle: 'Quartier', code: 'QUA' } })).rejects.toBeInstanceOf(HTTPError);
    expect(assign).not.toHaveBeenCalled();
    expect(toasts()).toEqual([FORBIDDEN_MESSAGE]);
  });

  it('never logs out nor shows a toast for quiet calls (the outbox, the login)', async () => {
    answer(401);
    expect((await quietApi.post('admin/intervention/add', { json: {}, throwHttpErrors: false })).status).toBe(401);
    answer(403);
    expect((await quietApi.post('admin/intervention/add', { json: {}, throwHttpErrors: false })).status).toBe(403);
    expect(assign).not.toHaveBeenCalled();
    expect(toasts()).toEqual([]);
  });

  it('tells other refusals apart from a 403', async () => {
    answer(404, { status: 'error', message: 'Site introuvable' });
    const error = await api.get('admin/site/get/infos/pour/intervention/404').catch((e: unknown) => e);
    expect(isForbidden(error)).toBe(false);
    expect(isForbidden(new Error('Failed to fetch'))).toBe(false);
    expect(assign).not.toHaveBeenCalled();
  });
});
