// What component tests of whole screens share (happy-dom, on top of web-setup.ts): the browser
// behaviour the data tables need, and the check that a screen is refused to a role.
import { screen } from '@testing-library/react';
import type { RouteObject } from 'react-router';
import { afterAll, beforeAll, expect } from 'vitest';
import { loggedAs, mockApi, renderApp, type MockHandler } from './web-app';

/**
 * For the tests of the calling file (or describe block): matchMedia('') matches, as in a real
 * browser (the shared stub of web-setup.ts matches nothing, and mantine-datatable shows a column
 * only when its media query, '' by default, matches), and so do the queries of `alsoMatching`
 * (a phone's width, for a screen that shows cards there); elements scroll (a table goes back to
 * its top on a page change); document.fonts exists (Mantine's autosize textarea listens to it).
 * Call it at the top level of the file or of a describe block; the block's end restores the
 * matchMedia it found.
 */
export function behaveLikeABrowserForTables({ alsoMatching = [] }: { alsoMatching?: readonly string[] } = {}) {
  let previousMatchMedia: typeof window.matchMedia;
  beforeAll(() => {
    previousMatchMedia = window.matchMedia;
    Element.prototype.scrollTo ??= function scrollTo() {};
    if (!('fonts' in document)) Object.defineProperty(document, 'fonts', { configurable: true, value: { addEventListener() {}, removeEventListener() {} } });
    window.matchMedia = (query: string) => {
      // The environment's own list, with its methods bound to it (they are on its prototype,
      // which a spread would lose), and another answer to `matches`.
      const real = previousMatchMedia(query);
      return {
        media: real.media,
        onchange: null,
        matches: query.trim() === '' || alsoMatching.includes(query),
        addEventListener: real.addEventListener.bind(real),
        removeEventListener: real.removeEventListener.bind(real),
        addListener: real.addListener.bind(real),
        removeListener: real.removeListener.bind(real),
        dispatchEvent: real.dispatchEvent.bind(real),
      } as MediaQueryList;
    };
  });
  afterAll(() => {
    window.matchMedia = previousMatchMedia;
  });
}

/**
 * Opens `path` as an account holding only `roles` and expects the screen's role gate to refuse
 * it ('Accès non authorisé.'). `handlers` answers what the screen may still ask meanwhile.
 */
export async function expectScreenRefused(
  roles: string[],
  path: string,
  loggedRoutes: RouteObject[],
  opts: { handlers?: Record<string, MockHandler>; timeout?: number } = {},
) {
  const api = mockApi({ ...opts.handlers, 'GET /api/logged': loggedAs(roles) });
  renderApp(path, { loggedRoutes });
  expect(await screen.findByText('Accès non authorisé.', {}, { timeout: opts.timeout ?? 5000 })).toBeInTheDocument();
  return api;
}
