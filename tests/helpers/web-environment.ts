// The screens' test environment: happy-dom's document and window, with Node's own network
// objects (fetch, Request, Response, Headers, AbortController, AbortSignal) kept, as in a browser
// where the page's requests and their abort signals are one family. happy-dom's own fetch would
// really connect to its page's origin, and Node's Request refuses a signal that is not Node's.
// happy-dom runs the screen tests in about three quarters of the CPU time jsdom took (50 files).
import type { Environment } from 'vitest/runtime';
import { builtinEnvironments } from 'vitest/runtime';

const KEPT = ['fetch', 'Request', 'Response', 'Headers', 'AbortController', 'AbortSignal'] as const;

const happyDom = builtinEnvironments['happy-dom'];

export default {
  name: 'happy-dom-with-node-fetch',
  viteEnvironment: 'client',
  async setup(global, options) {
    const own = new Map(KEPT.map((k) => [k, (global as Record<string, unknown>)[k]]));
    const env = await happyDom.setup(global, options);
    for (const [k, v] of own) (global as Record<string, unknown>)[k] = v;
    return env;
  },
} satisfies Environment;
