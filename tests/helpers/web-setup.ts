// The DOM of the tests (happy-dom, tests/helpers/web-environment.ts) lacks a few browser APIs
// Mantine relies on, or answers them from its own window size. Whole-screen tests that need more
// of a real browser (tables, phone widths) call behaveLikeABrowserForTables (web-screens.ts).
import '@testing-library/jest-dom/vitest';
import 'fake-indexeddb/auto';
import { notifications } from '@mantine/notifications';
import { afterAll, afterEach } from 'vitest';
import { configure } from '@testing-library/react';
import { stopOutboxRunner } from '../../src/web/offline/outbox-runner';
import { QUERY_CACHE_KEY, queryCacheStorage, unfreezeForTests } from '../../src/web/offline/query-persist';
import { openOfflineDb } from '../../src/web/offline/store';
import { useConnectivityStore } from '../../src/web/offline/connectivity';
import { useSessionStore } from '../../src/web/session/session-store';
import { useUpdateStore } from '../../src/web/app/pwa';

// Screens load lazy chunks; on a loaded 2-core machine a first find may take seconds.
configure({ asyncUtilTimeout: 10_000 });

// A test file may run in Node instead (`// @vitest-environment node`): no DOM to complete there.
if (typeof window !== 'undefined') {
  // No media query matches, whatever the window's width (a screen test asks for the one it
  // needs, see web-screens.ts): the layouts are those of the narrowest screen.
  window.matchMedia = (query: string) =>
    ({
      matches: false,
      media: query,
      onchange: null,
      addListener: () => {},
      removeListener: () => {},
      addEventListener: () => {},
      removeEventListener: () => {},
      dispatchEvent: () => false,
    }) as MediaQueryList;
  class ResizeObserverStub {
    observe() {}
    unobserve() {}
    disconnect() {}
  }
  (globalThis as unknown as { ResizeObserver: unknown }).ResizeObserver ??= ResizeObserverStub;
  Element.prototype.scrollIntoView ??= function scrollIntoView() {};
}

// Toasts live in a module-level store that outlives each test's render: without this, the
// toasts of earlier tests fill Mantine's five visible places and a later test's toast waits
// in the queue, unseen.
afterEach(() => {
  notifications.clean();
});

// The screen files of a worker run one after the other in one page and one set of modules
// (vitest.config.ts: no isolation between files, for speed). What a page keeps for its lifetime
// is put back after each file, so that the next one starts as on a new page load: the outbox's
// triggers (an earlier file's session change would make them fetch), saves frozen by a logout,
// the session, connectivity and update stores, the page's storage, and the phone's data (the
// outbox, the copies kept offline): each file starts on a phone that holds nothing.
afterAll(async () => {
  stopOutboxRunner();
  unfreezeForTests();
  useSessionStore.setState(useSessionStore.getInitialState(), true);
  useConnectivityStore.setState(useConnectivityStore.getInitialState(), true);
  useUpdateStore.setState(useUpdateStore.getInitialState(), true);
  if (typeof window !== 'undefined') {
    localStorage.clear();
    sessionStorage.clear();
    const db = await openOfflineDb();
    await Promise.all([...db.tables.map((table) => table.clear()), queryCacheStorage.removeItem(QUERY_CACHE_KEY)]);
  }
});
