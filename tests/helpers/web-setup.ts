// The DOM of the tests (happy-dom, tests/helpers/web-environment.ts) lacks a few browser APIs
// Mantine relies on, or answers them from its own window size. Whole-screen tests that need more
// of a real browser (tables, phone widths) call behaveLikeABrowserForTables (web-screens.ts).
import '@testing-library/jest-dom/vitest';
import 'fake-indexeddb/auto';
import { notifications } from '@mantine/notifications';
import { afterEach } from 'vitest';
import { configure } from '@testing-library/react';

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
