// Shown on the field screens while the server cannot be reached, so nobody believes an entry
// reached the server when it is only on the phone. Says whether the network is missing or the
// server is down, and promises to keep entries on the phone only where the phone can
// (offline/capability.ts: not over plain http).
import { Alert } from '@mantine/core';
import { IconServerOff, IconWifiOff } from '@tabler/icons-react';
import { offlineSupport } from '../../offline/capability';
import { useOfflineCause } from '../../offline/connectivity';

export const OFFLINE_BANNER_TEXT =
  'Vous êtes hors ligne. Vos interventions sont enregistrées sur le téléphone et seront envoyées dès le retour du réseau.';
export const SERVER_DOWN_BANNER_TEXT =
  'Le serveur ne répond pas, le réseau fonctionne. Vos interventions sont enregistrées sur le téléphone et seront envoyées dès qu’il répondra.';
export const OFFLINE_NOT_KEPT_TEXT = 'Vous êtes hors ligne. Sur cette adresse, les saisies ne peuvent pas être gardées sur le téléphone : enregistrez-les au retour du réseau.';
export const SERVER_DOWN_NOT_KEPT_TEXT =
  'Le serveur ne répond pas, le réseau fonctionne. Sur cette adresse, les saisies ne peuvent pas être gardées sur le téléphone : enregistrez-les quand il répondra.';

export function OfflineBanner() {
  const cause = useOfflineCause();
  if (cause === null) return null;
  const kept = offlineSupport() === 'ok';
  const server = cause === 'server';
  return (
    <Alert
      color="gray"
      variant="light"
      icon={server ? <IconServerOff aria-hidden /> : <IconWifiOff aria-hidden />}
      role="status"
      title={server ? 'Serveur indisponible' : 'Hors ligne'}
    >
      {server ? (kept ? SERVER_DOWN_BANNER_TEXT : SERVER_DOWN_NOT_KEPT_TEXT) : kept ? OFFLINE_BANNER_TEXT : OFFLINE_NOT_KEPT_TEXT}
    </Alert>
  );
}
