// Whether the app can talk to the server: the browser's own flag (online/offline events) plus
// what the last outbox send found out (a phone "connected" to a dead hotspot says online), and
// why not: no network at all (nothing answered), or a server that is down (a gateway answered
// 502, 503 or 504: the network works, the app behind it does not).
import { create } from 'zustand';

/** network: nothing answered; server: the network answered for a server that is down. */
export type UnreachableCause = 'network' | 'server';

interface ConnectivityState {
  browserOnline: boolean;
  /** The last request that should have reached the server did not get an answer. */
  serverUnreachable: boolean;
  /** Why, when serverUnreachable. */
  cause: UnreachableCause;
}

export const useConnectivityStore = create<ConnectivityState>()(() => ({
  browserOnline: typeof navigator === 'undefined' ? true : navigator.onLine,
  serverUnreachable: false,
  cause: 'network',
}));

export function reportReachable(reachable: boolean, cause: UnreachableCause = 'network') {
  const state = useConnectivityStore.getState();
  if (reachable) {
    if (state.serverUnreachable) useConnectivityStore.setState({ serverUnreachable: false });
    return;
  }
  if (state.serverUnreachable && state.cause === cause) return;
  useConnectivityStore.setState({ serverUnreachable: true, cause });
}

/** null while the server answers; otherwise why it cannot be reached (the browser's own flag first). */
export function offlineCause(state: Pick<ConnectivityState, 'browserOnline' | 'serverUnreachable' | 'cause'>): UnreachableCause | null {
  if (!state.browserOnline) return 'network';
  return state.serverUnreachable ? state.cause : null;
}

/** Live offlineCause: 'network' shows as 'Hors ligne', 'server' as 'Serveur indisponible'. */
export function useOfflineCause(): UnreachableCause | null {
  return useConnectivityStore(offlineCause);
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
