// Always visible in the top bar when logged in: 'Hors ligne' while the server cannot be reached,
// '3 en attente' / '1 en échec' linking to the outbox page. Mounting it starts the outbox runner,
// and it is where a 401 met by a send turns into a request to log in again.
import { useEffect } from 'react';
import { Badge, Button, Group, Text } from '@mantine/core';
import { notifications } from '@mantine/notifications';
import { IconWifiOff } from '@tabler/icons-react';
import { Link } from 'react-router';
import { useSessionStore } from '../../app/session-store';
import { queryClient } from '../../lib/query-client';
import { loggedQuery } from '../../app/bootstrap.api';
import { useIsOffline } from '../../offline/connectivity';
import { useOutboxCounts } from '../../offline/hooks';
import { SESSION_EXPIRED_MESSAGE } from '../../offline/outbox';
import { drainNow, onAuthRequired, startOutboxRunner } from '../../offline/outbox-runner';
import { OUTBOX_PATH } from './interventions-paths';

const AUTH_NOTIFICATION_ID = 'outbox-session-expired';

/** Asks the server who is logged in: a dead session sends the user to /login (RequireLogin). */
export async function logInAgain() {
  notifications.hide(AUTH_NOTIFICATION_ID);
  try {
    const logged = await queryClient.fetchQuery({ ...loggedQuery(), staleTime: 0 });
    // Still logged in after all (the 401 was a hiccup): send again.
    if (logged.logged) void drainNow('login');
  } catch {
    /* offline: the badge and the outbox page keep saying what to do */
  }
}

function showSessionExpired() {
  notifications.show({
    id: AUTH_NOTIFICATION_ID,
    color: 'orange',
    autoClose: false,
    message: (
      <Group gap="sm" wrap="nowrap" justify="space-between">
        <Text size="sm">{SESSION_EXPIRED_MESSAGE}</Text>
        <Button size="xs" variant="light" color="orange" onClick={() => void logInAgain()}>
          Se reconnecter
        </Button>
      </Group>
    ),
  });
}

export function OutboxIndicator() {
  const logged = useSessionStore((s) => s.logged);
  const offline = useIsOffline();
  const counts = useOutboxCounts();

  useEffect(() => {
    if (!logged) return;
    startOutboxRunner();
    return onAuthRequired(showSessionExpired);
  }, [logged]);

  if (!logged) return null;
  return (
    <Group gap={6} wrap="nowrap" role="status" aria-live="polite">
      {offline && (
        <Badge color="gray" variant="filled" leftSection={<IconWifiOff size={12} aria-hidden />}>
          Hors ligne
        </Badge>
      )}
      {counts.pending > 0 && (
        <Badge component={Link} to={OUTBOX_PATH} color={counts.auth ? 'orange' : 'yellow'} variant="light" style={{ cursor: 'pointer' }}>
          {counts.pending} en attente
        </Badge>
      )}
      {counts.failed > 0 && (
        <Badge component={Link} to={OUTBOX_PATH} color="red" variant="filled" style={{ cursor: 'pointer' }}>
          {counts.failed} en échec
        </Badge>
      )}
    </Group>
  );
}
