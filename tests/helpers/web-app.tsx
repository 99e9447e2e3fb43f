// For component tests only (vitest, happy-dom): a fake /api and the whole app rendered on a
// memory router.
//
//   const api = mockApi({ 'GET /api/logged': loggedAs(['ROLE_ADMIN']), 'POST /api/login': (req) => reply(400, {...}) });
//   renderApp('/admin', { loggedRoutes: [{ path: '/admin/site', element: <p>Sites</p> }] });
//   await screen.findByText('Sites');  expect(api.calls).toContainEqual(...)
//
// Bootstrap calls the shell makes on every start (logged, app info, action types, active
// sites) answer by default: logged out, 'Compost', no action types, no sites.
import { render } from '@testing-library/react';
import { QueryClient } from '@tanstack/react-query';
import { createMemoryRouter, RouterProvider, type RouteObject } from 'react-router';
import { vi } from 'vitest';
import type { Logged } from '../../src/shared/schemas/account';
import { AppProviders } from '../../src/web/app/providers';
import { buildRoutes } from '../../src/web/app/build-routes';
import { useSessionStore } from '../../src/web/session/session-store';

// The app loads these just after its first render (providers.tsx, app-layout.tsx); a test
// should not spend its wait for a toast, a modal or the account menu on compiling them.
await Promise.all([import('../../src/web/app/deferred-hosts'), import('../../src/web/app/account-menu')]);

export interface MockReply {
  status: number;
  body?: unknown;
}

export type MockHandler = MockReply | ((call: ApiCall) => MockReply | Promise<MockReply>);

export interface ApiCall {
  method: string;
  /** Path with query string, e.g. /api/logged */
  path: string;
  body: unknown;
}

export function reply(status: number, body?: unknown): MockReply {
  return { status, body };
}

export function loggedAs(roles: string[], user: Partial<NonNullable<Logged['user']>> = {}): MockReply {
  return reply(200, { logged: true, user: { id: 7, username: 'jean@exemple.fr', nom: 'DUPONT', prenom: 'Jean', roles, ...user } });
}

const DEFAULTS: Record<string, MockHandler> = {
  'GET /api/logged': reply(200, { logged: false, user: null }),
  'GET /api/app/info/get': reply(200, { appName: 'Compost', contact: '02 98 00 00 00' }),
  'GET /api/typeAction/get/all': reply(200, []),
  'GET /api/admin/site/get/all/actif': reply(200, []),
};

/**
 * Replaces fetch for the current test. Keys are 'METHOD /path' (query string ignored);
 * a handler may be the string 'network' to simulate a request that never reaches the server.
 */
export function mockApi(handlers: Record<string, MockHandler | 'network'> = {}) {
  const calls: ApiCall[] = [];
  const all = { ...DEFAULTS, ...handlers };
  // Node's Request refuses relative URLs; the browser resolves them against the page.
  const NodeRequest = globalThis.Request;
  class PageRequest extends NodeRequest {
    constructor(input: RequestInfo | URL, init?: RequestInit) {
      super(typeof input === 'string' ? new URL(input, window.location.href).href : input, init);
    }
  }
  vi.stubGlobal('Request', PageRequest);
  vi.stubGlobal(
    'fetch',
    vi.fn(async (input: RequestInfo | URL, init?: RequestInit) => {
      const request = input instanceof NodeRequest ? input : new PageRequest(input, init);
      const url = new URL(request.url);
      const text = await request.text();
      let body: unknown = text;
      try {
        body = text ? JSON.parse(text) : undefined;
      } catch {
        /* not JSON */
      }
      const call = { method: request.method, path: url.pathname + url.search, body };
      calls.push(call);
      const handler = all[`${request.method} ${url.pathname}`];
      if (handler === undefined) return json(404, { status: 'error', message: 'Ressource introuvable.' });
      if (handler === 'network') throw new TypeError('Failed to fetch');
      const answer = typeof handler === 'function' ? await handler(call) : handler;
      return json(answer.status, answer.body);
    }),
  );
  return { calls, callsTo: (method: string, path: string) => calls.filter((c) => c.method === method && c.path.split('?')[0] === path) };
}

function json(status: number, body: unknown) {
  return new Response(body === undefined ? null : JSON.stringify(body), { status, headers: { 'content-type': 'application/json' } });
}

/** Renders the whole app (gate, layout, routes) at `path` with these route groups. */
export function renderApp(path: string, groups: { publicRoutes?: RouteObject[]; loggedRoutes?: RouteObject[] } = {}) {
  useSessionStore.setState(useSessionStore.getInitialState(), true);
  const queryClient = new QueryClient({ defaultOptions: { queries: { retry: false }, mutations: { retry: false } } });
  const router = createMemoryRouter(buildRoutes({ publicRoutes: groups.publicRoutes ?? [], loggedRoutes: groups.loggedRoutes ?? [] }), {
    initialEntries: [path],
  });
  const view = render(
    <AppProviders queryClient={queryClient} env="test">
      <RouterProvider router={router} />
    </AppProviders>,
  );
  return { ...view, router, queryClient };
}
