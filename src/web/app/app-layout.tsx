// The frame of every screen (spec.md section 2 "Layout"): a top bar with the application
// name, extra indicators (header-slot.tsx) and the account menu; for a logged-in user a
// 240 px drawer, toggled by the burger, with the entries of their roles whose screen exists.
import { ActionIcon, AppShell, Burger, Group, Menu, NavLink, ScrollArea, Text, UnstyledButton } from '@mantine/core';
import { useDisclosure, useDocumentTitle, useMediaQuery } from '@mantine/hooks';
import { IconLogin, IconLogout, IconUserCircle } from '@tabler/icons-react';
import { useQuery } from '@tanstack/react-query';
import { Link, Outlet, useLocation, useNavigate } from 'react-router';
import { navFor } from '../../shared/permissions';
import { appInfoQuery } from './bootstrap.api';
import { HeaderSlot } from './header-slot';
import { requestLogout } from './logout';
import { useSessionStore } from './session-store';

export const DRAWER_WIDTH = 240;

export function AppLayout({ mountedPaths }: { mountedPaths: ReadonlySet<string> }) {
  const logged = useSessionStore((s) => s.logged);
  const roles = useSessionStore((s) => s.roles);
  const username = useSessionStore((s) => s.username);
  const appInfo = useQuery(appInfoQuery());
  useDocumentTitle(appInfo.data?.appName ?? '');
  const [mobileOpened, mobile] = useDisclosure(false);
  const [desktopOpened, desktop] = useDisclosure(true);
  const location = useLocation();
  const navigate = useNavigate();
  const entries = logged ? navFor(roles).filter((e) => mountedPaths.has(e.path)) : [];
  const withDrawer = logged;
  // Matches the navbar breakpoint 'sm' (48em): which of the two burgers is in charge.
  const isDesktop = useMediaQuery('(min-width: 48em)', true);
  const collapsed = isDesktop ? !desktopOpened : !mobileOpened;

  return (
    <AppShell
      header={{ height: 56 }}
      navbar={withDrawer ? { width: DRAWER_WIDTH, breakpoint: 'sm', collapsed: { mobile: !mobileOpened, desktop: !desktopOpened } } : undefined}
      padding="md"
    >
      <AppShell.Header>
        <Group h="100%" px="md" justify="space-between" wrap="nowrap">
          <Group gap="sm" wrap="nowrap" miw={0}>
            {withDrawer && (
              <>
                <Burger opened={mobileOpened} onClick={mobile.toggle} hiddenFrom="sm" size="sm" aria-label={mobileOpened ? 'Fermer le menu' : 'Ouvrir le menu'} />
                <Burger opened={desktopOpened} onClick={desktop.toggle} visibleFrom="sm" size="sm" aria-label={desktopOpened ? 'Fermer le menu' : 'Ouvrir le menu'} />
              </>
            )}
            <UnstyledButton component={Link} to={logged ? '/admin' : '/login'} aria-label={`${appInfo.data?.appName ?? 'Compost'} : accueil`}>
              <Text fw={700} size="lg" c="green.8" truncate>
                {appInfo.data?.appName ?? ''}
              </Text>
            </UnstyledButton>
          </Group>
          <Group gap="xs" wrap="nowrap">
            <HeaderSlot />
            <Menu position="bottom-end" withinPortal>
              <Menu.Target>
                <ActionIcon variant="subtle" size="lg" aria-label="Compte">
                  <IconUserCircle aria-hidden />
                </ActionIcon>
              </Menu.Target>
              <Menu.Dropdown>
                {logged ? (
                  <>
                    {username && <Menu.Label>{username}</Menu.Label>}
                    <Menu.Item leftSection={<IconLogout size={16} aria-hidden />} onClick={() => void requestLogout()}>
                      Déconnexion
                    </Menu.Item>
                  </>
                ) : (
                  <Menu.Item leftSection={<IconLogin size={16} aria-hidden />} onClick={() => void navigate('/login')}>
                    Connexion
                  </Menu.Item>
                )}
              </Menu.Dropdown>
            </Menu>
          </Group>
        </Group>
      </AppShell.Header>

      {withDrawer && (
        // inert: a folded drawer slides off screen but must not keep its links in the tab order.
        <AppShell.Navbar p="xs" aria-label="Menu principal" inert={collapsed}>
          <AppShell.Section grow component={ScrollArea}>
            {entries.map((entry) => (
              <NavLink
                key={entry.path}
                component={Link}
                to={entry.path}
                label={entry.label}
                active={location.pathname === entry.path || location.pathname.startsWith(`${entry.path}/`)}
                onClick={mobile.close}
              />
            ))}
          </AppShell.Section>
        </AppShell.Navbar>
      )}

      <AppShell.Main>
        <Outlet />
      </AppShell.Main>
    </AppShell>
  );
}
