// Hooks the offline field app into the shell, once, when the route map is built: the top-bar
// indicator, the drawer's 'Envois' entry, the 'N saisie(s) envoyée(s)' toast when queued entries
// reach the server, the warning before a logout with unsent entries or photos, the IndexedDB copies
// the bootstrap queries fall back on when the network is gone (the session itself is the
// shell's last known answer: it is saved at every login, a copy here could only be older), and
// the message when a queued entry that processed requests reaches the server.
import { Text } from '@mantine/core';
import { modals } from '@mantine/modals';
import { registerOfflineSource } from '../../session/bootstrap.api';
import { registerHeaderItem } from '../../lib/header-items';
import { registerBeforeLogout } from '../../session/logout';
import { registerNavEntry } from '../../lib/nav-extras';
import { useSessionStore } from '../../session/session-store';
import { PERMISSIONS } from '../../../shared/permissions';
import type { AppInfo, TypeAction } from '../../../shared/schemas/reference';
import type { ActiveSite } from '../../../shared/schemas/site-choice';
import { countUnsent } from '../../offline/hooks';
import { onDrained, onEntrySent } from '../../offline/outbox-runner';
import { notifySuccess } from '../../lib/notify';
import { forgetSession, readReference, referenceKeys } from '../../offline/reference-cache';
import { OutboxIndicator } from './outbox-indicator';
import { PROCESSED_MESSAGE } from './site-sheet-messages';
import { OUTBOX_PATH, SITE_CHOICE_PATH } from './field-entry-paths';

/** 'N saisie(s) envoyée(s)', once per drain that sent entries no screen was waiting for. */
export const sentText = (n: number) => `${n} saisie(s) envoyée(s)`;

/** '1 saisie n’a pas encore été envoyée', '2 saisies et 3 photos n’ont pas encore été envoyées'. */
export function unsentText(entries: number, photos: number): string {
  const parts = [
    ...(entries > 0 ? [entries === 1 ? '1 saisie' : `${entries} saisies`] : []),
    ...(photos > 0 ? [photos === 1 ? '1 photo' : `${photos} photos`] : []),
  ];
  const one = entries + photos === 1;
  const feminine = one ? 'envoyée' : 'envoyées';
  return `${parts.join(' et ')} ${one ? 'n’a' : 'n’ont'} pas encore été ${feminine}`;
}

function confirmLogout(entries: number, photos: number): Promise<boolean> {
  return new Promise((resolve) => {
    modals.openConfirmModal({
      title: 'Saisies non envoyées',
      children: (
        <Text size="sm">
          {unsentText(entries, photos)} au serveur. Elles restent enregistrées sur ce téléphone et seront envoyées à votre prochaine connexion avec ce
          compte. Se déconnecter quand même ?
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

/**
 * Warns when this account's entries are unsent (another account's entries on the same phone are
 * not this person's to worry about: they wait for their own login); never deletes them (only
 * the session snapshot is forgotten).
 */
export async function beforeLogoutGuard(): Promise<boolean> {
  let entries = 0;
  let photos = 0;
  const ownerId = useSessionStore.getState().id;
  try {
    if (ownerId !== null) ({ entries, photos } = await countUnsent(ownerId));
  } catch {
    entries = 0;
    photos = 0;
  }
  const proceed = entries + photos === 0 || (await confirmLogout(entries, photos));
  if (proceed) await forgetSession();
  return proceed;
}

let done = false;

export function setupFieldEntry() {
  if (done) return;
  done = true;
  registerHeaderItem(OutboxIndicator);
  registerNavEntry({ label: 'Envois', path: OUTBOX_PATH, roles: PERMISSIONS['intervention.add'] }, { after: SITE_CHOICE_PATH });
  registerBeforeLogout(beforeLogoutGuard);
  onDrained(({ unawaited }) => {
    if (unawaited.length > 0) notifySuccess(sentText(unawaited.length));
  });
  registerOfflineSource('appInfo', async () => (await readReference<AppInfo>(referenceKeys.appInfo))?.data);
  registerOfflineSource('typeActions', async () => (await readReference<TypeAction[]>(referenceKeys.typeActions))?.data);
  registerOfflineSource('activeSites', async (userId) => (await readReference<ActiveSite[]>(referenceKeys.activeSites(userId)))?.data);
  // A request processed offline ('Traiter', then no network) is done once its entry is
  // replayed: say so (the runner itself has the board reload).
  onEntrySent((entry) => {
    if (entry.payload.values.some((b) => b.demandeIntervention !== null)) notifySuccess(PROCESSED_MESSAGE);
  });
}
