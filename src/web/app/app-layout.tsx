// The frame of every screen: a top bar with the application
// name, extra indicators (header-slot.tsx) and the account menu; for a logged-in user a
// 240 px drawer, toggled by the burger, with the entries of their roles whose screen exists.
// On a 390 px phone the indicators and the account button keep their full size and a long
// application name wraps onto a second line rather than pushing them out.
import { lazy, Suspense, useEffect, useState } from 'react';
import { ActionIcon, AppShell, Burger, Group, NavLink, ScrollArea, Text, UnstyledButton } from '@mantine/core';
import { useDisclosure, useMediaQuery } from '@mantine/hooks';
import { IconUserCircle } from '@tabler/icons-react';
import { useQuery } from '@tanstack/react-query';
import { Link, Outlet, useLocation } from 'react-router';
import { navFor } from '../../shared/permissions';
import { setAppName } from '../components/page-title';
import { appInfoQuery } from '../session/bootstrap.api';
import { HeaderSlot } from './header-slot';
import { useExtraNavEntries, withExtras } from '../lib/nav-extras';
import { useSessionStore } from '../session/session-store';

// Loaded right away but not waited for: the screens are usable without it (account-menu.tsx).
const AccountMenu = lazy(() => import('./account-menu'));

/** The account button; until the menu's chunk is there, a press is remembered and opens it on arrival. */
function AccountButton({ logged, username }: { logged: boolean; username: string | null }) {
  const [pressed, setPressed] = useState(false);
  const placeholder = (
    <ActionIcon variant="subtle" size="lg" aria-label="Compte" onClick={() => setPressed(true)}>
      <IconUserCircle aria-hidden />
    </ActionIcon>
  );
  return (
    <Suspense fallback={placeholder}>
      <AccountMenu logged={logged} username={username} defaultOpened={pressed} />
    </Suspense>
  );
}

export const DRAWER_WIDTH = 240;

export function AppLayout({ mountedPaths }: { mountedPaths: ReadonlySet<string> }) {
  const logged = useSessionStore((s) => s.logged);
  const roles = useSessionStore((s) => s.roles);
  const username = useSessionStore((s) => s.username);
  const appInfo = useQuery(appInfoQuery());
  const appName = appInfo.data?.appName ?? '';
  // Screens add their own name in front (components/page-title.tsx).
  useEffect(() => setAppName(appName), [appName]);
  const [mobileOpened, mobile] = useDisclosure(false);
  const [desktopOpened, desktop] = useDisclosure(true);
  const location = useLocation();
  const extras = useExtraNavEntries();
  const entries = logged ? withExtras(navFor(roles), extras, roles).filter((e) => mountedPaths.has(e.path)) : [];
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
            <UnstyledButton component={Link} to={logged ? '/admin' : '/login'} aria-label={`${appName || 'Compost'}\u00a0: accueil`} miw={0}>
              <Text fw={700} size="lg" lh={1.2} c="green.8" lineClamp={2} style={{ overflowWrap: 'anywhere' }}>
                {appName}
              </Text>
            </UnstyledButton>
          </Group>
          <Group gap="xs" wrap="nowrap" style={{ flex: 'none' }}>
            <HeaderSlot />
            <AccountButton logged={logged} username={username} />
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
