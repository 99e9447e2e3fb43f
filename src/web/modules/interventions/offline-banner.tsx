// Shown on the field screens while the server cannot be reached, so nobody believes an entry
// reached the server when it is only on the phone.
import { Alert } from '@mantine/core';
import { IconWifiOff } from '@tabler/icons-react';
import { useIsOffline } from '../../offline/connectivity';

export const OFFLINE_BANNER_TEXT =
  'Vous êtes hors ligne. Vos interventions sont enregistrées sur le téléphone et seront envoyées dès le retour du réseau.';

export function OfflineBanner() {
  const offline = useIsOffline();
  if (!offline) return null;
  return (
    <Alert color="gray" variant="light" icon={<IconWifiOff aria-hidden />} role="status" title="Hors ligne">
      {OFFLINE_BANNER_TEXT}
    </Alert>
  );
}
