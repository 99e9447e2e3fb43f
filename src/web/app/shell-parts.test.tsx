import { cleanup, render, screen } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { MantineProvider } from '@mantine/core';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { browser } from '../lib/browser';
import { requestLogout, registerBeforeLogout } from './logout';
import { useUpdateStore } from './pwa';
import { collectPaths } from './route-paths';
import { UpdatePrompt } from './update-prompt';

afterEach(() => {
  cleanup();
  vi.restoreAllMocks();
  useUpdateStore.setState({ applyUpdate: null });
});

describe('update prompt', () => {
  it('stays hidden while no new version waits', () => {
    render(
      <MantineProvider env="test">
        <UpdatePrompt />
      </MantineProvider>,
    );
    expect(screen.queryByText('Une nouvelle version est disponible')).not.toBeInTheDocument();
  });

  it('offers the waiting version and switches only when asked', async () => {
    const applyUpdate = vi.fn();
    useUpdateStore.setState({ applyUpdate });
    render(
      <MantineProvider env="test">
        <UpdatePrompt />
      </MantineProvider>,
    );
    expect(screen.getByRole('alert')).toHaveTextContent('Une nouvelle version est disponible');
    expect(applyUpdate).not.toHaveBeenCalled();
    await userEvent.click(screen.getByRole('button', { name: 'Mettre à jour' }));
    expect(applyUpdate).toHaveBeenCalledTimes(1);
  });
});

describe('requestLogout', () => {
  it('navigates to /logout when every guard agrees', async () => {
    const assign = vi.spyOn(browser, 'assign').mockImplementation(() => {});
    const unregister = registerBeforeLogout(async () => true);
    expect(await requestLogout()).toBe(true);
    expect(assign).toHaveBeenCalledWith('/logout');
    unregister();
  });

  it('stays when a guard fails, so unsent work is never abandoned silently', async () => {
    const assign = vi.spyOn(browser, 'assign').mockImplementation(() => {});
    vi.spyOn(console, 'error').mockImplementation(() => {});
    const unregister = registerBeforeLogout(() => {
      throw new Error('IndexedDB indisponible');
    });
    expect(await requestLogout()).toBe(false);
    expect(assign).not.toHaveBeenCalled();
    unregister();
  });

  it('forgets the last known session on the way out', async () => {
    vi.spyOn(browser, 'assign').mockImplementation(() => {});
    localStorage.setItem('compost.last.logged', '{"logged":true}');
    localStorage.setItem('compost.last.activeSites.7', '[]');
    localStorage.setItem('compost.last.typeActions', '[]');
    await requestLogout();
    expect(localStorage.getItem('compost.last.logged')).toBeNull();
    expect(localStorage.getItem('compost.last.activeSites.7')).toBeNull();
    expect(localStorage.getItem('compost.last.typeActions')).toBe('[]');
  });
});

describe('collectPaths', () => {
  it('lists absolute, nested and index paths', () => {
    const paths = collectPaths([
      { path: '/admin/user', lazy: async () => ({}) },
      { path: '/admin/site', children: [{ index: true }, { path: 'carte' }] },
      { element: null, children: [{ path: '/admin/role/' }] },
    ]);
    expect([...paths].sort()).toEqual(['/admin/role', '/admin/site', '/admin/site/carte', '/admin/user']);
  });
});
