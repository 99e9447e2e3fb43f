// Whether this page can work without network at all. The app opens offline only through its
// service worker, which browsers run on a secure origin alone (https, or localhost): the app
// served over plain http to a phone on the LAN loads, but nothing brings it back without
// network, and its storage is not one the browser promises to keep. The field screens then say
// so instead of promising to keep entries on the phone.
export type OfflineSupport = 'ok' | 'insecure' | 'unsupported';

export const INSECURE_ORIGIN_MESSAGE =
  'Mode hors ligne indisponible : cette adresse n’est pas sécurisée (https). Les saisies ne seront pas gardées sans réseau.';
export const NO_SERVICE_WORKER_MESSAGE =
  'Mode hors ligne indisponible : ce navigateur ne le permet pas (mode privé ou navigateur trop ancien). Les saisies ne seront pas gardées sans réseau.';

export function offlineSupport(): OfflineSupport {
  if (typeof window === 'undefined' || typeof navigator === 'undefined') return 'ok';
  // Only a browser that says so is trusted: one without the flag (very old, or a test DOM)
  // is given the benefit of the doubt.
  if (window.isSecureContext === false) return 'insecure';
  if (window.isSecureContext === true && !('serviceWorker' in navigator)) return 'unsupported';
  return 'ok';
}

/** The sentence that explains why entries cannot be kept without network; null when they can. */
export function offlineUnavailableMessage(support: OfflineSupport = offlineSupport()): string | null {
  if (support === 'insecure') return INSECURE_ORIGIN_MESSAGE;
  if (support === 'unsupported') return NO_SERVICE_WORKER_MESSAGE;
  return null;
}
