// Leaving the app. GET /logout is a server route (it ends the session and redirects to
// /login), so logging out is a browser navigation. Other modules may object first: the
// offline outbox registers a guard that warns about entries not sent yet. What this person's
// screens kept on the phone is forgotten before the navigation.
//
//   const unregister = registerBeforeLogout(async () => window.confirm('...'));
import { browser } from '../lib/browser';
import { queryClient } from '../lib/query-client';
import { clearSessionSnapshots } from './bootstrap.api';

/** Resolves to false to keep the user logged in. */
export type BeforeLogoutGuard = () => boolean | Promise<boolean>;

const guards = new Set<BeforeLogoutGuard>();

export function registerBeforeLogout(guard: BeforeLogoutGuard): () => void {
  guards.add(guard);
  return () => {
    guards.delete(guard);
  };
}

/** Runs the guards in registration order, then navigates to /logout; false when a guard cancelled. */
export async function requestLogout(): Promise<boolean> {
  for (const guard of [...guards]) {
    let proceed: boolean;
    try {
      proceed = await guard();
    } catch (error) {
      // A guard that breaks must not let unsent work be abandoned silently.
      console.error('beforeLogout guard failed', error);
      proceed = false;
    }
    if (!proceed) return false;
  }
  clearSessionSnapshots();
  // What the field screens kept on the phone (board, history, sites) goes with the person.
  await import('../offline/query-persist').then((m) => m.forgetOnLogout(queryClient)).catch(() => undefined);
  browser.assign('/logout');
  return true;
}
