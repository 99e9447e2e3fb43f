// Whether the app can talk to the server: the browser's own flag (online/offline events) plus
// what the last outbox send found out (a phone "connected" to a dead hotspot says online).
import { create } from 'zustand';

interface ConnectivityState {
  browserOnline: boolean;
  /** The last request that should have reached the server did not get an answer. */
  serverUnreachable: boolean;
}

export const useConnectivityStore = create<ConnectivityState>()(() => ({
  browserOnline: typeof navigator === 'undefined' ? true : navigator.onLine,
  serverUnreachable: false,
}));

export function reportReachable(reachable: boolean) {
  if (useConnectivityStore.getState().serverUnreachable === !reachable) return;
  useConnectivityStore.setState({ serverUnreachable: !reachable });
}

export function isOfflineNow(): boolean {
  const { browserOnline, serverUnreachable } = useConnectivityStore.getState();
  return !browserOnline || serverUnreachable;
}

export function useIsOffline(): boolean {
  return useConnectivityStore((s) => !s.browserOnline || s.serverUnreachable);
}

let listening = false;

/** Follows the browser's online/offline events; idempotent. */
export function watchConnectivity() {
  if (listening || typeof window === 'undefined') return;
  listening = true;
  window.addEventListener('online', () => useConnectivityStore.setState({ browserOnline: true, serverUnreachable: false }));
  window.addEventListener('offline', () => useConnectivityStore.setState({ browserOnline: false }));
}
