// Always visible in the top bar when logged in: 'Hors ligne' (no network) or 'Serveur
// indisponible' while the server cannot be reached, '2 envois · 1 photo en attente' / '1 envoi en
// échec' linking to the outbox page (entries and photos counted apart: a photo is not an entry). On a phone each is an icon and a number, their words kept as the accessible name
// (and in the page, visually hidden), so the top bar never cuts anything off at 390 px. Mounting
// it starts the outbox runner, and it is where a 401 met by a send turns into a request to log
// in again.
import { useEffect, type ReactNode } from 'react';
import { Badge, Button, Group, Text, VisuallyHidden } from '@mantine/core';
import { useMediaQuery } from '@mantine/hooks';
import { notifications } from '@mantine/notifications';
import { IconAlertTriangle, IconCloudUpload, IconPhoto, IconServerOff, IconWifiOff } from '@tabler/icons-react';
import { Link } from 'react-router';
import { useSessionStore } from '../../session/session-store';
import { queryClient } from '../../lib/query-client';
import { loggedQuery } from '../../session/bootstrap.api';
import { useOfflineCause } from '../../offline/connectivity';
import { useOutboxCounts } from '../../offline/hooks';
import { SESSION_EXPIRED_MESSAGE } from '../../offline/outbox';
import { drainNow, onAuthRequired, startOutboxRunner } from '../../offline/outbox-runner';
import { OUTBOX_PATH } from './field-entry-paths';

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

/** Matches the shell's 'sm' breakpoint (48em): below it the top bar is a phone's. */
const WIDE = '(min-width: 48em)';

/** The badge's words, in full on a wide screen; on a phone `short` (or nothing) is shown and the words stay for screen readers. */
function Label({ wide, text, short }: { wide: boolean; text: string; short?: ReactNode }) {
  if (wide) return <>{text}</>;
  return (
    <>
      {short !== undefined && <span aria-hidden>{short}</span>}
      <VisuallyHidden>{text}</VisuallyHidden>
    </>
  );
}

const plural = (n: number, word: string) => `${n} ${word}${n > 1 ? 's' : ''}`;

/** '2 envois · 1 photo en attente', '1 photo en échec'. */
export function queueText(entries: number, photos: number, state: 'en attente' | 'en échec'): string {
  const parts = [...(entries > 0 ? [plural(entries, 'envoi')] : []), ...(photos > 0 ? [plural(photos, 'photo')] : [])];
  return `${parts.join(' · ')} ${state}`;
}

/** On a phone: the entries' number, then the photos' beside a photo icon. */
function QueueShort({ entries, photos }: { entries: number; photos: number }) {
  return (
    <Group component="span" gap={2} wrap="nowrap">
      {entries > 0 && entries}
      {entries > 0 && photos > 0 && ' · '}
      {photos > 0 && (
        <>
          <IconPhoto size={12} aria-hidden />
          {photos}
        </>
      )}
    </Group>
  );
}

export function OutboxIndicator() {
  const logged = useSessionStore((s) => s.logged);
  const cause = useOfflineCause();
  const counts = useOutboxCounts();
  const wide = useMediaQuery(WIDE, true) ?? true;

  useEffect(() => {
    if (!logged) return;
    startOutboxRunner();
    return onAuthRequired(showSessionExpired);
  }, [logged]);

  if (!logged) return null;
  return (
    <Group gap={6} wrap="nowrap" role="status" aria-live="polite" style={{ flex: 'none' }}>
      {cause !== null && (
        <Badge
          color="gray"
          variant="filled"
          leftSection={cause === 'server' ? <IconServerOff size={12} aria-hidden /> : <IconWifiOff size={12} aria-hidden />}
          style={{ flex: 'none', overflow: 'visible' }}
        >
          <Label wide={wide} text={cause === 'server' ? 'Serveur indisponible' : 'Hors ligne'} />
        </Badge>
      )}
      {counts.pending > 0 && (
        <Badge
          component={Link}
          to={OUTBOX_PATH}
          color={counts.auth ? 'orange' : 'yellow'}
          variant="light"
          leftSection={wide ? undefined : <IconCloudUpload size={12} aria-hidden />}
          style={{ cursor: 'pointer', flex: 'none', overflow: 'visible' }}
        >
          <Label
            wide={wide}
            text={queueText(counts.pending - counts.photos.pending, counts.photos.pending, 'en attente')}
            short={<QueueShort entries={counts.pending - counts.photos.pending} photos={counts.photos.pending} />}
          />
        </Badge>
      )}
      {counts.failed > 0 && (
        <Badge
          component={Link}
          to={OUTBOX_PATH}
          color="red"
          variant="filled"
          leftSection={wide ? undefined : <IconAlertTriangle size={12} aria-hidden />}
          style={{ cursor: 'pointer', flex: 'none', overflow: 'visible' }}
        >
          <Label
            wide={wide}
            text={queueText(counts.failed - counts.photos.failed, counts.photos.failed, 'en échec')}
            short={<QueueShort entries={counts.failed - counts.photos.failed} photos={counts.photos.failed} />}
          />
        </Badge>
      )}
    </Group>
  );
}
