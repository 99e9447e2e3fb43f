// Serves the built PWA. Unknown non-API paths fall back to index.html (client-side
// routes): see the not-found handler in errors.ts.
import path from 'node:path';
import fp from 'fastify-plugin';
import fastifyStatic from '@fastify/static';

export default fp<{ root: string }>(async (app, opts) => {
  await app.register(fastifyStatic, {
    root: opts.root,
    wildcard: false,
    index: false,
    setHeaders(res, filePath) {
      // Hashed assets never change; the shell and the service worker must be re-checked.
      if (filePath.includes(`${path.sep}assets${path.sep}`)) res.header('cache-control', 'public, max-age=31536000, immutable');
      else res.header('cache-control', 'no-cache');
    },
  });
});
