import { cleanup, render, screen } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { MantineProvider, Modal, type MantineColorsTuple } from '@mantine/core';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { browser } from '../lib/browser';
import { requestLogout, registerBeforeLogout } from '../session/logout';
import { useUpdateStore } from './pwa';
import { collectPaths } from './route-paths';
import { withExtras } from '../lib/nav-extras';
import { NAV_ENTRIES, navFor } from '../../shared/permissions';
import { theme } from './theme';
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

/** WCAG 2.x contrast ratio of two #rrggbb colours. */
function contrast(a: string, b: string): number {
  const luminance = (hex: string) => {
    const [r, g, bl] = [1, 3, 5].map((i) => parseInt(hex.slice(i, i + 2), 16) / 255).map((c) => (c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4));
    return 0.2126 * r + 0.7152 * g + 0.0722 * bl;
  };
  const [hi, lo] = [luminance(a), luminance(b)].sort((x, y) => y - x);
  return (hi + 0.05) / (lo + 0.05);
}

describe('theme', () => {
  const shade = (color: string, i: number) => (theme.colors![color] as MantineColorsTuple)[i];
  const WHITE = '#ffffff';

  it('gives every colour the app uses a text contrast of 4.5:1 at least (WCAG 2.2 AA)', () => {
    expect(theme.primaryColor).toBe('green');
    expect(theme.primaryShade).toEqual({ light: 8, dark: 8 });
    for (const color of ['green', 'orange', 'teal', 'yellow', 'red', 'gray']) {
      // Filled buttons and badges: white on shade 8.
      expect(contrast(WHITE, shade(color, 8)), `${color} filled`).toBeGreaterThanOrEqual(4.5);
      // Light buttons, badges and alerts: shade 9 on shade 1.
      expect(contrast(shade(color, 9), shade(color, 1)), `${color} light`).toBeGreaterThanOrEqual(4.5);
      // Coloured text (c="red"): shade 8 on white and on the table stripes.
      expect(contrast(shade(color, 8), shade('gray', 0)), `${color} text`).toBeGreaterThanOrEqual(4.5);
    }
    // Dimmed text (gray.6) on white and on a hovered row (gray.1); field errors (red.6).
    expect(contrast(shade('gray', 6), WHITE)).toBeGreaterThanOrEqual(4.5);
    expect(contrast(shade('gray', 6), shade('gray', 1))).toBeGreaterThanOrEqual(4.5);
    expect(contrast(shade('red', 6), WHITE)).toBeGreaterThanOrEqual(4.5);
  });

  it('names the close button of every dialog', () => {
    render(
      <MantineProvider theme={theme} env="test">
        <Modal opened onClose={() => {}} title="Détails demande">
          Contenu
        </Modal>
      </MantineProvider>,
    );
    expect(screen.getByRole('button', { name: 'Fermer' })).toBeInTheDocument();
  });
});

describe('drawer entries added by a module', () => {
  const outbox = { label: 'Envois', path: '/admin/envois', roles: ['ROLE_ADMIN', 'ROLE_ADMIN_SITE', 'ROLE_USER', 'ROLE_PRESTATAIRE'] as const, after: '/admin/choix/site' };

  it('go after their anchor, for their roles only, each path once', () => {
    const labels = (roles: string[]) => withExtras(navFor(roles), [outbox, outbox], roles).map((e) => e.label);
    expect(labels(['ROLE_USER'])).toEqual(['Choix du site', 'Envois', 'Signalements', 'Alertes']);
    expect(labels(['ROLE_ADMIN']).slice(0, 3)).toEqual(['Saisir une intervention', 'Envois', 'Demandes interventions']);
    expect(labels(['ROLE_ADMIN_USER'])).toEqual(['Utilisateurs', 'Statistiques']);
  });

  it('go last when their anchor is not in the drawer', () => {
    const roles = ['ROLE_USER'];
    const entries = withExtras(navFor(roles), [{ ...outbox, after: '/nulle/part' }], roles);
    expect(entries.at(-1)?.label).toBe('Envois');
    expect(entries).toHaveLength(NAV_ENTRIES.filter((e) => e.roles.some((r) => roles.includes(r))).length + 1);
  });
});
