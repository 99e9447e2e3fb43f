// Hooks the offline field app into the shell, once, when the route map is built: the top-bar
// indicator, the warning before a logout with unsent entries, and the IndexedDB copies the
// bootstrap queries fall back on when the network is gone (the session itself is the shell's
// last known answer: it is saved at every login, a copy here could only be older).
import { Text } from '@mantine/core';
import { modals } from '@mantine/modals';
import { registerOfflineSource } from '../../app/bootstrap.api';
import { registerHeaderItem } from '../../app/header-slot';
import { registerBeforeLogout } from '../../app/logout';
import type { AppInfo, TypeAction } from '../../../shared/schemas/reference';
import type { ActiveSite } from '../../../shared/schemas/site-choice';
import { openOfflineDb } from '../../offline/store';
import { forgetSession, readReference, referenceKeys } from '../../offline/reference-cache';
import { OutboxIndicator } from './outbox-indicator';

function confirmLogout(count: number): Promise<boolean> {
  return new Promise((resolve) => {
    modals.openConfirmModal({
      title: 'Saisies non envoyées',
      children: (
        <Text size="sm">
          {count === 1 ? '1 saisie n’a pas encore été envoyée' : `${count} saisies n’ont pas encore été envoyées`} au serveur. Elles restent
          enregistrées sur ce téléphone et seront envoyées à votre prochaine connexion avec ce compte. Se déconnecter quand même ?
        </Text>
      ),
      labels: { confirm: 'Se déconnecter', cancel: 'Rester connecté' },
      confirmProps: { color: 'red' },
      onConfirm: () => resolve(true),
      onCancel: () => resolve(false),
      onClose: () => resolve(false),
    });
  });
}

/** Warns when entries are unsent; never deletes them (only the session snapshot is forgotten). */
export async function beforeLogoutGuard(): Promise<boolean> {
  let unsent = 0;
  try {
    unsent = await (await openOfflineDb()).outbox.count();
  } catch {
    unsent = 0;
  }
  const proceed = unsent === 0 || (await confirmLogout(unsent));
  if (proceed) await forgetSession();
  return proceed;
}

let done = false;

export function setupInterventionsOffline() {
  if (done) return;
  done = true;
  registerHeaderItem(OutboxIndicator);
  registerBeforeLogout(beforeLogoutGuard);
  registerOfflineSource('appInfo', async () => (await readReference<AppInfo>(referenceKeys.appInfo))?.data);
  registerOfflineSource('typeActions', async () => (await readReference<TypeAction[]>(referenceKeys.typeActions))?.data);
  registerOfflineSource('activeSites', async (userId) => (await readReference<ActiveSite[]>(referenceKeys.activeSites(userId)))?.data);
}
