// Service worker registration (production builds only: the dev server has no sw.js).
// A new version never takes over silently: it waits until the user presses 'Mettre à jour'
// (update-prompt.tsx), then the page reloads once the new worker controls it.
import { create } from 'zustand';
import { browser } from '../lib/browser';

interface UpdateState {
  /** Set when a new version is installed and waiting; calling it switches to it. */
  applyUpdate: (() => void) | null;
}

export const useUpdateStore = create<UpdateState>()(() => ({ applyUpdate: null }));

const UPDATE_CHECK_EVERY_MS = 60 * 60_000;

export async function registerServiceWorker() {
  if (!import.meta.env.PROD || !('serviceWorker' in navigator)) return;
  // Loaded after the first screen: registering the worker is not needed to use it.
  const { Workbox } = await import('workbox-window');
  const wb = new Workbox('/sw.js', { scope: '/' });

  wb.addEventListener('waiting', () => {
    useUpdateStore.setState({
      applyUpdate: () => {
        wb.addEventListener('controlling', () => browser.reload());
        wb.messageSkipWaiting();
      },
    });
  });

  // Phones keep the app open for days: look for a new version when it comes back to the front.
  let lastCheck = Date.now();
  document.addEventListener('visibilitychange', () => {
    if (document.visibilityState !== 'visible' || Date.now() - lastCheck < UPDATE_CHECK_EVERY_MS) return;
    lastCheck = Date.now();
    wb.update().catch(() => {
      /* offline: try again next time */
    });
  });

  wb.register().catch((error: unknown) => console.error('service worker registration failed', error));
}
