// The account menu of the top bar ('Connexion' / 'Déconnexion'), in a chunk of its own: Mantine's
// Menu is about 5 KB gzip that no screen needs before it is usable (app-layout.tsx shows the
// same button until it is loaded, and opens the menu at once if it was pressed meanwhile).
import { ActionIcon, Menu } from '@mantine/core';
import { IconLogin, IconLogout, IconUserCircle } from '@tabler/icons-react';
import { useNavigate } from 'react-router';
import { requestLogout } from '../session/logout';

export interface AccountMenuProps {
  logged: boolean;
  username: string | null;
  /** The button was pressed before this chunk arrived. */
  defaultOpened: boolean;
}

export default function AccountMenu({ logged, username, defaultOpened }: AccountMenuProps) {
  const navigate = useNavigate();
  return (
    <Menu position="bottom-end" withinPortal defaultOpened={defaultOpened}>
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
  );
}
